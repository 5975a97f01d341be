//! `uri` and `uri-reference` (RFC 3986, section 3 and 4.1), `iri` and
//! `iri-reference` (RFC 3987, section 2.2).
//!
//! ```text
//! URI           = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//! hier-part     = "//" authority path-abempty / path-absolute / path-rootless / path-empty
//! relative-ref  = relative-part [ "?" query ] [ "#" fragment ]
//! relative-part = "//" authority path-abempty / path-absolute / path-noscheme / path-empty
//! authority     = [ userinfo "@" ] host [ ":" port ]
//! host          = IP-literal / IPv4address / reg-name
//! ```
//!
//! `uri` and `iri` are absolute (a scheme); the references also take
//! relative references, whose first segment holds no `:` (or it would read
//! as a scheme). Characters outside the grammar must be percent-encoded
//! with two hex digits. The IRI forms add RFC 3987's `ucschar` to every
//! component but the scheme, the port and IP literals, and `iprivate` to the
//! query. An IP literal is an RFC 3986 IPv6 address (no zone identifier)
//! or an `IPvFuture`.

use super::ip;
use super::{in_ranges, step, AsciiSet};

/// Whether the text may hold RFC 3987's non-ASCII characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chars {
    Uri,
    Iri,
}

/// `uri`.
pub(super) fn uri(text: &str) -> bool {
    reference(text, Chars::Uri, false)
}

/// `uri-reference`.
pub(super) fn uri_reference(text: &str) -> bool {
    reference(text, Chars::Uri, true)
}

/// `iri`.
pub(super) fn iri(text: &str) -> bool {
    reference(text, Chars::Iri, false)
}

/// `iri-reference`.
pub(super) fn iri_reference(text: &str) -> bool {
    reference(text, Chars::Iri, true)
}

fn reference(text: &str, chars: Chars, relative: bool) -> bool {
    let bytes = text.as_bytes();
    let delimiter = bytes.iter().position(|&b| matches!(b, b':' | b'/' | b'?' | b'#'));
    super::steps(delimiter.unwrap_or(bytes.len()));
    let rest = match delimiter {
        // A `:` before any `/`, `?` or `#` ends a scheme: in a relative
        // reference the first segment could not hold it.
        Some(at) if bytes.get(at) == Some(&b':') => {
            if !is_scheme(bytes.get(..at).unwrap_or_default()) {
                return false;
            }
            text.get(at + 1..).unwrap_or_default()
        }
        _ if relative => text,
        _ => return false,
    };
    let (before_fragment, fragment) = match rest.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (rest, None),
    };
    let (hierarchy, query) = match before_fragment.split_once('?') {
        Some((hierarchy, query)) => (hierarchy, Some(query)),
        None => (before_fragment, None),
    };
    if !fragment.is_none_or(|fragment| component(fragment, Part::Fragment, chars))
        || !query.is_none_or(|query| component(query, Part::Query, chars))
    {
        return false;
    }
    match hierarchy.strip_prefix("//") {
        Some(after) => {
            let (authority_text, path) = after.split_at(after.find('/').unwrap_or(after.len()));
            authority(authority_text, chars) && component(path, Part::Path, chars)
        }
        // path-absolute, path-rootless / path-noscheme, path-empty: pchar
        // and `/`, not starting with `//` (read above as an authority).
        None => component(hierarchy, Part::Path, chars),
    }
}

/// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
fn is_scheme(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
}

/// `authority = [ userinfo "@" ] host [ ":" port ]`.
fn authority(text: &str, chars: Chars) -> bool {
    let (userinfo, host_port) = match text.split_once('@') {
        Some((userinfo, host_port)) => (Some(userinfo), host_port),
        None => (None, text),
    };
    if !userinfo.is_none_or(|userinfo| component(userinfo, Part::UserInfo, chars)) {
        return false;
    }
    let (host_ok, port) = match host_port.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((address, after)) => (ip_literal(address.as_bytes()), after),
            None => return false,
        },
        None => {
            let end = host_port.find(':').unwrap_or(host_port.len());
            let (host, port) = host_port.split_at(end);
            (component(host, Part::RegName, chars), port)
        }
    };
    // `port = *DIGIT`, after a `:`.
    host_ok
        && (port.is_empty()
            || port
                .strip_prefix(':')
                .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit())))
}

/// `IP-literal = "[" ( IPv6address / IPvFuture ) "]"`, inside the brackets;
/// `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
fn ip_literal(bytes: &[u8]) -> bool {
    match bytes.split_first() {
        Some((b'v' | b'V', rest)) => {
            let digits = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
            let Some((b'.', tail)) = rest.get(digits..).and_then(<[u8]>::split_first) else {
                return false;
            };
            digits > 0 && !tail.is_empty() && tail.iter().all(|&b| USER_INFO.contains(b))
        }
        _ => ip::ipv6_address(bytes, ip::RFC4291),
    }
}

/// Which component a run of characters is, for what it may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    UserInfo,
    RegName,
    Path,
    Query,
    Fragment,
}

/// `unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"`.
const UNRESERVED: AsciiSet = AsciiSet::ALPHANUMERIC.union(AsciiSet::of(b"-._~"));

/// `sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="`.
const SUB_DELIMS: AsciiSet = AsciiSet::of(b"!$&'()*+,;=");

const REG_NAME: AsciiSet = UNRESERVED.union(SUB_DELIMS);
const USER_INFO: AsciiSet = REG_NAME.union(AsciiSet::of(b":"));
/// `pchar` and `/`.
const PATH: AsciiSet = REG_NAME.union(AsciiSet::of(b":@/"));
/// `pchar`, `/` and `?`.
const QUERY: AsciiSet = PATH.union(AsciiSet::of(b"?"));

impl Part {
    /// The ASCII characters the component may hold as they are.
    fn ascii(self) -> AsciiSet {
        match self {
            Part::UserInfo => USER_INFO,
            Part::RegName => REG_NAME,
            Part::Path => PATH,
            Part::Query | Part::Fragment => QUERY,
        }
    }
}

/// RFC 3987 `ucschar`.
const UCSCHAR: &[(u32, u32)] = &[
    (0xA0, 0xD7FF),
    (0xF900, 0xFDCF),
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
];

/// RFC 3987 `iprivate`.
const IPRIVATE: &[(u32, u32)] = &[(0xE000, 0xF8FF), (0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)];

/// Whether every character of `text` may stand in `part`, percent-encoded
/// octets included.
fn component(text: &str, part: Part, chars: Chars) -> bool {
    let bytes = text.as_bytes();
    let allowed = part.ascii();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        step();
        if allowed.contains(b) {
            at += 1;
        } else if b == b'%' {
            let hex = |offset| bytes.get(at + offset).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(1) && hex(2)) {
                return false;
            }
            at += 3;
        } else if b.is_ascii() {
            return false;
        } else {
            let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                return false;
            };
            let cp = u32::from(c);
            let allowed = chars == Chars::Iri
                && ((0xA0..=0xD7FF).contains(&cp)
                    || in_ranges(UCSCHAR, cp)
                    || (part == Part::Query && in_ranges(IPRIVATE, cp)));
            if !allowed {
                return false;
            }
            at += c.len_utf8();
        }
    }
    true
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

    const URIS: &[&str] = &[
        "http://foo.bar/?baz=qux#quux",
        "http://foo.com/blah_(wikipedia)_blah#cite-1",
        "http://foo.bar/?q=Test%20URL-encoded%20stuff",
        "http://xn--nw2a.xn--j6w193g/",
        "http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com",
        "http://223.255.255.254",
        "ftp://ftp.is.co.za/rfc/rfc1808.txt",
        "ldap://[2001:db8::7]/c=GB?objectClass?one",
        "mailto:John.Doe@example.com",
        "news:comp.infosystems.www.servers.unix",
        "tel:+1-816-555-1212",
        "urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
        "a:",
        "a+b-c.d:",
        "http://",
        "http://host:",
        "http://host:8080/",
        "http://@host",
        "http://user:pass@host:1/p?q#f",
        "http://[v1.fe80::a+en1]/",
        "http://[::ffff:1.2.3.4]:80",
        "file:///etc/passwd",
        "http://a/b//c",
        "s:/a",
        "s:?#",
        "s:a?b?c#d?e/f",
        "HTTP://EXAMPLE.COM/%7Ea",
    ];

    #[test]
    fn uris() {
        for valid in URIS {
            assert!(uri(valid), "{valid}");
            assert!(uri_reference(valid), "{valid}");
            assert!(iri(valid), "{valid}");
            assert!(iri_reference(valid), "{valid}");
        }
        for invalid in [
            "",
            "//foo.bar/?baz=qux#quux",
            "/abc",
            "abc",
            "\\\\WINDOWS\\fileshare",
            "http:// shouldfail.com",
            ":// should fail",
            "bar,baz:foo",
            "1http://a",
            "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334",
            "http://[2001:db8::7",
            "http://[2001:db8::7]x",
            "http://[fe80::1%25eth0]/",
            "http://[v1]/",
            "http://[vg.a]/",
            "http://a:b@c:d/",
            "http://a@b@c/",
            "http://a/%",
            "http://a/%4",
            "http://a/%gg",
            "http://a/b c",
            "http://a/#f#g",
            "http://a/^",
            "http://a/\u{e9}",
            "http://a/\"",
            "http://a/<>",
            "http://a/{}",
            "s:a\n",
        ] {
            assert!(!uri(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn references() {
        for valid in [
            "",
            "//foo.bar/?baz=qux#quux",
            "/abc",
            "abc",
            "#fragment",
            "?query",
            "a/b:c",
            "./a:b",
            "../..",
            "//",
            "//[::1]",
            "%41",
        ] {
            assert!(uri_reference(valid), "{valid}");
            assert!(!uri(valid) || valid.contains(':'), "{valid}");
        }
        for invalid in [
            "\\\\WINDOWS\\fileshare",
            "#frag\\ment",
            "1a:b",
            ":a",
            "a b",
            "//a b/",
        ] {
            assert!(!uri_reference(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn iris() {
        for valid in [
            "http://\u{192}\u{f8}\u{f8}.\u{df}\u{e5}r/?\u{2202}\u{e9}\u{153}=\u{3c0}\u{ee}x#\u{3c0}\u{ee}\u{fc}x",
            "http://\u{192}\u{f8}\u{f8}.com/blah_(w\u{ee}k\u{ef}p\u{e9}di\u{e5})_blah#\u{df}it\u{e9}-1",
            "http://[2001:0db8:85a3:0000:0000:8a2e:0370:7334]",
            "http://example.com/?\u{e000}",
            "http://\u{1F600}.example/\u{10000}",
            "http://us\u{e9}r@host",
        ] {
            assert!(iri(valid), "{valid}");
            assert!(!uri(valid) || valid.is_ascii(), "{valid}");
        }
        for invalid in [
            "http://2001:0db8:85a3:0000:0000:8a2e:0370:7334",
            "/abc",
            "\\\\WINDOWS\\fil\u{eb}\u{df}\u{e5}r\u{e9}",
            "\u{e2}\u{3c0}\u{3c0}",
            // iprivate only in the query; U+FFFE-FFFF and controls nowhere.
            "http://example.com/\u{e000}",
            "http://example.com/#\u{e000}",
            "http://example.com/\u{fffe}",
            "http://example.com/\u{85}",
            "http://[\u{e9}::1]/",
            "h\u{e9}:a",
        ] {
            assert!(!iri(invalid), "{invalid:?}");
        }
        for valid in [
            "//\u{192}\u{f8}\u{f8}.\u{df}\u{e5}r/?\u{2202}",
            "/\u{e2}\u{3c0}\u{3c0}",
            "\u{e2}\u{3c0}\u{3c0}",
            "#\u{192}r\u{e4}gm\u{ea}nt",
        ] {
            assert!(iri_reference(valid), "{valid}");
        }
        for invalid in [
            "\\\\WINDOWS\\fil\u{eb}\u{df}\u{e5}r\u{e9}",
            "#\u{192}r\u{e4}g\\m\u{ea}nt",
        ] {
            assert!(!iri_reference(invalid), "{invalid:?}");
        }
    }
}
