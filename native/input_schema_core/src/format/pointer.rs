//! `json-pointer` (RFC 6901, section 3) and `relative-json-pointer`
//! (draft-bhutton-relative-json-pointer-00, section 3).
//!
//! ```text
//! json-pointer    = *( "/" reference-token )
//! reference-token = *( unescaped / escaped )       ; escaped = "~" ( "0" / "1" )
//! relative-json-pointer = non-negative-integer [index-manipulation] ( json-pointer / "#" )
//! index-manipulation    = ( "+" / "-" ) non-negative-integer
//! non-negative-integer  = %x30 / %x31-39 *%x30-39
//! ```
//!
//! Index manipulation arrived with the 2020-12 draft of Relative JSON
//! Pointer; the official test suite expects it in every dialect that has
//! the format (draft 7 on), and `check` is one grammar for all of them, so
//! it is accepted throughout. The pointer is the string itself, not a URI
//! fragment (`#/a` is not a JSON Pointer).

use super::{step, steps};

/// `json-pointer`.
pub(super) fn json_pointer(text: &str) -> bool {
    pointer(text.as_bytes())
}

fn pointer(bytes: &[u8]) -> bool {
    if bytes.first().is_some_and(|&b| b != b'/') {
        return false;
    }
    let mut tokens = bytes.iter();
    while let Some(&b) = tokens.next() {
        step();
        if b == b'~' && !matches!(tokens.next(), Some(b'0' | b'1')) {
            return false;
        }
    }
    true
}

/// `relative-json-pointer`.
pub(super) fn relative_json_pointer(text: &str) -> bool {
    let Some(rest) = non_negative_integer(text.as_bytes()) else {
        return false;
    };
    let rest = match rest.split_first() {
        Some((b'+' | b'-', after)) => match non_negative_integer(after) {
            Some(rest) => rest,
            None => return false,
        },
        _ => rest,
    };
    rest == b"#" || pointer(rest)
}

/// A `non-negative-integer` at the start of `bytes`, and what follows.
fn non_negative_integer(bytes: &[u8]) -> Option<&[u8]> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    steps(digits);
    if digits == 0 || (digits > 1 && bytes.first() == Some(&b'0')) {
        return None;
    }
    bytes.get(digits..)
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
    fn pointers() {
        for valid in [
            "",
            "/",
            "//",
            "/foo",
            "/foo/0",
            "/foo/bar~0/baz~1/%a",
            "/a~1b",
            "/m~0n",
            "/ ",
            "/\u{e9}",
            "/foo/-",
            "/~1~0~0~1~1",
            "/~0.1",
            "/c%d",
            "/e^f",
            "/g|h",
            "/i\\j",
            "/k\"l",
            "/foo/bar/",
        ] {
            assert!(json_pointer(valid), "{valid}");
        }
        for invalid in [
            "a",
            "0",
            "#",
            "#/",
            "#/a",
            "a/a",
            "/foo/bar~",
            "/~2",
            "/~-1",
            "/~~",
            "/~0~",
            "/~0/~",
            "/~a",
        ] {
            assert!(!json_pointer(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn relative_pointers() {
        for valid in [
            "0",
            "1",
            "120",
            "100",
            "0/foo/bar",
            "2/0/baz/1/zip",
            "0#",
            "0+1",
            "0+1/foo",
            "1-2/bar",
            "0-0",
            "0-1#",
            "0//",
            "0/",
            "10/~0",
        ] {
            assert!(relative_json_pointer(valid), "{valid}");
        }
        for invalid in [
            "",
            "/foo/bar",
            "-1/foo/bar",
            "+1/foo/bar",
            "01/a",
            "01#",
            "0##",
            "0#/a",
            "1#/foo/bar",
            "0+",
            "0-01",
            "0++1",
            "0+-1",
            "0+1not-a-pointer",
            "1foo",
            "0/~2",
            "0/foo/bar~",
            "1\n",
            "\u{661}/foo",
            "#",
            "0 ",
        ] {
            assert!(!relative_json_pointer(invalid), "{invalid:?}");
        }
    }
}
