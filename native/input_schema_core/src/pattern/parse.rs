//! Parser for the portable pattern subset, read as an ECMAScript (Unicode
//! mode) regular expression, into `regex-syntax`'s `Hir`. It owns syntax and
//! meaning (what `.`, `$`, `\s` or `[^a]` match); building and running the
//! automaton is the parent module's job.
//!
//! The parser is iterative (an explicit stack of open groups), so a pattern
//! of nested parentheses cannot exhaust the native stack. It keeps going
//! after the first malformed construct so that unsupported syntax anywhere in
//! the pattern is reported before a parse error, as the contract orders them.

use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition,
};

/// Why a pattern was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxError {
    /// Valid elsewhere, outside the portable subset.
    Unsupported,
    /// Not a regular expression of the subset.
    Invalid,
    /// Nested deeper than [`NEST_LIMIT`].
    TooDeep,
}

/// Largest count in `{n}`, `{n,}`, `{n,m}` (the contract's 65,535).
pub const MAX_REPEAT: u32 = 65_535;

/// Deepest nesting of groups and quantifiers. The automaton compiler walks
/// the expression recursively; 64 levels keep that walk far inside a dirty
/// scheduler's stack and exceed any pattern seen in published tool schemas.
pub const NEST_LIMIT: usize = 64;

/// A code point as written in the pattern: `\uD800` alone names a surrogate,
/// which no valid UTF-8 input contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct CodePoint(u32);

/// One element of a class: a code point (possibly a range endpoint) or a set
/// such as `\d`, which cannot be an endpoint.
enum ClassAtom {
    Char(CodePoint),
    Set(ClassUnicode),
}

/// What an escape outside a class stands for.
enum Escape {
    Char(CodePoint),
    Set(ClassUnicode),
    Assertion(Look),
}

/// What the previous element of the current sequence was, for quantifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Start of a sequence: nothing to quantify.
    Nothing,
    /// An anchor or word boundary: not quantifiable.
    Assertion,
    /// A literal, class, dot or group.
    Atom,
    /// Already quantified: only a lazy `?` may follow, once.
    Quantified,
}

/// An open group (or the whole pattern at the bottom of the stack).
struct Frame {
    alternatives: Vec<Hir>,
    sequence: Vec<Hir>,
    /// Nesting depth of each element of `sequence`, and of finished alternatives.
    sequence_depth: Vec<usize>,
    alternatives_depth: usize,
    last: Last,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            alternatives: Vec::new(),
            sequence: Vec::new(),
            sequence_depth: Vec::new(),
            alternatives_depth: 0,
            last: Last::Nothing,
        }
    }

    fn push(&mut self, hir: Hir, depth: usize, last: Last) {
        self.sequence.push(hir);
        self.sequence_depth.push(depth);
        self.last = last;
    }

    fn end_alternative(&mut self) {
        let sequence = std::mem::take(&mut self.sequence);
        let depth = self.sequence_depth.drain(..).max().unwrap_or(0);
        self.alternatives_depth = self.alternatives_depth.max(depth);
        self.alternatives.push(Hir::concat(sequence));
        self.last = Last::Nothing;
    }

    /// The group's expression and its nesting depth.
    fn finish(mut self) -> (Hir, usize) {
        self.end_alternative();
        (Hir::alternation(self.alternatives), self.alternatives_depth)
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    invalid: bool,
}

/// Parses a pattern into an expression that matches exactly what the
/// ECMAScript expression matches on valid UTF-8 input.
pub fn parse(pattern: &str) -> Result<Hir, SyntaxError> {
    let mut parser = Parser {
        chars: pattern.chars().collect(),
        pos: 0,
        invalid: false,
    };
    let (hir, depth) = parser.parse()?;
    if parser.invalid {
        Err(SyntaxError::Invalid)
    } else if depth > NEST_LIMIT {
        Err(SyntaxError::TooDeep)
    } else {
        Ok(ending_at_a_code_point(hir))
    }
}

/// The automaton reads UTF-8 bytes, so a zero-width assertion can hold
/// between two bytes of one code point (`\B` between the bytes of `é`),
/// where ECMAScript has no position. Matches are asked only "is there one",
/// so the expression is extended to require, after the match, the end of
/// the input or a byte that starts a code point: a match then ends only
/// where ECMAScript could end it.
fn ending_at_a_code_point(hir: Hir) -> Hir {
    let starts_a_code_point = Hir::class(Class::Bytes(ClassBytes::new([
        ClassBytesRange::new(0x00, 0x7F),
        ClassBytesRange::new(0xC0, 0xFF),
    ])));
    Hir::concat(vec![
        hir,
        Hir::alternation(vec![Hir::look(Look::End), starts_a_code_point]),
    ])
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// Notes a malformed construct; parsing goes on to find unsupported syntax.
    fn malformed(&mut self) {
        self.invalid = true;
    }

    fn parse(&mut self) -> Result<(Hir, usize), SyntaxError> {
        let mut stack = vec![Frame::new()];
        while let Some(c) = self.bump() {
            let Some(frame) = stack.last_mut() else {
                return Err(SyntaxError::Invalid);
            };
            match c {
                '|' => frame.end_alternative(),
                '(' => {
                    match (self.peek(), self.peek_at(1)) {
                        (Some('?'), Some(':')) => self.pos += 2,
                        // Lookaround, named groups, inline flags, atomic
                        // groups, recursion and PCRE verbs.
                        (Some('?'), _) | (Some('*'), _) => return Err(SyntaxError::Unsupported),
                        _ => {}
                    }
                    stack.push(Frame::new());
                }
                ')' => {
                    if stack.len() < 2 {
                        self.malformed();
                        continue;
                    }
                    let Some(group) = stack.pop() else {
                        return Err(SyntaxError::Invalid);
                    };
                    let (hir, depth) = group.finish();
                    let Some(parent) = stack.last_mut() else {
                        return Err(SyntaxError::Invalid);
                    };
                    parent.push(hir, depth + 1, Last::Atom);
                }
                '[' => {
                    let class = self.parse_class()?;
                    frame.push(Hir::class(Class::Unicode(class)), 0, Last::Atom);
                }
                '.' => frame.push(Hir::class(Class::Unicode(dot())), 0, Last::Atom),
                '^' => frame.push(Hir::look(Look::Start), 0, Last::Assertion),
                '$' => frame.push(Hir::look(Look::End), 0, Last::Assertion),
                '\\' => match self.parse_escape()? {
                    Escape::Char(cp) => frame.push(char_hir(cp), 0, Last::Atom),
                    Escape::Set(set) => frame.push(Hir::class(Class::Unicode(set)), 0, Last::Atom),
                    Escape::Assertion(look) => frame.push(Hir::look(look), 0, Last::Assertion),
                },
                '*' => self.quantify(frame, 0, None)?,
                '+' => self.quantify(frame, 1, None)?,
                '?' => self.quantify(frame, 0, Some(1))?,
                '{' => match self.counted_quantifier() {
                    Some((min, max)) => self.quantify(frame, min, max)?,
                    None => frame.push(char_hir(CodePoint(u32::from('{'))), 0, Last::Atom),
                },
                other => frame.push(char_hir(CodePoint(u32::from(other))), 0, Last::Atom),
            }
        }
        if stack.len() != 1 {
            // An unclosed group. Unsupported syntax anywhere was reported
            // as it was read, so the pattern is malformed.
            return Err(SyntaxError::Invalid);
        }
        stack.pop().map(Frame::finish).ok_or(SyntaxError::Invalid)
    }

    /// Applies a quantifier to the previous atom. A quantifier with nothing
    /// quantifiable before it is malformed; `+` right after a greedy
    /// quantifier is PCRE's possessive form, which the subset rejects.
    fn quantify(&mut self, frame: &mut Frame, min: u32, max: Option<u32>) -> Result<(), SyntaxError> {
        // Lazy or greedy, a quantifier finds the same "is there a match".
        let greedy = self.peek() != Some('?');
        if !greedy {
            self.pos += 1;
        }
        if frame.last != Last::Atom {
            self.malformed();
            return Ok(());
        }
        if greedy && self.peek() == Some('+') {
            return Err(SyntaxError::Unsupported);
        }
        if max.is_some_and(|max| max < min) || min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT) {
            self.malformed();
        }
        let (Some(sub), Some(depth)) = (frame.sequence.pop(), frame.sequence_depth.pop()) else {
            self.malformed();
            return Ok(());
        };
        let repetition = Hir::repetition(Repetition {
            min,
            max,
            greedy,
            sub: Box::new(sub),
        });
        frame.push(repetition, depth + 1, Last::Quantified);
        Ok(())
    }

    /// Reads `n}`, `n,}` or `n,m}` after a `{`; without that exact shape the
    /// `{` is a literal and nothing is consumed. Counts saturate, so a huge
    /// count is caught as out of range.
    fn counted_quantifier(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.pos;
        let min = self.number();
        let result = match (min, self.bump()) {
            (Some(min), Some('}')) => Some((min, Some(min))),
            (Some(min), Some(',')) => match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    Some((min, None))
                }
                _ => match (self.number(), self.bump()) {
                    (Some(max), Some('}')) => Some((min, Some(max))),
                    _ => None,
                },
            },
            _ => None,
        };
        if result.is_none() {
            self.pos = start;
        }
        result
    }

    fn number(&mut self) -> Option<u32> {
        let mut value: Option<u32> = None;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            self.pos += 1;
            value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(digit));
        }
        value
    }

    fn hex_digits(&mut self, count: usize) -> Option<u32> {
        let mut value = 0u32;
        for offset in 0..count {
            let digit = self.peek_at(offset)?.to_digit(16)?;
            value = value * 16 + digit;
        }
        self.pos += count;
        Some(value)
    }

    /// `\uHHHH`, a surrogate pair written as two such escapes, or `\u{H…}`.
    fn unicode_escape(&mut self) -> Result<CodePoint, SyntaxError> {
        if self.peek() == Some('{') {
            let start = self.pos;
            self.pos += 1;
            let mut value: u32 = 0;
            let digits = self.pos;
            while let Some(digit) = self.peek().and_then(|c| c.to_digit(16)) {
                self.pos += 1;
                value = value.saturating_mul(16).saturating_add(digit);
            }
            if self.pos == digits || self.peek() != Some('}') {
                self.pos = start;
                return Err(SyntaxError::Unsupported);
            }
            self.pos += 1;
            if value > 0x10FFFF {
                self.malformed();
                return Ok(CodePoint(0));
            }
            return Ok(CodePoint(value));
        }
        let high = self.hex_digits(4).ok_or(SyntaxError::Unsupported)?;
        if (0xD800..=0xDBFF).contains(&high) && self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
            let save = self.pos;
            self.pos += 2;
            match self.hex_digits(4) {
                Some(low) if (0xDC00..=0xDFFF).contains(&low) => {
                    return Ok(CodePoint(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)));
                }
                _ => self.pos = save,
            }
        }
        Ok(CodePoint(high))
    }

    /// The character escapes shared by classes and the rest of the pattern.
    fn character_escape(&mut self, c: char) -> Result<Option<CodePoint>, SyntaxError> {
        Ok(Some(CodePoint(match c {
            '\\' | '.' | '^' | '$' | '|' | '?' | '*' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '-'
            | '/' => u32::from(c),
            't' => 0x09,
            'n' => 0x0A,
            'v' => 0x0B,
            'f' => 0x0C,
            'r' => 0x0D,
            '0' => {
                if self.peek().is_some_and(|next| next.is_ascii_digit()) {
                    return Err(SyntaxError::Unsupported);
                }
                0
            }
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(letter) % 32
                }
                _ => return Err(SyntaxError::Unsupported),
            },
            'x' => self.hex_digits(2).ok_or(SyntaxError::Unsupported)?,
            'u' => return self.unicode_escape().map(Some),
            _ => return Ok(None),
        })))
    }

    fn parse_escape(&mut self) -> Result<Escape, SyntaxError> {
        let Some(c) = self.bump() else {
            // A trailing lone backslash.
            self.malformed();
            return Ok(Escape::Char(CodePoint(u32::from('\\'))));
        };
        if let Some(set) = class_escape(c) {
            return Ok(Escape::Set(set));
        }
        match c {
            'b' => return Ok(Escape::Assertion(Look::WordAscii)),
            'B' => return Ok(Escape::Assertion(Look::WordAsciiNegate)),
            _ => {}
        }
        match self.character_escape(c)? {
            Some(cp) => Ok(Escape::Char(cp)),
            // Backreferences, \k, \p, \P, \K, other letters, digits and
            // punctuation.
            None => Err(SyntaxError::Unsupported),
        }
    }

    fn parse_class_atom(&mut self) -> Result<Option<ClassAtom>, SyntaxError> {
        let Some(c) = self.bump() else {
            return Ok(None);
        };
        if c != '\\' {
            return Ok(Some(ClassAtom::Char(CodePoint(u32::from(c)))));
        }
        let Some(c) = self.bump() else {
            self.malformed();
            return Ok(None);
        };
        if let Some(set) = class_escape(c) {
            return Ok(Some(ClassAtom::Set(set)));
        }
        if c == 'b' {
            // Inside a class, \b is backspace.
            return Ok(Some(ClassAtom::Char(CodePoint(0x08))));
        }
        match self.character_escape(c)? {
            Some(cp) => Ok(Some(ClassAtom::Char(cp))),
            None => Err(SyntaxError::Unsupported),
        }
    }

    /// `[...]` or `[^...]`, after the `[`. A `]` first is a literal, `-` first
    /// or last is a literal, `[` is a literal unless it opens a POSIX class.
    fn parse_class(&mut self) -> Result<ClassUnicode, SyntaxError> {
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        let mut class = ClassUnicode::empty();
        let mut first = true;
        loop {
            // At the end of the pattern `parse_class_atom` finds no atom:
            // malformed (below).
            match self.peek() {
                Some(']') if !first => {
                    self.pos += 1;
                    break;
                }
                Some('[') if self.opens_posix_class() => return Err(SyntaxError::Unsupported),
                _ => {}
            }
            first = false;
            let Some(start) = self.parse_class_atom()? else {
                self.malformed();
                break;
            };
            let is_range = self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None);
            if !is_range {
                match start {
                    ClassAtom::Char(cp) => add_range(&mut class, cp, cp),
                    ClassAtom::Set(set) => class.union(&set),
                }
                continue;
            }
            self.pos += 1;
            let end = self.parse_class_atom()?;
            match (start, end) {
                (ClassAtom::Char(low), Some(ClassAtom::Char(high))) if low <= high => {
                    add_range(&mut class, low, high)
                }
                _ => self.malformed(),
            }
        }
        if negated {
            class.negate();
        }
        Ok(class)
    }

    /// `[:name:]`, `[.x.]` or `[=x=]` inside a class.
    fn opens_posix_class(&self) -> bool {
        let Some(kind @ (':' | '.' | '=')) = self.peek_at(1) else {
            return false;
        };
        let rest = self.chars.get(self.pos + 2..).unwrap_or(&[]);
        rest.windows(2).any(|w| w == [kind, ']'])
    }
}

fn char_hir(cp: CodePoint) -> Hir {
    match char::from_u32(cp.0) {
        Some(c) => {
            let mut buf = [0u8; 4];
            Hir::literal(c.encode_utf8(&mut buf).as_bytes())
        }
        // A lone surrogate: valid UTF-8 input never contains one.
        None => Hir::fail(),
    }
}

/// Adds a code-point range, leaving out the surrogates no input can hold:
/// the range is cut into its parts below and above them.
fn add_range(class: &mut ClassUnicode, low: CodePoint, high: CodePoint) {
    let pieces = [(low.0, high.0.min(0xD7FF)), (low.0.max(0xE000), high.0)];
    for (a, b) in pieces {
        if a <= b {
            if let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) {
                class.push(ClassUnicodeRange::new(a, b));
            }
        }
    }
}

fn ranges(pairs: &[(char, char)]) -> ClassUnicode {
    ClassUnicode::new(pairs.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)))
}

/// `.`: any code point except the ECMAScript line terminators.
fn dot() -> ClassUnicode {
    let mut class = ranges(&[('\n', '\n'), ('\r', '\r'), ('\u{2028}', '\u{2029}')]);
    class.negate();
    class
}

/// `\d \D \w \W \s \S` with their ECMAScript (ASCII digit and word, Unicode
/// white space) meaning.
fn class_escape(c: char) -> Option<ClassUnicode> {
    let (mut class, negate) = match c {
        'd' | 'D' => (ranges(&[('0', '9')]), c == 'D'),
        'w' | 'W' => (
            ranges(&[('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')]),
            c == 'W',
        ),
        // WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, Zs) and LineTerminator.
        's' | 'S' => (
            ranges(&[
                ('\t', '\r'),
                (' ', ' '),
                ('\u{A0}', '\u{A0}'),
                ('\u{1680}', '\u{1680}'),
                ('\u{2000}', '\u{200A}'),
                ('\u{2028}', '\u{2029}'),
                ('\u{202F}', '\u{202F}'),
                ('\u{205F}', '\u{205F}'),
                ('\u{3000}', '\u{3000}'),
                ('\u{FEFF}', '\u{FEFF}'),
            ]),
            c == 'S',
        ),
        _ => return None,
    };
    if negate {
        class.negate();
    }
    Some(class)
}
