//! `uri-template` (RFC 6570, section 2: the level 4 grammar).
//!
//! ```text
//! URI-Template  = *( literals / expression )
//! expression    = "{" [ operator ] variable-list "}"
//! operator      = "+" / "#" / "." / "/" / ";" / "?" / "&" / "=" / "," / "!" / "@" / "|"
//! variable-list = varspec *( "," varspec )
//! varspec       = varname [ ":" max-length / "*" ]
//! varname       = varchar *( ["."] varchar )        ; varchar = ALPHA / DIGIT / "_" / pct-encoded
//! max-length    = %x31-39 0*3DIGIT                  ; 1 to 9999
//! ```
//!
//! Literals are any character but controls, space, `"`, `%` (other than in
//! a percent-encoded octet), `<`, `>`, `\`, `^`, `` ` ``, `{`, `|` and `}`,
//! with non-ASCII limited to `ucschar` and `iprivate`. The apostrophe is a
//! valid literal: the grammar's `%x28-3B` leaves it out, but it is a URI
//! sub-delimiter that a template must be able to copy (RFC 6570 erratum
//! 6937, and the official test suite). The operators `=`, `,`, `!`, `@` and
//! `|` are reserved for future extensions but part of the grammar, so valid.

use super::{in_ranges, step, AsciiSet};

/// The ASCII literals: `%x21 / %x23-24 / %x26-3B / %x3D / %x3F-5B / %x5D /
/// %x5F / %x61-7A / %x7E` (the apostrophe, `%x27`, included).
const LITERALS: AsciiSet = AsciiSet::of(b"!#$=]_~")
    .union(AsciiSet::range(0x26, 0x3B))
    .union(AsciiSet::range(0x3F, 0x5B))
    .union(AsciiSet::range(0x61, 0x7A));

/// RFC 3987 `ucschar` and `iprivate`, which RFC 6570 literals may hold.
const UNICODE_LITERALS: &[(u32, u32)] = &[
    (0xA0, 0xD7FF),
    (0xE000, 0xFDCF),
    (0xFDF0, 0xFFEF),
    (0x10000, 0x1FFFD),
    (0x20000, 0x2FFFD),
    (0x30000, 0x3FFFD),
    (0x40000, 0x4FFFD),
    (0x50000, 0x5FFFD),
    (0x60000, 0x6FFFD),
    (0x70000, 0x7FFFD),
    (0x80000, 0x8FFFD),
    (0x90000, 0x9FFFD),
    (0xA0000, 0xAFFFD),
    (0xB0000, 0xBFFFD),
    (0xC0000, 0xCFFFD),
    (0xD0000, 0xDFFFD),
    (0xE1000, 0xEFFFD),
    (0xF0000, 0xFFFFD),
    (0x100000, 0x10FFFD),
];

/// `uri-template`.
pub(super) fn uri_template(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        step();
        at = match b {
            b'{' => match expression(bytes, at + 1) {
                Some(end) => end,
                None => return false,
            },
            b'%' if pct_encoded(bytes, at) => at + 3,
            _ if LITERALS.contains(b) => at + 1,
            _ if b.is_ascii() => return false,
            _ => match text.get(at..).and_then(|rest| rest.chars().next()) {
                Some(c)
                    if (0xA0..=0xD7FF).contains(&u32::from(c))
                        || in_ranges(UNICODE_LITERALS, u32::from(c)) =>
                {
                    at + c.len_utf8()
                }
                _ => return false,
            },
        };
    }
    true
}

fn pct_encoded(bytes: &[u8], at: usize) -> bool {
    bytes.get(at) == Some(&b'%')
        && bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
        && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// After a `{`: the index just past the expression's `}`.
fn expression(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    if matches!(
        bytes.get(at)?,
        b'+' | b'#' | b'.' | b'/' | b';' | b'?' | b'&' | b'=' | b',' | b'!' | b'@' | b'|'
    ) {
        at += 1;
    }
    loop {
        at = varname(bytes, at)?;
        match bytes.get(at)? {
            b':' => {
                at += 1;
                let digits = bytes.get(at..)?.iter().take_while(|b| b.is_ascii_digit()).count();
                if !(1..=4).contains(&digits) || bytes.get(at) == Some(&b'0') {
                    return None;
                }
                at += digits;
            }
            b'*' => at += 1,
            _ => {}
        }
        match bytes.get(at)? {
            b',' => at += 1,
            b'}' => return Some(at + 1),
            _ => return None,
        }
    }
}

/// `varname`: the index just past it.
fn varname(bytes: &[u8], start: usize) -> Option<usize> {
    let varchar = |at: usize| -> Option<usize> {
        match bytes.get(at)? {
            b if b.is_ascii_alphanumeric() || *b == b'_' => Some(at + 1),
            b'%' if pct_encoded(bytes, at) => Some(at + 3),
            _ => None,
        }
    };
    let mut at = varchar(start)?;
    loop {
        step();
        if let Some(next) = varchar(at) {
            at = next;
        } else if bytes.get(at) == Some(&b'.') {
            at = varchar(at + 1)?;
        } else {
            return Some(at);
        }
    }
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
    fn templates() {
        for valid in [
            "",
            "http://example.com/dictionary/{term:1}/{term}",
            "http://example.com/dictionary",
            "dictionary/{term:1}/{term}",
            "{var}",
            "{+var}",
            "{#var}",
            "{.var}",
            "{/var}",
            "{;var}",
            "{?var}",
            "{&var}",
            "{=var}",
            "{var*}",
            "{x,y}",
            "{a.b}",
            "{%41}",
            "{a%41.b_1}",
            "{v:1000}",
            "{v:9999}",
            "{?x,y:3,list*}",
            "a%41b",
            "a'b",
            "a\u{1F600}b",
            "a\u{E000}b",
            "a\u{F0000}b",
            "http://example.com/~{user}/{;x,y}{?q}{&r}{#frag}",
        ] {
            assert!(uri_template(valid), "{valid}");
        }
        for invalid in [
            "http://example.com/dictionary/{term:1}/{term",
            "{}",
            "{a,,b}",
            "{a,}",
            "{,+var}",
            "{+}",
            "{v:0}",
            "{v:01}",
            "{v:10000}",
            "{v:}",
            "{v*:3}",
            "{v**}",
            "{a..b}",
            "{.a.}",
            "{a.}",
            "{%}",
            "{%4}",
            "{%GG}",
            "{var=def}",
            "{va r}",
            "{{var}}",
            "{var}}",
            "foo}bar",
            "a%",
            "a%4",
            "a%GG",
            "a b",
            "a\u{7F}b",
            "a\"b",
            "a<b",
            "a>b",
            "a\\b",
            "a^b",
            "a`b",
            "a|b",
            "a\u{85}b",
            "a\u{FFFE}b",
        ] {
            assert!(!uri_template(invalid), "{invalid:?}");
        }
    }
}
