use std::cell::Cell;

use super::*;

thread_local! {
    /// Loop iterations the checks counted ([`step`]).
    pub(super) static STEPS: Cell<u64> = const { Cell::new(0) };
}

/// `format.check(text)` and the steps it took.
fn counted(format: Format, text: &str) -> (bool, u64) {
    STEPS.with(|steps| steps.set(0));
    let valid = format.check(text);
    (valid, STEPS.with(Cell::get))
}

#[test]
fn lookup_follows_each_dialect() {
    let names = |dialect| {
        Format::ALL
            .into_iter()
            .filter(|format| Format::lookup(format.name(), dialect) == Some(*format))
            .map(Format::name)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(Dialect::Draft4),
        ["date-time", "email", "hostname", "ipv4", "ipv6", "uri"]
    );
    assert_eq!(
        names(Dialect::Draft6),
        [
            "date-time",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uri",
            "uri-reference",
            "uri-template",
            "json-pointer"
        ]
    );
    let draft7 = [
        "date-time",
        "date",
        "time",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    ];
    assert_eq!(names(Dialect::Draft7), draft7);
    assert_eq!(names(Dialect::Draft2019_09), names(Dialect::Draft2020_12));
    assert_eq!(names(Dialect::Draft2020_12).len(), 19);
    assert!(names(Dialect::Draft2020_12).contains(&"duration"));
    assert!(names(Dialect::Draft2020_12).contains(&"uuid"));
    for dialect in Dialect::ALL {
        for unknown in [
            "",
            "unknown",
            "DATE-TIME",
            "date-time ",
            "int32",
            "color",
            "host-name",
            "ip-address",
            "utc-millisec",
        ] {
            assert_eq!(Format::lookup(unknown, dialect), None, "{unknown}");
        }
    }
    for format in Format::ALL {
        assert_eq!(Format::lookup(format.name(), Dialect::Draft2020_12), Some(format));
    }
}

#[test]
fn in_ranges_finds_the_ends_of_each_range() {
    let ranges = [(2, 4), (10, 10), (20, 30)];
    let inside: Vec<u32> = (0..35).filter(|&cp| in_ranges(&ranges, cp)).collect();
    assert_eq!(inside, [2, 3, 4, 10, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
    assert!(!in_ranges(&[], 0));
}

/// Strings of about `len` bytes built to be slow for the formats listed
/// (none listed: every format): long valid prefixes, repeated separators,
/// openers and escapes.
fn hostile_inputs(len: usize) -> Vec<(&'static str, &'static [Format], String)> {
    use Format::*;
    let repeat = |unit: &str| unit.repeat(len / unit.len().max(1));
    let names: &[Format] = &[Hostname, IdnHostname, Email, IdnEmail];
    let dates: &[Format] = &[DateTime, Date, Time, Duration];
    let uris: &[Format] = &[Uri, UriReference, Iri, IriReference, UriTemplate];
    let pointers: &[Format] = &[JsonPointer, RelativeJsonPointer];
    vec![
        ("letters", &[], repeat("a")),
        ("digits", &[], repeat("1")),
        ("greek", &[], repeat("\u{3b1}")),
        ("nul", &[], repeat("\0")),
        ("dots", &[], repeat(".")),
        ("labels", names, repeat("a.")),
        ("xn labels", names, repeat("xn--bcher-kva.")),
        ("ascii labels then idn", names, repeat("ab.") + "\u{5D0}"),
        ("greek labels", names, repeat("\u{3b1}.")),
        ("zwnj", names, repeat("\u{628}\u{200C}")),
        ("middle dots", names, repeat("l\u{B7}")),
        ("quoted", names, format!("\"{}\"@a", repeat("\\a"))),
        ("dot string", names, format!("{}@a", repeat("a."))),
        ("long domain", names, format!("a@{}", repeat("a."))),
        ("ipv4 literal", names, format!("a@[{}]", repeat("1."))),
        ("ipv6 literal", names, format!("a@[IPv6:{}]", repeat("1:"))),
        ("colons", &[Ipv6, Uri, UriReference], repeat(":")),
        ("ipv6 groups", &[Ipv4, Ipv6], repeat("1:")),
        ("ipv4 parts", &[Ipv4, Ipv6], repeat("1.")),
        ("fraction", dates, format!("12:00:00.{}Z", repeat("1"))),
        ("duration", dates, format!("P{}D", repeat("9"))),
        ("duration units", dates, format!("PT{}", repeat("1H"))),
        ("date-time", dates, format!("2020-01-01T00:00:00.{}", repeat("0"))),
        ("slashes", uris, repeat("/")),
        ("percent", uris, repeat("%41")),
        ("at signs", uris, repeat("@")),
        ("uri path", uris, format!("http://a{}", repeat("/a"))),
        ("uri authority", uris, format!("http://{}", repeat("a@"))),
        ("uri query", uris, format!("s:?{}", repeat("?\u{e000}"))),
        ("ip literal", uris, format!("http://[{}]", repeat("1:"))),
        ("iri", uris, format!("http://a/{}", repeat("\u{e9}"))),
        ("braces", uris, repeat("{a,")),
        ("expressions", uris, repeat("{+a.b:99,c*}")),
        ("varname", uris, format!("{{{}}}", repeat("a."))),
        ("tildes", pointers, repeat("~0")),
        ("pointer", pointers, format!("0{}", repeat("/~1"))),
        ("relative", pointers, format!("{}#", repeat("9"))),
        ("uuid", &[Uuid], repeat("0-")),
    ]
}

/// Every check on every hostile input of 1 MiB finishes, and its work
/// (loop iterations, [`step`]) grows linearly: at most 64 steps a byte, and
/// four times the input takes at most about four times the steps. `regex`
/// is the pattern parser's, which these steps do not count: its own test
/// follows.
#[test]
fn checks_are_linear_on_one_mebibyte() {
    const SMALL: usize = 256 << 10;
    const LARGE: usize = 1 << 20;
    let small = hostile_inputs(SMALL);
    let large = hostile_inputs(LARGE);
    for format in Format::ALL.into_iter().filter(|&format| format != Format::Regex) {
        for ((name, formats, small), (_, _, large)) in small.iter().zip(&large) {
            if !formats.is_empty() && !formats.contains(&format) {
                continue;
            }
            let (_, small_steps) = counted(format, small);
            let (_, large_steps) = counted(format, large);
            assert!(
                large_steps <= 64 * large.len() as u64,
                "{} on {name}: {large_steps} steps for {} bytes",
                format.name(),
                large.len()
            );
            assert!(
                large_steps <= 5 * small_steps + 10_000,
                "{} on {name}: {small_steps} steps for {} bytes, {large_steps} for {}",
                format.name(),
                small.len(),
                large.len()
            );
        }
    }
}

/// `regex` decides hostile patterns of 1 MiB (the parser's syntax check is
/// iterative and linear; a quadratic one would not finish here).
#[test]
fn regex_decides_one_mebibyte_patterns() {
    let repeat = |unit: &str| unit.repeat((1 << 20) / unit.len());
    let patterns = [
        ("open groups", repeat("("), false),
        ("closed groups", repeat("(a)"), true),
        ("named groups", repeat("(?<a") + ">", false),
        ("references", repeat("\\1"), false),
        ("posix-like classes", format!("[{}", repeat("[:")), false),
        ("alternated classes", repeat("[ab]|"), true),
    ];
    for (name, pattern, valid) in patterns {
        assert_eq!(Format::Regex.check(&pattern), valid, "{name}");
    }
}

/// Every check answers (and never panics) on arbitrary short strings,
/// including every single code point class boundary the checks read.
#[test]
fn checks_answer_on_awkward_strings() {
    let samples = [
        "",
        "\0",
        "\u{FFFD}",
        "\u{10FFFF}",
        "%",
        "%%",
        "[",
        "]",
        "{",
        "}",
        "@",
        "\"",
        "\\",
        "xn--",
        "xn--\u{e9}",
        "::",
        ":::",
        "P",
        "T",
        "0",
        "#",
        "~",
        "\u{200C}",
        "\u{200D}",
        "\u{B7}",
        "\u{375}",
        "\u{5F3}",
        "\u{30FB}",
        "\u{660}",
        "a\u{3002}",
    ];
    for format in Format::ALL {
        for text in samples {
            let _ = format.check(text);
            for other in samples {
                let _ = format.check(&format!("{text}{other}"));
                let _ = format.check(&format!("{text}a{other}"));
            }
        }
    }
}

/// What a check is charged: a unit and a unit per 16 bytes for the linear
/// scans, fifty per 16 bytes for `regex`, and for a host name or a mail
/// address whose end (the most a name can be, 1,012 bytes) holds an IDNA
/// label (`xn--` in any case, or any non-ASCII character) two units a byte
/// of that end more: its Punycode, NFC and Bidi work costs up to about
/// 150 ns a byte (`benches/formats.rs`), where a plain name costs about 6.
#[test]
fn checks_are_charged_for_their_work() {
    let linear = |text: &str| 1 + text.len() as u64 / 16;
    let plain = "build-cache-01.eu.example.com";
    assert_eq!(Format::Hostname.units(plain), linear(plain));
    assert_eq!(Format::Email.units("user@example.com"), 2);
    assert_eq!(Format::DateTime.units(&"9".repeat(1 << 20)), 1 + (1 << 16));
    assert_eq!(Format::Regex.units(&"a".repeat(64)), 1 + 4 * 50);
    for (format, text) in [
        (Format::Hostname, "xn--bcher-kva.example"),
        (Format::Hostname, "www.XN--BCHER-KVA.example"),
        (Format::IdnHostname, "bücher.example"),
        (Format::IdnHostname, "xn--bcher-kva.example"),
        (Format::Email, "user@xn--bcher-kva.example"),
        (Format::IdnEmail, "jürgen@bücher.example"),
    ] {
        let expected = linear(text) + 2 * text.len() as u64;
        assert_eq!(format.units(text), expected, "{}: {text}", format.name());
    }
    // The other formats read non-ASCII text in their linear scans.
    assert_eq!(Format::Iri.units("https://bücher.example/"), 2);
    // The longest name of A-labels: hundreds of units, never a dozen.
    let longest = ["xn--bcher-kva"; 18].join(".");
    assert_eq!(
        Format::Hostname.units(&longest),
        linear(&longest) + 2 * longest.len() as u64
    );
    // A mail address of 1 MiB: only its end can be a name (the rest is the
    // local part, read by the linear scan), and only that end is read for
    // an IDNA label.
    let local = "a".repeat(1 << 20);
    let address = format!("{local}@xn--bcher-kva.example");
    assert_eq!(
        Format::Email.units(&address),
        linear(&address) + 2 * 1_012,
        "the last 1,012 bytes"
    );
    let ascii = format!("{local}@example.com");
    assert_eq!(Format::Email.units(&ascii), linear(&ascii));
    // An `xn--` far from the end is in no name the check reads as one.
    let early = format!("xn--{local}@example.com");
    assert_eq!(Format::IdnEmail.units(&early), linear(&early));
}
