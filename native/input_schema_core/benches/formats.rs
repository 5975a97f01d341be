//! Each format check (`src/format`, `Format::check`) on a typical valid
//! string, on the longest strings the formats with a length limit read,
//! and on 1 MiB strings built to make the checker read all of them before
//! it decides: medians and 99th percentiles, nanoseconds per byte, and
//! nanoseconds per work unit the standard walk charges for the check (read
//! from its budget), beside the about 100 ns a unit stands for.
//!
//! Run: `cargo bench -p input_schema_core --bench formats`.
//! A typical or length-limited string is timed in batches of calls, a
//! 1 MiB string one call at a time; each figure is over many batches. Every
//! shape of a format is timed, the 1 MiB shapes taking turns (this VM's
//! speed drifts by tens of percent over seconds), and the slowest is that
//! format's figure.

// A benchmark program: a broken fixture should stop it loudly.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use input_schema_core::budget::Budget;
use input_schema_core::format::Format;
use input_schema_core::json::JsonRef;
use input_schema_core::standard::{FormatMode, Options, Validator};
use serde_json::Value as Json;

mod support;
use support::{figures, human, Figures};

/// Batches of the typical strings.
const SAMPLES: usize = 1000;
/// Calls in one batch of a typical string.
const BATCH: usize = 100;
/// Batches, and calls in one, of the longest strings of the formats with a
/// length limit (each check takes up to some tens of µs).
const LONG_SAMPLES: usize = 300;
const LONG_BATCH: usize = 10;
/// The size of the large strings.
const MIB: usize = 1 << 20;
/// Time spent on each 1 MiB shape, at most (once it has `MIN_LARGE`
/// samples).
const LARGE_TIME: Duration = Duration::from_millis(500);
const MIN_LARGE: usize = 11;
const MAX_LARGE: usize = 101;

/// The inline budget's calibration (docs/performance.md, "Scheduling"):
/// 1,000 units for at most about 100 µs of work, so about 100 ns a unit.
const NS_PER_UNIT: f64 = 100.0;

/// The standard validator on `{"format": F}`, with the format asserted
/// and annotated: what the walk charges for a format check is the
/// difference of the work units the two spend on a string (read from its
/// budget, so the figure is the walk's own accounting).
struct Charges {
    asserting: Validator,
    annotating: Validator,
}

impl Charges {
    fn new(format: Format) -> Charges {
        let schema = serde_json::json!({ "format": format.name() });
        let compile = |formats| {
            let options = Options {
                formats,
                ..Options::default()
            };
            Validator::compile(&schema, &options).unwrap_or_else(|e| panic!("{}: {e}", format.name()))
        };
        Charges {
            asserting: compile(FormatMode::Assert),
            annotating: compile(FormatMode::Annotate),
        }
    }

    /// The work units the standard walk charges for checking `text`.
    fn units(&self, text: &str) -> f64 {
        let instance = Json::String(text.to_string());
        let spent = |validator: &Validator| {
            let budget = Budget::new(1 << 40);
            validator
                .is_valid_within(JsonRef::from(&instance), &budget)
                .unwrap_or_else(|e| panic!("{e:?}"));
            (1u64 << 40) - budget.left() as u64
        };
        (spent(&self.asserting) - spent(&self.annotating)) as f64
    }
}

/// Per-call nanoseconds of `samples` batches of `batch` checks.
fn time_batches(format: Format, text: &str, batch: usize, samples: usize) -> Figures {
    let check = || black_box(format.check(black_box(text)));
    for _ in 0..batch * 10 {
        check();
    }
    let samples = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                check();
            }
            start.elapsed().as_nanos() as f64 / batch as f64
        })
        .collect();
    figures(samples)
}

/// Nanoseconds of single checks of each large string, the strings taken in
/// turn (so that a drift of the machine's speed hits them all): at least
/// `MIN_LARGE` rounds, then until `LARGE_TIME` per string has passed or
/// `MAX_LARGE` rounds were taken.
fn time_large(format: Format, texts: &[String]) -> Vec<Figures> {
    for text in texts {
        black_box(format.check(black_box(text)));
    }
    let began = Instant::now();
    let limit = LARGE_TIME * texts.len() as u32;
    let mut samples = vec![Vec::with_capacity(MAX_LARGE); texts.len()];
    let mut rounds = 0;
    while rounds < MIN_LARGE || (rounds < MAX_LARGE && began.elapsed() < limit) {
        for (text, samples) in texts.iter().zip(&mut samples) {
            let start = Instant::now();
            black_box(format.check(black_box(text)));
            samples.push(start.elapsed().as_nanos() as f64);
        }
        rounds += 1;
    }
    samples.into_iter().map(figures).collect()
}

/// Typical valid strings: (label, string); `idn-hostname` has one with an
/// A-label and one with a U-label.
fn typical(format: Format) -> Vec<(&'static str, String)> {
    let one = |text: &str| vec![("", text.to_string())];
    match format {
        Format::DateTime => one("2024-05-01T12:30:00Z"),
        Format::Date => one("2024-05-01"),
        Format::Time => one("12:30:00.250+02:00"),
        Format::Duration => one("P1DT12H30M"),
        Format::Email => one("user@example.com"),
        Format::IdnEmail => one("jürgen@bücher.example"),
        Format::Hostname => one("build-cache-01.eu.example.com"),
        Format::IdnHostname => vec![
            ("A-label", "xn--bcher-kva.example".to_string()),
            ("U-label", "bücher.example".to_string()),
        ],
        Format::Ipv4 => one("192.168.10.254"),
        Format::Ipv6 => one("2001:db8:85a3::8a2e:370:7334"),
        Format::Uri => one("https://api.example.com/v1/users?id=42&fields=name,email"),
        Format::UriReference => one("../v1/users/42?fields=name#top"),
        Format::Iri => one("https://bücher.example/straße?q=café"),
        Format::IriReference => one("/straße/über?q=café"),
        Format::Uuid => one("2eb8aa08-aa98-11ea-b4aa-73b441d16380"),
        Format::UriTemplate => one("/users/{id}{?fields*}"),
        Format::JsonPointer => one("/properties/user~1name/items/0"),
        Format::RelativeJsonPointer => one("1/properties/name"),
        Format::Regex => one("^[a-z0-9_-]{3,16}$"),
    }
}

/// A-labels of 57 code points, 63 octets each: `xn--` and the Punycode of
/// 57 times `é`, `ب` and `例`.
const LONG_A_LABELS: [(&str, &str); 3] = [
    (
        "é",
        "xn--9caaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
    (
        "ب",
        "xn--ngbaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
    (
        "例",
        "xn--fsqaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ),
];

/// `before`, then as many `label`s (separated by dots) as keep the string
/// valid for `format`.
fn longest_valid(format: Format, before: &str, label: &str) -> String {
    let mut text = format!("{before}{label}");
    loop {
        let next = format!("{text}.{label}");
        if !format.check(&next) {
            return text;
        }
        text = next;
    }
}

/// The longest valid strings of the formats whose length limit refuses a
/// 1 MiB string unread, in the shapes that cost most per byte: host names
/// of 63-octet LDH labels, of short and of 57-code-point A-labels, of
/// 57-code-point U-labels; e-mail addresses with those domains. (`date`,
/// `ipv4`, `ipv6` and `uuid` are at most 10, 15, 45 and 36 bytes: their
/// typical figure is their cost.)
fn longest(format: Format) -> Vec<(String, String)> {
    let mut shapes = Vec::new();
    let (before, unicode) = match format {
        Format::Hostname => ("", false),
        Format::IdnHostname => ("", true),
        Format::Email => ("a@", false),
        Format::IdnEmail => ("a@", true),
        _ => return shapes,
    };
    let mut push = |shape: String, label: &str| {
        let text = longest_valid(format, before, label);
        assert!(format.check(&text), "{}: {shape}", format.name());
        shapes.push((shape, text));
    };
    push("63-octet LDH labels".into(), &"a".repeat(63));
    push("A-labels `xn--bcher-kva`".into(), "xn--bcher-kva");
    for (letter, label) in LONG_A_LABELS {
        push(format!("A-labels of 57 × {letter}"), label);
    }
    if unicode {
        for letter in ["é", "ب", "例", "ç"] {
            push(format!("U-labels of 57 × {letter}"), &letter.repeat(57));
        }
    }
    shapes
}

/// `before`, then `unit` repeated, then `after`: at most 1 MiB, within one
/// unit of it.
fn mib(before: &str, unit: &str, after: &str) -> String {
    let count = (MIB - before.len() - after.len()) / unit.len();
    let mut text = String::with_capacity(MIB);
    text.push_str(before);
    for _ in 0..count {
        text.push_str(unit);
    }
    text.push_str(after);
    text
}

/// `(?<g0>a)(?<g1>a)...`: named groups, every name new.
fn named_groups() -> String {
    let mut text = String::with_capacity(MIB);
    for i in 0.. {
        let group = format!("(?<g{i}>a)");
        if text.len() + group.len() > MIB {
            break;
        }
        text.push_str(&group);
    }
    text
}

/// 1 MiB strings for the format, each built so that the checker reads it
/// to its end (or, for the formats with a length limit, as long as any
/// other): a long valid prefix, separators, escapes, non-ASCII characters.
fn large(format: Format) -> Vec<(&'static str, String)> {
    let time_fraction = |after: &str| mib("12:30:00.", "1", after);
    let uris = |relative: bool, iri: bool| {
        let mut shapes = vec![
            ("path of /a", mib("https://example.com", "/a", "")),
            ("path of %41", mib("https://example.com/", "%41", "")),
            ("query", mib("https://example.com/?", "a=1&", "")),
            ("fragment", mib("https://example.com/#", "a/?", "")),
            ("userinfo", mib("https://", "a:", "@example.com/")),
            ("reg-name", mib("https://", "a", "/")),
            ("scheme", mib("", "a", ":")),
        ];
        if relative {
            shapes.push(("relative path", mib("", "a/", "")));
        }
        if iri {
            shapes.push(("path of é", mib("https://example.com/", "é", "")));
            shapes.push(("path of U+10000", mib("https://example.com/", "\u{10000}", "")));
            shapes.push(("query of U+E000", mib("https://example.com/?", "\u{E000}", "")));
        }
        shapes
    };
    let local_parts = |international: bool| {
        let mut shapes = vec![
            ("dot-atom local part", mib("", "a.", "a@example.com")),
            ("atom local part", mib("", "a", "@example.com")),
            ("quoted local part", mib("\"", "\\a", "\"@example.com")),
            ("quoted text", mib("\"", "a b", "\"@example.com")),
        ];
        if international {
            shapes.push(("local part of é", mib("", "é", "@bücher.example")));
            shapes.push(("quoted é", mib("\"", "é", "\"@bücher.example")));
        }
        shapes
    };
    match format {
        Format::DateTime => vec![
            ("fraction, Z", mib("2024-05-01T12:30:00.", "1", "Z")),
            ("fraction, offset", mib("2024-05-01T12:30:00.", "1", "+02:00")),
        ],
        Format::Time => vec![
            ("fraction, Z", time_fraction("Z")),
            ("fraction, offset", time_fraction("+02:00")),
        ],
        Format::Date => vec![("dates", mib("", "2024-05-01", ""))],
        Format::Duration => vec![("days", mib("P", "9", "D")), ("seconds", mib("PT", "9", "S"))],
        Format::Email => local_parts(false),
        Format::IdnEmail => local_parts(true),
        Format::Hostname => vec![("labels", mib("", "a.", "a"))],
        Format::IdnHostname => vec![
            ("labels", mib("", "a.", "a")),
            ("U-labels", mib("", "bücher.", "example")),
        ],
        Format::Ipv4 => vec![("parts", mib("", "1.", "1"))],
        Format::Ipv6 => vec![("groups", mib("", "1:", "1"))],
        Format::Uri => uris(false, false),
        Format::UriReference => uris(true, false),
        Format::Iri => uris(false, true),
        Format::IriReference => uris(true, true),
        Format::Uuid => vec![("groups", mib("", "0-", ""))],
        Format::UriTemplate => vec![
            ("expressions", mib("", "{+a.b:99,c*}", "")),
            ("one varname", mib("{", "a.", "a}")),
            ("varname of %41", mib("{", "%41", "}")),
            ("literals", mib("/", "a/", "")),
            ("literals of %41", mib("", "%41", "")),
            ("literals of é", mib("", "é", "")),
            ("literals of U+10000", mib("", "\u{10000}", "")),
        ],
        Format::JsonPointer => vec![
            ("/a~0 tokens", mib("", "/a~0", "")),
            ("/ tokens", mib("", "/", "")),
            ("é", mib("/", "é", "")),
        ],
        Format::RelativeJsonPointer => vec![
            ("/a~0 tokens", mib("0", "/a~0", "")),
            ("digits", mib("1", "0", "#")),
            ("index manipulation", mib("1+", "1", "/a")),
        ],
        Format::Regex => vec![
            ("alternations", mib("", "a|", "a")),
            ("classes", mib("", "[a-z0-9_-]|", "a")),
            ("groups", mib("", "(a)", "")),
            ("non-capturing groups", mib("", "(?:a|b)", "")),
            ("quantifiers", mib("", "a{2,3}?", "")),
            ("escapes", mib("", "\\d\\w\\s\\.", "")),
            ("\\p{L}", mib("", "\\p{L}", "")),
            (
                "\\p{Script_Extensions=Greek}",
                mib("", "\\p{Script_Extensions=Greek}", ""),
            ),
            ("class of properties", mib("", "[\\d\\-z\\P{sc=Greek}]", "")),
            ("backreferences", mib("(a)", "\\1", "")),
            ("named groups", named_groups()),
            ("nested groups", "(".repeat(MIB / 2) + &")".repeat(MIB / 2)),
            (
                "nested non-capturing groups",
                "(?:".repeat(MIB / 4) + &")".repeat(MIB / 4),
            ),
            ("lookarounds", mib("", "(?=a)(?<!b)", "")),
            ("named backreferences", mib("(?<n>a)", "\\k<n>", "")),
            ("code point escapes", mib("", "\\u{1F600}", "")),
            ("class of ranges", mib("[", "a-z0-9A-Z", "]")),
        ],
    }
}

fn main() {
    let started = Instant::now();
    let charges: Vec<Charges> = Format::ALL.into_iter().map(Charges::new).collect();
    let charged_units = |format: Format, text: &str| {
        let at = Format::ALL.iter().position(|f| *f == format).unwrap_or_default();
        charges[at].units(text)
    };
    let per_unit = |format: Format, text: &str, ns: f64| ns / charged_units(format, text);
    // (format, string, ns per charged unit), for the closing line.
    let mut per_unit_rows: Vec<(Format, String, f64)> = Vec::new();

    println!("Typical strings (batches of {BATCH} checks, {SAMPLES} batches):\n");
    println!("| format | string | median | p99 | units charged | ns per unit |");
    println!("|---|---|---:|---:|---:|---:|");
    // The first typical string of each format, for the summary.
    let mut typical_figures: Vec<(Format, Figures)> = Vec::new();
    for format in Format::ALL {
        for (label, text) in typical(format) {
            assert!(format.check(&text), "{}: {text} should be valid", format.name());
            let (median, p99) = time_batches(format, &text, BATCH, SAMPLES);
            let shown = match (text.len() > 60, label.is_empty()) {
                (true, _) => format!("{} bytes: {label}", text.len()),
                (false, true) => format!("`{text}`"),
                (false, false) => format!("`{text}` ({label})"),
            };
            let ns_per_unit = per_unit(format, &text, median);
            println!(
                "| {} | {shown} | {} | {} | {:.0} | {ns_per_unit:.0} |",
                format.name(),
                human(median),
                human(p99),
                charged_units(format, &text)
            );
            per_unit_rows.push((format, format!("typical `{text}`"), ns_per_unit));
            if typical_figures.iter().all(|(f, _)| *f != format) {
                typical_figures.push((format, (median, p99)));
            }
        }
    }

    println!(
        "\nThe longest valid strings of the formats with a length limit (batches of {LONG_BATCH} \
         checks, {LONG_SAMPLES} batches):\n"
    );
    println!("| format | shape | bytes | median | p99 | ns/byte | units charged | ns per unit |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for format in Format::ALL {
        for (shape, text) in longest(format) {
            let (median, p99) = time_batches(format, &text, LONG_BATCH, LONG_SAMPLES);
            let ns_per_unit = per_unit(format, &text, median);
            println!(
                "| {} | {shape} | {} | {} | {} | {:.1} | {:.0} | {ns_per_unit:.0} |",
                format.name(),
                text.len(),
                human(median),
                human(p99),
                median / text.len() as f64,
                charged_units(format, &text)
            );
            per_unit_rows.push((format, format!("{} bytes, {shape}", text.len()), ns_per_unit));
        }
    }

    println!(
        "\n1 MiB strings, every shape (one check a sample, the shapes of a format in turn, \
         {MIN_LARGE} to {MAX_LARGE} samples):\n"
    );
    println!("| format | shape | bytes | median | p99 | ns/byte | accepted |");
    println!("|---|---|---:|---:|---:|---:|---|");
    let mut worst = Vec::new();
    for format in Format::ALL {
        let shapes = large(format);
        let texts: Vec<String> = shapes.iter().map(|(_, text)| text.clone()).collect();
        let timed = time_large(format, &texts);
        let mut slowest: Option<(&'static str, usize, f64, bool, f64)> = None;
        for ((shape, text), (median, p99)) in shapes.iter().zip(timed) {
            let accepted = format.check(text);
            println!(
                "| {} | {shape} | {} | {} | {} | {:.2} | {} |",
                format.name(),
                text.len(),
                human(median),
                human(p99),
                median / text.len() as f64,
                if accepted { "yes" } else { "no" }
            );
            if slowest.is_none_or(|(_, _, most, _, _)| median > most) {
                slowest = Some((shape, text.len(), median, accepted, charged_units(format, text)));
            }
        }
        if let Some(found) = slowest {
            worst.push((format, found));
        }
    }

    println!("\nPer format: the typical string, and the slowest 1 MiB shape:\n");
    println!(
        "| format | typical median | typical p99 | 1 MiB median | ns/byte | 1 MiB accepted | slowest shape \
         | ns per unit |"
    );
    println!("|---|---:|---:|---:|---:|---|---|---:|");
    let mut largest: Option<(Format, f64)> = None;
    let mut unread = Vec::new();
    for (format, (shape, len, median, accepted, units)) in worst {
        let (typical_median, typical_p99) = typical_figures
            .iter()
            .find(|(f, _)| *f == format)
            .map_or((f64::NAN, f64::NAN), |(_, figures)| *figures);
        let per_byte = median / len as f64;
        let ns_per_unit = median / units;
        println!(
            "| {} | {} | {} | {:.2} µs | {per_byte:.2} | {} | {shape} | {ns_per_unit:.0} |",
            format.name(),
            human(typical_median),
            human(typical_p99),
            median / 1_000.0,
            if accepted { "yes" } else { "no" }
        );
        if largest.is_none_or(|(_, most)| per_byte > most) {
            largest = Some((format, per_byte));
        }
        if median < 1_000.0 {
            unread.push(format.name());
        } else {
            per_unit_rows.push((format, format!("1 MiB, {shape}"), ns_per_unit));
        }
    }
    println!(
        "\nRefused on their length alone, unread (a longer string cannot be valid): {}.",
        unread.join(", ")
    );
    if let Some((format, per_byte)) = largest {
        println!(
            "\nLargest ns/byte on 1 MiB: {per_byte:.2} ({}), {:.0} ns per 16 bytes.",
            format.name(),
            per_byte * 16.0
        );
    }
    per_unit_rows.sort_by(|a, b| b.2.total_cmp(&a.2));
    println!(
        "Largest ns per charged unit (a unit stands for about {NS_PER_UNIT:.0} ns: the inline budget \
         is 1,000 units, about 100 µs):"
    );
    for (format, string, ns) in per_unit_rows.iter().take(5) {
        println!("  {ns:.0} ns: {}, {string}", format.name());
    }
    println!("\nTotal time: {:.1} s", started.elapsed().as_secs_f64());
}
