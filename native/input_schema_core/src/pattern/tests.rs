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

fn dense_engine(source: &str) -> Pattern {
    let pattern = Pattern::compile(source.as_bytes()).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    assert!(pattern.is_dense(), "{source} is not dense");
    pattern
}

fn dense_parts(pattern: &Pattern) -> &DenseEngine {
    match &pattern.engine {
        Engine::Dense(dense) => dense,
        Engine::Lazy(_) => panic!("not dense"),
    }
}

/// Patterns whose fully built DFA has states that loop on many bytes.
const LOOPING_PATTERNS: &[&str] = &[
    "^[A-Za-z0-9_.-]+$",
    "[a-z]+@[a-z]+\\.com",
    "^[^@\\s]+@[^@\\s]+$",
    "^(?:[a-z0-9]+-)*[a-z0-9]+$",
    "x[^y]+y",
    "[a-z]{5,}X",
    "^[0-9a-f]+(?:\\.[0-9a-f]+)?$",
    "^[\\w.]{3,}\\b",
    "é[^é]*é",
];

/// The loop sets, derived from the DFA alone (every byte, not the byte
/// classes the engine uses): every non-special state reachable from a start
/// state that stays put on at least `LOOP_MIN_BYTES` bytes has a set, and
/// the set holds exactly those bytes.
#[test]
fn loop_sets_hold_exactly_the_bytes_a_state_stays_on() {
    for source in LOOPING_PATTERNS {
        let pattern = dense_engine(source);
        let dense = dense_parts(&pattern);
        let dfa = &dense.dfa;
        let mut seen = std::collections::HashSet::new();
        let mut queue = Vec::new();
        for anchored in [Anchored::No, Anchored::Yes] {
            for look_behind in [None, Some(b'\n'), Some(b'\r'), Some(b'a'), Some(b' '), Some(0xC3)] {
                let config = start::Config::new().anchored(anchored).look_behind(look_behind);
                if let Ok(sid) = dfa.start_state(&config) {
                    if seen.insert(sid) {
                        queue.push(sid);
                    }
                }
            }
        }
        let mut looping = 0;
        while let Some(sid) = queue.pop() {
            let stays: Vec<u8> = (0..=255u8).filter(|&b| dfa.next_state(sid, b) == sid).collect();
            for next in (0..=255u8).map(|b| dfa.next_state(sid, b)) {
                if seen.insert(next) {
                    queue.push(next);
                }
            }
            let expected = stays.len() >= LOOP_MIN_BYTES as usize && !dfa.is_special_state(sid);
            match dense.loop_set(sid) {
                Some(set) => {
                    assert!(expected, "{source}: a set on a state that should have none");
                    looping += 1;
                    let held: Vec<u8> = (0..=255u8).filter(|&b| set.contains(b)).collect();
                    assert_eq!(held, stays, "{source}: loop set of state {sid:?}");
                    assert_eq!(set.len() as usize, stays.len(), "{source}");
                }
                None => assert!(
                    !expected,
                    "{source}: state {sid:?} stays on {} bytes, no set",
                    stays.len()
                ),
            }
        }
        assert!(looping > 0, "{source}: no state got a loop set");
        assert_eq!(dense.loops.len(), looping, "{source}: sets of unreachable states");
    }
    // A loop on 16 bytes gets a set, one on 15 does not.
    assert_eq!(dense_parts(&dense_engine("^[a-p]+$")).loops.len(), 1);
    assert!(dense_parts(&dense_engine("^[a-o]+$")).loops.is_empty());
}

/// xorshift bytes drawn from `alphabet`, `len` of them.
fn random_text(state: &mut u64, alphabet: &[&str], len: usize) -> String {
    (0..len)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            alphabet[(*state % alphabet.len() as u64) as usize]
        })
        .collect()
}

/// The dense engine's walk (which skips through loop states with their
/// sets) answers as the library's own search over the same DFA.
#[test]
fn the_dense_walk_answers_as_the_automaton_search() {
    let alphabet = [
        "a", "b", "k", "x", "y", "z", "X", "Q", "0", "7", "-", "_", ".", "@", " ", "\n", "\r", "é", "😀",
        "\u{a0}",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut matched = 0;
    for source in LOOPING_PATTERNS {
        let pattern = dense_engine(source);
        let dfa = &dense_parts(&pattern).dfa;
        for round in 0..400 {
            let len = round % 80;
            let mut text = random_text(&mut state, &alphabet, len);
            if round % 4 == 0 {
                // Long runs inside a loop state, then whatever follows.
                text = format!("{}{}", random_text(&mut state, &["a", "b", "k", "7"], 40), text);
            }
            let expected = dfa
                .try_search_fwd(&Input::new(&text).earliest(true))
                .unwrap_or_else(|e| panic!("{e:?}"))
                .is_some();
            assert_eq!(pattern.search(&text), Ok(expected), "{source} on {text:?}");
            matched += usize::from(expected);
        }
    }
    assert!(matched > 200, "too few matches ({matched}) to exercise the walk");
}

/// A dense pattern accounts for exactly what it holds: the DFA's tables,
/// the per-state loop index and the loop sets.
#[test]
fn a_dense_pattern_accounts_for_its_loop_sets() {
    for source in LOOPING_PATTERNS {
        let pattern = dense_engine(source);
        let dense = dense_parts(&pattern);
        assert!(dense.loop_of.len() >= 3 && !dense.loops.is_empty(), "{source}");
        assert_eq!(
            pattern.memory_usage(),
            dense.dfa.memory_usage()
                + std::mem::size_of_val(dense.loop_of.as_slice())
                + std::mem::size_of_val(dense.loops.as_slice()),
            "{source}"
        );
    }
}

fn shared(source: &str) -> Arc<Pattern> {
    Arc::new(Pattern::compile(source.as_bytes()).unwrap_or_else(|e| panic!("{e:?}")))
}

fn kept(cache: &PatternCache) -> Vec<String> {
    cache
        .order
        .iter()
        .map(|source| String::from_utf8_lossy(source).into_owned())
        .collect()
}

/// The pattern cache keeps at most its count of entries and its bytes,
/// oldest out first, and accounts every byte it keeps and frees.
#[test]
fn the_pattern_cache_is_bounded_by_count_and_bytes() {
    let (a, b, c) = (shared("^[a-z]+$"), shared("^[0-9]{3}$"), shared("^[a-f]+$"));
    let cost = |source: &str, pattern: &Arc<Pattern>| PatternCache::cost(source.as_bytes(), pattern);
    let (cost_a, cost_b, cost_c) = (cost("^[a-z]+$", &a), cost("^[0-9]{3}$", &b), cost("^[a-f]+$", &c));
    assert_eq!(cost_a, a.memory_usage() + 8);

    // By count: two entries.
    let mut by_count = PatternCache::new(2, usize::MAX);
    assert!(by_count.insert(b"^[a-z]+$", &a).is_empty());
    assert!(by_count.insert(b"^[0-9]{3}$", &b).is_empty());
    assert_eq!(by_count.bytes, cost_a + cost_b);
    // The same source again changes nothing.
    assert!(by_count.insert(b"^[a-z]+$", &a).is_empty());
    assert_eq!(kept(&by_count), ["^[a-z]+$", "^[0-9]{3}$"]);
    let evicted = by_count.insert(b"^[a-f]+$", &c);
    assert_eq!(evicted.len(), 1);
    assert!(evicted.first().is_some_and(|old| Arc::ptr_eq(old, &a)));
    assert_eq!(kept(&by_count), ["^[0-9]{3}$", "^[a-f]+$"]);
    assert_eq!(by_count.by_source.len(), 2);
    assert_eq!(by_count.bytes, cost_b + cost_c);

    // By bytes: exactly room for the first two.
    let mut by_bytes = PatternCache::new(usize::MAX, cost_a + cost_b);
    assert!(by_bytes.insert(b"^[a-z]+$", &a).is_empty());
    assert!(by_bytes.insert(b"^[0-9]{3}$", &b).is_empty());
    assert_eq!(kept(&by_bytes), ["^[a-z]+$", "^[0-9]{3}$"]);
    assert!(cost_c <= cost_a, "the third pattern fits where the first was");
    let evicted = by_bytes.insert(b"^[a-f]+$", &c);
    assert_eq!(evicted.len(), 1);
    assert!(evicted.first().is_some_and(|old| Arc::ptr_eq(old, &a)));
    assert_eq!(kept(&by_bytes), ["^[0-9]{3}$", "^[a-f]+$"]);
    assert_eq!(by_bytes.bytes, cost_b + cost_c);

    // A pattern larger than the whole bound is not kept, and evicts nothing.
    let mut small = PatternCache::new(usize::MAX, cost_a);
    assert!(small.insert(b"^[a-z]+$", &a).is_empty());
    let larger = shared("x[^y]+y");
    assert!(PatternCache::cost(b"x[^y]+y", &larger) > cost_a);
    assert!(small.insert(b"x[^y]+y", &larger).is_empty());
    assert_eq!(kept(&small), ["^[a-z]+$"]);
    assert_eq!(small.bytes, cost_a);
}

/// `compile_shared` hands out the automaton it kept; `find_shared` finds it
/// (once no other test holds the cache: it does not wait for the lock).
#[test]
fn shared_patterns_are_reused() {
    let source = b"^shared-[0-9a-f]{8}$";
    let first = Pattern::compile_shared(source).unwrap_or_else(|e| panic!("{e:?}"));
    let second = Pattern::compile_shared(source).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(Arc::ptr_eq(&first, &second));
    let found = (0..10_000).find_map(|_| {
        Pattern::find_shared(source).or_else(|| {
            std::thread::yield_now();
            None
        })
    });
    assert!(found.is_some_and(|found| Arc::ptr_eq(&found, &first)));
    assert_eq!(Pattern::compile_shared(b"(").err(), Some(PatternError::Invalid));
}

/// Building a pattern is charged by the size of what it builds (a unit per
/// 5 bytes of NFA, per 2 bytes of DFA): ten times the counted repetition,
/// about ten times the units; and a lazy pattern holds, and accounts for,
/// its NFA.
#[test]
fn build_units_follow_the_automaton() {
    let compiled = |source: &str| Pattern::compile(source.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"));
    let (small, large) = (compiled("^[a-z]{1,100}$"), compiled("^[a-z]{1,1000}$"));
    let (small, large) = (small.build_units(), large.build_units());
    assert!((8 * small..=12 * small).contains(&large), "{small} -> {large}");

    let lazy = compiled("a[ab]{20}c");
    let Engine::Lazy(dfa) = &lazy.engine else {
        panic!("a[ab]{{20}}c is dense")
    };
    let nfa = dfa.get_nfa().memory_usage();
    assert!(nfa > 1_000, "{nfa}");
    // It tried the fully built DFA first (a small NFA) and gave up.
    assert!(dfa.get_nfa().states().len() <= DENSE_NFA_STATES);
    let expected = ("a[ab]{20}c".len() + nfa / NFA_BYTES_PER_UNIT) as u64 + FAILED_DENSE_UNITS;
    assert_eq!(lazy.build_units(), expected);
    assert_eq!(lazy.memory_usage(), dfa.memory_usage() + nfa);
}

/// A quantifier nests like a group: 32 quantified groups make 64 levels,
/// the limit; 33 pass it.
#[test]
fn quantifiers_count_toward_the_nesting_limit() {
    let quantified = |levels: usize| format!("{}a{}", "(?:".repeat(levels), ")*".repeat(levels));
    assert!(Pattern::compile(quantified(NEST_LIMIT / 2).as_bytes()).is_ok());
    assert_eq!(error(&quantified(NEST_LIMIT / 2 + 1)), PatternError::TooLarge);
}

/// Counted quantifiers: each count at most 65,535, the upper one not below
/// the lower.
#[test]
fn counted_quantifier_bounds() {
    for pattern in ["a{0,65536}", "a{65536,}", "a{65536}", "a{3,2}"] {
        assert_eq!(error(pattern), PatternError::Invalid, "{pattern}");
    }
    // In range, they parse (the widest build automata past the size cap).
    for pattern in ["a{0,65535}?", "a{65535,}", "a{2,2}"] {
        assert_ne!(
            Pattern::compile(pattern.as_bytes()).err(),
            Some(PatternError::Invalid),
            "{pattern}"
        );
    }
}

/// A class range over the surrogates keeps the code points on either side
/// and matches no input inside them (valid UTF-8 holds none).
#[test]
fn class_ranges_leave_the_surrogates_out() {
    let only = Pattern::compile(br"^[\uD800-\uDFFF]$").unwrap_or_else(|e| panic!("{e:?}"));
    for text in ["a", "\u{D7FF}", "\u{E000}", ""] {
        assert_eq!(only.search(text), Ok(false), "{text:?}");
    }
    let across = Pattern::compile(br"^[\uD7FF-\uE000]$").unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(across.search("\u{D7FF}"), Ok(true));
    assert_eq!(across.search("\u{E000}"), Ok(true));
    assert_eq!(across.search("a"), Ok(false));
}

/// `\u` escapes: the braced form up to U+10FFFF and closed; a surrogate
/// pair only as two adjacent `\u` escapes of a high and a low surrogate.
#[test]
fn unicode_escapes() {
    assert!(matches("^\\u{10FFFF}$", "\u{10FFFF}"));
    assert_eq!(error("\\u{110000}"), PatternError::Invalid);
    for unsupported in ["\\u{}", "\\u{41", "\\u{41x}"] {
        assert_eq!(error(unsupported), PatternError::Unsupported, "{unsupported}");
    }
    // Not a pair: a lone high surrogate (no input holds one), then what
    // follows as written.
    assert!(!matches("\\uD83D--DE00", "😀"));
    assert!(!matches("\\uD83D\\u0041", "A"));
    assert!(!matches("\\uD83D\\u0041", "😀"));
    assert!(matches("^(?:\\uD83D\\u0041|A)$", "A"));
    // Only a high surrogate starts a pair.
    assert!(matches("^\\u0041-udc00$", "A-udc00"));
    assert!(matches("^\\u0041\\uDC00?$", "A"));
}

/// `[` inside a class opens a POSIX class (unsupported) only when `[:`,
/// `[.` or `[=` is closed later by the same mark and `]`.
#[test]
fn posix_classes_need_their_closing_mark() {
    assert_eq!(error("abc[[::]]"), PatternError::Unsupported);
    assert_eq!(error("[[.a.]]"), PatternError::Unsupported);
    assert!(matches("^[[:a]$", ":"));
    assert!(matches("^[[:a]$", "["));
    assert!(matches("^[[=a]+$", "=a["));
}

#[test]
fn plain_literals_are_searched_as_text_and_agree_with_the_automaton() {
    for source in ["^str_", "str_", "^a", "_9", "^abc_DEF", "A1"] {
        for pattern in [
            Pattern::compile(source.as_bytes()).unwrap_or_else(|e| panic!("{e:?}")),
            Pattern::compile_standard(source.as_bytes()).unwrap_or_else(|e| panic!("{e:?}")),
        ] {
            assert!(pattern.literal.is_some(), "{source}");
            for haystack in [
                "", "str_", "xstr_", "str", "stx_", "str_x", "a", "ba", "_9_", "abc_DEF", "abc_DEF!",
                "abc_DEf", "é str_", "A1é", "a1",
            ] {
                assert_eq!(
                    pattern.search(haystack),
                    dense_parts(&pattern).is_match(haystack.as_bytes()),
                    "{source} on {haystack:?}"
                );
            }
        }
    }
    for source in [
        "^a$", "a-b", "a.b", "^", "", "a+", r"\d", "é", "^^a", "a|b", "(a)", "[a]",
    ] {
        assert!(Literal::of(source).is_none(), "{source}");
    }
}
