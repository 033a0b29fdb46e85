//! The calls into Windows: the only `unsafe` code of the workspace's
//! libraries, each block with why it is sound beside it.
//!
//! Every pointer handed to Windows is one of three kinds: a handle borrowed
//! from a `File` (or the token's, owned by an `OwnedHandle`) that outlives
//! the call; an out-pointer to a local of the type the call writes; or a
//! buffer this module made, of the length it passes and aligned as the type
//! read from it. What Windows allocates for us (`GetSecurityInfo`'s
//! security descriptor) is freed once, by [`LocalBlock`]'s `Drop`, after
//! everything read from it was copied out.

use std::fs::File;
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::ptr;

use windows_sys::Win32::Foundation::{ERROR_SUCCESS, HANDLE, HLOCAL, LocalFree};
use windows_sys::Win32::Security::Authorization::{
    GetSecurityInfo, SE_FILE_OBJECT, SetSecurityInfo,
};
use windows_sys::Win32::Security::{
    ACL, CheckTokenMembership, DACL_SECURITY_INFORMATION, GetLengthSid, GetTokenInformation,
    IsValidSid, OWNER_SECURITY_INFORMATION, PROTECTED_DACL_SECURITY_INFORMATION,
    PSECURITY_DESCRIPTOR, PSID, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

use crate::{BadAcl, Security, Sid, build_acl, parse_acl};

/// A block `GetSecurityInfo` allocated with `LocalAlloc`, freed when
/// dropped.
struct LocalBlock(PSECURITY_DESCRIPTOR);

impl Drop for LocalBlock {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer is the security descriptor
            // GetSecurityInfo returned, which it allocated with LocalAlloc
            // (its documentation: "free it with LocalFree"); this is its
            // only owner and frees it once, after every SID and ACL read
            // from inside it was copied out.
            unsafe { LocalFree(self.0 as HLOCAL) };
        }
    }
}

/// A Windows status as an `io::Error`.
fn status_error(status: u32) -> io::Error {
    io::Error::from_raw_os_error(status as i32)
}

/// The SID at `sid`, copied; `None` for a null pointer.
///
/// # Safety
/// `sid` is null or points at a SID Windows wrote, inside a block that
/// stays alive for the call.
unsafe fn copy_sid(sid: PSID) -> io::Result<Option<Sid>> {
    if sid.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller's promise: `sid` points at a SID in live memory;
    // IsValidSid checks its revision and count before GetLengthSid reads
    // the length they give (8 + 4 × count bytes, all inside that SID), and
    // the slice covers exactly those bytes, read only while the block
    // lives.
    let bytes = unsafe {
        if IsValidSid(sid) == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "Windows gave a SID that is not valid",
            ));
        }
        std::slice::from_raw_parts(sid as *const u8, GetLengthSid(sid) as usize)
    };
    Sid::from_bytes(bytes).map(Some).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "Windows gave a SID of a revision other than 1",
        )
    })
}

impl Security {
    /// Returns the owner and DACL of the file or directory `file` (opened
    /// with at least `READ_CONTROL` access, which std's `read(true)` asks
    /// for), read on its handle with `GetSecurityInfo`.
    ///
    /// # Errors
    /// The system's error when the security cannot be read, and
    /// `InvalidData` for a SID or a DACL that does not parse ([`BadAcl`]).
    pub fn of_file(file: &File) -> io::Result<Security> {
        let mut owner: PSID = ptr::null_mut();
        let mut dacl: *mut ACL = ptr::null_mut();
        let mut block: PSECURITY_DESCRIPTOR = ptr::null_mut();
        // SAFETY: the handle is borrowed from `file`, open for the whole
        // call; `owner`, `dacl` and `block` are out-pointers to locals of
        // the types GetSecurityInfo writes (PSID, PACL,
        // PSECURITY_DESCRIPTOR); the group and SACL pointers are null, as
        // neither is asked for (only OWNER_ and DACL_SECURITY_INFORMATION).
        let status = unsafe {
            GetSecurityInfo(
                file.as_raw_handle() as HANDLE,
                SE_FILE_OBJECT,
                OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                &mut owner,
                ptr::null_mut(),
                &mut dacl,
                ptr::null_mut(),
                &mut block,
            )
        };
        if status != ERROR_SUCCESS {
            return Err(status_error(status));
        }
        let block = LocalBlock(block);
        // SAFETY: `owner` is null or points inside `block`'s descriptor,
        // alive until `block` drops at the end of this function.
        let owner = unsafe { copy_sid(owner) }?;
        let dacl = match dacl.is_null() {
            true => None,
            false => {
                // SAFETY: `dacl` points at the ACL inside `block`'s
                // descriptor (alive until `block` drops), which Windows
                // aligns as an ACL; its header's AclSize is the number of
                // bytes the ACL spans there, all of them inside the block,
                // and the slice is copied before the block is freed.
                let bytes = unsafe {
                    let size = usize::from((*dacl).AclSize);
                    std::slice::from_raw_parts(dacl as *const u8, size).to_vec()
                };
                Some(parse_acl(&bytes).map_err(invalid)?)
            }
        };
        drop(block);
        Ok(Security { owner, dacl })
    }
}

fn invalid(e: BadAcl) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// This process's token, opened for queries.
fn process_token() -> io::Result<OwnedHandle> {
    let mut token: HANDLE = ptr::null_mut();
    // SAFETY: GetCurrentProcess returns a pseudo-handle that needs no
    // closing; `token` is an out-pointer to a local HANDLE.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: OpenProcessToken succeeded, so `token` is a handle just
    // opened for us, owned by nothing else: the OwnedHandle closes it once.
    Ok(unsafe { OwnedHandle::from_raw_handle(token) })
}

/// Returns the SID of the user this process runs as (its token's user).
///
/// # Errors
/// The system's error when the token cannot be opened or read.
pub fn current_user() -> io::Result<Sid> {
    let token = process_token()?;
    let mut len = 0u32;
    // SAFETY: a null buffer of length 0 asks only for the length needed,
    // written to `len`, a local; the token handle is owned by `token`,
    // open for the call. The call fails (ERROR_INSUFFICIENT_BUFFER) by
    // design, and `len` is what it is for.
    unsafe {
        GetTokenInformation(
            token.as_raw_handle() as HANDLE,
            TokenUser,
            ptr::null_mut(),
            0,
            &mut len,
        )
    };
    // 8-byte words: a TOKEN_USER holds a pointer, so the buffer is
    // aligned as one, and it spans at least `len` bytes.
    let mut buffer = vec![0u64; (len as usize).div_ceil(8).max(2)];
    let size = u32::try_from(buffer.len() * 8).unwrap_or(u32::MAX);
    // SAFETY: `buffer` is writable for `size` bytes (its length in bytes)
    // and aligned for TOKEN_USER; `len` is a local; the token is open.
    let ok = unsafe {
        GetTokenInformation(
            token.as_raw_handle() as HANDLE,
            TokenUser,
            buffer.as_mut_ptr().cast(),
            size,
            &mut len,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: on success the buffer starts with a TOKEN_USER (aligned, in
    // bounds), whose User.Sid points at the SID GetTokenInformation wrote
    // further into the same buffer, alive until `buffer` drops after this.
    let sid = unsafe {
        let user = &*(buffer.as_ptr().cast::<TOKEN_USER>());
        copy_sid(user.User.Sid)
    }?;
    sid.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "the token has no user SID"))
}

/// Returns whether this process's token is in the Administrators group
/// (an elevated administrator's is; a filtered, unelevated one's is not).
///
/// # Errors
/// The system's error when membership cannot be checked.
pub fn is_administrator() -> io::Result<bool> {
    let admins = words(Sid::administrators().as_bytes());
    let mut member = 0;
    // SAFETY: a null token asks about this thread's (or process's) own
    // token; the SID is read from `admins`, a well-formed SID (built by
    // `Sid::administrators`) in a buffer of u32 words, aligned as a SID and
    // alive for the call, which only reads it; `member` is an out-pointer
    // to a local BOOL.
    let ok = unsafe {
        CheckTokenMembership(
            ptr::null_mut(),
            admins.as_ptr().cast_mut().cast(),
            &mut member,
        )
    };
    if ok == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(member != 0)
}

/// Gives the file or directory `file` (opened with `WRITE_DAC` access) a
/// protected DACL with one entry: the running user's full control,
/// inherited by what is made inside when `inheritable` (a directory's).
/// Entries it inherited are dropped, and none are inherited after.
///
/// # Errors
/// The system's error when the user cannot be told or the DACL cannot be
/// set.
pub fn make_private(file: &File, inheritable: bool) -> io::Result<()> {
    let me = current_user()?;
    let acl = build_acl(&Security::private_dacl(&me, inheritable));
    // SAFETY: the handle is borrowed from `file`, open for the call; `acl`
    // is a well-formed ACL (built by `build_acl`: its header's size and
    // count are those of the one entry that follows), in u32 words,
    // aligned as an ACL and alive for the call, which only reads it; the
    // owner, group and SACL are null, as they are not set.
    let status = unsafe {
        SetSecurityInfo(
            file.as_raw_handle() as HANDLE,
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
            ptr::null_mut(),
            ptr::null_mut(),
            acl.as_ptr().cast(),
            ptr::null(),
        )
    };
    match status {
        ERROR_SUCCESS => Ok(()),
        status => Err(status_error(status)),
    }
}

/// `bytes` (a SID's: 8 + 4n of them) in u32 words, aligned as a SID.
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}
