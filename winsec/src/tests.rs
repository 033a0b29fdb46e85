//! The SID and ACL formats, and the rule, on every platform.

use super::*;

fn sid(s: &str) -> Sid {
    s.parse().expect("a SID")
}

#[test]
fn a_sid_reads_and_writes_its_string_form() {
    for s in [
        "S-1-5-18",
        "S-1-5-32-544",
        "S-1-5-21-1004336348-1177238915-682003330-512",
        "S-1-1-0",
        "S-1-5",
    ] {
        assert_eq!(sid(s).to_string(), s);
        assert_eq!(Sid::from_bytes(sid(s).as_bytes()), Some(sid(s)));
    }
    assert_eq!(Sid::local_system(), sid("S-1-5-18"));
    assert_eq!(Sid::administrators(), sid("S-1-5-32-544"));
    assert_eq!(
        Sid::trusted_installer(),
        sid("S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464")
    );
    assert_eq!(format!("{:?}", Sid::local_system()), "Sid(S-1-5-18)");
    // An authority of 2^32 or more is written in hexadecimal.
    let big = Sid::from_bytes(&[1, 1, 0, 1, 0, 0, 0, 0, 7, 0, 0, 0]).expect("a SID");
    assert_eq!(big.to_string(), "S-1-0x000100000000-7");
    let bytes = sid("S-1-5-32-544").as_bytes().to_vec();
    assert_eq!(bytes, [1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 32, 2, 0, 0]);
}

#[test]
fn what_is_not_a_sid_is_refused() {
    for s in [
        "",
        "S-2-5-18",
        "X-1-5",
        "S-1",
        "S-1-x",
        "S-1-5-x",
        "S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16",
    ] {
        assert_eq!(s.parse::<Sid>(), Err(NotASid(s.to_owned())), "{s}");
    }
    assert!(
        NotASid("x".into())
            .to_string()
            .starts_with("`x` is not a SID")
    );
    let good = sid("S-1-5-32-544").as_bytes().to_vec();
    assert_eq!(Sid::from_bytes(&good[..good.len() - 1]), None, "short");
    assert_eq!(
        Sid::from_bytes(&[good.clone(), vec![0]].concat()),
        None,
        "long"
    );
    let mut revision = good.clone();
    revision[0] = 2;
    assert_eq!(Sid::from_bytes(&revision), None, "revision");
    let mut many = vec![1, 16, 0, 0, 0, 0, 0, 5];
    many.extend([0; 64]);
    assert_eq!(Sid::from_bytes(&many), None, "16 sub-authorities");
    let mut fifteen = vec![1, 15, 0, 0, 0, 0, 0, 5];
    fifteen.extend([0; 60]);
    assert!(Sid::from_bytes(&fifteen).is_some(), "15 sub-authorities");
    let most = "S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15";
    assert_eq!(sid(most).to_string(), most, "15 sub-authorities, as text");
    assert_eq!(Sid::from_bytes(&[]), None);
}

fn ace(kind: AceKind, flags: u8, mask: u32, who: &str) -> Ace {
    Ace {
        kind,
        flags,
        mask,
        sid: sid(who),
    }
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn an_acl_built_parses_back_to_its_entries() {
    let aces = vec![
        ace(AceKind::Allowed, 0, rights::FULL, "S-1-5-21-1-2-3-1001"),
        ace(AceKind::Denied, Ace::INHERIT_ONLY, rights::WRITE, "S-1-1-0"),
    ];
    let built = bytes(&build_acl(&aces));
    assert_eq!(built.len(), 8 + (8 + 28) + (8 + 12));
    assert_eq!(&built[..8], &[2, 0, 64, 0, 2, 0, 0, 0]);
    assert_eq!(parse_acl(&built), Ok(aces));
    assert_eq!(parse_acl(&bytes(&build_acl(&[]))), Ok(vec![]));
    // An ACL whose size leaves room after its entries is read by its count.
    let mut padded = built.clone();
    padded[2] = 72;
    padded.extend([0; 8]);
    assert_eq!(parse_acl(&padded).map(|a| a.len()), Ok(2));
}

#[test]
fn an_acl_that_does_not_parse_is_said_so() {
    let one = bytes(&build_acl(&[ace(AceKind::Allowed, 0, 1, "S-1-5-18")]));
    let said = |bytes: &[u8]| parse_acl(bytes).expect_err("refused").to_string();
    assert_eq!(said(&one[..7]), "its DACL is shorter than its header");
    let mut revision = one.clone();
    revision[0] = 3;
    assert_eq!(said(&revision), "its DACL is of revision 3");
    let mut four = one.clone();
    four[0] = 4;
    assert!(
        parse_acl(&four).is_ok(),
        "revision 4 (object entries) is read"
    );
    assert_eq!(
        said(&one[..one.len() - 1]),
        "its DACL says it is 28 bytes long"
    );
    let mut count = one.clone();
    count[4] = 2;
    assert_eq!(
        said(&count),
        "its DACL entry 1 is shorter than an entry's header"
    );
    let mut kind = one.clone();
    kind[8] = 5;
    assert_eq!(
        said(&kind),
        "its DACL entry 0 is of type 5, which is not read"
    );
    let mut size = one.clone();
    size[10] = 4;
    assert_eq!(said(&size), "its DACL entry 0 says it is 4 bytes long");
    size[10] = 30;
    assert_eq!(said(&size), "its DACL entry 0 says it is 30 bytes long");
    let mut no_sid = one.clone();
    no_sid[16] = 9;
    assert_eq!(said(&no_sid), "its DACL entry 0 holds no SID that parses");
    let mut long_sid = one.clone();
    long_sid[17] = 2;
    assert_eq!(said(&long_sid), "its DACL entry 0 holds no SID that parses");
}

/// The user the rule is asked for.
const ME: &str = "S-1-5-21-1-2-3-1001";
/// Another user.
const OTHER: &str = "S-1-5-21-1-2-3-1002";

/// A file [`ME`] owns, whose DACL holds `aces`.
fn my_file(aces: Vec<Ace>) -> Security {
    Security {
        owner: Some(sid(ME)),
        dacl: Some(aces),
    }
}

/// An entry that allows `who` the rights of `mask`.
fn allowed(mask: u32, who: &str) -> Ace {
    ace(AceKind::Allowed, 0, mask, who)
}

/// Whom besides [`ME`] `security` grants any of `rights`.
fn found(security: &Security, rights: u32) -> Option<Option<Sid>> {
    security.granted_to_others(&sid(ME), rights)
}

#[test]
fn only_others_allowed_entries_that_apply_to_the_file_count() {
    assert_eq!(found(&my_file(vec![]), rights::WRITE), None);
    let mine = my_file(vec![allowed(rights::FULL, ME)]);
    assert_eq!(found(&mine, rights::WRITE), None);
    let admins = my_file(vec![
        allowed(rights::FULL, "S-1-5-18"),
        allowed(rights::FULL, "S-1-5-32-544"),
    ]);
    assert_eq!(found(&admins, rights::WRITE | rights::READ), None);
    let theirs = my_file(vec![allowed(rights::WRITE_DATA, OTHER)]);
    assert_eq!(found(&theirs, rights::WRITE), Some(Some(sid(OTHER))));
    assert_eq!(found(&theirs, rights::READ), None);
    let inherit_only = my_file(vec![ace(
        AceKind::Allowed,
        Ace::INHERIT_ONLY,
        rights::FULL,
        OTHER,
    )]);
    assert_eq!(found(&inherit_only, rights::WRITE), None);
    let inherited = my_file(vec![ace(
        AceKind::Allowed,
        Ace::INHERITED_BY_ALL,
        rights::FULL,
        OTHER,
    )]);
    assert_eq!(found(&inherited, rights::WRITE), Some(Some(sid(OTHER))));
    let denied = my_file(vec![ace(AceKind::Denied, 0, rights::FULL, OTHER)]);
    assert_eq!(found(&denied, rights::WRITE), None);
    let null = Security {
        owner: None,
        dacl: None,
    };
    assert_eq!(found(&null, rights::READ), Some(None));
    // Each right of WRITE counts on its own; reading does not.
    for right in [
        rights::WRITE_DATA,
        rights::APPEND_DATA,
        rights::DELETE,
        rights::WRITE_DAC,
        rights::WRITE_OWNER,
        rights::GENERIC_WRITE,
        rights::GENERIC_ALL,
    ] {
        let s = my_file(vec![allowed(right, OTHER)]);
        assert_eq!(
            found(&s, rights::WRITE),
            Some(Some(sid(OTHER))),
            "{right:#x}"
        );
    }
    let s = my_file(vec![allowed(
        rights::READ_DATA | rights::GENERIC_READ,
        OTHER,
    )]);
    assert_eq!(found(&s, rights::WRITE), None);
    assert_eq!(found(&s, rights::READ), Some(Some(sid(OTHER))));
}

#[test]
fn each_right_of_replace_entry_and_of_read_counts_on_its_own() {
    for (set, each) in [
        (
            rights::REPLACE_ENTRY,
            &[
                rights::DELETE_CHILD,
                rights::DELETE,
                rights::WRITE_DAC,
                rights::WRITE_OWNER,
                rights::GENERIC_WRITE,
                rights::GENERIC_ALL,
            ][..],
        ),
        (
            rights::READ,
            &[
                rights::READ_DATA,
                rights::GENERIC_READ,
                rights::GENERIC_ALL,
                rights::WRITE_DAC,
                rights::WRITE_OWNER,
            ][..],
        ),
    ] {
        for &right in each {
            let s = my_file(vec![allowed(right, OTHER)]);
            assert_eq!(
                found(&s, set),
                Some(Some(sid(OTHER))),
                "{set:#x} {right:#x}"
            );
        }
    }
    // Adding an entry to a directory replaces none.
    let s = my_file(vec![allowed(
        rights::WRITE_DATA | rights::APPEND_DATA,
        OTHER,
    )]);
    assert_eq!(found(&s, rights::REPLACE_ENTRY), None);
    let s = my_file(vec![allowed(rights::DELETE_CHILD, OTHER)]);
    assert_eq!(found(&s, rights::REPLACE_ENTRY), Some(Some(sid(OTHER))));
}

#[test]
fn the_private_dacl_is_one_entry_of_full_control() {
    let me = sid("S-1-5-21-1-2-3-1001");
    let file = Security::private_dacl(&me, false);
    assert_eq!(
        file,
        vec![ace(
            AceKind::Allowed,
            0,
            rights::FULL,
            "S-1-5-21-1-2-3-1001"
        )]
    );
    let dir = Security::private_dacl(&me, true);
    assert_eq!(dir[0].flags, 0x03);
    assert!(Sid::local_system().is_system_or_administrators());
    assert!(Sid::administrators().is_system_or_administrators());
    assert!(!me.is_system_or_administrators());
    assert_eq!(BadAcl("x".into()).to_string(), "its DACL x");
}
