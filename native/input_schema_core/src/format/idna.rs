//! One label under IDNA2008: A-labels (Punycode, RFC 3492) and U-labels
//! (RFC 5891 sections 4.2 and 5.4, with RFC 5892's code point classes and
//! contextual rules and RFC 5893's Bidi rule), plus what the domain check
//! needs to apply the Bidi rule to a whole name.
//!
//! The `idna` crate was not used: it implements UTS #46 (a mapping for
//! lookup, with a wider valid set), not IDNA2008's validity rules, and it
//! would bring the ICU4X normaliser and property crates with it. The code
//! point classes, joining types and scripts are IANA's IDNA2008 tables for
//! Unicode 16.0 (`idna_tables.rs`); NFC and canonical combining classes come
//! from `unicode-normalization`, Bidi classes from `unicode-bidi`.
//!
//! Every function here works on one label of at most [`MAX_LABEL`] code
//! points (the caller refuses longer ones first), so the quadratic parts of
//! Punycode and the contextual rules cost a bounded amount per label.

use unicode_bidi::BidiClass;
use unicode_normalization::char::{canonical_combining_class, compose, decompose_canonical};
use unicode_normalization::{is_nfc_quick, IsNormalized};

use super::idna_tables::{
    CONTEXTJ, CONTEXTO, JOINING_L_OR_D, JOINING_R_OR_D, JOINING_T, MARK, PVALID, SCRIPT_GREEK, SCRIPT_HAN,
    SCRIPT_HEBREW, SCRIPT_HIRAGANA, SCRIPT_KATAKANA,
};
use super::{in_ranges, step};

/// Longest label, in octets of its ASCII form (RFC 1035).
pub(super) const MAX_LABEL: usize = 63;

/// The Bidi facts of one label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Bidi {
    /// The label holds a character of Bidi class R, AL or AN: a name with
    /// such a label is a Bidi domain name (RFC 5893, section 1.4).
    pub(super) right_to_left: bool,
    /// The label meets the six conditions of the Bidi rule (RFC 5893,
    /// section 2), which every label of a Bidi domain name must.
    pub(super) meets_rule: bool,
}

/// What a valid label tells the domain check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Label {
    /// Length of its ASCII form (the A-label for a U-label).
    pub(super) ascii_len: usize,
    pub(super) bidi: Bidi,
}

/// The Bidi facts of an LDH label: letters are L, digits EN, `-` ES, so it
/// meets the rule when it starts with a letter (it cannot end with `-`).
pub(super) fn ldh_bidi(label: &[u8]) -> Bidi {
    Bidi {
        right_to_left: false,
        meets_rule: label.first().is_some_and(u8::is_ascii_alphabetic),
    }
}

/// An A-label (`xn--` and Punycode, any case): valid when the Punycode
/// decodes to a valid U-label whose encoding is the label itself (lower
/// case), so that a label has one A-label (RFC 5891, section 5.3).
pub(super) fn a_label(label: &[u8]) -> Option<Label> {
    if label.len() > MAX_LABEL {
        return None;
    }
    let (prefix, encoded) = (label.get(..4)?, label.get(4..)?);
    if !prefix.eq_ignore_ascii_case(b"xn--") {
        return None;
    }
    let encoded = encoded.to_ascii_lowercase();
    let decoded = punycode_decode(&encoded)?;
    let checked = u_label(&decoded)?;
    (punycode_encode(&decoded)? == encoded).then_some(Label {
        ascii_len: label.len(),
        bidi: checked.bidi,
    })
}

/// A U-label given as its code points (at most [`MAX_LABEL`]).
pub(super) fn u_label(label: &[char]) -> Option<Label> {
    if label.is_empty() || label.len() > MAX_LABEL || label.iter().all(char::is_ascii) {
        // A U-label holds a non-ASCII character (RFC 5890, 2.3.2.1).
        return None;
    }
    // RFC 5891, 4.2.3.1: no `-` first or last, nor in both the third and
    // fourth positions.
    if label.first() == Some(&'-')
        || label.last() == Some(&'-')
        || (label.get(2) == Some(&'-') && label.get(3) == Some(&'-'))
    {
        return None;
    }
    // 4.2.3.2: no combining mark first.
    if label.first().is_some_and(|&c| in_ranges(MARK, u32::from(c))) {
        return None;
    }
    // 5.4 (and 4.1): in Normalization Form C.
    if !is_nfc(label) {
        return None;
    }
    // 4.2.2 and 4.2.3.3: every code point PVALID, or CONTEXTJ / CONTEXTO
    // with its rule met (RFC 5892, appendix A).
    let context = Context::of(label);
    for (at, &c) in label.iter().enumerate() {
        step();
        let cp = u32::from(c);
        let allowed = if in_ranges(PVALID, cp) {
            true
        } else if in_ranges(CONTEXTJ, cp) {
            context_j(label, at)
        } else if in_ranges(CONTEXTO, cp) {
            context.o(label, at)
        } else {
            false
        };
        if !allowed {
            return None;
        }
    }
    let ascii_len = 4 + punycode_encode(label)?.len();
    (ascii_len <= MAX_LABEL).then(|| Label {
        ascii_len,
        bidi: bidi(label),
    })
}

/// Whether the label is in Normalization Form C (UAX #15): the quick
/// check's answer, or where it cannot tell (a character that may compose
/// with what precedes it), the label normalised and compared. Built on the
/// crate's canonical decomposition, composition and combining classes
/// alone: its own `nfc()` iterator links the compatibility tables too.
fn is_nfc(label: &[char]) -> bool {
    match is_nfc_quick(label.iter().copied()) {
        IsNormalized::Yes => true,
        IsNormalized::No => false,
        IsNormalized::Maybe => nfc(label) == label,
    }
}

/// The NFC form of a label (at most [`MAX_LABEL`] code points, so the
/// reordering's insertion sort is bounded).
fn nfc(label: &[char]) -> Vec<char> {
    let mut decomposed = Vec::with_capacity(label.len() * 2);
    for &c in label {
        decompose_canonical(c, |part| decomposed.push((part, canonical_combining_class(part))));
    }
    // Canonical ordering: each run of non-starters sorted by combining
    // class, stably.
    for at in 1..decomposed.len() {
        let mut i = at;
        while let (Some(&(_, before)), Some(&(_, class))) = (decomposed.get(i - 1), decomposed.get(i)) {
            if class == 0 || before <= class {
                break;
            }
            decomposed.swap(i - 1, i);
            i -= 1;
            if i == 0 {
                break;
            }
        }
    }
    // Canonical composition: each character joins the last starter unless
    // a character between them blocks it (class 0, or not lower).
    let mut composed: Vec<char> = Vec::with_capacity(decomposed.len());
    let mut starter: Option<usize> = None;
    let mut last_class: Option<u8> = None;
    for (c, class) in decomposed {
        let blocked = last_class.is_some_and(|last| last == 0 || last >= class);
        if let Some(slot) = starter.filter(|_| !blocked).and_then(|at| composed.get_mut(at)) {
            if let Some(joined) = compose(*slot, c) {
                *slot = joined;
                continue;
            }
        }
        if class == 0 {
            starter = Some(composed.len());
            last_class = None;
        } else {
            last_class = Some(class);
        }
        composed.push(c);
    }
    composed
}

/// Facts about the whole label some CONTEXTO rules read.
struct Context {
    arabic_indic: bool,
    extended_arabic_indic: bool,
    kana_or_han: bool,
}

impl Context {
    fn of(label: &[char]) -> Context {
        let has = |test: &dyn Fn(u32) -> bool| label.iter().any(|&c| test(u32::from(c)));
        Context {
            arabic_indic: has(&|cp| (0x0660..=0x0669).contains(&cp)),
            extended_arabic_indic: has(&|cp| (0x06F0..=0x06F9).contains(&cp)),
            kana_or_han: has(&|cp| {
                in_ranges(SCRIPT_HIRAGANA, cp) || in_ranges(SCRIPT_KATAKANA, cp) || in_ranges(SCRIPT_HAN, cp)
            }),
        }
    }

    /// RFC 5892, A.3 to A.9.
    fn o(&self, label: &[char], at: usize) -> bool {
        let before = at
            .checked_sub(1)
            .and_then(|i| label.get(i))
            .map(|&c| u32::from(c));
        let after = label.get(at + 1).map(|&c| u32::from(c));
        match label.get(at).map(|&c| u32::from(c)) {
            // MIDDLE DOT: between two `l`.
            Some(0x00B7) => before == Some(0x6C) && after == Some(0x6C),
            // GREEK LOWER NUMERAL SIGN (KERAIA): before a Greek letter.
            Some(0x0375) => after.is_some_and(|cp| in_ranges(SCRIPT_GREEK, cp)),
            // HEBREW PUNCTUATION GERESH and GERSHAYIM: after a Hebrew letter.
            Some(0x05F3 | 0x05F4) => before.is_some_and(|cp| in_ranges(SCRIPT_HEBREW, cp)),
            // KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han in the label.
            Some(0x30FB) => self.kana_or_han,
            // ARABIC-INDIC DIGITS: not mixed with the extended ones.
            Some(0x0660..=0x0669) => !self.extended_arabic_indic,
            Some(0x06F0..=0x06F9) => !self.arabic_indic,
            _ => false,
        }
    }
}

/// RFC 5892, A.1 (ZERO WIDTH NON-JOINER) and A.2 (ZERO WIDTH JOINER): after
/// a virama; or, for ZWNJ alone, between a left- or dual-joining character
/// and a right- or dual-joining one, with only transparent ones between.
fn context_j(label: &[char], at: usize) -> bool {
    let before = at.checked_sub(1).and_then(|i| label.get(i));
    if before.is_some_and(|&c| canonical_combining_class(c) == 9) {
        return true;
    }
    if label.get(at) != Some(&'\u{200C}') {
        return false;
    }
    let joining = |c: &char, ranges| in_ranges(ranges, u32::from(*c));
    let left = label
        .get(..at)
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|c| !joining(c, JOINING_T))
        .is_some_and(|c| joining(c, JOINING_L_OR_D));
    let right = label
        .get(at + 1..)
        .unwrap_or_default()
        .iter()
        .find(|c| !joining(c, JOINING_T))
        .is_some_and(|c| joining(c, JOINING_R_OR_D));
    left && right
}

/// The Bidi rule's six conditions (RFC 5893, section 2) for one label.
fn bidi(label: &[char]) -> Bidi {
    use BidiClass::{AL, AN, BN, CS, EN, ES, ET, L, NSM, ON, R};
    let classes = || label.iter().map(|&c| unicode_bidi::bidi_class(c));
    let right_to_left = classes().any(|class| matches!(class, R | AL | AN));
    // 1: the first character is L (a left-to-right label), R or AL.
    let meets_rule = match classes().next() {
        Some(R | AL) => {
            // 2: only these classes; 3: the last one that is not NSM is R,
            // AL, EN or AN; 4: not both EN and AN.
            classes().all(|class| matches!(class, R | AL | AN | EN | ES | CS | ET | ON | BN | NSM))
                && classes()
                    .rfind(|&class| class != NSM)
                    .is_some_and(|class| matches!(class, R | AL | EN | AN))
                && !(classes().any(|class| class == EN) && classes().any(|class| class == AN))
        }
        Some(L) => {
            // 5: only these classes; 6: the last that is not NSM is L or EN.
            classes().all(|class| matches!(class, L | EN | ES | CS | ET | ON | BN | NSM))
                && classes()
                    .rfind(|&class| class != NSM)
                    .is_some_and(|class| matches!(class, L | EN))
        }
        _ => false,
    };
    Bidi {
        right_to_left,
        meets_rule,
    }
}

// Punycode (RFC 3492, section 5): bootstring parameters.
const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / DAMP } else { delta / 2 };
    delta += delta / points.max(1);
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (((BASE - T_MIN + 1) * delta) / (delta + SKEW))
}

fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

fn digit_value(byte: u8) -> Option<u32> {
    match byte {
        b'a'..=b'z' => Some(u32::from(byte - b'a')),
        b'0'..=b'9' => Some(u32::from(byte - b'0') + 26),
        _ => None,
    }
}

fn digit_byte(digit: u32) -> Option<u8> {
    let digit = u8::try_from(digit).ok()?;
    match digit {
        0..=25 => Some(b'a' + digit),
        26..=35 => Some(b'0' + digit - 26),
        _ => None,
    }
}

/// Decodes lower-case Punycode (RFC 3492, 6.2), with every overflow an
/// error. At most [`MAX_LABEL`] bytes in, so the insertions are bounded.
fn punycode_decode(input: &[u8]) -> Option<Vec<char>> {
    if input.len() > MAX_LABEL {
        return None;
    }
    let (basic, extended) = match input.iter().rposition(|&b| b == b'-') {
        Some(at) => (input.get(..at)?, input.get(at + 1..)?),
        None => (&[][..], input),
    };
    let mut output: Vec<char> = basic.iter().map(|&b| char::from(b)).collect();
    if !basic.is_ascii() {
        return None;
    }
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = extended.iter();
    while digits.len() > 0 {
        step();
        let old_i = i;
        let mut weight = 1u32;
        let mut k = BASE;
        loop {
            let digit = digit_value(*digits.next()?)?;
            i = i.checked_add(digit.checked_mul(weight)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = u32::try_from(output.len() + 1).ok()?;
        bias = adapt(i - old_i, points, old_i == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        let at = usize::try_from(i).ok()?;
        if at > output.len() || output.len() >= MAX_LABEL {
            return None;
        }
        output.insert(at, char::from_u32(n)?);
        i += 1;
    }
    Some(output)
}

/// Encodes code points as Punycode (RFC 3492, 6.3), lower case; None on
/// overflow or once the output passes [`MAX_LABEL`] bytes.
fn punycode_encode(input: &[char]) -> Option<Vec<u8>> {
    let mut output: Vec<u8> = input.iter().filter(|c| c.is_ascii()).map(|&c| c as u8).collect();
    let basic = u32::try_from(output.len()).ok()?;
    let total = u32::try_from(input.len()).ok()?;
    if basic > 0 {
        output.push(b'-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (INITIAL_N, 0u32, INITIAL_BIAS, basic);
    while handled < total {
        step();
        let m = input.iter().map(|&c| u32::from(c)).filter(|&cp| cp >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in input {
            let cp = u32::from(c);
            if cp < n {
                delta = delta.checked_add(1)?;
            }
            if cp == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    output.push(digit_byte(t + (q - t) % (BASE - t))?);
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                output.push(digit_byte(q)?);
                if output.len() > MAX_LABEL {
                    return None;
                }
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.checked_add(1)?;
        n = n.checked_add(1)?;
    }
    Some(output)
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

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn punycode_round_trips_rfc3492_samples() {
        // RFC 3492, 7.1 (lower-cased).
        let samples = [
            (
                "\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}",
                "egbpdaj6bu4bxfgehfvwxn",
            ),
            (
                "\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}",
                "ihqwcrb4cv8a8dqg056pqjye",
            ),
            ("3\u{5E74}b\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}", "3b-ww4c5e180e575a65lsy2b"),
            ("-> $1.00 <-", "-> $1.00 <--"),
            ("b\u{FC}cher", "bcher-kva"),
        ];
        for (decoded, encoded) in samples {
            assert_eq!(
                punycode_decode(encoded.as_bytes()).unwrap(),
                chars(decoded),
                "{encoded}"
            );
            assert_eq!(
                punycode_encode(&chars(decoded)).unwrap(),
                encoded.as_bytes(),
                "{encoded}"
            );
        }
        for bad in ["x", "99999999999", "a-!", "zzzzzzzzzzzzzzzzzzzzzzzzzz"] {
            assert!(
                punycode_decode(bad.as_bytes())
                    .is_none_or(|d| punycode_encode(&d).unwrap() != bad.as_bytes()),
                "{bad}"
            );
        }
    }

    /// The NFC check agrees with the crate's full normaliser on sequences
    /// of letters, marks of every combining class, Hangul jamo and
    /// precomposed characters.
    #[test]
    fn nfc_matches_the_crate() {
        use unicode_normalization::UnicodeNormalization;
        let pool: Vec<char> = "ae\u{e9}\u{1ea1}\u{1eb9}\u{300}\u{301}\u{308}\u{323}\u{327}\u{345}\u{5b0}\u{5b8}\u{94d}\u{93c}\u{915}\u{b47}\u{b3e}\u{b57}\u{1100}\u{1161}\u{11a8}\u{ac00}\u{1b05}\u{1b35}\u{3099}\u{304b}\u{30ab}\u{fb2a}\u{5e9}\u{5c1}\u{5bc}\u{344}\u{340}\u{2126}o\u{31b}"
            .chars()
            .collect();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..50_000 {
            let len = (seed % 5) as usize + 1;
            let mut label = Vec::new();
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                label.push(pool[(seed >> 32) as usize % pool.len()]);
            }
            let text: String = label.iter().collect();
            let expected: Vec<char> = text.nfc().collect();
            assert_eq!(nfc(&label), expected, "{text:?}");
            assert_eq!(is_nfc(&label), unicode_normalization::is_nfc(&text), "{text:?}");
        }
    }

    #[test]
    fn a_labels() {
        assert!(a_label(b"xn--ihqwcrb4cv8a8dqg056pqjye").is_some());
        assert!(a_label(b"XN--IHQWCRB4CV8A8DQG056PQJYE").is_some());
        assert!(a_label(b"xn--bcher-kva").is_some());
        // A-labels compare without case: this is `xn--bcher-kva`.
        assert!(a_label(b"xn--Bcher-kva").is_some());
        for invalid in [
            &b"xn--X"[..],
            b"xn--",
            b"xn--abc-",
            b"xn--aa---o47jg78q",
            // Not the canonical encoding of its U-label.
            b"xn---bcher-kva",
            b"xn--bcher-kva-",
            b"xn--a",
        ] {
            assert!(a_label(invalid).is_none(), "{}", String::from_utf8_lossy(invalid));
        }
    }

    #[test]
    fn contextual_rules() {
        let ok = |s: &str| u_label(&chars(s)).is_some();
        assert!(ok("l\u{B7}l"));
        assert!(!ok("a\u{B7}l") && !ok("l\u{B7}") && !ok("\u{B7}l"));
        assert!(ok("\u{3B1}\u{375}\u{3B2}") && !ok("\u{3B1}\u{375}") && !ok("\u{3B1}\u{375}s"));
        assert!(ok("\u{5D0}\u{5F3}\u{5D1}") && !ok("a\u{5F3}\u{5D1}") && !ok("\u{5F4}\u{5D1}"));
        assert!(ok("\u{30FB}\u{3041}") && ok("\u{30FB}\u{4E08}") && !ok("def\u{30FB}abc") && !ok("\u{30FB}"));
        assert!(!ok("\u{628}\u{660}\u{6F0}") && ok("\u{628}\u{660}\u{628}") && ok("\u{6F0}0"));
        assert!(
            ok("\u{915}\u{94D}\u{200D}\u{937}") && !ok("\u{915}\u{200D}\u{937}") && !ok("\u{200D}\u{937}")
        );
        assert!(ok("\u{915}\u{94D}\u{200C}\u{937}"));
        assert!(ok("\u{628}\u{64A}\u{200C}\u{628}\u{64A}"));
        // ZWNJ with transparent marks on both sides still joins.
        assert!(ok("\u{628}\u{64B}\u{200C}\u{64B}\u{628}"));
        // A right-joining letter (ALEF) before ZWNJ does not join to the left.
        assert!(!ok("\u{627}\u{200C}\u{628}"));
        assert!(!ok("\u{628}\u{200C}"));
    }

    #[test]
    fn u_label_rules() {
        let ok = |s: &str| u_label(&chars(s)).is_some();
        assert!(ok("\u{c2e4}\u{b840}") && ok("b\u{FC}cher") && ok("\u{DF}\u{3C2}\u{F0B}\u{3007}"));
        assert!(ok("\u{6FD}\u{6FE}"));
        // Not NFC: `u` and a combining diaeresis compose to `ü`.
        assert!(!ok("bu\u{308}cher"));
        // `a` and a dot below compose; what is left must be in canonical
        // order (below, 220, before above, 230).
        assert!(!ok("a\u{323}\u{301}") && ok("\u{1EA1}\u{301}") && !ok("\u{1EA1}\u{301}\u{323}"));
        assert!(
            !ok("B\u{FC}cher") && !ok("\u{FC}_") && !ok("ab--\u{FC}") && !ok("-\u{FC}") && !ok("\u{FC}-")
        );
        assert!(!ok("\u{300}hello") && !ok("\u{903}hello") && !ok("\u{488}hello"));
        assert!(!ok("\u{640}\u{7FA}") && !ok("\u{3031}\u{3032}") && !ok("\u{302E}a"));
        assert!(!ok("abc"), "all ASCII is not a U-label");
        // Bidi: an RTL label may not hold L; an LTR one may not end in ON.
        let bidi_of = |s: &str| u_label(&chars(s)).unwrap().bidi;
        assert!(bidi_of("\u{5D0}\u{5D1}").right_to_left && bidi_of("\u{5D0}\u{5D1}").meets_rule);
        assert!(!bidi_of("\u{5D0}a\u{5D1}").meets_rule);
        assert!(!bidi_of("1\u{5D0}").meets_rule);
        assert!(!bidi_of("\u{5D0}\u{660}1").meets_rule, "EN and AN together");
        assert!(bidi_of("\u{5D0}1").meets_rule);
        assert!(bidi_of("\u{FC}x").meets_rule && !bidi_of("\u{FC}x").right_to_left);
        // Longest U-label: its A-label must fit 63 octets.
        assert!(ok(&"\u{3B1}".repeat(40)));
        assert!(!ok(&"\u{3B1}".repeat(60)));
    }
}
