//! Parser for ECMAScript (Unicode mode) regular expressions into
//! `regex-syntax`'s `Hir`, in one of two grammars ([`Syntax`]): the gateway's
//! portable subset, or standard JSON Schema's whole ECMAScript grammar. It
//! owns syntax and meaning (what `.`, `$`, `\s` or `[^a]` match); building
//! and running the automaton is the parent module's job.
//!
//! The parser is iterative (an explicit stack of open groups), so a pattern
//! of nested parentheses cannot exhaust the native stack. It keeps going
//! after the first malformed construct so that unsupported syntax anywhere in
//! the pattern is reported before a parse error, as the contract orders them
//! (in standard mode: so that a syntax error anywhere is reported before a
//! construct that needs backtracking). Without building the expression, the
//! same walk is the standard grammar's syntax check ([`is_valid_ecmascript`]).

use std::collections::HashSet;

use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, Look, Repetition,
};

use super::property;

/// The grammar a pattern is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// The gateway's portable subset (`docs/behaviour.md`, section 7): a
    /// contract, unchanged by anything the standard grammar accepts.
    Gateway,
    /// Standard JSON Schema: everything ECMAScript's Unicode mode accepts
    /// (ECMAScript 2024, before pattern modifiers and repeated group names),
    /// and an escape of ASCII punctuation or a space as that character
    /// (`Parser::identity_escape`).
    /// What no DFA can run (backreferences, lookaround) is
    /// [`SyntaxError::NeedsBacktracking`]; everything else ECMAScript
    /// refuses is [`SyntaxError::Invalid`]; the one property escape with no
    /// table here is [`SyntaxError::Unsupported`].
    Standard,
}

/// Why a pattern was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxError {
    /// Valid elsewhere, outside the portable subset. In standard mode: a
    /// valid property this build has no table for
    /// (`\p{Changes_When_NFKC_Casefolded}`).
    Unsupported,
    /// Not a regular expression of the subset (standard mode: not one of
    /// ECMAScript's Unicode mode, with escapes of punctuation).
    Invalid,
    /// Nested deeper than [`NEST_LIMIT`].
    TooDeep,
    /// Standard only: valid ECMAScript, but a backreference or lookaround,
    /// which no finite automaton runs.
    NeedsBacktracking,
    /// Standard only: a count past [`MAX_REPEAT`] (valid ECMAScript, where
    /// counts have no bound).
    CountTooLarge,
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
    /// `\1` or `\k<name>` (standard mode): an atom no automaton runs.
    Backreference,
}

/// What closing a group leaves behind, for quantifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum GroupKind {
    /// A group (capturing or not): an atom.
    Group,
    /// A lookahead or lookbehind: an assertion, which Unicode mode does not
    /// let a quantifier follow.
    Lookaround,
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
    kind: GroupKind,
    /// Whether the expression is built (off for a syntax check alone, which
    /// keeps only `last`).
    build: bool,
    alternatives: Vec<Hir>,
    sequence: Vec<Hir>,
    /// Nesting depth of each element of `sequence`, and of finished alternatives.
    sequence_depth: Vec<usize>,
    alternatives_depth: usize,
    last: Last,
}

impl Frame {
    fn new(kind: GroupKind, build: bool) -> Frame {
        Frame {
            kind,
            build,
            alternatives: Vec::new(),
            sequence: Vec::new(),
            sequence_depth: Vec::new(),
            alternatives_depth: 0,
            last: Last::Nothing,
        }
    }

    fn push(&mut self, hir: Hir, depth: usize, last: Last) {
        if self.build {
            self.sequence.push(hir);
            self.sequence_depth.push(depth);
        }
        self.last = last;
    }

    fn end_alternative(&mut self) {
        if self.build {
            let sequence = std::mem::take(&mut self.sequence);
            let depth = self.sequence_depth.drain(..).max().unwrap_or(0);
            self.alternatives_depth = self.alternatives_depth.max(depth);
            self.alternatives.push(Hir::concat(sequence));
        }
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
    syntax: Syntax,
    /// Whether the expression is built (a syntax check alone does not).
    build: bool,
    /// Standard mode: a backreference or lookaround was read.
    backtracking: bool,
    /// Standard mode: a count past [`MAX_REPEAT`] was read.
    count_too_large: bool,
    /// Standard mode: a property with no table here was read.
    unknown_property: bool,
    /// Standard mode: capturing groups, their names, the largest numbered
    /// backreference and the named ones, checked once the whole pattern is
    /// read (a reference may come before its group).
    captures: usize,
    names: HashSet<String>,
    largest_reference: usize,
    named_references: Vec<String>,
}

/// Parses a pattern into an expression that matches exactly what the
/// ECMAScript expression matches on valid UTF-8 input.
pub fn parse(pattern: &str, syntax: Syntax) -> Result<Hir, SyntaxError> {
    let mut parser = Parser::new(pattern, syntax, true);
    let (hir, depth) = parser.parse()?;
    if parser.invalid {
        Err(SyntaxError::Invalid)
    } else if parser.backtracking {
        Err(SyntaxError::NeedsBacktracking)
    } else if parser.unknown_property {
        Err(SyntaxError::Unsupported)
    } else if depth > NEST_LIMIT {
        Err(SyntaxError::TooDeep)
    } else if parser.count_too_large {
        Err(SyntaxError::CountTooLarge)
    } else {
        Ok(ending_at_a_code_point(hir))
    }
}

/// Whether `pattern` is a valid ECMAScript regular expression in Unicode
/// mode (with escapes of ASCII punctuation or a space, as the standard
/// grammar reads them), backreferences and lookaround included: the
/// standard grammar's syntax check alone, with no expression built, no
/// nesting or count limit, in time linear in the pattern.
pub fn is_valid_ecmascript(pattern: &str) -> bool {
    let mut parser = Parser::new(pattern, Syntax::Standard, false);
    parser.parse().is_ok() && !parser.invalid
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
    fn new(pattern: &str, syntax: Syntax, build: bool) -> Parser {
        Parser {
            chars: pattern.chars().collect(),
            pos: 0,
            invalid: false,
            syntax,
            build,
            backtracking: false,
            count_too_large: false,
            unknown_property: false,
            captures: 0,
            names: HashSet::new(),
            largest_reference: 0,
            named_references: Vec::new(),
        }
    }

    fn standard(&self) -> bool {
        self.syntax == Syntax::Standard
    }

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

    /// A construct outside the gateway's subset, or (standard mode) not
    /// ECMAScript at all: unsupported in the gateway, malformed in standard
    /// mode, where parsing goes on past it.
    fn refuse(&mut self) -> Result<(), SyntaxError> {
        match self.syntax {
            Syntax::Gateway => Err(SyntaxError::Unsupported),
            Syntax::Standard => {
                self.malformed();
                Ok(())
            }
        }
    }

    fn parse(&mut self) -> Result<(Hir, usize), SyntaxError> {
        let mut stack = vec![Frame::new(GroupKind::Group, self.build)];
        while let Some(c) = self.bump() {
            let Some(frame) = stack.last_mut() else {
                return Err(SyntaxError::Invalid);
            };
            match c {
                '|' => frame.end_alternative(),
                '(' => {
                    let kind = match self.syntax {
                        Syntax::Gateway => {
                            match (self.peek(), self.peek_at(1)) {
                                (Some('?'), Some(':')) => self.pos += 2,
                                // Lookaround, named groups, inline flags,
                                // atomic groups, recursion and PCRE verbs.
                                (Some('?'), _) | (Some('*'), _) => return Err(SyntaxError::Unsupported),
                                _ => {}
                            }
                            GroupKind::Group
                        }
                        Syntax::Standard => self.open_group(),
                    };
                    stack.push(Frame::new(kind, self.build));
                }
                ')' => {
                    if stack.len() < 2 {
                        self.malformed();
                        continue;
                    }
                    let Some(group) = stack.pop() else {
                        return Err(SyntaxError::Invalid);
                    };
                    let last = match group.kind {
                        GroupKind::Group => Last::Atom,
                        GroupKind::Lookaround => Last::Assertion,
                    };
                    let (hir, depth) = group.finish();
                    let Some(parent) = stack.last_mut() else {
                        return Err(SyntaxError::Invalid);
                    };
                    parent.push(hir, depth + 1, last);
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
                    // Never built: the pattern is refused.
                    Escape::Backreference => frame.push(Hir::empty(), 0, Last::Atom),
                },
                '*' => self.quantify(frame, 0, None, false)?,
                '+' => self.quantify(frame, 1, None, false)?,
                '?' => self.quantify(frame, 0, Some(1), false)?,
                '{' => match self.counted_quantifier() {
                    Some((min, max, reversed)) => self.quantify(frame, min, max, reversed)?,
                    // Unicode mode has no literal `{`.
                    None if self.standard() => self.malformed(),
                    None => frame.push(char_hir(CodePoint(u32::from('{'))), 0, Last::Atom),
                },
                // Nor a literal `}` or `]`.
                '}' | ']' if self.standard() => self.malformed(),
                other => frame.push(char_hir(CodePoint(u32::from(other))), 0, Last::Atom),
            }
        }
        if stack.len() != 1 {
            // An unclosed group. Unsupported syntax anywhere was reported
            // as it was read, so the pattern is malformed.
            return Err(SyntaxError::Invalid);
        }
        if self.standard() {
            // References to groups that do not exist.
            let names = &self.names;
            if self.largest_reference > self.captures
                || self.named_references.iter().any(|name| !names.contains(name))
            {
                self.malformed();
            }
        }
        stack.pop().map(Frame::finish).ok_or(SyntaxError::Invalid)
    }

    /// Standard mode, after a `(`: reads what opens the group and says what
    /// it is. `(?:` groups, `(?<name>` captures (names are ECMAScript
    /// identifiers, each used once), `(?=`, `(?!`, `(?<=` and `(?<!` are
    /// lookaround; any other `(?` is malformed.
    fn open_group(&mut self) -> GroupKind {
        if self.peek() != Some('?') {
            self.captures += 1;
            return GroupKind::Group;
        }
        match (self.peek_at(1), self.peek_at(2)) {
            (Some(':'), _) => self.pos += 2,
            (Some('=' | '!'), _) => {
                self.pos += 2;
                self.backtracking = true;
                return GroupKind::Lookaround;
            }
            (Some('<'), Some('=' | '!')) => {
                self.pos += 3;
                self.backtracking = true;
                return GroupKind::Lookaround;
            }
            (Some('<'), _) => {
                self.pos += 2;
                self.captures += 1;
                match self.group_name() {
                    Some(name) => {
                        if !self.names.insert(name) {
                            // A name used twice.
                            self.malformed();
                        }
                    }
                    None => self.malformed(),
                }
            }
            _ => {
                // Modifiers `(?i:`, PCRE's inline flags, atomic groups,
                // recursion.
                self.pos += 1;
                self.malformed();
            }
        }
        GroupKind::Group
    }

    /// A group name after `<`, through its `>`: an ECMAScript identifier,
    /// whose characters may be written as `\u` escapes. `None` if malformed.
    fn group_name(&mut self) -> Option<String> {
        let mut name = String::new();
        loop {
            let c = match self.bump()? {
                '>' if !name.is_empty() => return Some(name),
                '\\' => {
                    if self.bump()? != 'u' {
                        return None;
                    }
                    let invalid = self.invalid;
                    let cp = self.unicode_escape().ok()?;
                    if self.invalid && !invalid {
                        return None;
                    }
                    char::from_u32(cp.0)?
                }
                c => c,
            };
            let allowed = if name.is_empty() {
                property::is_identifier_start(c)
            } else {
                property::is_identifier_part(c)
            };
            if !allowed {
                return None;
            }
            name.push(c);
        }
    }

    /// `\k` then `<name>` (standard mode): a backreference to a named group.
    fn named_reference(&mut self) {
        self.backtracking = true;
        if self.peek() != Some('<') {
            self.malformed();
            return;
        }
        self.pos += 1;
        match self.group_name() {
            Some(name) => self.named_references.push(name),
            None => self.malformed(),
        }
    }

    /// `\` then a digit 1-9 (standard mode): a numbered backreference, the
    /// number taking every digit that follows.
    fn numbered_reference(&mut self, first: u32) {
        self.backtracking = true;
        let mut number = first as usize;
        while let Some(digit) = self.peek().and_then(|c| c.to_digit(10)) {
            self.pos += 1;
            number = number.saturating_mul(10).saturating_add(digit as usize);
        }
        self.largest_reference = self.largest_reference.max(number);
    }

    /// `{Name=Value}` or `{Value}` after `\p` (or `\P`, `negated`): a
    /// Unicode property (standard mode). Empty when malformed or when the
    /// expression is not built.
    fn property(&mut self, negated: bool) -> ClassUnicode {
        if self.peek() != Some('{') {
            self.malformed();
            return ClassUnicode::empty();
        }
        self.pos += 1;
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
        {
            self.pos += 1;
        }
        let text: String = self
            .chars
            .get(start..self.pos)
            .unwrap_or_default()
            .iter()
            .collect();
        if self.peek() != Some('}') {
            self.malformed();
            return ClassUnicode::empty();
        }
        self.pos += 1;
        let found = match text.split_once('=') {
            Some((name, value)) => property::lookup(Some(name), value),
            None => property::lookup(None, &text),
        };
        let Some(found) = found else {
            self.malformed();
            return ClassUnicode::empty();
        };
        if !self.build {
            return ClassUnicode::empty();
        }
        let Some(mut class) = property::class(found) else {
            self.unknown_property = true;
            return ClassUnicode::empty();
        };
        if negated {
            class.negate();
        }
        class
    }

    /// Applies a quantifier to the previous atom. A quantifier with nothing
    /// quantifiable before it is malformed; `+` right after a greedy
    /// quantifier is PCRE's possessive form, which the subset rejects (in
    /// standard mode, a quantifier with nothing to quantify). `reversed`:
    /// the written counts have `n > m`, compared exactly (standard mode,
    /// where counts have no bound).
    fn quantify(
        &mut self,
        frame: &mut Frame,
        min: u32,
        max: Option<u32>,
        reversed: bool,
    ) -> Result<(), SyntaxError> {
        // Lazy or greedy, a quantifier finds the same "is there a match".
        let greedy = self.peek() != Some('?');
        if !greedy {
            self.pos += 1;
        }
        if frame.last != Last::Atom {
            self.malformed();
            return Ok(());
        }
        let too_large = min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT);
        match self.syntax {
            Syntax::Gateway => {
                if greedy && self.peek() == Some('+') {
                    return Err(SyntaxError::Unsupported);
                }
                if max.is_some_and(|max| max < min) || too_large {
                    self.malformed();
                }
            }
            Syntax::Standard => {
                if reversed {
                    self.malformed();
                } else if too_large {
                    self.count_too_large = true;
                }
                if !frame.build {
                    frame.last = Last::Quantified;
                    return Ok(());
                }
            }
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
    /// count is caught as out of range; the third value tells whether the
    /// counts as written have `n > m`, whatever their size.
    fn counted_quantifier(&mut self) -> Option<(u32, Option<u32>, bool)> {
        let start = self.pos;
        let min = self.number();
        let min_digits = start..self.pos;
        let result = match (min, self.bump()) {
            (Some(min), Some('}')) => Some((min, Some(min), false)),
            (Some(min), Some(',')) => match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    Some((min, None, false))
                }
                _ => {
                    let max_start = self.pos;
                    match (self.number(), self.bump()) {
                        (Some(max), Some('}')) => {
                            let max_digits = max_start..self.pos - 1;
                            let reversed = self.compare_numbers(min_digits, max_digits).is_gt();
                            Some((min, Some(max), reversed))
                        }
                        _ => None,
                    }
                }
            },
            _ => None,
        };
        if result.is_none() {
            self.pos = start;
        }
        result
    }

    /// Compares two decimal numbers as written in the pattern, of any size.
    fn compare_numbers(&self, a: std::ops::Range<usize>, b: std::ops::Range<usize>) -> std::cmp::Ordering {
        let digits = |range: std::ops::Range<usize>| {
            let all = self.chars.get(range).unwrap_or_default();
            let zeros = all.iter().take_while(|&&c| c == '0').count();
            all.get(zeros..).unwrap_or_default()
        };
        let (a, b) = (digits(a), digits(b));
        a.len().cmp(&b.len()).then_with(|| a.cmp(b))
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
                self.refuse()?;
                return Ok(CodePoint(0));
            }
            self.pos += 1;
            if value > 0x10FFFF {
                self.malformed();
                return Ok(CodePoint(0));
            }
            return Ok(CodePoint(value));
        }
        let Some(high) = self.hex_digits(4) else {
            self.refuse()?;
            return Ok(CodePoint(0));
        };
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
                    self.refuse()?;
                }
                0
            }
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.pos += 1;
                    u32::from(letter) % 32
                }
                _ => {
                    self.refuse()?;
                    0
                }
            },
            'x' => match self.hex_digits(2) {
                Some(value) => value,
                None => {
                    self.refuse()?;
                    0
                }
            },
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
        if self.standard() {
            match c {
                'p' | 'P' => return Ok(Escape::Set(self.property(c == 'P'))),
                '1'..='9' => {
                    self.numbered_reference(c.to_digit(10).unwrap_or(1));
                    return Ok(Escape::Backreference);
                }
                'k' => {
                    self.named_reference();
                    return Ok(Escape::Backreference);
                }
                _ => {}
            }
        }
        match self.character_escape(c)? {
            Some(cp) => Ok(Escape::Char(cp)),
            None if self.identity_escape(c) => Ok(Escape::Char(CodePoint(u32::from(c)))),
            // Backreferences, \k, \p, \P, \K, other letters, digits and
            // (in the gateway's grammar) punctuation.
            None => {
                self.refuse()?;
                Ok(Escape::Char(CodePoint(u32::from(c))))
            }
        }
    }

    /// Standard mode: a backslash before ASCII punctuation or a space that
    /// is no escape of Unicode mode's (`\:`, `\#`, `\_`, `\ `, `\-` outside a
    /// class) is the character itself. Unicode mode refuses these; the
    /// mode without the `u` flag (ECMAScript's Annex B), Python's `re`,
    /// PCRE and Rust's `regex` all read them so, and real schemas write
    /// them (AWS's CloudFormation resource schemas, Azure Pipelines'). No
    /// pattern Unicode mode accepts changes meaning: every escape it gives
    /// a meaning to is a letter, a digit or a syntax character.
    fn identity_escape(&self, c: char) -> bool {
        self.standard() && (c.is_ascii_punctuation() || c == ' ')
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
        if self.standard() && matches!(c, 'p' | 'P') {
            return Ok(Some(ClassAtom::Set(self.property(c == 'P'))));
        }
        match self.character_escape(c)? {
            Some(cp) => Ok(Some(ClassAtom::Char(cp))),
            None if self.identity_escape(c) => Ok(Some(ClassAtom::Char(CodePoint(u32::from(c))))),
            None => {
                self.refuse()?;
                Ok(Some(ClassAtom::Char(CodePoint(u32::from(c)))))
            }
        }
    }

    /// `[...]` or `[^...]`, after the `[`. A `]` first is a literal, `-` first
    /// or last is a literal, `[` is a literal unless it opens a POSIX class.
    /// In standard mode, as in ECMAScript, `[]` is empty, `[^]` holds every
    /// code point, and `[` is always a literal.
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
                Some(']') if !first || self.standard() => {
                    self.pos += 1;
                    break;
                }
                Some('[') if !self.standard() && self.opens_posix_class() => {
                    return Err(SyntaxError::Unsupported)
                }
                _ => {}
            }
            first = false;
            let Some(start) = self.parse_class_atom()? else {
                self.malformed();
                break;
            };
            let is_range = self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None);
            if !is_range {
                if self.build {
                    match start {
                        ClassAtom::Char(cp) => add_range(&mut class, cp, cp),
                        ClassAtom::Set(set) => class.union(&set),
                    }
                }
                continue;
            }
            self.pos += 1;
            let end = self.parse_class_atom()?;
            match (start, end) {
                (ClassAtom::Char(low), Some(ClassAtom::Char(high))) if low <= high => {
                    if self.build {
                        add_range(&mut class, low, high)
                    }
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
