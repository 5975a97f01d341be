//! `format` as an assertion: which format names each dialect defines, and
//! whether a string is a valid instance of one, exactly as the
//! specifications the validation vocabulary cites define them (RFC 3339,
//! RFC 5321/6531, RFC 1123 and IDNA2008, RFC 2673/4291, RFC 3986/3987,
//! RFC 6570, RFC 4122, RFC 6901, Relative JSON Pointer, ECMA-262).
//!
//! The validator asks [`Format::lookup`] once per schema (a name the dialect
//! does not define stays an annotation) and [`Format::check`] per string
//! instance, having charged its work budget for the string's length. Every
//! check reads its input in one pass or a bounded number of passes, with
//! work linear in the length of the text (per-label IDNA work is bounded by
//! the 63-octet label limit before it starts), no recursion and no panics
//! on any input. One family per file:
//!
//! - `datetime`: `date-time`, `date`, `time`, `duration`
//! - `email`: `email`, `idn-email`
//! - `hostname` (with `idna` and its generated `idna_tables`): `hostname`,
//!   `idn-hostname`
//! - `ip`: `ipv4`, `ipv6`
//! - `uri`: `uri`, `uri-reference`, `iri`, `iri-reference`
//! - `uri_template`: `uri-template`
//! - `pointer`: `json-pointer`, `relative-json-pointer`
//! - `uuid`: `uuid`
//! - `regex`: `regex`, decided by the pattern module's ECMAScript parser

mod datetime;
mod email;
mod hostname;
mod idna;
mod idna_tables;
mod ip;
mod pointer;
mod regex;
mod uri;
mod uri_template;
mod uuid;

use crate::standard::dialect::Dialect;

/// A format the specifications define.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    IdnEmail,
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    UriTemplate,
    Uuid,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// Every format, in the order of the 2020-12 validation specification.
    pub const ALL: [Format; 19] = [
        Format::DateTime,
        Format::Date,
        Format::Time,
        Format::Duration,
        Format::Email,
        Format::IdnEmail,
        Format::Hostname,
        Format::IdnHostname,
        Format::Ipv4,
        Format::Ipv6,
        Format::Uri,
        Format::UriReference,
        Format::Iri,
        Format::IriReference,
        Format::Uuid,
        Format::UriTemplate,
        Format::JsonPointer,
        Format::RelativeJsonPointer,
        Format::Regex,
    ];

    /// The format `name` names in `dialect`; None for a name that dialect
    /// does not define (an unknown format stays an annotation).
    pub fn lookup(name: &str, dialect: Dialect) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .filter(|format| format.since() <= dialect)
    }

    /// The format's name, as `format` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Duration => "duration",
            Format::Email => "email",
            Format::IdnEmail => "idn-email",
            Format::Hostname => "hostname",
            Format::IdnHostname => "idn-hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri => "uri",
            Format::UriReference => "uri-reference",
            Format::Iri => "iri",
            Format::IriReference => "iri-reference",
            Format::UriTemplate => "uri-template",
            Format::Uuid => "uuid",
            Format::JsonPointer => "json-pointer",
            Format::RelativeJsonPointer => "relative-json-pointer",
            Format::Regex => "regex",
        }
    }

    /// The first dialect that defines the format: draft 4 has `date-time`,
    /// `email`, `hostname`, `ipv4`, `ipv6` and `uri`; draft 6 adds
    /// `uri-reference`, `uri-template` and `json-pointer`; draft 7 adds
    /// `date`, `time`, `idn-email`, `idn-hostname`, `iri`, `iri-reference`,
    /// `relative-json-pointer` and `regex`; 2019-09 adds `duration` and
    /// `uuid`; 2020-12 adds none.
    fn since(self) -> Dialect {
        match self {
            Format::DateTime
            | Format::Email
            | Format::Hostname
            | Format::Ipv4
            | Format::Ipv6
            | Format::Uri => Dialect::Draft4,
            Format::UriReference | Format::UriTemplate | Format::JsonPointer => Dialect::Draft6,
            Format::Date
            | Format::Time
            | Format::IdnEmail
            | Format::IdnHostname
            | Format::Iri
            | Format::IriReference
            | Format::RelativeJsonPointer
            | Format::Regex => Dialect::Draft7,
            Format::Duration | Format::Uuid => Dialect::Draft2019_09,
        }
    }

    /// The work units checking `text` costs, charged before the check. The
    /// linear scans cost a unit and a unit per 16 bytes (at most about 60 ns
    /// per 16 bytes, measured on 1 MiB strings: `benches/formats.rs`);
    /// `regex` runs the pattern parser, about fifty times dearer per byte.
    /// IDNA work (Punycode, NFC, the Bidi rule: up to about 150 ns a byte)
    /// runs on a host name, or on a mail address's domain, of at most
    /// `hostname::MOST_NAME_BYTES` (a longer one is refused unread), the
    /// text's end: when that end holds an IDNA label (`xn--` in any case,
    /// or any non-ASCII character), two units a byte of it more. Deciding
    /// that reads at most those bytes.
    pub fn units(self, text: &str) -> u64 {
        let linear = 1 + text.len() as u64 / 16;
        match self {
            Format::Regex => 1 + text.len() as u64 / 16 * 50,
            Format::Hostname | Format::IdnHostname | Format::Email | Format::IdnEmail => {
                let bytes = text.as_bytes();
                let name = bytes
                    .get(bytes.len().saturating_sub(hostname::MOST_NAME_BYTES)..)
                    .unwrap_or_default();
                if has_idna_label(name) {
                    linear + 2 * name.len() as u64
                } else {
                    linear
                }
            }
            _ => linear,
        }
    }

    /// Whether `text` is a valid instance of the format. Linear time in
    /// `text.len()` (no backtracking, no quadratic scans; the caller charges
    /// its work budget one unit per 16 bytes before calling).
    pub fn check(self, text: &str) -> bool {
        match self {
            Format::DateTime => datetime::date_time(text),
            Format::Date => datetime::date(text),
            Format::Time => datetime::time(text),
            Format::Duration => datetime::duration(text),
            Format::Email => email::email(text),
            Format::IdnEmail => email::idn_email(text),
            Format::Hostname => hostname::hostname(text),
            Format::IdnHostname => hostname::idn_hostname(text),
            Format::Ipv4 => ip::ipv4(text),
            Format::Ipv6 => ip::ipv6(text),
            Format::Uri => uri::uri(text),
            Format::UriReference => uri::uri_reference(text),
            Format::Iri => uri::iri(text),
            Format::IriReference => uri::iri_reference(text),
            Format::UriTemplate => uri_template::uri_template(text),
            Format::Uuid => uuid::uuid(text),
            Format::JsonPointer => pointer::json_pointer(text),
            Format::RelativeJsonPointer => pointer::relative_json_pointer(text),
            Format::Regex => regex::regex(text),
        }
    }
}

/// A set of ASCII bytes, tested with one shift and mask: what the checks'
/// inner loops use for character classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AsciiSet(u128);

impl AsciiSet {
    /// ASCII letters and digits.
    const ALPHANUMERIC: AsciiSet = AsciiSet::range(b'0', b'9')
        .union(AsciiSet::range(b'A', b'Z'))
        .union(AsciiSet::range(b'a', b'z'));

    /// The bytes of `bytes` (all ASCII).
    const fn of(bytes: &[u8]) -> AsciiSet {
        let mut bits = 0u128;
        let mut rest = bytes;
        while let [first, tail @ ..] = rest {
            bits |= 1 << *first;
            rest = tail;
        }
        AsciiSet(bits)
    }

    /// The bytes `low..=high` (ASCII).
    const fn range(low: u8, high: u8) -> AsciiSet {
        let mut bits = 0u128;
        let mut byte = low;
        while byte <= high {
            bits |= 1 << byte;
            byte += 1;
        }
        AsciiSet(bits)
    }

    const fn union(self, other: AsciiSet) -> AsciiSet {
        AsciiSet(self.0 | other.0)
    }

    #[inline]
    fn contains(self, byte: u8) -> bool {
        byte < 128 && (self.0 >> byte) & 1 == 1
    }
}

/// Whether `ranges` (sorted, disjoint, inclusive) holds `cp`: a binary
/// search, so a lookup costs at most a dozen comparisons.
fn in_ranges(ranges: &[(u32, u32)], cp: u32) -> bool {
    let after = ranges.partition_point(|&(low, _)| low <= cp);
    after
        .checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|&(_, high)| cp <= high)
}

/// Counts one iteration of a loop over the input, in test builds only:
/// the linearity test compares these counts across input sizes (a proxy
/// for work that does not depend on timing). Nothing in other builds.
#[inline(always)]
fn step() {
    #[cfg(test)]
    tests::STEPS.with(|steps| steps.set(steps.get() + 1));
}

/// Counts `count` steps at once (a run an iterator adaptor read).
#[inline(always)]
fn steps(count: usize) {
    #[cfg(test)]
    tests::STEPS.with(|steps| steps.set(steps.get() + count as u64));
    #[cfg(not(test))]
    let _ = count;
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests;

/// Whether bytes of a host name or mail address may hold an IDNA label: a
/// non-ASCII byte, or `xn--` in any case.
fn has_idna_label(bytes: &[u8]) -> bool {
    !bytes.is_ascii() || bytes.windows(4).any(|w| w.eq_ignore_ascii_case(b"xn--"))
}
