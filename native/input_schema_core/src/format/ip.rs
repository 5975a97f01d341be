//! `ipv4` (RFC 2673's dotted quad, as RFC 3986 writes it) and `ipv6`
//! (RFC 4291, section 2.2), and the RFC 5321 address-literal variants the
//! e-mail formats use.
//!
//! ```text
//! IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
//! dec-octet   = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
//! ```
//!
//! So no leading zeros (`087.10.0.1` would read as octal elsewhere). An
//! IPv6 address is eight groups of 1-4 hex digits, one `::` standing for one
//! or more zero groups, and the last two groups possibly written as an IPv4
//! address; no zone identifier (`%eth0`), no prefix length, no spaces.

use super::step;

/// How the IPv4 part of an address writes its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Octets {
    /// RFC 3986 `dec-octet`: 0-255 without leading zeros.
    DecOctet,
    /// RFC 5321 `Snum`: one to three digits, 0-255 (`001` allowed).
    Snum,
}

/// What an IPv6 text form may be.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ipv6Rules {
    /// How an embedded IPv4 address writes its numbers.
    pub(super) octets: Octets,
    /// How many zero groups `::` stands for at least: one in RFC 4291, two
    /// in RFC 5321's `IPv6-comp`.
    pub(super) min_elided: usize,
}

/// RFC 4291 (and RFC 3986's `IPv6address`).
pub(super) const RFC4291: Ipv6Rules = Ipv6Rules {
    octets: Octets::DecOctet,
    min_elided: 1,
};

/// RFC 5321's `IPv6-addr`.
pub(super) const RFC5321: Ipv6Rules = Ipv6Rules {
    octets: Octets::Snum,
    min_elided: 2,
};

/// `ipv4`.
pub(super) fn ipv4(text: &str) -> bool {
    ipv4_address(text.as_bytes(), Octets::DecOctet)
}

/// `ipv6`.
pub(super) fn ipv6(text: &str) -> bool {
    ipv6_address(text.as_bytes(), RFC4291)
}

/// Longest IPv4 address: `255.255.255.255`.
const MAX_IPV4: usize = 15;

/// Longest IPv6 address: six groups of four hex digits and an IPv4 one.
const MAX_IPV6: usize = 6 * 5 + MAX_IPV4;

/// Four dot-separated numbers.
pub(super) fn ipv4_address(bytes: &[u8], octets: Octets) -> bool {
    if bytes.len() > MAX_IPV4 {
        return false;
    }
    let mut count = 0;
    for part in bytes.split(|&b| b == b'.') {
        step();
        count += 1;
        if count > 4 || !octet(part, octets) {
            return false;
        }
    }
    count == 4
}

fn octet(part: &[u8], octets: Octets) -> bool {
    if part.is_empty() || part.len() > 3 || !part.iter().all(u8::is_ascii_digit) {
        return false;
    }
    if octets == Octets::DecOctet && part.len() > 1 && part.first() == Some(&b'0') {
        return false;
    }
    let value = part
        .iter()
        .fold(0u32, |value, &digit| value * 10 + u32::from(digit - b'0'));
    value <= 255
}

/// An IPv6 address in text.
pub(super) fn ipv6_address(bytes: &[u8], rules: Ipv6Rules) -> bool {
    if bytes.len() > MAX_IPV6 {
        return false;
    }
    let elision = bytes.windows(2).position(|pair| pair == b"::");
    let (head, tail) = match elision {
        Some(at) => (
            bytes.get(..at).unwrap_or_default(),
            bytes.get(at + 2..).unwrap_or_default(),
        ),
        None => (bytes, &[][..]),
    };
    let Some(head_groups) = groups(head, elision.is_none(), rules.octets) else {
        return false;
    };
    if elision.is_none() {
        return head_groups == 8;
    }
    // A second `::` leaves an empty group in the tail: refused there.
    let Some(tail_groups) = groups(tail, true, rules.octets) else {
        return false;
    };
    head_groups + tail_groups + rules.min_elided <= 8
}

/// The number of 16-bit groups `part` writes (an IPv4 address counts two,
/// allowed only at the very end when `last`), or None if malformed. An
/// empty part has none.
fn groups(part: &[u8], last: bool, octets: Octets) -> Option<usize> {
    if part.is_empty() {
        return Some(0);
    }
    let mut count = 0;
    let mut pieces = part.split(|&b| b == b':').peekable();
    while let Some(piece) = pieces.next() {
        step();
        let final_piece = pieces.peek().is_none();
        if last && final_piece && piece.contains(&b'.') {
            if !ipv4_address(piece, octets) {
                return None;
            }
            count += 2;
        } else {
            if piece.is_empty() || piece.len() > 4 || !piece.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            count += 1;
        }
        if count > 8 {
            return None;
        }
    }
    Some(count)
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
    fn ipv4_forms() {
        for valid in [
            "0.0.0.0",
            "192.168.0.1",
            "255.255.255.255",
            "87.10.0.1",
            "1.2.3.4",
        ] {
            assert!(ipv4(valid), "{valid}");
        }
        for invalid in [
            "",
            "1.2.3",
            "1.2.3.4.5",
            "256.1.1.1",
            "01.2.3.4",
            "1.2.3.04",
            "00.0.0.0",
            "1.2.3.",
            ".1.2.3",
            "1..2.3",
            "0x7f.0.0.1",
            "2130706433",
            "1.2.3.4 ",
            "1.2.3.4/24",
            "1\u{09e8}7.0.0.1",
            "1000.1.1.1",
        ] {
            assert!(!ipv4(invalid), "{invalid:?}");
        }
        assert!(ipv4_address(b"001.002.003.004", Octets::Snum));
        assert!(!ipv4_address(b"001.002.003.256", Octets::Snum));
    }

    #[test]
    fn ipv6_forms() {
        for valid in [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1::8",
            "FFFF::ffff",
            "::ffff:192.168.0.1",
            "::1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1::5:6:1.2.3.4",
            "1000:1000:1000:1000:1000:1000:255.255.255.255",
        ] {
            assert!(ipv6(valid), "{valid}");
        }
        for invalid in [
            "",
            ":",
            ":::",
            "1",
            "1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4::5:6:7:8",
            "1::2::3",
            "1:::2",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:",
            "12345::",
            "::g",
            "::1.2.3",
            "::1.2.3.04",
            "::1.2.3.4:1",
            "1:2:3:4:5:6:7:1.2.3.4",
            "1.2.3.4",
            "fe80::1%eth0",
            "fe80::/64",
            " ::1",
            "::1 ",
            "[::1]",
        ] {
            assert!(!ipv6(invalid), "{invalid:?}");
        }
        // RFC 5321: `::` stands for two groups at least; IPv4 numbers may
        // have leading zeros.
        assert!(!ipv6_address(b"1:2:3:4:5:6:7::", RFC5321));
        assert!(ipv6_address(b"1:2:3:4:5:6::", RFC5321));
        assert!(ipv6_address(b"::ffff:001.002.003.004", RFC5321));
    }
}
