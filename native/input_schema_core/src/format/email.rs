//! `email` (RFC 5321's `Mailbox`, section 4.1.2) and `idn-email` (the same
//! with RFC 6531's extensions).
//!
//! ```text
//! Mailbox       = Local-part "@" ( Domain / address-literal )
//! Local-part    = Dot-string / Quoted-string
//! Dot-string    = Atom *("." Atom)              ; Atom = 1*atext
//! Quoted-string = DQUOTE *(qtextSMTP / quoted-pairSMTP) DQUOTE
//! qtextSMTP     = %d32-33 / %d35-91 / %d93-126
//! quoted-pairSMTP = %d92 %d32-126
//! address-literal = "[" ( IPv4-address-literal / IPv6-address-literal /
//!                         General-address-literal ) "]"
//! ```
//!
//! The domain is a host name (`hostname.rs`: LDH labels, length limits,
//! valid A-labels). An address literal is a dotted quad of 0-255 (leading
//! zeros allowed, as `Snum` has them) or `IPv6:` (any case) and an RFC 5321
//! IPv6 address; a General-address-literal needs a standardized tag
//! registered with IANA, and the only one registered is `IPv6`, so no other
//! tag is valid. No comments or folding white space (RFC 5322 syntax the
//! `Mailbox` grammar does not have), no display names. The local part's
//! 64-octet limit (RFC 5321, 4.5.3.1.1) is an SMTP size limit, not syntax,
//! and is not checked.
//!
//! `idn-email` adds `UTF8-non-ascii` to `atext` and `qtextSMTP` (so any
//! non-ASCII character in the local part, quoted or not, but not in a
//! quoted pair) and U-labels to the domain (RFC 6531, section 3.3).

use super::hostname;
use super::ip::{self, Octets};
use super::{step, AsciiSet};

/// `email`.
pub(super) fn email(text: &str) -> bool {
    mailbox(text, false)
}

/// `idn-email`.
pub(super) fn idn_email(text: &str) -> bool {
    mailbox(text, true)
}

fn mailbox(text: &str, international: bool) -> bool {
    let Some(at) = local_part_end(text.as_bytes(), international) else {
        return false;
    };
    let Some(domain) = text.get(at + 1..) else {
        return false;
    };
    match domain.strip_prefix('[') {
        Some(literal) => literal
            .strip_suffix(']')
            .is_some_and(|inner| address_literal(inner.as_bytes())),
        None if international => hostname::idn_email_domain(domain),
        None => hostname::hostname(domain),
    }
}

/// The index of the `@` that ends a valid local part.
fn local_part_end(bytes: &[u8], international: bool) -> Option<usize> {
    if bytes.first() == Some(&b'"') {
        let mut at = 1;
        loop {
            step();
            match *bytes.get(at)? {
                b'"' => return (bytes.get(at + 1) == Some(&b'@')).then_some(at + 1),
                b'\\' => {
                    if !(32..=126).contains(bytes.get(at + 1)?) {
                        return None;
                    }
                    at += 2;
                }
                byte if is_qtext(byte, international) => at += 1,
                _ => return None,
            }
        }
    }
    let mut atom_len = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        step();
        match byte {
            b'@' => return (atom_len > 0).then_some(at),
            b'.' if atom_len > 0 => atom_len = 0,
            byte if is_atext(byte, international) => atom_len += 1,
            _ => return None,
        }
    }
    None
}

/// RFC 5322 `atext`.
const ATEXT: AsciiSet = AsciiSet::ALPHANUMERIC.union(AsciiSet::of(b"!#$%&'*+-/=?^_`{|}~"));

/// RFC 5321 `qtextSMTP`.
const QTEXT: AsciiSet = AsciiSet::range(32, 33)
    .union(AsciiSet::range(35, 91))
    .union(AsciiSet::range(93, 126));

/// `atext`; with RFC 6531, every byte of a non-ASCII character too.
fn is_atext(byte: u8, international: bool) -> bool {
    ATEXT.contains(byte) || (international && !byte.is_ascii())
}

/// `qtextSMTP`; with RFC 6531, every byte of a non-ASCII character too.
fn is_qtext(byte: u8, international: bool) -> bool {
    QTEXT.contains(byte) || (international && !byte.is_ascii())
}

fn address_literal(inner: &[u8]) -> bool {
    match (inner.get(..5), inner.get(5..)) {
        (Some(tag), Some(address)) if tag.eq_ignore_ascii_case(b"IPv6:") => {
            ip::ipv6_address(address, ip::RFC5321)
        }
        _ => ip::ipv4_address(inner, Octets::Snum),
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

    const VALID: &[&str] = &[
        "joe.bloggs@example.com",
        "te~st@example.com",
        "~test@example.com",
        "test~@example.com",
        "te.s.t@example.com",
        "!#$%&'*+-/=?^_`{|}~@example.com",
        "\"joe bloggs\"@example.com",
        "\"joe..bloggs\"@example.com",
        "\"joe@bloggs\"@example.com",
        "\"\"@iana.org",
        "\" \"@iana.org",
        "\"\\a\"@iana.org",
        "\"\\\"\"@iana.org",
        "\"\\\\\"@iana.org",
        "joe.bloggs@[127.0.0.1]",
        "joe.bloggs@[001.002.003.004]",
        "joe.bloggs@[IPv6:::1]",
        "a@[ipv6:::1]",
        "a@[IPv6:1:2:3:4:5:6::]",
        "a@[IPv6:::ffff:1.2.3.4]",
        "test@255.255.255.255",
        "test@c--n.com",
        "test@123.com",
        "test@io",
        "a@xn--bcher-kva.example",
    ];

    const INVALID: &[&str] = &[
        "",
        "2962",
        "@example.com",
        "joe.bloggs@",
        ".test@example.com",
        "test.@example.com",
        "te..st@example.com",
        "joe.bloggs@invalid=domain.com",
        "joe.bloggs@[127.0.0.300]",
        "joe.bloggs@[127.0.0]",
        "a@[]",
        "a@[1.2.3.4.5]",
        "a@[IPv6:1:2:3:4:5:6:7::]",
        "a@[IPv6:1.2.3.4]",
        "a@[IPv7:::1]",
        "test@[RFC-5322-domain-literal]",
        "test@[1.2.3.4",
        "test@a[255.255.255.255]",
        "user1@oceania.org, user2@oceania.org",
        "\"Winston Smith\" <winston.smith@recdep.minitrue> (Records Department)",
        "joe bloggs@example.com",
        "a\u{e9}@iana.org",
        "a@\u{e9}.org",
        "a\u{ff20}iana.org",
        "\"test\\\u{a9}\"@iana.org",
        "test@iana.org\n",
        " a@iana.org",
        "a\tb@iana.org",
        "\u{7f}@iana.org",
        "test\"@iana.org",
        "\"test\"test@iana.org",
        "\"test@iana.org",
        "\"test\\\"@iana.org",
        "a@b@c.org",
        "test\\@test@iana.org",
        "[1.2.3.4]@iana.org",
        "test@-iana.org",
        "test@iana-.com",
        "test@.iana.org",
        "test@iana.org.",
        "test@iana..com",
        "a,b@iana.org",
        "test(comment)@iana.org",
        "a@b(c).org",
        "a@xn--X.example",
    ];

    #[test]
    fn addresses() {
        for valid in VALID {
            assert!(email(valid), "{valid}");
            assert!(idn_email(valid), "{valid}");
        }
        for invalid in INVALID {
            assert!(!email(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn international_addresses() {
        for valid in [
            "\u{c2e4}\u{b840}@\u{c2e4}\u{b840}.\u{d14c}\u{c2a4}\u{d2b8}",
            "a\u{e9}@iana.org",
            "a@\u{e9}t\u{e9}.org",
            "\"\u{e9} \u{e9}\"@example.com",
            "\u{43a}\u{432}\u{456}\u{442}\u{43e}\u{447}\u{43a}\u{430}@\u{43f}\u{43e}\u{448}\u{442}\u{430}.\u{443}\u{43a}\u{440}",
        ] {
            assert!(idn_email(valid), "{valid}");
            assert!(!email(valid), "{valid}");
        }
        for invalid in [
            "2962",
            "\"test\\\u{a9}\"@iana.org",
            "a@\u{c9}.org",
            "a@b\u{3002}org",
            "a\u{ff20}iana.org",
            "a@-\u{e9}.org",
        ] {
            assert!(!idn_email(invalid), "{invalid:?}");
        }
    }

    /// Unicode normalization. RFC 6531 (section 3.3) extends `atext` and
    /// `qtextSMTP` with any `UTF8-non-ascii` and sets no normalization form
    /// for the local part, so a decomposed sequence is valid there; it
    /// extends `sub-domain` with `U-label`, and a U-label is in NFC (RFC
    /// 5890, 2.3.2.1; RFC 5891, 5.4), so the same sequence in the domain is
    /// not a U-label, and no other alternative of `sub-domain` takes it.
    /// "cafe" and U+0301 (combining acute accent) is not in NFC; "caf" and
    /// U+00E9 is its NFC form.
    #[test]
    fn normalization() {
        for valid in [
            "cafe\u{301}@example.com",
            "\"cafe\u{301}\"@example.com",
            "caf\u{E9}@example.com",
            "user@caf\u{E9}.com",
            "user@xn--caf-dma.com",
            "cafe\u{301}@caf\u{E9}.example",
            "cafe\u{301}@\u{c2e4}\u{b840}.\u{d14c}\u{c2a4}\u{d2b8}",
        ] {
            assert!(idn_email(valid), "{valid:?}");
            // `email` takes the ASCII ones alone.
            assert_eq!(email(valid), valid.is_ascii(), "{valid:?}");
        }
        for invalid in [
            "user@cafe\u{301}.com",
            "user@mail.cafe\u{301}.com",
            "user@cafe\u{301}",
            "cafe\u{301}@cafe\u{301}.com",
            // A leading combining mark (RFC 5891, 4.2.3.2).
            "user@\u{301}cafe.com",
            // Punycode of the decomposed form: it decodes to no U-label.
            "user@xn--cafe-yvc.com",
        ] {
            assert!(!idn_email(invalid), "{invalid:?}");
            assert!(!email(invalid), "{invalid:?}");
        }
    }

    /// RFC 6531's `UTF8-non-ascii` in the local part is any UTF-8
    /// character past ASCII (RFC 6532, section 3.1: UTF8-2, UTF8-3 and
    /// UTF8-4), with no filter by class: a C1 control (U+0085), a
    /// noncharacter (U+FFFF) and a supplementary-plane letter (U+1D54F) are
    /// all valid there. The separator is ASCII `@` alone: a fullwidth one
    /// (U+FF20) leaves no `@` at all.
    #[test]
    fn local_part_code_points() {
        for valid in [
            "\u{85}@example.com",
            "\u{FFFF}@example.com",
            "\u{1D54F}@example.com",
        ] {
            assert!(idn_email(valid), "{valid:?}");
            assert!(!email(valid), "{valid:?}");
        }
        assert!(!idn_email("user\u{FF20}example.com"));
    }
}
