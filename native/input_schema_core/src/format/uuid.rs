//! `uuid` (RFC 4122, section 3): the string representation, 32 hex digits
//! in groups of 8, 4, 4, 4 and 12 separated by `-`, either case. Any
//! version and variant (the nil UUID included): the format is the text
//! form, not a check of the fields' meaning.

/// `uuid`.
pub(super) fn uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(at, &b)| match at {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    #[test]
    fn uuids() {
        for valid in [
            "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
            "2eb8aa08-AA98-11ea-B4Aa-73B441D16380",
            "00000000-0000-0000-0000-000000000000",
            "ffffffff-ffff-ffff-ffff-ffffffffffff",
            "99c17cbb-656f-f64a-940f-1a4568f03487",
        ] {
            assert!(uuid(valid), "{valid}");
        }
        for invalid in [
            "",
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
            "2eb8aa08-aa98-11ea-b4aa-73b441d163800",
            "2eb8aa08-aa98-11ea-73b441d16380",
            "2eb8aa08-aa98-11ea-b4ga-73b441d16380",
            "2eb8aa08aa9811eab4aa73b441d16380",
            "2eb8aa08aa98-11ea-b4aa73b441d16380",
            "2eb8-aa08-aa98-11ea-b4aa73b44-1d16380",
            "2eb8aa08aa9811eab4aa73b441d16380----",
            "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
            "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638\u{e9}",
        ] {
            assert!(!uuid(invalid), "{invalid:?}");
        }
    }
}
