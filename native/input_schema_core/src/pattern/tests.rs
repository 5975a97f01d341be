use super::*;

fn matches(pattern: &str, input: &str) -> bool {
    match Pattern::compile(pattern.as_bytes()) {
        Ok(p) => match p.search(input) {
            Ok(found) => found,
            Err(PatternLimit) => panic!("work limit on {pattern:?} / {input:?}"),
        },
        Err(e) => panic!("{pattern:?} did not compile: {e:?}"),
    }
}

fn error(pattern: &str) -> PatternError {
    match Pattern::compile(pattern.as_bytes()) {
        Ok(_) => panic!("{pattern:?} compiled"),
        Err(e) => e,
    }
}

#[test]
fn search_semantics_and_anchors() {
    let cases: &[(&str, &str, bool)] = &[
        ("b", "abc", true),
        ("^b", "abc", false),
        ("^a", "abc", true),
        ("c$", "abc", true),
        ("^a$", "a\n", false),
        ("^a$", "a", true),
        ("a$", "a\nb", false),
        ("^$", "", true),
        ("", "anything", true),
        ("a|", "zzz", true),
        ("(a|b)c", "xbc", true),
        ("(?:ab)+$", "xabab", true),
        ("ab*?c", "abbbc", true),
        ("a{2}", "a", false),
        ("a{2}", "xaax", true),
        ("a{2,}", "aaa", true),
        ("^a{2,3}$", "aaaa", false),
        ("x{", "x{", true),
        ("x{,2}", "x{,2}", true),
        ("a}", "a}", true),
        ("]", "]", true),
        ("[$]", "$", true),
        ("[]a]", "]", true),
        ("[^]a]", "]", false),
        ("[^]a]", "b", true),
        ("[a-]", "-", true),
        ("[-a]", "-", true),
        ("[[]", "[", true),
        ("[(?]", "?", true),
        ("[*+]", "+", true),
        ("\\(?x", "x", true),
        ("\\(*x", "((x", true),
        ("\\++", "++", true),
        ("\\/", "/", true),
        ("\\-", "-", true),
        ("é", "café", true),
        ("^.$", "😀", true),
        ("^..$", "😀", false),
    ];
    for &(pattern, input, expected) in cases {
        assert_eq!(matches(pattern, input), expected, "{pattern:?} on {input:?}");
    }
}

#[test]
fn dot_excludes_ecmascript_line_terminators() {
    for terminator in ["\n", "\r", "\u{2028}", "\u{2029}"] {
        assert!(!matches("^a.b$", &format!("a{terminator}b")), "{terminator:?}");
    }
    for other in ["\u{85}", "\t", "\u{b}", "x"] {
        assert!(matches("^a.b$", &format!("a{other}b")), "{other:?}");
    }
    // A negated class matches line terminators.
    assert!(matches("^a[^x]b$", "a\nb"));
}

#[test]
fn ecmascript_escapes() {
    let cases: &[(&str, &str, bool)] = &[
        ("^\\d+$", "0123456789", true),
        ("\\d", "٣", false),
        ("^\\D$", "٣", true),
        ("^\\w+$", "abc_XYZ09", true),
        ("\\w", "é", false),
        ("^\\W$", "é", true),
        ("^\\s$", "\u{FEFF}", true),
        ("^\\s$", "\u{A0}", true),
        ("^\\s$", "\u{85}", false),
        ("^\\s$", "\u{2028}", true),
        ("^\\s$", "\u{3000}", true),
        ("^\\S$", "\u{85}", true),
        ("\\bfoo\\b", "foo", true),
        ("\\bfoo\\b", "a foo.", true),
        ("\\bfoo\\b", "afoo", false),
        ("\\bé", "é", false),
        ("\\Bfoo", "afoo", true),
        // Found by the regress oracle: no position inside a code point.
        ("\\B\\B", "_.c😀b😀_", false),
        ("\\d|\\B\\B", "_.c😀b😀_", false),
        ("\\B", "😀", true),
        ("^\\B$", "", true),
        ("c\\B", "c😀", false),
        ("^\\t\\n\\v\\f\\r$", "\t\n\u{b}\u{c}\r", true),
        ("^\\0$", "\0", true),
        ("^\\cJ$", "\n", true),
        ("^\\cj$", "\n", true),
        ("^\\x41$", "A", true),
        ("^\\u00e9$", "é", true),
        ("^\\uD83D\\uDE00$", "😀", true),
        ("^[\\uD83D\\uDE00]$", "😀", true),
        ("^\\u{1F600}$", "😀", true),
        ("\\uD83D", "😀", false),
        ("^[\\b]$", "\u{8}", true),
        ("^[\\d-]+$", "1-2", true),
        ("^[^\\s]+$", "a\u{A0}", false),
        ("^[\\w.]+$", "a.b", true),
    ];
    for &(pattern, input, expected) in cases {
        assert_eq!(matches(pattern, input), expected, "{pattern:?} on {input:?}");
    }
}

#[test]
fn unsupported_syntax() {
    for pattern in [
        "(?=a)",
        "(?!a)",
        "(?<=a)",
        "(?<n>a)",
        "(?i)a",
        "(?>a)",
        "(?R)",
        "(*FAIL)",
        "a*+",
        "a++",
        "a?+",
        "a{2}+",
        "[[:alpha:]]",
        "(a)\\1",
        "\\k<n>",
        "\\p{L}",
        "\\P{L}",
        "\\K",
        "\\#",
        "\\:",
        "\\e",
        "\\01",
        "\\c1",
        "\\x4",
        "\\uZZ",
        "[\\B]",
        // Unsupported wins over a malformed part elsewhere.
        "*a(?=b)",
        "*a\\p{L}",
    ] {
        assert_eq!(error(pattern), PatternError::Unsupported, "{pattern:?}");
    }
}

#[test]
fn invalid_syntax() {
    for pattern in [
        "[",
        "a{2,1}",
        "a{65536}",
        "*a",
        "^*",
        "a**",
        "a{2}{3}",
        "(",
        ")",
        "a)",
        "\\",
        "[z-a]",
        "[\\d-z]",
        "\\b+",
        "$?",
        "a*??",
        "\\u{110000}",
    ] {
        assert_eq!(error(pattern), PatternError::Invalid, "{pattern:?}");
    }
    assert_eq!(Pattern::compile(b"\xff").err(), Some(PatternError::Invalid));
}

#[test]
fn size_limits() {
    assert!(Pattern::compile("a".repeat(MAX_PATTERN_BYTES).as_bytes()).is_ok());
    assert_eq!(error(&"a".repeat(MAX_PATTERN_BYTES + 1)), PatternError::TooLarge);
    assert!(Pattern::compile(b"a{65535}").is_ok());
    assert_eq!(error("((a{1000}){1000})"), PatternError::TooLarge);
    let deep = format!("{}a{}", "(".repeat(NEST_LIMIT), ")".repeat(NEST_LIMIT));
    assert!(Pattern::compile(deep.as_bytes()).is_ok());
    let deeper = format!("{}a{}", "(".repeat(NEST_LIMIT + 1), ")".repeat(NEST_LIMIT + 1));
    assert_eq!(error(&deeper), PatternError::TooLarge);
    // Depth beyond the limit with unsupported syntax inside is unsupported.
    let deeper_unsupported = format!("{}\\p{{L}}{}", "(".repeat(300), ")".repeat(300));
    assert_eq!(error(&deeper_unsupported), PatternError::Unsupported);
}

/// 300,000 random `a`s and `b`s (xorshift from a fixed seed): against
/// `a[ab]{20}c`, every 21-byte window is new, so the lazy DFA builds a state
/// at almost every byte and exhausts its work limit.
pub(crate) fn match_limit_input() -> String {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..300_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state & 1 == 0 {
                'a'
            } else {
                'b'
            }
        })
        .collect()
}

/// An input that makes every search position a new DFA state exhausts the
/// lazy DFA's work limit; ordinary patterns on megabytes do not.
#[test]
fn work_limit() {
    let pattern = Pattern::compile(b"a[ab]{20}c").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(!pattern.is_dense());
    let input = match_limit_input();
    assert_eq!(pattern.search(&input), Err(PatternLimit));
    // The result does not depend on earlier searches.
    assert_eq!(pattern.search(&input), Err(PatternLimit));
    assert_eq!(pattern.search("ab"), Ok(false));

    let ordinary = Pattern::compile(b"^[A-Za-z0-9_.-]+$").unwrap_or_else(|e| panic!("{e:?}"));
    assert!(ordinary.is_dense());
    let big = "a".repeat(4 << 20);
    assert_eq!(ordinary.search(&big), Ok(true));
    let redos = Pattern::compile(b"(a+)+$").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(redos.search(&format!("{}X", "a".repeat(1000))), Ok(false));
}

/// The lazy DFA answered "no match" for an empty match at the start of
/// non-ASCII input (found by the `regress` oracle at 40,000 cases): the NFA
/// was built in UTF-8 mode, whose empty-match handling the lazy search
/// applied on top of the expression's own code-point ending. Both engines
/// now search the byte-level NFA.
#[test]
fn the_lazy_dfa_finds_an_empty_match_before_non_ascii_input() {
    for (source, text) in [
        (r"(\S{0,3}[a-c](?:\W+\(\w)|^)", "\u{a0}-_é -😀"),
        (r"a[ab]{20}c|^", "é"),
        (r"a[ab]{20}c|$", "😀"),
    ] {
        let pattern = Pattern::compile(source.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!pattern.is_dense(), "{source}");
        assert_eq!(pattern.search(text), Ok(true), "{source} on {text:?}");
    }
    // And the code-point rule still holds there: `\B` has no position
    // between the two bytes of `é`.
    let lazy_b = Pattern::compile(r"a[ab]{20}c|é\Bé".as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(!lazy_b.is_dense());
    assert_eq!(lazy_b.search("éé"), Ok(true));
    let only_b = Pattern::compile(r"a[ab]{20}c|^é\B".as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(only_b.search("é"), Ok(true));
}
