//! `Format::check` against an independent oracle: python-jsonschema 4.23.0's
//! `FormatChecker` with the libraries of its `format` extra (rfc3339-validator,
//! isoduration, fqdn, idna, rfc3987, uri-template, jsonpointer, and Python's
//! own `ipaddress`, `uuid`, `datetime` and `re`), on strings generated here:
//! for each of the 19 formats, valid strings built from the format's grammar
//! and nearly-valid ones made from them (one character changed, inserted or
//! deleted, two swapped, a piece doubled or cut, and the format's boundary
//! cases: hour 24, month 13, a label of 64 octets, an IPv4 octet with a
//! leading zero, `:::`, a prefix of 10000, ...).
//!
//! `scripts/format_oracle` builds the python side (a virtual environment
//! with pinned versions, under `_build/format_oracle/venv`) and runs this
//! test with `FORMAT_ORACLE_PYTHON` naming its interpreter; without that
//! variable the test says so and passes, so a plain `cargo test` skips it.
//! It is an integration test rather than an example so that every `cargo
//! test` and Clippy run builds and checks it with the rest of the crate's
//! tests (as `format_suite.rs` and `official_suite.rs`, which the official
//! suite's directory gates the same way), and so that the script's run
//! reuses the release test build `scripts/test` has just made.
//!
//! All strings go through one python process (`scripts/format_oracle.py`)
//! in batches of JSON lines. Python's checkers are a faithful oracle for
//! some formats (`ipv4`, `ipv6`, `json-pointer`: any disagreement fails)
//! and deviate from the RFCs in known ways for the others. Each known
//! deviation is one rule in `RULES`, for one direction (python accepts what
//! the RFC refuses, or refuses what it allows), with a comment citing the
//! clause this crate follows. A rule does not take a disagreement on its
//! word: it names the strings that differ from the disagreeing one only by
//! the deviation (the deviation undone, or rewritten the way python spells
//! it), and the disagreement counts as explained only when the side that
//! refused accepts those (our check for a string python wrongly accepts,
//! python for a string it wrongly refuses), possibly through a chain of
//! such rules (a string with several known deviations); a few rules also
//! check an independent fact (python's `idna` on a fake A-label, the Bidi
//! rule or RFC 6570's literal set written again here). Only `email` and
//! `idn-email`, where python checks nothing but the presence of an `@`,
//! have a rule that is python's whole check. Any other disagreement fails
//! the test, listed with both verdicts.
//!
//! `FORMAT_ORACLE_CASES` sets how many valid strings each format starts
//! from (default 4000; each also gives three mutants), `FORMAT_ORACLE_SEED`
//! the seed, and `FORMAT_ORACLE_REPORT` a file to receive every
//! disagreement, unexplained and explained (with its rule). The output is
//! a table per format (strings compared, valid and invalid by us,
//! agreements, explained disagreements, python exceptions), the count per
//! rule and the rules' legend; docs/behaviour.md carries a copy.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use input_schema_core::format::Format;

// ------------------------------------------------------------------ PRNG

/// xorshift64*, seeded through splitmix64 (any seed, zero included, gives a
/// non-zero state).
struct Rng(u64);

impl Rng {
    fn seeded(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 16) as usize % n
    }

    /// low..=high.
    fn range(&mut self, low: u32, high: u32) -> u32 {
        low + ((self.next() >> 16) % u64::from(high - low + 1)) as u32
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.range(1, 100) <= percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn pick_char(&mut self, chars: &str) -> char {
        let count = chars.chars().count();
        chars.chars().nth(self.below(count)).unwrap()
    }

    /// A code point from one of `ranges` (inclusive), each range as likely.
    fn pick_in(&mut self, ranges: &[(u32, u32)]) -> char {
        let (low, high) = self.pick(ranges);
        char::from_u32(self.range(low, high)).unwrap()
    }
}

// ------------------------------------------------------------ generators

const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdefABCDEF";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn digits(rng: &mut Rng, count: usize) -> String {
    (0..count).map(|_| rng.pick_char(DIGITS)).collect()
}

/// Random case for each ASCII letter.
fn mixed_case(rng: &mut Rng, text: &str) -> String {
    text.chars()
        .map(|c| if rng.chance(50) { c.to_ascii_uppercase() } else { c })
        .collect()
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// RFC 3339 `full-date`, February 29 and month ends often.
fn gen_date(rng: &mut Rng) -> String {
    if rng.chance(8) {
        let year = rng.pick(&[1600, 1996, 2000, 2024, 2400, 4]);
        return format!("{year:04}-02-29");
    }
    let year = if rng.chance(25) {
        rng.pick(&[0, 1, 1600, 1900, 1970, 1999, 2000, 2016, 2023, 2024, 2100, 9999])
    } else {
        rng.range(0, 9999)
    };
    let month = rng.range(1, 12);
    let day = if rng.chance(30) {
        days_in(year, month)
    } else {
        rng.range(1, days_in(year, month))
    };
    format!("{year:04}-{month:02}-{day:02}")
}

/// RFC 3339 `full-time`: offsets (`Z`, `z`, +/-HH:MM), fractions, and leap
/// seconds where the UTC time is 23:59:60.
fn gen_time(rng: &mut Rng) -> String {
    let (offset, to_local) = if rng.chance(35) {
        (if rng.chance(80) { "Z" } else { "z" }.to_owned(), 0i64)
    } else {
        let hours = if rng.chance(30) {
            rng.pick(&[0, 1, 5, 12, 14, 23])
        } else {
            rng.range(0, 23)
        };
        let minutes = if rng.chance(50) {
            rng.pick(&[0, 30, 45, 59])
        } else {
            rng.range(0, 59)
        };
        let plus = rng.chance(50);
        let total = i64::from(hours * 60 + minutes);
        (
            format!("{}{hours:02}:{minutes:02}", if plus { '+' } else { '-' }),
            if plus { total } else { -total },
        )
    };
    let (hour, minute, second) = if rng.chance(15) {
        let local = (23 * 60 + 59 + to_local).rem_euclid(24 * 60);
        (local / 60, local % 60, 60)
    } else {
        let edge = rng.chance(20);
        (
            i64::from(if edge {
                rng.pick(&[0, 23])
            } else {
                rng.range(0, 23)
            }),
            i64::from(if edge {
                rng.pick(&[0, 59])
            } else {
                rng.range(0, 59)
            }),
            i64::from(if edge {
                rng.pick(&[0, 59])
            } else {
                rng.range(0, 59)
            }),
        )
    };
    let fraction = if rng.chance(30) {
        let count = rng.range(1, 12) as usize;
        format!(".{}", digits(rng, count))
    } else {
        String::new()
    };
    format!("{hour:02}:{minute:02}:{second:02}{fraction}{offset}")
}

fn gen_date_time(rng: &mut Rng) -> String {
    let separator = if rng.chance(85) { 'T' } else { 't' };
    format!("{}{separator}{}", gen_date(rng), gen_time(rng))
}

/// A number for a duration: short mostly, sometimes long or zero-padded.
fn duration_number(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => "0".to_owned(),
        1 => format!("00{}", rng.range(0, 9)),
        2 => {
            let count = rng.range(15, 25) as usize;
            digits(rng, count)
        }
        _ => rng.range(1, 999).to_string(),
    }
}

/// RFC 3339 appendix A: units in order without gaps, weeks alone.
fn gen_duration(rng: &mut Rng) -> String {
    let mut text = String::from("P");
    let time = |rng: &mut Rng, text: &mut String| {
        text.push('T');
        let first = rng.below(3);
        let last = first + rng.below(3 - first);
        for unit in &['H', 'M', 'S'][first..=last] {
            text.push_str(&duration_number(rng));
            text.push(*unit);
        }
    };
    match rng.below(10) {
        0 => {
            text.push_str(&duration_number(rng));
            text.push('W');
        }
        1 | 2 => time(rng, &mut text),
        _ => {
            let first = rng.below(3);
            let last = first + rng.below(3 - first);
            for unit in &['Y', 'M', 'D'][first..=last] {
                text.push_str(&duration_number(rng));
                text.push(*unit);
            }
            if rng.chance(50) {
                time(rng, &mut text);
            }
        }
    }
    match rng.below(12) {
        0 => text.to_ascii_lowercase(),
        1 => mixed_case(rng, &text),
        _ => text,
    }
}

/// An LDH label of `len` octets (letters and digits at both ends).
fn ldh_label(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|at| {
            if at == 0 || at + 1 == len || rng.chance(85) {
                rng.pick_char(ALNUM)
            } else {
                '-'
            }
        })
        .collect()
}

fn label_len(rng: &mut Rng) -> usize {
    match rng.below(20) {
        0 => 63,
        1 => rng.range(50, 63) as usize,
        2 => 1,
        _ => rng.range(1, 12) as usize,
    }
}

/// RFC 1123 host names: LDH labels up to 63 octets, names up to 253,
/// `--` in the third and fourth positions, valid A-labels.
fn gen_hostname(rng: &mut Rng) -> String {
    if rng.chance(5) {
        // Right at the name limit (253) or just under it.
        let last = rng.pick(&[61, 60, 59]);
        return [63, 63, 63, last]
            .iter()
            .map(|&len| ldh_label(rng, len))
            .collect::<Vec<_>>()
            .join(".");
    }
    let count = rng.pick(&[1, 1, 2, 2, 2, 3, 3, 4, 5]);
    let labels: Vec<String> = (0..count)
        .map(|_| match rng.below(12) {
            0 => a_label(rng),
            1 => {
                let mut label = ldh_label(rng, 2);
                label.push_str("--");
                let len = rng.range(1, 5) as usize;
                label.push_str(&ldh_label(rng, len));
                label
            }
            _ => {
                let len = label_len(rng);
                ldh_label(rng, len)
            }
        })
        .collect();
    labels.join(".")
}

/// Code point ranges of letters that IDNA2008 has PVALID, by script, and
/// long assigned (Python's own Unicode database is 14.0).
const SCRIPTS: &[&[(u32, u32)]] = &[
    // Latin with diacritics (U+00F7 DIVISION SIGN is DISALLOWED: a near miss).
    &[(0x61, 0x7A), (0xDF, 0xFF), (0x101, 0x101), (0x153, 0x153)],
    // Greek.
    &[(0x3B1, 0x3C9), (0x3AC, 0x3AF)],
    // Cyrillic.
    &[(0x430, 0x44F)],
    // Armenian.
    &[(0x561, 0x586)],
    // Georgian.
    &[(0x10D0, 0x10FA)],
    // Thai.
    &[(0xE01, 0xE2E)],
    // Hiragana, Katakana, Han.
    &[(0x3041, 0x3096), (0x30A1, 0x30FA), (0x4E00, 0x9FA5)],
    // Hangul syllables.
    &[(0xAC00, 0xD7A3)],
];

const HEBREW: &[(u32, u32)] = &[(0x5D0, 0x5EA)];
const ARABIC: &[(u32, u32)] = &[(0x628, 0x63A), (0x641, 0x64A)];
const DEVANAGARI: &[(u32, u32)] = &[(0x915, 0x939)];

/// A U-label (mostly valid): one or two scripts, with the contextual
/// characters in and out of their contexts now and then.
fn u_label(rng: &mut Rng) -> String {
    let len = rng.range(1, 9) as usize;
    let mut label = String::new();
    match rng.below(12) {
        0 => {
            // Hebrew, right to left; geresh after a letter, digits at the end.
            for _ in 0..len {
                label.push(rng.pick_in(HEBREW));
            }
            if rng.chance(30) {
                label.push('\u{5F3}');
                label.push(rng.pick_in(HEBREW));
            }
            if rng.chance(30) {
                label.push_str(&digits(rng, 1));
            }
        }
        1 => {
            // Arabic; Arabic-Indic digits; ZWNJ between dual-joining letters.
            for _ in 0..len {
                label.push(rng.pick_in(ARABIC));
            }
            if rng.chance(25) {
                label.push('\u{200C}');
                label.push('\u{628}');
            }
            if rng.chance(30) {
                label.push(char::from_u32(rng.range(0x660, 0x669)).unwrap());
            }
        }
        2 => {
            // Devanagari: consonants, vowel signs, virama and joiners.
            for _ in 0..len {
                label.push(rng.pick_in(DEVANAGARI));
                match rng.below(6) {
                    0 => label.push(char::from_u32(rng.range(0x93E, 0x94C)).unwrap()),
                    1 => {
                        label.push('\u{94D}');
                        if rng.chance(50) {
                            label.push(rng.pick(&['\u{200D}', '\u{200C}']));
                        }
                        label.push(rng.pick_in(DEVANAGARI));
                    }
                    _ => {}
                }
            }
        }
        3 => {
            // The CONTEXTO characters in their contexts.
            match rng.below(4) {
                0 => label.push_str("l\u{B7}l"),
                1 => {
                    label.push(rng.pick_in(&[(0x3B1, 0x3C9)]));
                    label.push('\u{375}');
                    label.push(rng.pick_in(&[(0x3B1, 0x3C9)]));
                }
                2 => {
                    label.push(rng.pick_in(&[(0x30A1, 0x30FA)]));
                    label.push('\u{30FB}');
                    label.push(rng.pick_in(&[(0x3041, 0x3096)]));
                }
                _ => label.push_str("\u{3007}\u{3B1}"),
            }
        }
        _ => {
            let script = rng.pick(SCRIPTS);
            let second = rng.pick(SCRIPTS);
            for at in 0..len {
                let from = if at > 0 && rng.chance(15) { second } else { script };
                label.push(rng.pick_in(from));
                if at + 1 < len && rng.chance(5) {
                    label.push(rng.pick_char("0123456789-"));
                }
            }
            if label.is_ascii() {
                label.push('\u{E9}');
            }
        }
    }
    label
}

/// RFC 3492 Punycode (section 6.3), written again here for the A-labels of
/// the generated names (the crate's own encoder is private).
fn puny_adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > (35 * 26) / 2 {
        delta /= 35;
        k += 36;
    }
    k + (36 * delta) / (delta + 38)
}

fn puny_threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        1
    } else if k >= bias + 26 {
        26
    } else {
        k - bias
    }
}

fn punycode(input: &[char]) -> String {
    const BASE: u32 = 36;
    fn digit(value: u32) -> char {
        if value < 26 {
            char::from(b'a' + value as u8)
        } else {
            char::from(b'0' + (value - 26) as u8)
        }
    }
    let mut out: String = input.iter().filter(|c| c.is_ascii()).collect();
    let basic = out.len() as u32;
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (128u32, 0u32, 72u32);
    while (handled as usize) < input.len() {
        let m = input.iter().map(|&c| c as u32).filter(|&c| c >= n).min().unwrap();
        delta += (m - n) * (handled + 1);
        n = m;
        for &c in input {
            let c = c as u32;
            if c < n {
                delta += 1;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = puny_threshold(k, bias);
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = puny_adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    out
}

fn a_label(rng: &mut Rng) -> String {
    let label: Vec<char> = u_label(rng).chars().collect();
    let encoded = format!("xn--{}", punycode(&label));
    if rng.chance(10) {
        encoded.to_ascii_uppercase()
    } else {
        encoded
    }
}

/// IDNA2008 names: U-labels of several scripts, LDH labels, A-labels, and
/// the label separators RFC 3490 lists.
fn gen_idn_hostname(rng: &mut Rng) -> String {
    let count = rng.pick(&[1, 1, 2, 2, 2, 3, 4]);
    let mut name = String::new();
    for at in 0..count {
        if at > 0 {
            name.push(if rng.chance(85) {
                '.'
            } else {
                rng.pick(&['\u{3002}', '\u{FF0E}', '\u{FF61}'])
            });
        }
        let label = match rng.below(20) {
            0..=8 => u_label(rng),
            9..=14 => {
                let len = label_len(rng);
                ldh_label(rng, len)
            }
            15..=17 => a_label(rng),
            _ => digits(rng, 2),
        };
        name.push_str(&label);
    }
    name
}

const ATEXT: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~";

fn gen_email(rng: &mut Rng, international: bool) -> String {
    let mut text = String::new();
    if rng.chance(75) {
        for atom in 0..rng.range(1, 3) {
            if atom > 0 {
                text.push('.');
            }
            for _ in 0..rng.range(1, 8) {
                if international && rng.chance(20) {
                    text.push(rng.pick(&['\u{E9}', '\u{4E2D}', '\u{1F600}', '\u{FC}', '\u{3C0}']));
                } else {
                    text.push(rng.pick_char(ATEXT));
                }
            }
        }
    } else {
        text.push('"');
        for _ in 0..rng.range(0, 8) {
            match rng.below(8) {
                0 => {
                    text.push('\\');
                    text.push(rng.pick_char("\"\\ a@"));
                }
                1 => text.push(' '),
                2 if international => text.push('\u{E9}'),
                _ => text.push(rng.pick_char("abcXYZ09@.,()<>[]:;!#")),
            }
        }
        text.push('"');
    }
    text.push('@');
    match rng.below(10) {
        0 => {
            let octets: Vec<String> = (0..4)
                .map(|_| {
                    let value = rng.range(0, 255);
                    if rng.chance(20) {
                        format!("{value:03}")
                    } else {
                        value.to_string()
                    }
                })
                .collect();
            text.push_str(&format!("[{}]", octets.join(".")));
        }
        1 => text.push_str(&format!("[{}:{}]", rng.pick(&["IPv6", "ipv6"]), gen_ipv6(rng))),
        2 | 3 if international => {
            text.push_str(&gen_idn_hostname(rng).replace(['\u{3002}', '\u{FF0E}', '\u{FF61}'], "."))
        }
        _ => text.push_str(&gen_hostname(rng)),
    }
    text
}

fn octet(rng: &mut Rng) -> u32 {
    if rng.chance(40) {
        rng.pick(&[0, 1, 9, 10, 99, 100, 199, 200, 249, 250, 255])
    } else {
        rng.range(0, 255)
    }
}

fn gen_ipv4(rng: &mut Rng) -> String {
    (0..4)
        .map(|_| octet(rng).to_string())
        .collect::<Vec<_>>()
        .join(".")
}

/// RFC 4291 section 2.2: eight groups, one `::` for a run of zero groups
/// (any run of one or more, not only the longest), 1-4 hex digits of any
/// case, an IPv4 address for the last 32 bits.
fn gen_ipv6(rng: &mut Rng) -> String {
    let embedded = rng.chance(20);
    let count = if embedded { 6 } else { 8 };
    let groups: Vec<u32> = (0..count)
        .map(|_| match rng.below(5) {
            0 | 1 => 0,
            2 => rng.range(0, 15),
            _ => rng.range(0, 0xFFFF),
        })
        .collect();
    let write = |rng: &mut Rng, group: u32| {
        let text = match rng.below(4) {
            0 => format!("{group:04x}"),
            1 => format!("{group:X}"),
            _ => format!("{group:x}"),
        };
        text
    };
    // A run of zeros to elide, when there is one and the coin says so.
    let mut elide: Option<(usize, usize)> = None;
    if rng.chance(75) {
        let starts: Vec<usize> = (0..count).filter(|&i| groups[i] == 0).collect();
        if !starts.is_empty() {
            let start = rng.pick(&starts);
            let mut end = start + 1;
            while end < count && groups[end] == 0 && rng.chance(80) {
                end += 1;
            }
            elide = Some((start, end));
        }
    }
    let mut text = String::new();
    match elide {
        Some((start, end)) => {
            let head: Vec<String> = groups[..start].iter().map(|&g| write(rng, g)).collect();
            let tail: Vec<String> = groups[end..].iter().map(|&g| write(rng, g)).collect();
            text.push_str(&head.join(":"));
            text.push_str("::");
            text.push_str(&tail.join(":"));
            if embedded {
                if !tail.is_empty() {
                    text.push(':');
                }
                text.push_str(&gen_ipv4(rng));
            }
        }
        None => {
            let all: Vec<String> = groups.iter().map(|&g| write(rng, g)).collect();
            text.push_str(&all.join(":"));
            if embedded {
                text.push(':');
                text.push_str(&gen_ipv4(rng));
            }
        }
    }
    text
}

const UNRESERVED: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";
const SUB_DELIMS: &str = "!$&'()*+,;=";

/// Characters for one URI component: unreserved, percent-encoded octets,
/// sub-delimiters, `extra`, and (for IRIs) `ucschar`; `iprivate` where
/// `private`.
fn component(rng: &mut Rng, max: u32, extra: &str, iri: bool, private: bool) -> String {
    let mut text = String::new();
    for _ in 0..rng.range(0, max) {
        match rng.below(14) {
            0 => {
                text.push('%');
                text.push(rng.pick_char(HEX));
                text.push(rng.pick_char(HEX));
            }
            1 => text.push(rng.pick_char(SUB_DELIMS)),
            2 if !extra.is_empty() => text.push(rng.pick_char(extra)),
            3 if iri => text.push(rng.pick(&[
                '\u{E9}',
                '\u{3C0}',
                '\u{4E2D}',
                '\u{1F600}',
                '\u{10000}',
                '\u{A0}',
                '\u{D7FF}',
                '\u{F900}',
                '\u{FDF0}',
                '\u{E1000}',
            ])),
            4 if private => text.push(rng.pick(&['\u{E000}', '\u{F8FF}', '\u{F0000}', '\u{10FFFD}'])),
            _ => text.push(rng.pick_char(UNRESERVED)),
        }
    }
    text
}

fn gen_authority(rng: &mut Rng, iri: bool) -> String {
    let mut text = String::new();
    if rng.chance(25) {
        text.push_str(&component(rng, 8, ":", iri, false));
        text.push('@');
    }
    match rng.below(10) {
        0 => text.push_str(&gen_ipv4(rng)),
        1 => text.push_str(&format!("[{}]", gen_ipv6(rng))),
        2 => {
            let tail = component(rng, 5, ":", false, false);
            let tail = if tail.is_empty() { "x".to_owned() } else { tail };
            text.push_str(&format!("[v{}.{}]", rng.range(1, 0xFF), tail.replace('%', "")));
        }
        3 => text.push_str(&component(rng, 10, "", iri, false)),
        _ => text.push_str(&gen_hostname(rng)),
    }
    if rng.chance(30) {
        text.push(':');
        let count = rng.range(0, 5) as usize;
        text.push_str(&digits(rng, count));
    }
    text
}

fn segment(rng: &mut Rng, iri: bool) -> String {
    component(rng, 6, ":@", iri, false)
}

/// RFC 3986 / 3987 references: absolute ones with every component, and
/// (for the reference formats) relative ones.
fn gen_uri(rng: &mut Rng, iri: bool, relative: bool) -> String {
    let mut text = String::new();
    let absolute = !relative || rng.chance(50);
    if absolute {
        let scheme = if rng.chance(60) {
            rng.pick(&[
                "http", "https", "ftp", "mailto", "urn", "file", "tag", "a+b-c.d", "HTTP", "s",
            ])
            .to_owned()
        } else {
            let mut scheme = rng.pick_char(LOWER).to_string();
            for _ in 0..rng.range(0, 6) {
                scheme.push(rng.pick_char("abcz09+-."));
            }
            scheme
        };
        text.push_str(&scheme);
        text.push(':');
    }
    let segments = rng.range(0, 4);
    match rng.below(4) {
        0 | 1 => {
            text.push_str("//");
            text.push_str(&gen_authority(rng, iri));
            for _ in 0..segments {
                text.push('/');
                text.push_str(&segment(rng, iri));
            }
        }
        2 => {
            // path-absolute: "/" and a first segment that is not empty.
            text.push('/');
            if segments > 0 {
                let first = segment(rng, iri);
                text.push_str(if first.is_empty() { "a" } else { &first });
                for _ in 1..segments {
                    text.push('/');
                    text.push_str(&segment(rng, iri));
                }
            }
        }
        _ => {
            // path-rootless (after a scheme) or path-noscheme (relative:
            // no `:` in the first segment), or empty.
            if segments > 0 {
                let first = segment(rng, iri);
                let first = if absolute { first } else { first.replace(':', "") };
                text.push_str(if first.is_empty() { "a" } else { &first });
                for _ in 1..segments {
                    text.push('/');
                    text.push_str(&segment(rng, iri));
                }
            } else if !absolute && rng.chance(50) {
                text.push_str(rng.pick(&["..", ".", "../a", "./b:c"]));
            }
        }
    }
    if rng.chance(40) {
        text.push('?');
        text.push_str(&component(rng, 10, ":@/?", iri, iri));
    }
    if rng.chance(40) {
        text.push('#');
        text.push_str(&component(rng, 10, ":@/?", iri, false));
    }
    text
}

fn gen_uuid(rng: &mut Rng) -> String {
    let hex: String = (0..32).map(|_| rng.pick_char(HEX)).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// RFC 6570 level 4 templates: literals (ASCII, percent-encoded, `ucschar`
/// and `iprivate`), expressions with every operator (the reserved ones
/// too), prefixes from 1 to 9999, explode modifiers, dotted and
/// percent-encoded variable names.
fn gen_uri_template(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..rng.range(0, 5) {
        if rng.chance(45) {
            for _ in 0..rng.range(1, 6) {
                match rng.below(12) {
                    0 => {
                        text.push('%');
                        text.push(rng.pick_char(HEX));
                        text.push(rng.pick_char(HEX));
                    }
                    1 => text.push(rng.pick(&['\u{E9}', '\u{1F600}', '\u{E000}', '\u{F0000}', '\u{A0}'])),
                    2 => text.push(rng.pick_char("!#$&'()*+,-./:;=?@[]_~")),
                    _ => text.push(rng.pick_char(ALNUM)),
                }
            }
        } else {
            text.push('{');
            if rng.chance(70) {
                text.push(rng.pick_char("+#./;?&=,!@|"));
            }
            for var in 0..rng.range(1, 3) {
                if var > 0 {
                    text.push(',');
                }
                for part in 0..rng.range(1, 3) {
                    if part > 0 {
                        text.push('.');
                    }
                    for _ in 0..rng.range(1, 4) {
                        if rng.chance(10) {
                            text.push('%');
                            text.push(rng.pick_char(HEX));
                            text.push(rng.pick_char(HEX));
                        } else {
                            text.push(rng.pick_char("abcxyzXYZ019_"));
                        }
                    }
                }
                match rng.below(6) {
                    0 => text.push('*'),
                    1 => {
                        let length = match rng.below(4) {
                            0 => rng.pick(&[1, 9, 10, 99, 100, 999, 1000, 9999]),
                            1 => rng.range(1000, 9999),
                            _ => rng.range(1, 999),
                        };
                        text.push_str(&format!(":{length}"));
                    }
                    _ => {}
                }
            }
            text.push('}');
        }
    }
    text
}

const POINTER_CHARS: &[&str] = &[
    "a",
    "b",
    "foo",
    "0",
    "1",
    "10",
    "-",
    "~0",
    "~1",
    "~01",
    "~10",
    " ",
    "%",
    "^",
    "|",
    "\\",
    "\"",
    "#",
    "\u{E9}",
    "\u{1F600}",
    ".",
    "",
];

fn gen_json_pointer(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..rng.range(0, 5) {
        text.push('/');
        for _ in 0..rng.range(0, 3) {
            text.push_str(rng.pick(POINTER_CHARS));
        }
    }
    text
}

fn gen_non_negative(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => "0".to_owned(),
        1 => rng.pick(&["10", "100", "101", "120", "1000"]).to_owned(),
        _ => rng.range(1, 5000).to_string(),
    }
}

/// draft-bhutton-relative-json-pointer-00: a non-negative integer, an
/// optional index manipulation, then a JSON Pointer or `#`.
fn gen_relative_json_pointer(rng: &mut Rng) -> String {
    let mut text = gen_non_negative(rng);
    if rng.chance(30) {
        text.push(rng.pick_char("+-"));
        text.push_str(&gen_non_negative(rng));
    }
    if rng.chance(25) {
        text.push('#');
    } else {
        text.push_str(&gen_json_pointer(rng));
    }
    text
}

/// What a regular expression generated so far has: capturing groups
/// (opened, closed) and group names.
#[derive(Default)]
struct RegexState {
    groups: usize,
    names: Vec<String>,
}

/// ECMAScript regular expressions (Unicode mode): alternatives, groups of
/// every kind, classes with ranges and escapes, quantifiers greedy and
/// lazy, every escape form, properties, backreferences.
fn gen_regex(rng: &mut Rng) -> String {
    let mut state = RegexState::default();
    let mut text = String::new();
    if rng.chance(20) {
        text.push('^');
    }
    regex_disjunction(rng, &mut state, &mut text, 0);
    if rng.chance(20) {
        text.push('$');
    }
    text
}

fn regex_disjunction(rng: &mut Rng, state: &mut RegexState, text: &mut String, depth: u32) {
    let alternatives = if rng.chance(20) { rng.range(2, 3) } else { 1 };
    for alternative in 0..alternatives {
        if alternative > 0 {
            text.push('|');
        }
        for _ in 0..rng.range(0, 4) {
            regex_term(rng, state, text, depth);
        }
    }
}

fn regex_term(rng: &mut Rng, state: &mut RegexState, text: &mut String, depth: u32) {
    let quantifiable = match rng.below(24) {
        0 if depth < 3 => {
            state.groups += 1;
            text.push('(');
            regex_disjunction(rng, state, text, depth + 1);
            text.push(')');
            true
        }
        1 if depth < 3 => {
            text.push_str("(?:");
            regex_disjunction(rng, state, text, depth + 1);
            text.push(')');
            true
        }
        2 if depth < 3 => {
            state.groups += 1;
            let name = format!(
                "{}{}",
                rng.pick(&["n", "year", "x_", "$a", "\u{3C0}"]),
                state.names.len()
            );
            text.push_str(&format!("(?<{name}>"));
            state.names.push(name);
            regex_disjunction(rng, state, text, depth + 1);
            text.push(')');
            true
        }
        3 if depth < 3 => {
            text.push_str(rng.pick(&["(?=", "(?!", "(?<=", "(?<!"]));
            regex_disjunction(rng, state, text, depth + 1);
            text.push(')');
            false
        }
        4 => {
            text.push_str(rng.pick(&["^", "$", "\\b", "\\B"]));
            false
        }
        5 | 6 => {
            regex_class(rng, text);
            true
        }
        7 => {
            text.push_str(rng.pick(&["\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "."]));
            true
        }
        8 => {
            text.push_str(&regex_escape(rng));
            true
        }
        9 => {
            text.push_str(rng.pick(&[
                "\\p{L}",
                "\\P{Lu}",
                "\\p{Script=Greek}",
                "\\p{sc=Latn}",
                "\\p{General_Category=Decimal_Number}",
                "\\p{ASCII_Hex_Digit}",
                "\\p{Any}",
            ]));
            true
        }
        10 if state.groups > 0 || !state.names.is_empty() => {
            if !state.names.is_empty() && rng.chance(40) {
                let name = rng
                    .pick(&state.names.iter().map(String::as_str).collect::<Vec<_>>())
                    .to_owned();
                text.push_str(&format!("\\k<{name}>"));
            } else {
                text.push_str(&format!("\\{}", rng.range(1, state.groups.max(1) as u32)));
            }
            true
        }
        11 => {
            text.push('\\');
            text.push(rng.pick_char("^$\\.*+?()[]{}|/"));
            true
        }
        _ => {
            text.push(rng.pick(&[
                'a',
                'b',
                'z',
                'A',
                '0',
                '9',
                '_',
                ' ',
                '-',
                ',',
                ':',
                '=',
                '!',
                '<',
                '>',
                '\'',
                '"',
                '\u{E9}',
                '\u{1F600}',
                '#',
                '%',
                '&',
                '~',
                '@',
                '`',
            ]));
            true
        }
    };
    if quantifiable && rng.chance(25) {
        let quantifier = match rng.below(7) {
            0 => "*".to_owned(),
            1 => "+".to_owned(),
            2 => "?".to_owned(),
            3 => format!("{{{}}}", rng.range(0, 20)),
            4 => format!("{{{},}}", rng.range(0, 20)),
            _ => {
                let low = rng.range(0, 10);
                format!("{{{low},{}}}", low + rng.range(0, 10))
            }
        };
        text.push_str(&quantifier);
        if rng.chance(25) {
            text.push('?');
        }
    }
}

fn regex_escape(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => rng.pick(&["\\n", "\\t", "\\r", "\\f", "\\v", "\\0"]).to_owned(),
        1 => format!("\\x{}{}", rng.pick_char(HEX), rng.pick_char(HEX)),
        2 => format!(
            "\\u{}{}{}{}",
            rng.pick_char("0123456789abc"),
            rng.pick_char(HEX),
            rng.pick_char(HEX),
            rng.pick_char(HEX)
        ),
        3 => format!("\\u{{{:X}}}", rng.pick(&[0x41, 0xE9, 0x1F600, 0x10FFFF, 0])),
        4 => format!("\\c{}", rng.pick_char("AJZajz")),
        5 => "\\ud83d\\ude00".to_owned(),
        _ => "\\/".to_owned(),
    }
}

fn regex_class(rng: &mut Rng, text: &mut String) {
    text.push('[');
    if rng.chance(25) {
        text.push('^');
    }
    for _ in 0..rng.range(0, 4) {
        match rng.below(6) {
            0 => {
                let low = rng.range(u32::from(b'a'), u32::from(b'm'));
                let high = rng.range(low, u32::from(b'z'));
                text.push_str(&format!(
                    "{}-{}",
                    char::from_u32(low).unwrap(),
                    char::from_u32(high).unwrap()
                ));
            }
            1 => {
                text.push_str(rng.pick(&["\\d", "\\w", "\\s", "\\D", "\\p{L}", "\\b", "\\-", "\\]", "\\\\"]))
            }
            2 => text.push_str(&regex_escape(rng)),
            3 => text.push_str(rng.pick(&["0-9", "\u{E9}-\u{FF}", "\\x41-\\x5a", "\\u{1F600}-\\u{1F64F}"])),
            _ => text.push(rng.pick_char("abcXYZ019_.*+?(){}|$^/ ")),
        }
    }
    text.push(']');
}

fn generate(format: Format, rng: &mut Rng) -> String {
    match format {
        Format::DateTime => gen_date_time(rng),
        Format::Date => gen_date(rng),
        Format::Time => gen_time(rng),
        Format::Duration => gen_duration(rng),
        Format::Email => gen_email(rng, false),
        Format::IdnEmail => gen_email(rng, true),
        Format::Hostname => gen_hostname(rng),
        Format::IdnHostname => gen_idn_hostname(rng),
        Format::Ipv4 => gen_ipv4(rng),
        Format::Ipv6 => gen_ipv6(rng),
        Format::Uri => gen_uri(rng, false, false),
        Format::UriReference => gen_uri(rng, false, true),
        Format::Iri => gen_uri(rng, true, false),
        Format::IriReference => gen_uri(rng, true, true),
        Format::Uuid => gen_uuid(rng),
        Format::UriTemplate => gen_uri_template(rng),
        Format::JsonPointer => gen_json_pointer(rng),
        Format::RelativeJsonPointer => gen_relative_json_pointer(rng),
        Format::Regex => gen_regex(rng),
    }
}

// -------------------------------------------------------------- mutations

/// Characters a mutation inserts or substitutes, per format: the format's
/// own syntax and its near misses.
fn pool(format: Format) -> &'static str {
    match format {
        Format::DateTime | Format::Date | Format::Time => "0123456789-:.TtZz+ ,_",
        Format::Duration => "0123456789PYMWDTHSpymwdths.,-+eE ",
        Format::Email | Format::IdnEmail => "@.\"\\[]():;<>, a-_~\u{FF20}\u{3002}",
        Format::Hostname | Format::IdnHostname => {
            "-._ aZ09\u{3002}\u{FF0E}\u{FF61}\u{DF}\u{C9}\u{301}\u{200D}\u{200C}\u{B7}\u{375}\u{5D0}\u{6F1}\u{2010}"
        }
        Format::Ipv4 | Format::Ipv6 => "0123456789abcdefABCDEFgx.:%/[] ",
        Format::Uri | Format::UriReference | Format::Iri | Format::IriReference => {
            ":/?#[]@!$&'()*+,;=%-._~ <>\"{}|\\^`aZ09\u{E000}\u{FFFE}\u{85}\u{3000}"
        }
        Format::Uuid => "0123456789abcdefABCDEFg-{}_ :x+",
        Format::UriTemplate => "{}+#./;?&=,!@|:*%aZ09_- <>\"\\^`'\u{7F}[]",
        Format::JsonPointer | Format::RelativeJsonPointer => "/~01#+-a9 %\\",
        Format::Regex => "()[]{}*+?|^$\\.-,:=!<>/0123456789abcdkpuxPBDSWZ_ ",
    }
}

/// Characters every format's mutations use now and then: white space, a
/// line feed (Python's `$` matches before a final one), and non-ASCII
/// characters Python's Unicode-aware parsing treats specially: digits of
/// other scripts (U+0661, U+FF10, U+00B2), letters that case-fold to ASCII
/// (U+0131, U+017F, U+212A), a letter, an emoji.
const COMMON: &str = " \n\t\u{E9}\u{661}\u{FF10}\u{B2}\u{131}\u{17F}\u{212A}\u{1F600}";

fn pool_char(rng: &mut Rng, format: Format) -> char {
    if rng.chance(85) {
        rng.pick_char(pool(format))
    } else {
        rng.pick_char(COMMON)
    }
}

/// One nearly-valid string from `text`: a character replaced, inserted or
/// deleted, two swapped, a piece doubled, the end cut, or a boundary case
/// of the format.
fn mutate(format: Format, rng: &mut Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let len = chars.len();
    match rng.below(10) {
        0 | 1 if len > 0 => {
            let at = rng.below(len);
            chars[at] = pool_char(rng, format);
        }
        2 | 3 => {
            let at = rng.below(len + 1);
            let c = pool_char(rng, format);
            chars.insert(at, c);
        }
        4 if len > 0 => {
            let at = rng.below(len);
            chars.remove(at);
        }
        5 if len > 1 => {
            let at = rng.below(len - 1);
            chars.swap(at, at + 1);
        }
        6 if len > 0 => {
            let start = rng.below(len);
            let end = (start + 1 + rng.below(4)).min(len);
            let piece: Vec<char> = chars[start..end].to_vec();
            for (offset, c) in piece.into_iter().enumerate() {
                chars.insert(end + offset, c);
            }
        }
        7 if len > 0 => chars.truncate(rng.below(len)),
        _ => return boundary(format, rng, text),
    }
    chars.into_iter().collect()
}

/// `text` with the two ASCII characters at `at` replaced by `value`.
fn splice(text: &str, at: usize, len: usize, value: &str) -> String {
    match (text.get(..at), text.get(at + len..)) {
        (Some(head), Some(tail)) => format!("{head}{value}{tail}"),
        _ => text.to_owned(),
    }
}

/// A boundary case of the format, made from a valid `text`.
fn boundary(format: Format, rng: &mut Rng, text: &str) -> String {
    match format {
        Format::Date => boundary_date(rng, text),
        Format::Time => boundary_time(rng, text, 0),
        Format::DateTime => {
            if rng.chance(40) {
                boundary_date(rng, text)
            } else if rng.chance(15) {
                splice(text, 10, 1, rng.pick(&[" ", "", "TT", "_"]))
            } else {
                boundary_time(rng, text, 11)
            }
        }
        Format::Duration => boundary_duration(rng, text),
        Format::Hostname | Format::IdnHostname => boundary_hostname(rng, text),
        Format::Ipv4 => boundary_ipv4(rng, text),
        Format::Ipv6 => boundary_ipv6(rng, text),
        Format::Uuid => boundary_uuid(rng, text),
        Format::UriTemplate => boundary_template(rng, text),
        Format::RelativeJsonPointer => match rng.below(5) {
            0 => format!("0{text}"),
            1 => format!("{text}#"),
            2 => format!("-{text}"),
            3 => text.replacen('#', "#/a", 1),
            _ => format!("\u{661}{text}"),
        },
        Format::JsonPointer => match rng.below(4) {
            0 => format!("{text}~"),
            1 => format!("#{text}"),
            2 => format!("{text}/~2"),
            _ => text.trim_start_matches('/').to_owned(),
        },
        Format::Email | Format::IdnEmail => match rng.below(4) {
            0 => text.replacen('@', "", 1),
            1 => format!("{text}@"),
            2 => text.replacen('@', "@@", 1),
            _ => format!(".{text}"),
        },
        Format::Uri | Format::UriReference | Format::Iri | Format::IriReference => boundary_uri(rng, text),
        Format::Regex => {
            let piece = rng.pick(&[
                "a{",
                "{",
                "}",
                "]",
                "a{,5}",
                "\\-",
                "\\a",
                "\\Z",
                "(?i)",
                "(?i:a)",
                "a*+",
                "(?>a)",
                "\\01",
                "(?P<n>a)",
                "(?#c)",
                "\\q",
                "(?=a)*",
                "[\\d-z]",
                "\\u{110000}",
                "\\p{Foo}",
                "\\k<none>",
                "(?<a>x)(?<a>y)",
                "\\c",
                "\\x4",
                "\\u12",
                "[z-a]",
                "a**",
                "(?<=a+)",
                "(a)\\2",
            ]);
            let at = text
                .char_indices()
                .map(|(at, _)| at)
                .nth(rng.below(text.chars().count() + 1))
                .unwrap_or(text.len());
            format!("{}{piece}{}", &text[..at], &text[at..])
        }
    }
}

fn boundary_date(rng: &mut Rng, text: &str) -> String {
    match rng.below(8) {
        0 => splice(text, 5, 2, rng.pick(&["00", "13", "99"])),
        1 => splice(text, 8, 2, rng.pick(&["00", "32", "99"])),
        2 => {
            // One day past the month's end.
            let year: u32 = text.get(..4).and_then(|y| y.parse().ok()).unwrap_or(2001);
            let month: u32 = text.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
            if (1..=12).contains(&month) {
                splice(text, 8, 2, &format!("{:02}", days_in(year, month) + 1))
            } else {
                text.to_owned()
            }
        }
        3 => splice(
            text,
            0,
            10,
            rng.pick(&[
                "1900-02-29",
                "2100-02-29",
                "2023-02-29",
                "2001-02-29",
                "0000-02-29",
            ]),
        ),
        4 => splice(text, 0, 4, rng.pick(&["0000", "+2020", "20200", "202"])),
        5 => splice(text, 4, 1, rng.pick(&["/", "", "--"])),
        6 => splice(text, 5, 2, rng.pick(&["1", "001"])),
        _ => splice(text, 8, 2, rng.pick(&["1", "001", "31"])),
    }
}

fn boundary_time(rng: &mut Rng, text: &str, at: usize) -> String {
    match rng.below(9) {
        0 => splice(text, at, 2, rng.pick(&["24", "25", "99", "1"])),
        1 => splice(text, at + 3, 2, rng.pick(&["60", "99", "5"])),
        2 => splice(text, at + 6, 2, rng.pick(&["60", "61", "99"])),
        3 => {
            let offset = rng.pick(&[
                "+24:00", "-00:60", "+0000", "+00", "", "UTC", "+00:00Z", "Z+00:00", "ZZ", "+23:59", "-23:59",
            ]);
            if text.ends_with(['Z', 'z']) {
                splice(text, text.len() - 1, 1, offset)
            } else {
                splice(text, text.len() - 6, 6, offset)
            }
        }
        4 => splice(text, at + 8, 0, rng.pick(&[".", ",5", ".5.5"])),
        5 => {
            // A leap second at some other time than 23:59 UTC, or the
            // leap second right.
            let leap = splice(text, at + 6, 2, "60");
            if rng.chance(50) {
                splice(&leap, at, 5, "23:59")
            } else {
                leap
            }
        }
        6 => splice(text, at + 2, 1, rng.pick(&[".", "", "::"])),
        7 => format!("{text}\n"),
        _ => text.to_ascii_lowercase(),
    }
}

fn boundary_duration(rng: &mut Rng, text: &str) -> String {
    match rng.below(12) {
        0 => "P1Y2D".to_owned(),
        1 => format!("{}{text}", rng.pick(&["-", "+"])),
        2 => text.replacen(
            |c: char| c.is_ascii_digit(),
            rng.pick(&["1.5", "1,5", ".5", "1e2", "+1", "-1", "\u{661}"]),
            1,
        ),
        3 => format!("{text}{}", rng.pick(&["T", "1", "T1H", "W", "1W"])),
        4 => "PT1H2S".to_owned(),
        5 => format!("P{}W{}", rng.range(1, 9), rng.pick(&["T1H", "1D", "T"])),
        6 => text.replacen(|c: char| c.is_ascii_digit(), "", 1),
        7 => rng
            .pick(&[
                "P", "PT", "P1", "PT1", "1D", "P1Y1Y", "PT1S1S", "P2D1Y", "P1M1Y", "P1D2H",
            ])
            .to_owned(),
        8 => text.to_ascii_lowercase(),
        9 => format!("P1Y{}", rng.pick(&["3D", "T1S", "2MT1H3S", "3DT1H3S", "1W"])),
        10 => text.replace('T', ""),
        _ => format!("{text} "),
    }
}

fn boundary_hostname(rng: &mut Rng, text: &str) -> String {
    let labels: Vec<&str> = text.split('.').collect();
    match rng.below(10) {
        0 => format!("{text}."),
        1 => format!(".{text}"),
        2 => format!("{text}.{}", "a".repeat(rng.pick(&[63, 64, 65]))),
        3 => {
            // Past the 253-octet name limit, or right at it.
            let mut name = text.to_owned();
            while name.len() < 250 {
                name.push_str(".abcdefghij");
            }
            name.truncate(rng.pick(&[253, 254, 255]).min(name.len()));
            name.trim_end_matches(['.', '-']).to_owned()
        }
        4 => text.replacen('.', "..", 1),
        5 => format!("-{text}"),
        6 => format!("{}-", labels.join(".")),
        7 => format!(
            "xn--{}",
            rng.pick(&[
                "X",
                "",
                "abc-",
                "a",
                "zz-zz",
                "-bcher-kva",
                "bcher-kva",
                "BCHER-KVA",
                "aa---o47jg78q",
                "4gbwdl"
            ])
        ),
        8 => text.replacen(|c: char| c.is_ascii_lowercase(), "_", 1),
        _ => format!(
            "{}.{}",
            text,
            rng.pick(&[
                "B\u{FC}cher",
                "bu\u{308}cher",
                "\u{301}a",
                "ab--\u{E9}",
                "a\u{200D}b",
                "a\u{B7}b",
                "\u{3B1}\u{375}",
                "\u{5F3}\u{5D0}",
                "\u{30FB}",
                "\u{628}\u{660}\u{6F0}",
                "\u{5D0}a",
                "1a",
                "\u{1F600}",
                "\u{DF}"
            ])
        ),
    }
}

fn boundary_ipv4(rng: &mut Rng, text: &str) -> String {
    let mut parts: Vec<String> = text.split('.').map(str::to_owned).collect();
    let at = rng.below(parts.len());
    match rng.below(7) {
        0 => parts[at] = format!("0{}", parts[at]),
        1 => {
            parts[at] = rng
                .pick(&["256", "300", "999", "1000", "0x7f", "00", "-1", ""])
                .to_owned()
        }
        2 => parts.push(rng.range(0, 255).to_string()),
        3 => {
            parts.pop();
        }
        4 => return format!("{text}{}", rng.pick(&[".", "/24", " ", "%eth0", ":80"])),
        5 => {
            return rng
                .pick(&["2130706433", "127.1", "1.2.3.4.", "0.0.0.0"])
                .to_owned()
        }
        _ => parts[at] = format!("{:03}", rng.range(0, 255)),
    }
    parts.join(".")
}

fn boundary_ipv6(rng: &mut Rng, text: &str) -> String {
    match rng.below(10) {
        0 => {
            if text.contains("::") {
                text.replacen("::", ":::", 1)
            } else {
                format!(":::{text}")
            }
        }
        1 => format!("{text}{}", rng.pick(&["%eth0", "%25eth0", "%1", "%", "/64"])),
        2 => format!("[{text}]"),
        3 => format!("{text}:1"),
        4 => format!("1:{text}"),
        5 => {
            if text.contains("::") {
                format!("{text}::1").replacen(":::", "::", 1)
            } else {
                text.replacen(':', "::", 1)
            }
        }
        6 => text.replacen(':', ":12345:", 1),
        7 => text.replacen(|c: char| c.is_ascii_hexdigit(), "g", 1),
        8 => format!("{text}:1.2.3.{}", rng.pick(&["04", "256", "4"])),
        _ => rng
            .pick(&[
                "::ffff:01.2.3.4",
                "1.2.3.4::",
                "::1.2.3",
                "1:2:3:4:5:6:7:1.2.3.4",
                "1:2:3:4:5:6:1.2.3.4",
                "1::2:3:4:5:6:7:8",
                ":1::",
                "1::2::3",
                ":",
                "::",
                "fe80::1%eth0",
            ])
            .to_owned(),
    }
}

fn boundary_uuid(rng: &mut Rng, text: &str) -> String {
    match rng.below(8) {
        0 => format!("{{{text}}}"),
        1 => format!("urn:uuid:{text}"),
        2 => text.replace('-', ""),
        3 => splice(text, 34, 1, rng.pick(&["-", "_", " ", "g"])),
        4 => splice(text, 0, 2, rng.pick(&["0x", " 0", "+0"])),
        5 => format!("{text}{}", rng.pick(&["0", "-", "}", "\n"])),
        6 => text.replacen('-', "", 1).replacen('-', "--", 1),
        _ => splice(text, 35, 1, "\u{661}"),
    }
}

fn boundary_template(rng: &mut Rng, text: &str) -> String {
    let piece = rng.pick(&[
        "{",
        "}",
        "{}",
        "{+}",
        "{a,}",
        "{,a}",
        "{v:0}",
        "{v:01}",
        "{v:10000}",
        "{v:}",
        "{v*:3}",
        "{v:3*}",
        "{a..b}",
        "{.a.}",
        "{a.}",
        "{%}",
        "{%4}",
        "{%GG}",
        "{var=def}",
        "{va r}",
        "{{var}}",
        "{v[]}",
        "{a/b}",
        "{,+x}",
        "{=x}",
        "{!x}",
        "{@x}",
        "{|x}",
        "{v:999}",
        "{v:1000}",
        "{v:9999}",
        "a b",
        "<",
        ">",
        "\"",
        "\\",
        "^",
        "`",
        "|",
        "%",
        "%4",
        "%GG",
        "\u{7F}",
        "\u{85}",
        "\u{FFFE}",
    ]);
    let at = text
        .char_indices()
        .map(|(at, _)| at)
        .nth(rng.below(text.chars().count() + 1))
        .unwrap_or(text.len());
    format!("{}{piece}{}", &text[..at], &text[at..])
}

fn boundary_uri(rng: &mut Rng, text: &str) -> String {
    match rng.below(8) {
        0 => format!(
            "{text}{}",
            rng.pick(&["\n", " ", "#a#b", "%", "%4", "%gg", "<", "[", "\u{E000}", "\u{FFFE}"])
        ),
        1 => format!("{}{text}", rng.pick(&["1", ":", "//", " ", "\u{E9}:"])),
        2 => rng
            .pick(&[
                "http://[::01.2.3.4]/",
                "http://[v1.x]",
                "http://[v.x]",
                "http://[vg.x]",
                "http://[1::2::3]/",
                "http://[::1%25eth0]/",
                "http://a:b@c:d/",
                "http://a@b@c/",
                "http://[::1]x/",
                "http://01.02.03.004/",
                "http://[::1]:80a/",
                "a:b:c",
                "//a b/",
                "http://\u{E9}.com/?\u{E000}#\u{E000}",
            ])
            .to_owned(),
        3 => text.replacen('/', "\\", 1),
        4 => text.replacen(':', "", 1),
        5 => text.replacen('%', "%%", 1),
        6 => text.replacen('[', "", 1),
        _ => text.replacen(
            |c: char| c.is_ascii_alphanumeric(),
            rng.pick(&["\u{E9}", "\u{3000}", "\u{A0}", "\u{E000}"]),
            1,
        ),
    }
}

// ----------------------------------------------------------------- python

/// Python's verdict on one string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Python {
    Accepts,
    Refuses,
    /// The checker raised an exception it does not declare (named): the
    /// string is not accepted (jsonschema lets the exception through).
    Raised(String),
}

/// One `scripts/format_oracle.py` process, asked in batches.
struct Oracle {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    asked: usize,
}

impl Oracle {
    fn start(python: &std::ffi::OsStr) -> Oracle {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/format_oracle.py");
        let mut child = Command::new(python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{} {}: {e}", python.to_string_lossy(), script.display()));
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Oracle {
            child,
            input,
            output,
            asked: 0,
        }
    }

    /// Python's verdicts on `batch`, in order. The whole batch is written
    /// before anything is read: the script answers only at its `END`.
    fn ask(&mut self, batch: &[(Format, String)]) -> Vec<Python> {
        let mut lines = Vec::new();
        for (format, text) in batch {
            serde_json::to_writer(&mut lines, &(format.name(), text)).unwrap();
            lines.push(b'\n');
        }
        lines.extend_from_slice(b"END\n");
        self.input.write_all(&lines).unwrap();
        self.input.flush().unwrap();
        self.asked += batch.len();
        batch
            .iter()
            .map(|(format, text)| {
                let mut line = String::new();
                let read = self.output.read_line(&mut line).unwrap();
                assert!(
                    read > 0,
                    "the python oracle stopped before answering {} {text:?}",
                    format.name()
                );
                match line.trim_end() {
                    "1" => Python::Accepts,
                    "0" => Python::Refuses,
                    other => match other.strip_prefix("E ") {
                        Some(name) => Python::Raised(name.to_owned()),
                        None => panic!("the python oracle answered {other:?}"),
                    },
                }
            })
            .collect()
    }

    fn finish(mut self) {
        drop(self.input);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the python oracle exited with {status}");
    }
}

// ------------------------------------------------------------------ rules

/// Which way python deviates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Python accepts strings the RFC (and our check) refuses.
    PythonAccepts,
    /// Python refuses strings the RFC (and our check) accepts.
    PythonRefuses,
}

/// What shows that a rule explains a disagreement.
enum Witness {
    /// The rule is python's whole check (`"@" in s`): its condition is the
    /// explanation.
    Whole,
    /// Strings that differ from the disagreeing one only by the deviation:
    /// for `PythonAccepts`, the deviation undone, and our check must accept
    /// each; for `PythonRefuses`, the deviation written the way python
    /// takes it, and python must accept each. Each may itself need another
    /// rule (a string with two deviations), to a depth of eight.
    Strings(Vec<String>),
    /// As `Strings`, and python's verdicts on other strings, under other
    /// formats' checkers, must be as given (`true`: accepts): an
    /// independent check that the deviation is what the rule says.
    StringsAnd(Vec<String>, Vec<(Format, String, bool)>),
}

/// One known deviation of python's checkers from the RFC this crate
/// follows.
struct Rule {
    name: &'static str,
    formats: &'static [Format],
    side: Side,
    /// What python does and what the RFC says (the table's legend).
    about: &'static str,
    /// None when the deviation is not in the string at all.
    witness: fn(Format, &str) -> Option<Witness>,
}

/// The formats of RFC 3986 and 3987.
const URI_FORMATS: &[Format] = &[
    Format::Uri,
    Format::UriReference,
    Format::Iri,
    Format::IriReference,
];

/// Every known deviation, one rule each. The comment on each cites what
/// this crate follows.
const RULES: &[Rule] = &[
    // ---- date-time, date, time: rfc3339-validator 0.1.4 and datetime.
    //
    // RFC 3339 section 5.6 ends `date-time` and `full-time` with the
    // offset: nothing may follow. rfc3339-validator's `^...$` lets Python's
    // `$` match before a final line feed.
    Rule {
        name: "rfc3339-final-newline",
        formats: &[Format::DateTime, Format::Time],
        side: Side::PythonAccepts,
        about: "rfc3339-validator's `$` also matches before a final line feed; RFC 3339 section 5.6 allows nothing after the offset",
        witness: |_, text| without_final_newline(text),
    },
    // RFC 3339 section 5.6: `time-second` is 00-58, 59 or 60 "based on leap
    // second rules", and section 5.7 writes a leap second as 23:59:60 (UTC).
    Rule {
        name: "rfc3339-leap-second",
        formats: &[Format::DateTime, Format::Time],
        side: Side::PythonRefuses,
        about: "rfc3339-validator has no leap second (second 60); RFC 3339 sections 5.6 and 5.7 allow 60 where the UTC time is 23:59:60 (the condition: that UTC time, worked out here from the offset)",
        witness: |format, text| {
            let start = if format == Format::Time { 0 } else { 11 };
            let time = text.get(start..)?;
            let number = |range: std::ops::Range<usize>| time.get(range)?.parse::<i64>().ok();
            let (hour, minute) = (number(0..2)?, number(3..5)?);
            let to_utc = if time.ends_with(['Z', 'z']) {
                0
            } else {
                let offset = time.get(time.len().checked_sub(6)?..)?;
                let minutes = offset.get(1..3)?.parse::<i64>().ok()? * 60 + offset.get(4..6)?.parse::<i64>().ok()?;
                match offset.as_bytes().first()? {
                    b'+' => -minutes,
                    b'-' => minutes,
                    _ => return None,
                }
            };
            let at_23_59 = (hour * 60 + minute + to_utc).rem_euclid(24 * 60) == 23 * 60 + 59;
            (time.get(5..8) == Some(":60") && at_23_59).then(|| one(splice(text, start + 6, 2, "59")))
        },
    },
    // RFC 3339 section 5.6: `date-fullyear = 4DIGIT`, so 0000 is a year
    // (ISO 8601's year zero, 1 BC).
    Rule {
        name: "year-zero",
        formats: &[Format::DateTime, Format::Date],
        side: Side::PythonRefuses,
        about: "rfc3339-validator refuses year 0000 and Python's `date` starts at year 1; RFC 3339's `date-fullyear = 4DIGIT` has 0000",
        witness: |_, text| text.strip_prefix("0000").map(|rest| one(format!("2000{rest}"))),
    },
    // ---- duration: isoduration 20.11.0 (and jsonschema's check that the
    // string ends with a designator).
    //
    // RFC 3339 appendix A writes the designators as quoted ABNF strings,
    // which are case-insensitive (RFC 5234 section 2.3).
    Rule {
        name: "duration-lower-case",
        formats: &[Format::Duration],
        side: Side::PythonRefuses,
        about: "isoduration knows only upper-case designators; RFC 3339 appendix A's ABNF strings are case-insensitive (RFC 5234 section 2.3)",
        witness: |_, text| text.bytes().any(|b| b.is_ascii_lowercase()).then(|| one(text.to_ascii_uppercase())),
    },
    // RFC 3339 appendix A: `duration = "P" ...`, no sign.
    Rule {
        name: "duration-sign",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration takes a leading `+` or `-`; RFC 3339 appendix A's `duration` starts with `P`",
        witness: |_, text| text.strip_prefix(['+', '-']).map(|rest| one(rest.to_owned())),
    },
    // RFC 3339 appendix A: every number is `1*DIGIT`.
    Rule {
        name: "duration-decimal-number",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration reads each number with Python's `Decimal` (signs, exponents: `P+1D`, `P1e2D`); RFC 3339 appendix A's numbers are `1*DIGIT`",
        witness: |_, text| {
            duration_numbers(text, |run| {
                run.contains(['+', '-', 'e', 'E']).then(|| {
                    let mantissa: String = run.split(['e', 'E']).next().unwrap_or("").replace(['+', '-'], "");
                    if mantissa.is_empty() { "0".to_owned() } else { mantissa }
                })
            })
        },
    },
    // RFC 3339 appendix A has no fractions (ISO 8601 allows one on the
    // smallest unit; the appendix's grammar does not).
    Rule {
        name: "duration-fraction",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration takes decimal fractions with `.` or `,` (`PT0.5S`, `P1,5D`), as ISO 8601 does; RFC 3339 appendix A's numbers are `1*DIGIT`",
        witness: |_, text| {
            duration_numbers(text, |run| {
                let (whole, fraction) = run.split_once(['.', ','])?;
                let plain = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
                (plain(whole) && plain(fraction))
                    .then(|| if whole.is_empty() { "0".to_owned() } else { whole.to_owned() })
            })
        },
    },
    // RFC 3339 appendix A: `dur-year = 1*DIGIT "Y" [dur-month]`, `dur-month
    // = 1*DIGIT "M" [dur-day]`, `dur-hour = 1*DIGIT "H" [dur-minute]`,
    // `dur-minute = 1*DIGIT "M" [dur-second]`: a unit is followed only by
    // the next one, so none is skipped.
    Rule {
        name: "duration-skipped-unit",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration lets a unit be skipped (`P1Y2D`, `PT1H2S`); in RFC 3339 appendix A each unit may be followed only by the next one",
        witness: |_, text| duration_without_gaps(text),
    },
    // RFC 3339 appendix A: `duration = "P" (dur-date / dur-time /
    // dur-week)`: weeks stand alone.
    Rule {
        name: "duration-week-with-time",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration takes a time after weeks (`P1WT1H`); RFC 3339 appendix A's `dur-week` stands alone",
        witness: |_, text| {
            // The date part ends with weeks (what comes before them is
            // another rule's business), and a time follows.
            let (date, time) = text.strip_prefix('P')?.split_once('T')?;
            let count = date.strip_suffix('W')?;
            (count.ends_with(|c: char| c.is_ascii_digit()) && !time.is_empty())
                .then(|| one(format!("P{date}")))
        },
    },
    // RFC 3339 appendix A: every number has its designator.
    Rule {
        name: "duration-number-without-unit",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration drops what it read as a number (`[+\\-0-9.,eE]`) right before `T` when no designator follows it (`P1D2T3H`, `P,T1S`); in RFC 3339 appendix A every number has its unit",
        witness: |_, text| {
            let at = text.find('T')?;
            let date = text.get(1..at)?;
            let run = date.chars().rev().take_while(|c| matches!(c, '+' | '-' | '0'..='9' | '.' | ',' | 'e' | 'E')).count();
            let start = date.len() - run;
            // isoduration's own test: a run equal to the whole date part
            // (its comma read as a dot) goes to its other syntax
            // (`PYYYYMMDDThhmmss`), not this.
            (run > 0 && date[start..].replace(',', ".") != date)
                .then(|| one(format!("P{}{}", &date[..start], &text[at..])))
        },
    },
    // RFC 3339 appendix A: `dur-week` stands alone.
    Rule {
        name: "duration-week-after-zero",
        formats: &[Format::Duration],
        side: Side::PythonAccepts,
        about: "isoduration refuses weeks after another date unit only when that unit's value is not zero (it compares values: `P0Y4W` passes); RFC 3339 appendix A's `dur-week` stands alone",
        witness: |_, text| {
            let body = text.strip_prefix('P')?.strip_suffix('W')?;
            let digits = body.bytes().rev().take_while(u8::is_ascii_digit).count();
            let (units, weeks) = body.split_at(body.len() - digits);
            let zero_units = !units.is_empty()
                && units.split_inclusive(['Y', 'M', 'D']).all(|element| {
                    element.len() > 1
                        && element[..element.len() - 1].bytes().all(|b| b == b'0')
                        && element.ends_with(['Y', 'M', 'D'])
                });
            (digits > 0 && zero_units).then(|| one(format!("P{weeks}W")))
        },
    },
    // ---- email, idn-email: jsonschema's own check.
    //
    // RFC 5321 section 4.1.2 (`Mailbox`) and RFC 6531 section 3.3: the
    // whole grammar. Python checks that the string holds an `@`, nothing
    // more, so it confirms only that every address we accept has one.
    Rule {
        name: "email-at-sign-only",
        formats: &[Format::Email, Format::IdnEmail],
        side: Side::PythonAccepts,
        about: "jsonschema's check is `\"@\" in instance` and no more; RFC 5321 section 4.1.2 (`Mailbox`) and RFC 6531 section 3.3 define the syntax",
        witness: |_, text| text.contains('@').then_some(Witness::Whole),
    },
    // ---- hostname: fqdn 1.6.0.
    //
    // RFC 1123 section 2.1 on RFC 1034 section 3.5: a name is labels
    // separated by dots; the final dot of an absolute name is the root's
    // empty label in master files (RFC 1034 section 3.1), not part of a
    // host name.
    Rule {
        name: "hostname-final-dot",
        formats: &[Format::Hostname],
        side: Side::PythonAccepts,
        about: "fqdn takes an absolute name's final dot; RFC 1034 section 3.5's `<domain>` (RFC 1123 section 2.1) has no empty label",
        witness: |_, text| text.strip_suffix('.').map(|rest| one(rest.to_owned())),
    },
    Rule {
        name: "hostname-final-newline",
        formats: &[Format::Hostname],
        side: Side::PythonAccepts,
        about: "fqdn's `$` also matches before a final line feed; RFC 1034 section 3.5's labels are letters, digits and hyphens",
        witness: |_, text| without_final_newline(text),
    },
    // RFC 1034 section 3.5: `<let-dig>` is ASCII.
    Rule {
        name: "hostname-unicode-regex",
        formats: &[Format::Hostname],
        side: Side::PythonAccepts,
        about: "fqdn's regular expression is Unicode-aware: `\\d` takes any decimal digit (U+0661, U+FF10, ...) and, case-insensitive after lower-casing, U+0131, U+017F and U+212A match ASCII letters; RFC 1034 section 3.5's `<let-dig>` is ASCII",
        witness: |_, text| {
            let mut changed = false;
            let mut out = String::new();
            for c in text.chars() {
                if c.is_ascii() {
                    out.push(c);
                } else if matches!(c, '\u{131}' | '\u{17F}' | '\u{212A}') {
                    out.push('a');
                    changed = true;
                } else if in_class(&DECIMAL_DIGITS, c) {
                    out.push('0');
                    changed = true;
                } else {
                    return None;
                }
            }
            changed.then(|| one(out))
        },
    },
    // RFC 5890 section 2.3.2.1 and RFC 5891 section 5.3: a label that
    // starts with `xn--` must be a valid A-label (Punycode that decodes to
    // a valid U-label and is its own encoding); anything else is a "fake
    // A-label".
    Rule {
        name: "hostname-fake-a-label",
        formats: &[Format::Hostname],
        side: Side::PythonAccepts,
        about: "fqdn does not check that an `xn--` label is a valid A-label; RFC 5890 section 2.3.2.1 and RFC 5891 section 5.3 require one (the witnesses: the name with the `xn--` of each label we refuse alone made `xy--`, and python's own `idn-hostname` checker, idna, refusing each of those labels)",
        witness: |_, text| {
            let mut fakes = Vec::new();
            let labels: Vec<String> = text
                .split('.')
                .map(|label| match label.get(..4) {
                    // The `xn--` labels we refuse alone.
                    Some(prefix) if prefix.eq_ignore_ascii_case("xn--") && !Format::Hostname.check(label) => {
                        fakes.push((Format::IdnHostname, label.to_owned(), false));
                        format!("xy--{}", &label[4..])
                    }
                    _ => label.to_owned(),
                })
                .collect();
            (!fakes.is_empty()).then(|| Witness::StringsAnd(vec![labels.join(".")], fakes))
        },
    },
    // RFC 5891 section 4.4 (which the format's definition cites) makes an
    // `xn--` label an IDNA label, and RFC 5893 section 2 then applies the
    // Bidi rule to every label of a name with a right-to-left one.
    Rule {
        name: "hostname-bidi-rule",
        formats: &[Format::Hostname],
        side: Side::PythonAccepts,
        about: "fqdn applies no IDNA rule; a name whose A-label decodes to right-to-left characters is a Bidi domain name, where RFC 5893 section 2 holds every label to the Bidi rule (`1a.xn--4gbwdl`; the condition and witnesses as for `idn-bidi-rule-per-label`)",
        witness: |_, text| bidi_domain_labels(text, &['.']),
    },
    // ---- idn-hostname: idna 3.20.
    Rule {
        name: "idn-final-dot",
        formats: &[Format::IdnHostname],
        side: Side::PythonAccepts,
        about: "idna.encode takes a final label separator (the root); RFC 5890 section 2.3.2.3's IDN is a sequence of labels, none empty",
        witness: |_, text| text.strip_suffix(LABEL_SEPARATORS).map(|rest| one(rest.to_owned())),
    },
    // RFC 5893 section 1.4 and 2: in a Bidi domain name (one with a
    // right-to-left label) every label must satisfy the Bidi rule, the
    // left-to-right ones too (`1a.xn--...` fails for `1a`).
    Rule {
        name: "idn-bidi-rule-per-label",
        formats: &[Format::IdnHostname],
        side: Side::PythonAccepts,
        about: "idna applies the Bidi rule only to labels that hold right-to-left characters; RFC 5893 section 2 applies it to every label of a name that has one (the condition: a label, or what an A-label decodes to, has a character of Bidi class R, AL or AN, and a label fails the rule as written again here; the witnesses: each label alone is valid, so only a whole-name condition fails, and the other one, length, idna checks too)",
        witness: |_, text| bidi_domain_labels(text, &LABEL_SEPARATORS),
    },
    // RFC 5892 derives each code point's class from the Unicode version in
    // use; the crate has IANA's tables for Unicode 16.0.
    Rule {
        name: "idn-unicode-14",
        formats: &[Format::IdnHostname],
        side: Side::PythonRefuses,
        about: "idna reads Bidi classes from Python's own Unicode database (14.0) and refuses code points assigned later; IANA's IDNA2008 tables for Unicode 16.0 (RFC 5892's derivation) make them PVALID",
        witness: |_, text| idn_without_newer_code_points(text),
    },
    // ---- uri, uri-reference, iri, iri-reference: rfc3987 1.3.8.
    Rule {
        name: "rfc3987-final-newline",
        formats: URI_FORMATS,
        side: Side::PythonAccepts,
        about: "rfc3987's `^...$` also matches before a final line feed; RFC 3986 (and 3987) have no line feed in any component",
        witness: |_, text| without_final_newline(text),
    },
    // RFC 3986 section 3.2.2: `dec-octet` has no leading zeros (`01` is
    // not one); rfc3987 writes it `[01]?[0-9][0-9]?`.
    Rule {
        name: "rfc3987-dec-octet",
        formats: URI_FORMATS,
        side: Side::PythonAccepts,
        about: "rfc3987's `dec-octet` takes leading zeros (`[01]?[0-9][0-9]?`), seen in an IPv6 literal's IPv4 part (`[::01.2.3.4]`); RFC 3986 section 3.2.2's `dec-octet` has none",
        witness: |_, text| {
            let open = text.find('[')?;
            let close = open + text[open..].find(']')?;
            let inner = &text[open + 1..close];
            let (head, quad) = inner.rsplit_once(':')?;
            let octets: Vec<&str> = quad.split('.').collect();
            if octets.len() != 4 {
                return None;
            }
            let plain: Vec<&str> = octets
                .iter()
                .map(|octet| {
                    let trimmed = octet.trim_start_matches('0');
                    if trimmed.is_empty() && !octet.is_empty() { "0" } else { trimmed }
                })
                .collect();
            (plain != octets).then(|| one(format!("{}[{head}:{}]{}", &text[..open], plain.join("."), &text[close + 1..])))
        },
    },
    // ---- uuid: Python's uuid.UUID (and jsonschema's hyphen positions).
    //
    // RFC 4122 section 3: the string representation is 8-4-4-4-12 hex
    // digits with exactly those four hyphens, and nothing else.
    Rule {
        name: "uuid-extra-hyphens",
        formats: &[Format::Uuid],
        side: Side::PythonAccepts,
        about: "uuid.UUID removes every `-` before counting 32 digits (jsonschema then checks 4 of them); RFC 4122 section 3's string has exactly four",
        witness: |_, text| {
            let digits: String = text.chars().filter(|&c| c != '-').collect();
            let canonical = (digits.len() == 32 && digits.is_char_boundary(8) && digits.is_char_boundary(12)
                && digits.is_char_boundary(16) && digits.is_char_boundary(20))
                .then(|| format!("{}-{}-{}-{}-{}", &digits[..8], &digits[8..12], &digits[12..16], &digits[16..20], &digits[20..]))?;
            (canonical != text).then(|| one(canonical))
        },
    },
    Rule {
        name: "uuid-braces-and-urn",
        formats: &[Format::Uuid],
        side: Side::PythonAccepts,
        about: "uuid.UUID strips `{` and `}` at the ends and removes `urn:` and `uuid:`; RFC 4122 section 3's string representation has none (the URN form is a URI, not the string)",
        witness: |_, text| {
            let out = text.replace("urn:", "").replace("uuid:", "").trim_matches(['{', '}']).to_owned();
            (out != text).then(|| one(out))
        },
    },
    Rule {
        name: "uuid-int-syntax",
        formats: &[Format::Uuid],
        side: Side::PythonAccepts,
        about: "uuid.UUID reads the digits with `int(..., 16)`, which takes `_` between digits, white space and a sign around them, a `0x` prefix and non-ASCII decimal digits; RFC 4122 section 3's `hexDigit` is ASCII",
        witness: |_, text| {
            let mut out = String::new();
            let mut changed = false;
            let body = match text.get(..2) {
                Some("0x" | "0X") => {
                    out.push_str("00");
                    changed = true;
                    &text[2..]
                }
                _ => text,
            };
            for c in body.chars() {
                if c == '_' || c == '+' || c.is_whitespace() || (!c.is_ascii() && in_class(&DECIMAL_DIGITS, c)) {
                    out.push('0');
                    changed = true;
                } else {
                    out.push(c);
                }
            }
            changed.then(|| one(out))
        },
    },
    // ---- uri-template: uri-template 1.3.0.
    //
    // RFC 6570 section 2.2: `operator = op-level2 / op-level3 /
    // op-reserve`, `op-reserve = "=" / "," / "!" / "@" / "|"`: reserved for
    // future extensions, and part of the grammar.
    Rule {
        name: "template-reserved-operator",
        formats: &[Format::UriTemplate],
        side: Side::PythonRefuses,
        about: "uri-template refuses the reserved operators `=`, `!`, `@`, `|`; RFC 6570 section 2.2 has them in the grammar (`op-reserve`)",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| match body.strip_prefix(['=', '!', '@', '|']) {
                Some(rest) => format!("+{rest}"),
                None => body.to_owned(),
            })
        },
    },
    // RFC 6570 section 2.4.1: `max-length = %x31-39 0*3DIGIT`, up to 9999.
    Rule {
        name: "template-prefix-over-999",
        formats: &[Format::UriTemplate],
        side: Side::PythonRefuses,
        about: "uri-template takes a prefix of at most 3 digits; RFC 6570 section 2.4.1's `max-length` has up to 4 (9999)",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| {
                rewrite_varspecs(body, |spec| match spec.split_once(':') {
                    Some((name, length))
                        if length.len() == 4
                            && length.bytes().all(|b| b.is_ascii_digit())
                            && !length.starts_with('0') =>
                    {
                        format!("{name}:1")
                    }
                    _ => spec.to_owned(),
                })
            })
        },
    },
    // RFC 6570 section 2.3: `varname = varchar *( ["."] varchar )`,
    // `varchar = ALPHA / DIGIT / "_" / pct-encoded`: a name may start with
    // a percent-encoded octet.
    Rule {
        name: "template-name-starts-with-pct",
        formats: &[Format::UriTemplate],
        side: Side::PythonRefuses,
        about: "uri-template refuses a variable name that starts with a percent-encoded octet; RFC 6570 section 2.3's `varchar` includes `pct-encoded`",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| {
                rewrite_varspecs(body, |spec| match spec.strip_prefix('%') {
                    Some(rest) if rest.bytes().take(2).filter(u8::is_ascii_hexdigit).count() == 2 => {
                        format!("_{}", &rest[2..])
                    }
                    _ => spec.to_owned(),
                })
            })
        },
    },
    // RFC 6570 section 2.1: `literals` are a fixed set (no controls,
    // space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `|`, a `%` only in a
    // pct-encoded octet, `ucschar` and `iprivate` for non-ASCII).
    Rule {
        name: "template-literals-unchecked",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template checks nothing outside expressions but braces; RFC 6570 section 2.1 limits `literals` (the witness: each character outside that set, written again here from the RFC, replaced by `a`)",
        witness: |_, text| rewrite_template(text, rfc6570_literals, str::to_owned),
    },
    // RFC 6570 section 2.3 and 2.4: `varspec = varname [ modifier-level4
    // ]`, nothing else.
    Rule {
        name: "template-varspec-extensions",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template takes its own extensions in a varspec: a default (`{var=x}`), an array suffix (`{var[]}`) and a key (`{name/key}`); RFC 6570 section 2.3's `varspec` has none",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| {
                rewrite_varspecs(body, |spec| {
                    let spec = spec.split('=').next().unwrap_or("");
                    let spec = spec.strip_suffix("[]").unwrap_or(spec);
                    spec.replace('/', "")
                })
            })
        },
    },
    // RFC 6570 section 2.3: a dot only between two `varchar`s.
    Rule {
        name: "template-name-dots",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template takes `.` anywhere in a variable name (`{a..b}`, `{a.}`); RFC 6570 section 2.3 puts a dot only between two `varchar`s",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| {
                rewrite_varspecs(body, |spec| {
                    let end = spec.find([':', '*']).unwrap_or(spec.len());
                    let (name, modifier) = spec.split_at(end);
                    let parts: Vec<&str> = name.split('.').filter(|part| !part.is_empty()).collect();
                    if parts.is_empty() {
                        // No name at all: not this rule's case.
                        return spec.to_owned();
                    }
                    format!("{}{modifier}", parts.join("."))
                })
            })
        },
    },
    // RFC 6570 section 2.2: `variable-list = varspec *( "," varspec )`:
    // nothing after the last varspec.
    Rule {
        name: "template-trailing-joiner",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template drops one `,`, `.`, `/`, `;` or `&` at the end of an expression (for its partial templates: `{a,}`, `{;x;}`); RFC 6570 section 2.2's `variable-list` ends with a varspec",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| match body.strip_suffix([',', '.', '/', ';', '&']) {
                Some(rest) if !rest.is_empty() => rest.to_owned(),
                _ => body.to_owned(),
            })
        },
    },
    // RFC 6570 section 2.2: one operator.
    Rule {
        name: "template-comma-plus",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template has an expansion of its own for `{,+var}`; RFC 6570 section 2.2 allows one operator",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| match body.strip_prefix(",+") {
                Some(rest) => format!(",{rest}"),
                None => body.to_owned(),
            })
        },
    },
    // RFC 6570 section 2.4.1: `max-length = %x31-39 0*3DIGIT`, no leading
    // zero.
    Rule {
        name: "template-prefix-leading-zero",
        formats: &[Format::UriTemplate],
        side: Side::PythonAccepts,
        about: "uri-template takes a prefix with leading zeros (`{v:01}`); RFC 6570 section 2.4.1's `max-length` starts with 1-9",
        witness: |_, text| {
            rewrite_template(text, str::to_owned, |body| {
                rewrite_varspecs(body, |spec| match spec.split_once(':') {
                    Some((name, length)) if length.starts_with('0') => {
                        let trimmed = length.trim_start_matches('0');
                        format!("{name}:{}", if trimmed.is_empty() { "0" } else { trimmed })
                    }
                    _ => spec.to_owned(),
                })
            })
        },
    },
    // ---- relative-json-pointer: jsonschema's own check, after
    // draft-handrews-relative-json-pointer-01.
    //
    // draft-bhutton-relative-json-pointer-00 section 3 (what the 2020-12
    // validation specification cites): `relative-json-pointer =
    // non-negative-integer [index-manipulation] ( json-pointer / "#" )`.
    Rule {
        name: "rjp-index-manipulation",
        formats: &[Format::RelativeJsonPointer],
        side: Side::PythonRefuses,
        about: "jsonschema follows draft-handrews-relative-json-pointer-01, without index manipulation (`0+1`, `1-2/a`); draft-bhutton-relative-json-pointer-00 section 3 adds it",
        witness: |_, text| {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            let rest = text[digits..].strip_prefix(['+', '-'])?;
            let more = rest.bytes().take_while(u8::is_ascii_digit).count();
            // A valid `index-manipulation`: a sign and a
            // `non-negative-integer` (no leading zero).
            (digits > 0 && more > 0 && (more == 1 || !rest.starts_with('0')))
                .then(|| one(format!("{}{}", &text[..digits], &rest[more..])))
        },
    },
    // draft-bhutton-relative-json-pointer-00 section 3: `non-negative-integer
    // = %x30 / %x31-39 *%x30-39`: zeros after the first digit are fine.
    Rule {
        name: "rjp-zero-after-first-digit",
        formats: &[Format::RelativeJsonPointer],
        side: Side::PythonRefuses,
        about: "jsonschema refuses any digit after a `0` in the integer (`100`, `105`), not only a leading zero; the draft's `non-negative-integer` is `%x30 / %x31-39 *%x30-39`",
        witness: |_, text| {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            let number = &text[..digits];
            (digits > 1 && !number.starts_with('0') && number[1..].contains('0'))
                .then(|| one(format!("{}{}{}", &number[..1], number[1..].replace('0', "1"), &text[digits..])))
        },
    },
    // The draft's integer is ASCII digits (RFC 5234 appendix B.1 `DIGIT`).
    Rule {
        name: "rjp-unicode-digits",
        formats: &[Format::RelativeJsonPointer],
        side: Side::PythonAccepts,
        about: "jsonschema reads the integer with `str.isdigit()`, true for any Unicode digit (U+0661, U+00B2, ...); the draft's digits are ASCII (RFC 5234 appendix B.1)",
        witness: |_, text| {
            let mut out = String::new();
            let mut changed = false;
            let mut leading = true;
            for c in text.chars() {
                if leading && !c.is_ascii() && c.is_numeric() {
                    out.push('1');
                    changed = true;
                } else {
                    leading &= c.is_ascii_digit();
                    out.push(c);
                }
            }
            changed.then(|| one(out))
        },
    },
    // ---- regex: Python's `re` against ECMA-262 (Unicode mode, ES2024),
    // which section 4 of the 2020-12 validation specification names.
    //
    // Python refuses, as spelled, what ECMAScript writes differently or
    // Python does not have; the witness writes it Python's way.
    Rule {
        name: "re-named-groups",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` spells named groups `(?P<name>...)` and `(?P=name)`, with identifier names only; ECMA-262 22.2.1 has `(?<name>...)` and `\\k<name>`, and names like `$a`",
        witness: |_, text| regex_python_names(text),
    },
    Rule {
        name: "re-property-escapes",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` has no `\\p{...}` / `\\P{...}`; ECMA-262 22.2.1's `CharacterClassEscape` has them in Unicode mode (the condition: the property is one ECMA-262 names, from a list written here: every General_Category value, the binary properties, two scripts)",
        witness: |_, text| {
            map_escapes(text, |escape, _| {
                let negated = escape.starts_with("\\P{");
                let property = escape.get(3..)?.strip_suffix('}')?;
                (escape.get(..3).is_some_and(|open| open.eq_ignore_ascii_case("\\p{")) && ecmascript_property(property))
                    .then(|| if negated { "\\W" } else { "\\w" }.to_owned())
            })
        },
    },
    Rule {
        name: "re-code-point-escapes",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` has no `\\u{...}` (it writes `\\U0001F600`); ECMA-262 22.2.1's `RegExpUnicodeEscapeSequence` has `\\u{CodePoint}` in Unicode mode",
        witness: |_, text| {
            map_escapes(text, |escape, _| {
                let hex = escape.strip_prefix("\\u{")?.strip_suffix('}')?;
                u32::from_str_radix(hex, 16).ok().map(|value| format!("\\U{value:08X}"))
            })
        },
    },
    Rule {
        name: "re-control-escapes",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` has no `\\cX`; ECMA-262 22.2.1's `CharacterEscape` has `c AsciiLetter`",
        witness: |_, text| {
            map_escapes(text, |escape, _| {
                let letter = escape.strip_prefix("\\c")?.bytes().next().filter(u8::is_ascii_alphabetic)?;
                Some(format!("\\x{:02X}", letter % 32))
            })
        },
    },
    Rule {
        name: "re-empty-classes",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` reads a `]` right after `[` or `[^` as a literal, so `[]` and `[^]` are unterminated; in ECMA-262 22.2.1 they are the empty class and the class of everything",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Class, "[]") => Some("(?!)".to_owned()),
                (Unit::Class, "[^]") => Some("[\\s\\S]".to_owned()),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-lookbehind-width",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` needs a fixed-width lookbehind (and one without group references); ECMA-262 22.2.1 takes any lookbehind (the witness makes it a lookahead)",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Open, "(?<=") => Some("(?=".to_owned()),
                (Unit::Open, "(?<!") => Some("(?!".to_owned()),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-open-group-reference",
        formats: &[Format::Regex],
        side: Side::PythonRefuses,
        about: "`re` refuses a backreference to a group not closed yet (inside it, or before it); ECMA-262 22.2.1 takes any reference to a group of the pattern (it matches the empty string until the group has)",
        witness: |_, text| regex_without_open_references(text),
    },
    // Python accepts, as literals or as its own syntax, what ECMAScript's
    // Unicode mode refuses; the witness writes it ECMAScript's way.
    Rule {
        name: "re-lone-braces",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` reads a `{` that does not start a quantifier, and a lone `}`, as literals; ECMA-262 22.2.1 in Unicode mode (the `u` flag) requires them escaped (Annex B's `ExtendedPatternCharacter` is for the non-Unicode mode only)",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Brace, brace) => Some(format!("\\{brace}")),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-open-quantifier",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` has the quantifiers `{,n}` and `{,}`; ECMA-262 22.2.1's `QuantifierPrefix` starts with digits",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::PyQuantifier, quantifier) => Some(format!("{{0{}", &quantifier[1..])),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-lone-bracket",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` reads a lone `]` as a literal; ECMA-262 22.2.1 in Unicode mode requires it escaped",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Other, "]") => Some("\\]".to_owned()),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-class-leading-bracket",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` reads a `]` right after `[` or `[^` as a member, so the class goes on to the next `]`; ECMA-262 22.2.1 closes the class there (`[]` is the empty class) and needs `\\]` for the member",
        witness: |_, text| regex_python_classes(text),
    },
    Rule {
        name: "re-identity-escapes",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` takes a backslash before any character that is not an ASCII letter or digit (`\\é`, or before a control character); ECMA-262 22.2.1's `IdentityEscape` in Unicode mode is a syntax character or `/` (and `\\-` only in a class), to which this crate adds ASCII punctuation and the space, as the mode without the `u` flag reads them",
        witness: |_, text| {
            map_escapes(text, |escape, _| {
                let c = escape.strip_prefix('\\')?.chars().next()?;
                let allowed = c.is_ascii_alphanumeric() || c.is_ascii_punctuation() || c == ' ';
                (!allowed && escape.len() == 1 + c.len_utf8()).then(|| c.to_string())
            })
        },
    },
    Rule {
        name: "re-python-escapes",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` has escapes ECMAScript does not: `\\a`, `\\A`, `\\Z`, and octal ones (`\\01`, `\\012`, three digits `\\124`, and in a class any `\\1`-`\\7`); ECMA-262 22.2.1 in Unicode mode has none (`\\0` may not be followed by a digit, a class has no decimal escape)",
        witness: |_, text| {
            map_escapes(text, |escape, in_class| match escape {
                "\\a" => Some("\\x07".to_owned()),
                "\\A" if !in_class => Some("^".to_owned()),
                "\\Z" if !in_class => Some("$".to_owned()),
                _ => {
                    let digits = escape.strip_prefix('\\')?;
                    let octal = digits.bytes().take_while(|b| (b'0'..=b'7').contains(b)).count();
                    // How many digits `re` reads as octal: after `\0` two
                    // more, in a class up to three, elsewhere exactly three
                    // (fewer are a group reference).
                    let taken = if digits.starts_with('0') || in_class {
                        octal.min(3)
                    } else if octal >= 3 {
                        3
                    } else {
                        return None;
                    };
                    if taken == 0 || (digits.starts_with('0') && digits.len() == 1) {
                        return None;
                    }
                    let value = u32::from_str_radix(&digits[..taken], 8).ok().filter(|&v| v <= 0o377)?;
                    Some(format!("\\x{value:02X}{}", &digits[taken..]))
                }
            })
        },
    },
    Rule {
        name: "re-inline-flags",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` has inline flags `(?i)` and flag groups `(?i:...)`; ECMA-262 2024 (this crate's grammar) has neither (2025 adds the groups)",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Flags, _) => Some(String::new()),
                (Unit::Open, open) if open.len() > 3 && open.starts_with("(?") && open.ends_with(':') && open[2..open.len() - 1].bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') => {
                    Some("(?:".to_owned())
                }
                _ => None,
            })
        },
    },
    Rule {
        name: "re-python-groups",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` has group syntax of its own: `(?P<n>...)`, `(?P=n)`, comments `(?#...)`, atomic groups `(?>...)`; ECMA-262 22.2.1 has none of them",
        witness: |_, text| {
            rewrite_units(text, |unit, _| match unit {
                (Unit::Open, open) if open.starts_with("(?P<") => Some(format!("(?<{}", &open[4..])),
                (Unit::Open, "(?>") => Some("(?:".to_owned()),
                (Unit::PyReference, reference) => Some(format!("\\k<{}>", &reference[4..reference.len() - 1])),
                (Unit::Comment, _) => Some(String::new()),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-possessive-quantifiers",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` (Python 3.11) has possessive quantifiers (`a*+`, `a{2}+`); in ECMA-262 22.2.1 a quantifier may be followed only by `?`",
        witness: |_, text| {
            rewrite_units(text, |unit, previous| match (previous, unit) {
                (Some((Unit::Quantifier, _)), (Unit::Quantifier, "+")) => Some(String::new()),
                _ => None,
            })
        },
    },
    Rule {
        name: "re-quantified-lookaround",
        formats: &[Format::Regex],
        side: Side::PythonAccepts,
        about: "`re` takes a quantifier on a lookaround (`(?=a)*`); ECMA-262 22.2.1 in Unicode mode does not (Annex B's `QuantifiableAssertion` is for the non-Unicode mode only)",
        witness: |_, text| regex_without_quantified_lookarounds(text),
    },
];

fn one(text: String) -> Witness {
    Witness::Strings(vec![text])
}

fn without_final_newline(text: &str) -> Option<Witness> {
    text.strip_suffix('\n')
        .map(|rest| Witness::Strings(vec![rest.to_owned()]))
}

/// For a name with a right-to-left label (a character of Bidi class R, AL
/// or AN in a U-label or in what an A-label decodes to): each label alone.
fn bidi_domain_labels(text: &str, separators: &[char]) -> Option<Witness> {
    let labels: Vec<&str> = text.split(separators).collect();
    let right_to_left = |label: &&str| {
        let decoded = match label.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("xn--") => {
                punycode_decode(&label[4..]).unwrap_or_default()
            }
            _ => label.chars().collect(),
        };
        decoded.into_iter().any(|c| {
            use unicode_bidi::BidiClass::{AL, AN, R};
            matches!(unicode_bidi::bidi_class(c), R | AL | AN)
        })
    };
    let fails_bidi_rule = |label: &&str| {
        let decoded = match label.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("xn--") => {
                punycode_decode(&label[4..]).unwrap_or_default()
            }
            _ => label.chars().collect(),
        };
        !meets_bidi_rule(&decoded)
    };
    (labels.len() > 1 && labels.iter().any(right_to_left) && labels.iter().any(fails_bidi_rule))
        .then(|| Witness::Strings(labels.into_iter().map(str::to_owned).collect()))
}

/// RFC 5893 section 2's six conditions for one label, written again here
/// from the RFC (Bidi classes from unicode-bidi).
fn meets_bidi_rule(label: &[char]) -> bool {
    use unicode_bidi::BidiClass::{AL, AN, BN, CS, EN, ES, ET, L, NSM, ON, R};
    let classes: Vec<_> = label.iter().map(|&c| unicode_bidi::bidi_class(c)).collect();
    let last = classes.iter().rev().find(|&&class| class != NSM);
    match classes.first() {
        Some(R | AL) => {
            classes
                .iter()
                .all(|class| matches!(class, R | AL | AN | EN | ES | CS | ET | ON | BN | NSM))
                && matches!(last, Some(R | AL | EN | AN))
                && !(classes.contains(&EN) && classes.contains(&AN))
        }
        Some(L) => {
            classes
                .iter()
                .all(|class| matches!(class, L | EN | ES | CS | ET | ON | BN | NSM))
                && matches!(last, Some(L | EN))
        }
        _ => false,
    }
}

/// The label separators of `idn-hostname` (RFC 3490 section 3.1).
const LABEL_SEPARATORS: [char; 4] = ['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'];

/// A Unicode class, by regex-syntax's tables (a dependency of the crate).
fn unicode_class(pattern: &str) -> Vec<(char, char)> {
    use regex_syntax::hir::{Class, HirKind};
    let hir = regex_syntax::parse(pattern).unwrap();
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => {
            class.ranges().iter().map(|r| (r.start(), r.end())).collect()
        }
        other => panic!("{pattern}: {other:?}"),
    }
}

fn in_class(class: &std::sync::LazyLock<Vec<(char, char)>>, c: char) -> bool {
    class.iter().any(|&(low, high)| low <= c && c <= high)
}

/// Unicode decimal digits (`Nd`): what Python's `\d` and `int()` take.
static DECIMAL_DIGITS: std::sync::LazyLock<Vec<(char, char)>> =
    std::sync::LazyLock::new(|| unicode_class(r"\p{Nd}"));

/// The code points Unicode 14.0 (Python 3.11's `unicodedata`) had.
static UNICODE_14: std::sync::LazyLock<Vec<(char, char)>> =
    std::sync::LazyLock::new(|| unicode_class(r"\p{Age=14.0}"));

/// The runs of a duration that isoduration reads as numbers
/// (`[+\-0-9.,eE]`, after the first character), each given to `rewrite`;
/// the duration with the runs it rewrote, when it rewrote one.
fn duration_numbers(text: &str, rewrite: impl Fn(&str) -> Option<String>) -> Option<Witness> {
    let mut out = String::new();
    let mut run = String::new();
    let mut changed = false;
    let mut flush = |run: &mut String, out: &mut String| {
        if !run.is_empty() {
            match rewrite(run) {
                Some(new) => {
                    out.push_str(&new);
                    changed = true;
                }
                None => out.push_str(run),
            }
            run.clear();
        }
    };
    for (at, c) in text.char_indices() {
        if at > 0 && matches!(c, '+' | '-' | '0'..='9' | '.' | ',' | 'e' | 'E') {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    changed.then(|| one(out))
}

/// A duration whose units come in order with some skipped, the skipped
/// ones filled in with zero.
fn duration_without_gaps(text: &str) -> Option<Witness> {
    let body = text.strip_prefix('P')?;
    let (date, time) = match body.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (body, None),
    };
    fn fill(part: &str, units: [char; 3]) -> Option<(String, bool)> {
        let mut elements: Vec<(usize, &str)> = Vec::new();
        let mut rest = part;
        while !rest.is_empty() {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let unit = rest[digits..].chars().next()?;
            let index = units.iter().position(|&u| u == unit)?;
            if digits == 0 || elements.last().is_some_and(|&(last, _)| last >= index) {
                return None;
            }
            elements.push((index, &rest[..digits]));
            rest = &rest[digits + 1..];
        }
        let (first, last) = (elements.first()?.0, elements.last()?.0);
        let mut out = String::new();
        for (index, unit) in units.iter().enumerate().take(last + 1).skip(first) {
            out.push_str(elements.iter().find(|e| e.0 == index).map_or("0", |e| e.1));
            out.push(*unit);
        }
        Some((out, last + 1 - first > elements.len()))
    }
    let (date_out, date_gap) = if date.is_empty() {
        (String::new(), false)
    } else {
        fill(date, ['Y', 'M', 'D'])?
    };
    let (time_out, time_gap) = match time {
        Some(time) => {
            let (out, gap) = fill(time, ['H', 'M', 'S'])?;
            (format!("T{out}"), gap)
        }
        None => (String::new(), false),
    };
    (date_gap || time_gap).then(|| one(format!("P{date_out}{time_out}")))
}

/// RFC 3492 decoding (section 6.2), case-insensitive; None when malformed.
fn punycode_decode(input: &str) -> Option<Vec<char>> {
    let (basic, extended) = match input.rfind('-') {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => ("", input),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut output: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut digits = extended.bytes();
    while digits.len() > 0 {
        let old_i = i;
        let mut weight = 1u32;
        let mut k = 36;
        loop {
            let digit = u32::from(match digits.next()? {
                b @ b'a'..=b'z' => b - b'a',
                b @ b'A'..=b'Z' => b - b'A',
                b @ b'0'..=b'9' => b - b'0' + 26,
                _ => return None,
            });
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = puny_threshold(k, bias);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(36 - t)?;
            k += 36;
        }
        let len = output.len() as u32 + 1;
        bias = puny_adapt(i - old_i, len, old_i == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        output.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

/// An `idn-hostname` with each code point Unicode 14.0 did not have (in
/// U-labels, and in what A-labels decode to) replaced by an old one of the
/// same Bidi class (so the Bidi rule reads the label as before), or
/// removed when there is none at hand.
fn idn_without_newer_code_points(text: &str) -> Option<Witness> {
    let known = |c: char| in_class(&UNICODE_14, c);
    let stand_in = |c: char| -> Option<char> {
        use unicode_bidi::BidiClass;
        match unicode_bidi::bidi_class(c) {
            BidiClass::L => Some('a'),
            BidiClass::R => Some('\u{5D0}'),
            BidiClass::AL => Some('\u{628}'),
            BidiClass::NSM => Some('\u{64E}'),
            BidiClass::EN => Some('0'),
            _ => None,
        }
    };
    let mut changed = false;
    let mut out = String::new();
    let mut label = String::new();
    let mut flush = |label: &mut String, out: &mut String| {
        let decoded = match label.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("xn--") => punycode_decode(&label[4..]),
            _ => None,
        };
        match decoded {
            Some(chars) if !chars.iter().all(|&c| known(c)) => {
                let replaced: Vec<char> = chars
                    .iter()
                    .filter_map(|&c| if known(c) { Some(c) } else { stand_in(c) })
                    .collect();
                changed = true;
                if replaced.iter().all(char::is_ascii) {
                    out.extend(replaced);
                } else {
                    out.push_str("xn--");
                    out.push_str(&punycode(&replaced));
                }
            }
            _ => {
                for c in label.chars() {
                    if known(c) {
                        out.push(c);
                    } else {
                        out.extend(stand_in(c));
                        changed = true;
                    }
                }
            }
        }
        label.clear();
    };
    for c in text.chars() {
        if LABEL_SEPARATORS.contains(&c) {
            flush(&mut label, &mut out);
            out.push(c);
        } else {
            label.push(c);
        }
    }
    flush(&mut label, &mut out);
    changed.then(|| one(out))
}

/// RFC 3987 `ucschar` and `iprivate`.
const UCSCHAR_IPRIVATE: &[(u32, u32)] = &[
    (0xA0, 0xD7FF),
    (0xE000, 0xF8FF),
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
    (0xF0000, 0xFFFFD),
    (0x100000, 0x10FFFD),
];

/// A template literal with every character RFC 6570 section 2.1 does not
/// allow replaced by `a`: `literals = %x21 / %x23-24 / %x26 / %x28-3B /
/// %x3D / %x3F-5B / %x5D / %x5F / %x61-7A / %x7E / ucschar / iprivate /
/// pct-encoded`, with the apostrophe (%x27) that erratum 6937 adds.
fn rfc6570_literals(literal: &str) -> String {
    let allowed = |c: char| {
        let cp = u32::from(c);
        matches!(cp, 0x21 | 0x23..=0x24 | 0x26..=0x3B | 0x3D | 0x3F..=0x5B | 0x5D | 0x5F | 0x61..=0x7A | 0x7E)
            || UCSCHAR_IPRIVATE
                .iter()
                .any(|&(low, high)| (low..=high).contains(&cp))
    };
    let chars: Vec<char> = literal.chars().collect();
    let mut out = String::new();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let pct = c == '%'
            && chars
                .get(at + 1..at + 3)
                .is_some_and(|hex| hex.iter().all(char::is_ascii_hexdigit));
        if pct {
            out.extend(&chars[at..at + 3]);
            at += 3;
        } else {
            out.push(if allowed(c) && c != '%' { c } else { 'a' });
            at += 1;
        }
    }
    out
}

/// A URI template's pieces as uri-template splits them
/// (`re.split(r'(\{[^\}]*\})', template)`): literals, and expressions
/// (given without their braces).
fn template_pieces(text: &str) -> Vec<(bool, &str)> {
    let mut pieces = Vec::new();
    let mut rest = text;
    loop {
        let found = rest
            .find('{')
            .and_then(|open| rest[open..].find('}').map(|close| (open, open + close)));
        match found {
            Some((open, close)) => {
                if open > 0 {
                    pieces.push((false, &rest[..open]));
                }
                pieces.push((true, &rest[open + 1..close]));
                rest = &rest[close + 1..];
            }
            None => {
                if !rest.is_empty() {
                    pieces.push((false, rest));
                }
                return pieces;
            }
        }
    }
}

/// The template with its literals and expression bodies rewritten, when
/// that changed it.
fn rewrite_template(
    text: &str,
    literal: impl Fn(&str) -> String,
    expression: impl Fn(&str) -> String,
) -> Option<Witness> {
    let mut out = String::new();
    for (is_expression, piece) in template_pieces(text) {
        if is_expression {
            out.push('{');
            out.push_str(&expression(piece));
            out.push('}');
        } else {
            out.push_str(&literal(piece));
        }
    }
    (out != text).then(|| one(out))
}

/// An expression body with each varspec rewritten (the operator kept).
fn rewrite_varspecs(body: &str, varspec: impl Fn(&str) -> String) -> String {
    let operator = body.chars().next().filter(|c| "+#./;?&=,!@|".contains(*c));
    let list = operator.map_or(body, |c| &body[c.len_utf8()..]);
    let specs: Vec<String> = list.split(',').map(varspec).collect();
    format!(
        "{}{}",
        operator.map(String::from).unwrap_or_default(),
        specs.join(",")
    )
}

/// The kinds of unit a regular expression is read into (ECMAScript's
/// syntax, with Python's extensions recognised).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// A backslash and what it escapes (`\d`, `\u{1F600}`, `\k<n>`, `\12`).
    Escape,
    /// A whole class, `[` to `]`.
    Class,
    /// A group's opening: `(`, `(?:`, `(?=`, `(?<=`, `(?<n>`, `(?P<n>`,
    /// `(?>`, `(?i:`.
    Open,
    Close,
    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`.
    Quantifier,
    /// Python's `{,m}` and `{,}`.
    PyQuantifier,
    /// A `{` that starts no quantifier, or a `}`.
    Brace,
    /// Python's `(?P=name)`.
    PyReference,
    /// Python's `(?#...)`.
    Comment,
    /// Python's `(?i)`.
    Flags,
    Other,
}

/// The length of the escape at the start of `rest` (a backslash).
fn escape_len(rest: &str) -> usize {
    let after = &rest[1..];
    let Some(c) = after.chars().next() else {
        return 1;
    };
    let braced = |open: char, close: char| -> Option<usize> {
        after[1..].strip_prefix(open)?.find(close).map(|end| 3 + end + 1)
    };
    let hex = |count: usize| {
        after[1..]
            .bytes()
            .take(count)
            .take_while(u8::is_ascii_hexdigit)
            .count()
            == count
    };
    match c {
        'u' => braced('{', '}').unwrap_or(if hex(4) { 6 } else { 2 }),
        'x' => {
            if hex(2) {
                4
            } else {
                2
            }
        }
        'c' if after[1..].bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) => 3,
        'p' | 'P' => braced('{', '}').unwrap_or(2),
        'k' => braced('<', '>').unwrap_or(2),
        '0'..='9' => 1 + after.bytes().take_while(u8::is_ascii_digit).count(),
        _ => 1 + c.len_utf8(),
    }
}

/// A regular expression read into units.
fn regex_units(text: &str) -> Vec<(Unit, &str)> {
    let mut units = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let c = rest.chars().next().unwrap();
        let (unit, len) = match c {
            '\\' => (Unit::Escape, escape_len(rest)),
            '[' => {
                let mut end = 1;
                if rest[end..].starts_with('^') {
                    end += 1;
                }
                loop {
                    match rest[end..].chars().next() {
                        None => break,
                        Some(']') => {
                            end += 1;
                            break;
                        }
                        Some('\\') => end += escape_len(&rest[end..]),
                        Some(other) => end += other.len_utf8(),
                    }
                }
                (Unit::Class, end)
            }
            '(' => regex_open(rest),
            ')' => (Unit::Close, 1),
            '*' | '+' | '?' => (Unit::Quantifier, 1),
            '{' => {
                let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
                let after = &rest[1 + digits..];
                let more = after
                    .strip_prefix(',')
                    .map(|tail| tail.bytes().take_while(u8::is_ascii_digit).count());
                let close = 1 + digits + more.map_or(0, |more| 1 + more);
                if rest[close..].starts_with('}') && !(digits == 0 && more.is_none()) {
                    (
                        if digits > 0 {
                            Unit::Quantifier
                        } else {
                            Unit::PyQuantifier
                        },
                        close + 1,
                    )
                } else {
                    (Unit::Brace, 1)
                }
            }
            '}' => (Unit::Brace, 1),
            other => (Unit::Other, other.len_utf8()),
        };
        let len = len.min(rest.len());
        let len = (len..=rest.len())
            .find(|&len| rest.is_char_boundary(len))
            .unwrap();
        units.push((unit, &rest[..len]));
        at += len;
    }
    units
}

/// The group opening at the start of `rest` (a `(`).
fn regex_open(rest: &str) -> (Unit, usize) {
    for fixed in ["(?:", "(?=", "(?!", "(?<=", "(?<!", "(?>"] {
        if rest.starts_with(fixed) {
            return (Unit::Open, fixed.len());
        }
    }
    let up_to = |close: char| rest.find(close).map(|end| end + 1);
    if rest.starts_with("(?P=") {
        if let Some(len) = up_to(')') {
            return (Unit::PyReference, len);
        }
    }
    if rest.starts_with("(?#") {
        if let Some(len) = up_to(')') {
            return (Unit::Comment, len);
        }
    }
    if rest.starts_with("(?<") || rest.starts_with("(?P<") {
        if let Some(len) = up_to('>') {
            return (Unit::Open, len);
        }
    }
    if let Some(flags) = rest.strip_prefix("(?") {
        let letters = flags
            .bytes()
            .take_while(|b| b.is_ascii_alphabetic() || *b == b'-')
            .count();
        match flags.as_bytes().get(letters) {
            Some(b')') if letters > 0 => return (Unit::Flags, 2 + letters + 1),
            Some(b':') if letters > 0 => return (Unit::Open, 2 + letters + 1),
            _ => {}
        }
    }
    (Unit::Open, 1)
}

/// The pattern with units rewritten by `rewrite` (given each unit and the
/// one before it), when that changed it.
fn rewrite_units(
    text: &str,
    rewrite: impl Fn((Unit, &str), Option<(Unit, &str)>) -> Option<String>,
) -> Option<Witness> {
    let units = regex_units(text);
    let mut out = String::new();
    let mut changed = false;
    for (at, &unit) in units.iter().enumerate() {
        let previous = at.checked_sub(1).map(|i| units[i]);
        match rewrite(unit, previous) {
            Some(new) => {
                out.push_str(&new);
                changed = true;
            }
            None => out.push_str(unit.1),
        }
    }
    changed.then(|| one(out))
}

/// The pattern with escapes rewritten by `rewrite` (given the escape and
/// whether it is inside a class), inside classes too, when that changed
/// it.
fn map_escapes(text: &str, rewrite: impl Fn(&str, bool) -> Option<String>) -> Option<Witness> {
    let mut out = String::new();
    let mut changed = false;
    for (unit, piece) in regex_units(text) {
        match unit {
            Unit::Escape => match rewrite(piece, false) {
                Some(new) => {
                    out.push_str(&new);
                    changed = true;
                }
                None => out.push_str(piece),
            },
            Unit::Class => {
                let mut at = 0;
                while at < piece.len() {
                    let rest = &piece[at..];
                    let c = rest.chars().next().unwrap();
                    if c == '\\' {
                        let len = escape_len(rest).min(rest.len());
                        let escape = &rest[..len];
                        match rewrite(escape, true) {
                            Some(new) => {
                                out.push_str(&new);
                                changed = true;
                            }
                            None => out.push_str(escape),
                        }
                        at += len;
                    } else {
                        out.push(c);
                        at += c.len_utf8();
                    }
                }
            }
            _ => out.push_str(piece),
        }
    }
    changed.then(|| one(out))
}

/// Named groups in Python's spelling, every name `gN` (Python takes only
/// identifiers), references to them as `(?P=gN)`.
fn regex_python_names(text: &str) -> Option<Witness> {
    let units = regex_units(text);
    let names: Vec<&str> = units
        .iter()
        .filter_map(|&(unit, piece)| match unit {
            Unit::Open if piece.starts_with("(?<") && piece.len() > 4 && piece.ends_with('>') => {
                Some(&piece[3..piece.len() - 1])
            }
            _ => None,
        })
        .collect();
    // Only names ECMAScript allows: the rule is about spelling, not about
    // names neither takes.
    if names.is_empty() || !names.iter().all(|name| ecmascript_group_name(name)) {
        return None;
    }
    let number = |name: &str| names.iter().position(|&known| known == name);
    let mut out = String::new();
    for (unit, piece) in units {
        match unit {
            Unit::Open if piece.starts_with("(?<") && piece.len() > 4 && piece.ends_with('>') => {
                out.push_str(&format!("(?P<g{}>", number(&piece[3..piece.len() - 1])?));
            }
            Unit::Escape if piece.starts_with("\\k<") && piece.ends_with('>') => {
                out.push_str(&format!("(?P=g{})", number(&piece[3..piece.len() - 1])?));
            }
            _ => out.push_str(piece),
        }
    }
    Some(one(out))
}

/// The pattern without backreferences to groups not closed where they
/// stand (each becomes `(?:)`).
fn regex_without_open_references(text: &str) -> Option<Witness> {
    let units = regex_units(text);
    // Capturing groups in order of their `(`, with their names.
    let mut names: Vec<Option<&str>> = Vec::new();
    for &(unit, piece) in &units {
        if unit == Unit::Open {
            if piece == "(" {
                names.push(None);
            } else if let Some(name) = piece.strip_prefix("(?P<").or_else(|| piece.strip_prefix("(?<")) {
                if let Some(name) = name
                    .strip_suffix('>')
                    .filter(|name| !name.starts_with(['=', '!']))
                {
                    names.push(Some(name));
                }
            }
        }
    }
    let mut stack: Vec<Option<usize>> = Vec::new();
    let mut closed = vec![false; names.len()];
    let mut next = 0;
    let mut out = String::new();
    let mut changed = false;
    for (unit, piece) in units {
        let reference = match unit {
            Unit::Escape if piece.starts_with("\\k<") => {
                names.iter().position(|n| Some(&piece[3..piece.len() - 1]) == *n)
            }
            Unit::Escape
                if piece.len() > 1
                    && piece[1..].bytes().all(|b| b.is_ascii_digit())
                    && !piece.starts_with("\\0") =>
            {
                piece[1..].parse::<usize>().ok().and_then(|n| n.checked_sub(1))
            }
            Unit::PyReference => names.iter().position(|n| Some(&piece[4..piece.len() - 1]) == *n),
            _ => None,
        };
        match unit {
            Unit::Open => {
                let capturing = piece == "("
                    || ((piece.starts_with("(?<") || piece.starts_with("(?P<"))
                        && !piece.starts_with("(?<=")
                        && !piece.starts_with("(?<!"));
                stack.push(capturing.then(|| {
                    next += 1;
                    next - 1
                }));
            }
            Unit::Close => {
                if let Some(Some(group)) = stack.pop() {
                    if let Some(slot) = closed.get_mut(group) {
                        *slot = true;
                    }
                }
            }
            _ => {}
        }
        match reference {
            Some(group) if group < closed.len() && !closed[group] => {
                out.push_str("(?:)");
                changed = true;
            }
            _ => out.push_str(piece),
        }
    }
    changed.then(|| one(out))
}

/// Whether `\p{property}` names a property ECMA-262 (table 66-68, and
/// Unicode's PropertyValueAliases) has: a General_Category value, a
/// binary property, or (with `Script=` and the like) Greek or Latin.
/// Spelled exactly: ECMAScript does no loose matching.
fn ecmascript_property(property: &str) -> bool {
    const GENERAL_CATEGORY: &[&str] = &[
        "Cased_Letter",
        "LC",
        "Close_Punctuation",
        "Pe",
        "Connector_Punctuation",
        "Pc",
        "Control",
        "Cc",
        "cntrl",
        "Currency_Symbol",
        "Sc",
        "Dash_Punctuation",
        "Pd",
        "Decimal_Number",
        "Nd",
        "digit",
        "Enclosing_Mark",
        "Me",
        "Final_Punctuation",
        "Pf",
        "Format",
        "Cf",
        "Initial_Punctuation",
        "Pi",
        "Letter",
        "L",
        "Letter_Number",
        "Nl",
        "Line_Separator",
        "Zl",
        "Lowercase_Letter",
        "Ll",
        "Mark",
        "M",
        "Combining_Mark",
        "Math_Symbol",
        "Sm",
        "Modifier_Letter",
        "Lm",
        "Modifier_Symbol",
        "Sk",
        "Nonspacing_Mark",
        "Mn",
        "Number",
        "N",
        "Open_Punctuation",
        "Ps",
        "Other",
        "C",
        "Other_Letter",
        "Lo",
        "Other_Number",
        "No",
        "Other_Punctuation",
        "Po",
        "Other_Symbol",
        "So",
        "Paragraph_Separator",
        "Zp",
        "Private_Use",
        "Co",
        "Punctuation",
        "P",
        "punct",
        "Separator",
        "Z",
        "Space_Separator",
        "Zs",
        "Spacing_Mark",
        "Mc",
        "Surrogate",
        "Cs",
        "Symbol",
        "S",
        "Titlecase_Letter",
        "Lt",
        "Unassigned",
        "Cn",
        "Uppercase_Letter",
        "Lu",
    ];
    const BINARY: &[&str] = &[
        "ASCII",
        "ASCII_Hex_Digit",
        "AHex",
        "Alphabetic",
        "Alpha",
        "Any",
        "Assigned",
        "Bidi_Control",
        "Bidi_C",
        "Bidi_Mirrored",
        "Bidi_M",
        "Case_Ignorable",
        "CI",
        "Cased",
        "Changes_When_Casefolded",
        "CWCF",
        "Changes_When_Casemapped",
        "CWCM",
        "Changes_When_Lowercased",
        "CWL",
        "Changes_When_NFKC_Casefolded",
        "CWKCF",
        "Changes_When_Titlecased",
        "CWT",
        "Changes_When_Uppercased",
        "CWU",
        "Dash",
        "Default_Ignorable_Code_Point",
        "DI",
        "Deprecated",
        "Dep",
        "Diacritic",
        "Dia",
        "Emoji",
        "Emoji_Component",
        "EComp",
        "Emoji_Modifier",
        "EMod",
        "Emoji_Modifier_Base",
        "EBase",
        "Emoji_Presentation",
        "EPres",
        "Extended_Pictographic",
        "ExtPict",
        "Extender",
        "Ext",
        "Grapheme_Base",
        "Gr_Base",
        "Grapheme_Extend",
        "Gr_Ext",
        "Hex_Digit",
        "Hex",
        "IDS_Binary_Operator",
        "IDSB",
        "IDS_Trinary_Operator",
        "IDST",
        "ID_Continue",
        "IDC",
        "ID_Start",
        "IDS",
        "Ideographic",
        "Ideo",
        "Join_Control",
        "Join_C",
        "Logical_Order_Exception",
        "LOE",
        "Lowercase",
        "Lower",
        "Math",
        "Noncharacter_Code_Point",
        "NChar",
        "Pattern_Syntax",
        "Pat_Syn",
        "Pattern_White_Space",
        "Pat_WS",
        "Quotation_Mark",
        "QMark",
        "Radical",
        "Regional_Indicator",
        "RI",
        "Sentence_Terminal",
        "STerm",
        "Soft_Dotted",
        "SD",
        "Terminal_Punctuation",
        "Term",
        "Unified_Ideograph",
        "UIdeo",
        "Uppercase",
        "Upper",
        "Variation_Selector",
        "VS",
        "White_Space",
        "space",
        "XID_Continue",
        "XIDC",
        "XID_Start",
        "XIDS",
    ];
    const SCRIPTS: &[&str] = &["Greek", "Grek", "Latin", "Latn"];
    match property.split_once('=') {
        Some(("General_Category" | "gc", value)) => GENERAL_CATEGORY.contains(&value),
        Some(("Script" | "sc" | "Script_Extensions" | "scx", value)) => SCRIPTS.contains(&value),
        Some(_) => false,
        None => GENERAL_CATEGORY.contains(&property) || BINARY.contains(&property),
    }
}

/// Whether `name` is an ECMAScript group name (`RegExpIdentifierName`: an
/// ID_Start character, `$` or `_`, then ID_Continue characters, `$`, ZWNJ
/// or ZWJ, any of them possibly written `\uXXXX` or `\u{X}`), by
/// regex-syntax's Unicode tables.
fn ecmascript_group_name(name: &str) -> bool {
    let mut decoded = String::new();
    let mut rest = name;
    while let Some(at) = rest.find('\\') {
        decoded.push_str(&rest[..at]);
        let escape = &rest[at..];
        let (hex, len) = match escape.strip_prefix("\\u{") {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], 4 + end),
                None => return false,
            },
            None => (escape.get(2..6).unwrap_or(""), 6),
        };
        match (
            escape.starts_with("\\u"),
            u32::from_str_radix(hex, 16).ok().and_then(char::from_u32),
        ) {
            (true, Some(c)) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                decoded.push(c)
            }
            _ => return false,
        }
        rest = &escape[len.min(escape.len())..];
    }
    decoded.push_str(rest);
    let name = decoded.as_str();
    static START: std::sync::LazyLock<Vec<(char, char)>> =
        std::sync::LazyLock::new(|| unicode_class(r"\p{ID_Start}"));
    static CONTINUE: std::sync::LazyLock<Vec<(char, char)>> =
        std::sync::LazyLock::new(|| unicode_class(r"\p{ID_Continue}"));
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '$' || c == '_' || in_class(&START, c))
        && chars.all(|c| c == '$' || c == '\u{200C}' || c == '\u{200D}' || in_class(&CONTINUE, c))
}

/// The pattern with each class read as `re` reads it (a `]` first in it is
/// a member) and that `]` escaped, as ECMAScript needs.
fn regex_python_classes(text: &str) -> Option<Witness> {
    let mut out = String::new();
    let mut changed = false;
    let mut at = 0;
    let mut in_class = false;
    while at < text.len() {
        let rest = &text[at..];
        let c = rest.chars().next().unwrap();
        if c == '\\' {
            let len = escape_len(rest).min(rest.len());
            let len = (len..=rest.len())
                .find(|&len| rest.is_char_boundary(len))
                .unwrap();
            out.push_str(&rest[..len]);
            at += len;
            continue;
        }
        out.push(c);
        at += c.len_utf8();
        if in_class {
            in_class = c != ']';
        } else if c == '[' {
            in_class = true;
            if text[at..].starts_with('^') {
                out.push('^');
                at += 1;
            }
            if text[at..].starts_with(']') {
                out.push_str("\\]");
                at += 1;
                changed = true;
            }
        }
    }
    changed.then(|| one(out))
}

/// The pattern without the quantifiers that follow a lookaround.
fn regex_without_quantified_lookarounds(text: &str) -> Option<Witness> {
    let units = regex_units(text);
    let mut stack: Vec<bool> = Vec::new();
    let mut out = String::new();
    let mut changed = false;
    let mut after_lookaround = false;
    for (unit, piece) in units {
        match unit {
            Unit::Open => {
                stack.push(matches!(piece, "(?=" | "(?!" | "(?<=" | "(?<!"));
                after_lookaround = false;
                out.push_str(piece);
            }
            Unit::Close => {
                after_lookaround = stack.pop().unwrap_or(false);
                out.push_str(piece);
            }
            Unit::Quantifier | Unit::PyQuantifier if after_lookaround => {
                // The quantifier and its lazy `?`.
                changed = true;
                if piece == "?" {
                    after_lookaround = false;
                }
            }
            _ => {
                after_lookaround = false;
                out.push_str(piece);
            }
        }
    }
    changed.then(|| one(out))
}

// ------------------------------------------------------------- comparison

const MAX_DEPTH: u32 = 8;

/// The rule that explains a disagreement on `text`, if any; strings whose
/// python verdict is not known yet go to `needed` (asked in the next
/// round).
fn explain(
    format: Format,
    text: &str,
    side: Side,
    depth: u32,
    known: &HashMap<(usize, String), Python>,
    needed: &mut BTreeSet<(usize, String)>,
    memo: &mut HashMap<(usize, String, u32), Option<usize>>,
) -> Option<&'static Rule> {
    // Within a round the answers do not change: each string (at each
    // depth) is worked out once, however many chains reach it.
    let key = (index(format), text.to_owned(), depth);
    if let Some(found) = memo.get(&key) {
        return found.map(|at| &RULES[at]);
    }
    let found = RULES
        .iter()
        .filter(|rule| rule.side == side && rule.formats.contains(&format))
        .find(|rule| match (rule.witness)(format, text) {
            None => false,
            Some(Witness::Whole) => true,
            Some(Witness::Strings(strings)) => {
                holds(format, text, side, depth, &strings, known, needed, memo)
            }
            Some(Witness::StringsAnd(strings, verdicts)) => {
                // Every verdict is looked at (so all unknown ones are asked
                // in the same round).
                let each: Vec<bool> = verdicts
                    .iter()
                    .map(|(other_format, other, accepts)| {
                        match known.get(&(index(*other_format), other.clone())) {
                            Some(verdict) => (*verdict == Python::Accepts) == *accepts,
                            None => {
                                needed.insert((index(*other_format), other.clone()));
                                false
                            }
                        }
                    })
                    .collect();
                each.into_iter().all(|holds| holds)
                    && holds(format, text, side, depth, &strings, known, needed, memo)
            }
        });
    memo.insert(
        key,
        found.map(|rule| RULES.iter().position(|r| std::ptr::eq(r, rule)).unwrap()),
    );
    found
}

/// Whether the side that refused `text` accepts every one of `strings`
/// (or another rule explains why not).
#[allow(clippy::too_many_arguments)]
fn holds(
    format: Format,
    text: &str,
    side: Side,
    depth: u32,
    strings: &[String],
    known: &HashMap<(usize, String), Python>,
    needed: &mut BTreeSet<(usize, String)>,
    memo: &mut HashMap<(usize, String, u32), Option<usize>>,
) -> bool {
    strings.iter().all(|other| {
        let accepted = match side {
            Side::PythonAccepts => format.check(other),
            Side::PythonRefuses => match known.get(&(index(format), other.clone())) {
                Some(verdict) => *verdict == Python::Accepts,
                None => {
                    needed.insert((index(format), other.clone()));
                    false
                }
            },
        };
        accepted
            || (depth < MAX_DEPTH
                && other != text
                && explain(format, other, side, depth + 1, known, needed, memo).is_some())
    })
}

/// The non-ASCII characters of `text` by code point (for the report:
/// some look like ASCII).
fn code_points(text: &str) -> String {
    let others: Vec<String> = text
        .chars()
        .filter(|c| !c.is_ascii())
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    if others.is_empty() {
        String::new()
    } else {
        format!(" [{}]", others.join(" "))
    }
}

fn index(format: Format) -> usize {
    Format::ALL.iter().position(|&f| f == format).unwrap()
}

#[derive(Default)]
struct Row {
    strings: usize,
    valid: usize,
    agree: usize,
    explained: usize,
    raised: usize,
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a number")),
        Err(_) => default,
    }
}

#[test]
fn formats_agree_with_python_jsonschema() {
    let Some(python) = std::env::var_os("FORMAT_ORACLE_PYTHON") else {
        println!(
            "FORMAT_ORACLE_PYTHON is not set: the format oracle was skipped (scripts/format_oracle runs it)"
        );
        return;
    };
    let cases = env_number("FORMAT_ORACLE_CASES", 4000) as usize;
    let seed = env_number("FORMAT_ORACLE_SEED", 0x5EED_F0F0_2020_1200);
    let mut rng = Rng::seeded(seed);

    // The strings, each format's deduplicated and in a stable order.
    let mut strings: Vec<(Format, String)> = Vec::new();
    for format in Format::ALL {
        let mut set = BTreeSet::new();
        for _ in 0..cases {
            let valid = generate(format, &mut rng);
            for _ in 0..3 {
                set.insert(mutate(format, &mut rng, &valid));
            }
            set.insert(valid);
        }
        strings.extend(set.into_iter().map(|text| (format, text)));
    }

    let mut oracle = Oracle::start(&python);
    let verdicts = oracle.ask(&strings);
    let mut known: HashMap<(usize, String), Python> = strings
        .iter()
        .map(|(format, text)| (index(*format), text.clone()))
        .zip(verdicts.iter().cloned())
        .collect();

    let mut rows: Vec<Row> = Format::ALL.iter().map(|_| Row::default()).collect();
    let mut disagreements: Vec<(Format, String, bool, Python)> = Vec::new();
    let mut raised = Vec::new();
    for ((format, text), verdict) in strings.iter().zip(&verdicts) {
        let ours = format.check(text);
        let row = &mut rows[index(*format)];
        row.strings += 1;
        row.valid += usize::from(ours);
        if let Python::Raised(name) = verdict {
            row.raised += 1;
            raised.push(format!(
                "{} {text:?}{} ({name})",
                format.name(),
                code_points(text)
            ));
        }
        if ours == (*verdict == Python::Accepts) {
            row.agree += 1;
        } else {
            disagreements.push((*format, text.clone(), ours, verdict.clone()));
        }
    }

    // Explain each disagreement, asking python about the rules' witnesses
    // round by round until nothing new is needed.
    let mut verdicts_by_rule: Vec<Option<&'static Rule>>;
    let mut rounds = 0;
    loop {
        let mut needed = BTreeSet::new();
        let mut memos = [HashMap::new(), HashMap::new()];
        verdicts_by_rule = disagreements
            .iter()
            .map(|(format, text, ours, _)| {
                let side = if *ours {
                    Side::PythonRefuses
                } else {
                    Side::PythonAccepts
                };
                explain(
                    *format,
                    text,
                    side,
                    1,
                    &known,
                    &mut needed,
                    &mut memos[usize::from(*ours)],
                )
            })
            .collect();
        if needed.is_empty() || rounds == 2 * MAX_DEPTH {
            break;
        }
        rounds += 1;
        let batch: Vec<(Format, String)> = needed
            .into_iter()
            .map(|(at, text)| (Format::ALL[at], text))
            .collect();
        let answers = oracle.ask(&batch);
        known.extend(
            batch
                .into_iter()
                .map(|(format, text)| (index(format), text))
                .zip(answers),
        );
    }
    let asked = oracle.asked;
    oracle.finish();

    let mut by_rule: BTreeMap<(usize, &'static str), usize> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let mut explained = Vec::new();
    for ((format, text, ours, verdict), rule) in disagreements.iter().zip(&verdicts_by_rule) {
        match rule {
            Some(rule) => {
                rows[index(*format)].explained += 1;
                *by_rule.entry((index(*format), rule.name)).or_default() += 1;
                explained.push(format!(
                    "{:<22} {:<30} {text:?}{}",
                    format.name(),
                    rule.name,
                    code_points(text)
                ));
            }
            None => unexplained.push(format!(
                "{:<22} {text:?}{}: ours {}, python {verdict:?}",
                format.name(),
                code_points(text),
                if *ours { "valid" } else { "invalid" }
            )),
        }
    }

    println!(
        "format oracle: seed {seed:#x}, {cases} generated strings per format and three mutants each; \
         {} strings compared, {asked} python verdicts in {} batches",
        strings.len(),
        rounds + 1
    );
    println!();
    println!("| format | strings | valid (ours) | invalid (ours) | agree | explained | unexplained | python raised |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut total = Row::default();
    for (format, row) in Format::ALL.iter().zip(&rows) {
        let unexplained_here = row.strings - row.agree - row.explained;
        println!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            format.name(),
            row.strings,
            row.valid,
            row.strings - row.valid,
            row.agree,
            row.explained,
            unexplained_here,
            row.raised
        );
        total.strings += row.strings;
        total.valid += row.valid;
        total.agree += row.agree;
        total.explained += row.explained;
        total.raised += row.raised;
    }
    println!(
        "| all | {} | {} | {} | {} | {} | {} | {} |",
        total.strings,
        total.valid,
        total.strings - total.valid,
        total.agree,
        total.explained,
        unexplained.len(),
        total.raised
    );
    println!();
    println!("| rule | format | disagreements explained |");
    println!("| --- | --- | ---: |");
    for ((at, name), count) in &by_rule {
        println!("| `{name}` | `{}` | {count} |", Format::ALL[*at].name());
    }
    println!();
    if !raised.is_empty() {
        println!(
            "python raised an exception its checker does not declare (counted as refusing) on {} strings, e.g.:",
            raised.len()
        );
        for line in raised.iter().step_by(raised.len().div_ceil(12)) {
            println!("  {line}");
        }
        println!();
    }
    for rule in RULES {
        println!(
            "- `{}` ({}): {}",
            rule.name,
            if rule.side == Side::PythonAccepts {
                "python accepts"
            } else {
                "python refuses"
            },
            rule.about
        );
    }
    if let Some(report) = std::env::var_os("FORMAT_ORACLE_REPORT") {
        let all = [
            unexplained.as_slice(),
            &["explained:".to_owned()],
            explained.as_slice(),
        ]
        .concat();
        std::fs::write(&report, all.join("\n")).unwrap();
    }
    assert!(
        unexplained.is_empty(),
        "{} disagreements with python-jsonschema that no rule explains:\n{}",
        unexplained.len(),
        unexplained
            .iter()
            .take(200)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
