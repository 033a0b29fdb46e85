/* bcryptprimitives.dll for wine 8.0 (Debian 12's wine64), which lacks it.

   Rust's std on Windows imports ProcessPrng from bcryptprimitives.dll
   (since Rust 1.78: the keys of every HashMap, among others), so without
   this DLL every Rust .exe dies at load under wine 8.0 with "Library
   bcryptprimitives.dll ... not found, status c0000135", before main runs.
   .ci/windows builds it with mingw and copies it into the wine prefix's
   system32, where every test binary finds it. Windows itself (8 and
   later) has the DLL, and wine has one from 8.13 on (as reported in
   aldanor/hdf5-rust#286); on such a wine this file can go.

   ProcessPrng is documented never to fail and to fill the whole buffer.
   RtlGenRandom (advapi32's SystemFunction036) is what wine 8.0 has: called
   in chunks, since its length is a ULONG. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
