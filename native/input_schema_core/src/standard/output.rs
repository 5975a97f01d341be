//! What the standard entry point returns: compile errors, limit errors, and
//! output units with the specification's locations. Built only on failure.

use std::fmt;
use std::ops::Range;

use crate::value::Number;

/// One failure of an instance: the specification's output unit.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputUnit {
    /// The keyword that failed (`"minimum"`, `"required"`, ...), or
    /// `"false"` for a `false` schema.
    pub keyword: &'static str,
    /// JSON Pointer through the schema as evaluated (references included).
    pub keyword_location: String,
    /// The failing keyword's absolute URI (its resource's base URI and a
    /// JSON Pointer fragment).
    pub absolute_keyword_location: Option<String>,
    /// JSON Pointer into the instance.
    pub instance_location: String,
    pub message: String,
}

/// Every failure of one validation, with their texts in one buffer: the
/// walk writes each location and message into it, so that recording a
/// failure allocates nothing of its own (three or four strings a failure,
/// allocated, copied into terms and freed, cost an invalid instance more
/// than its walk). [`Report::units`] gives them as [`OutputUnit`]s; the
/// NIF makes one binary of [`Report::text`] and each text a slice of it.
#[derive(Debug, Default)]
pub struct Report {
    text: String,
    spans: Vec<UnitSpans>,
}

/// Where one failure's texts lie in [`Report::text`], in bytes, and which
/// keyword of which node failed ([`super::Validator::constraint`] reads
/// what it holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSpans {
    pub keyword: &'static str,
    pub keyword_location: Range<usize>,
    pub absolute_keyword_location: Option<Range<usize>>,
    pub instance_location: Range<usize>,
    pub message: Range<usize>,
    /// The node whose keyword failed.
    pub node: u32,
    /// Which part of the keyword failed, where it has parts: the index of
    /// the missing name of `required`; 0 otherwise.
    pub detail: u32,
}

/// What a failing keyword demanded, as data: for callers that report a
/// failure's constraint beside its message.
#[derive(Debug, Clone, PartialEq)]
pub enum Constraint {
    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`: the
    /// bound, as written (an integer stays one, a float stays one).
    Bound(Number),
    /// `type`: the names in the order written, and whether they were
    /// written as a list.
    Types { names: Vec<&'static str>, listed: bool },
    /// `required`: the name found missing.
    Property(String),
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// The buffer that holds every failure's texts.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Each failure's texts, in evaluation order.
    pub fn spans(&self) -> &[UnitSpans] {
        &self.spans
    }

    /// The failures as output units of their own.
    pub fn units(&self) -> Vec<OutputUnit> {
        let text = |span: &Range<usize>| self.text.get(span.clone()).unwrap_or_default().to_string();
        self.spans
            .iter()
            .map(|unit| OutputUnit {
                keyword: unit.keyword,
                keyword_location: text(&unit.keyword_location),
                absolute_keyword_location: unit.absolute_keyword_location.as_ref().map(text),
                instance_location: text(&unit.instance_location),
                message: text(&unit.message),
            })
            .collect()
    }

    /// Appends what `write` writes to the buffer (with room for a few
    /// failures' texts at the first) and answers where it lies.
    pub(crate) fn write(&mut self, write: impl FnOnce(&mut String)) -> Range<usize> {
        if self.text.capacity() == 0 {
            self.text.reserve(512);
        }
        let start = self.text.len();
        write(&mut self.text);
        start..self.text.len()
    }

    /// Records a failure whose texts were written into the buffer.
    pub(crate) fn push(&mut self, unit: UnitSpans) {
        self.spans.push(unit);
    }
}

/// An output unit's message, written into the report's buffer from its
/// pieces. A failing instance writes one per unit, and the formatting
/// machinery (`format!`, and `{:?}` to quote a name or a pattern) cost
/// more than the rest of the unit.
pub(crate) struct Message<'o>(&'o mut String);

impl<'o> Message<'o> {
    pub fn to(out: &'o mut String) -> Message<'o> {
        Message(out)
    }

    pub fn then(self, text: &str) -> Message<'o> {
        self.0.push_str(text);
        self
    }

    /// What `write` appends.
    pub fn with(self, write: impl FnOnce(&mut String)) -> Message<'o> {
        write(self.0);
        self
    }

    /// `n` in decimal digits.
    pub fn number(self, n: u64) -> Message<'o> {
        push_decimal(self.0, n);
        self
    }

    /// A schema's number as `Display` writes it: an integer in digits of
    /// its own, the rest by the formatter.
    pub fn shown(self, n: &Number) -> Message<'o> {
        match n {
            Number::Int(i) => {
                if *i < 0 {
                    self.0.push('-');
                }
                push_decimal(self.0, i.unsigned_abs());
            }
            Number::Big(b) => {
                use std::fmt::Write;
                // Writing to a String cannot fail.
                let _ = write!(self.0, "{b}");
            }
            Number::Float(f) => {
                use std::fmt::Write;
                let _ = write!(self.0, "{f}");
            }
        }
        self
    }

    /// `text` in double quotes, exactly as `{:?}` writes it.
    pub fn quoted(self, text: &str) -> Message<'o> {
        // Printable ASCII other than `"` and `\` is written as it is; the
        // rest takes the formatter's escapes.
        if text
            .bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
        {
            self.0.push('"');
            self.0.push_str(text);
            self.0.push('"');
        } else {
            use std::fmt::Write;
            // Writing to a String cannot fail.
            let _ = write!(self.0, "{text:?}");
        }
        self
    }
}

/// Appends `n` in decimal digits.
pub(crate) fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    for slot in digits.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        start -= 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &digit in digits.iter().skip(start) {
        out.push(char::from(digit));
    }
}

/// Why a validation stopped without a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Limit {
    #[error("validation exceeds its work limit")]
    Work,
    #[error("validation nesting exceeds the supported depth")]
    Depth,
}

/// A `Pattern` error's reason when the pattern is no ECMAScript regular
/// expression at all.
pub(crate) const PATTERN_INVALID: &str = "it is not a valid ECMAScript regular expression";

/// One place where a schema fails its metaschema.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaschemaFailure {
    /// JSON Pointer into the schema.
    pub pointer: String,
    /// The metaschema keyword that failed.
    pub keyword: &'static str,
    pub message: String,
    /// What the metaschema keyword demanded (`Validator::constraint`).
    pub constraint: Option<Constraint>,
}

/// Why a schema did not compile.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error("schema does not conform to its metaschema {metaschema}: {}", first_failure(.failures))]
    Metaschema {
        metaschema: String,
        failures: Vec<MetaschemaFailure>,
    },
    #[error("schema keyword {keyword} at {pointer:?} is malformed: {expected}")]
    InvalidKeyword {
        pointer: String,
        keyword: String,
        expected: &'static str,
    },
    #[error("schema at {pointer:?} is not an object or a boolean")]
    NotASchema { pointer: String },
    #[error("reference {uri} resolves to nothing in the schema, its resources or the built-in metaschemas")]
    UnresolvedReference { pointer: String, uri: String },
    #[error("$schema {uri} is neither one of the five dialects nor among the resources")]
    UnknownMetaschema { uri: String },
    #[error("metaschema {metaschema} requires vocabulary {uri}, which is not supported")]
    UnknownVocabulary { uri: String, metaschema: String },
    #[error("pattern {pattern:?} at {pointer:?} is not supported: {reason}")]
    Pattern {
        pointer: String,
        pattern: String,
        reason: &'static str,
    },
    #[error("schema nesting at {pointer:?} exceeds the supported depth")]
    TooDeep { pointer: String },
    #[error("schema exceeds the compile work limit")]
    CompileBudget,
    #[error("schema is not JSON at {pointer:?}")]
    NotJson { pointer: String },
}

impl CompileError {
    /// A short name of the kind, for the Elixir side.
    pub fn reason(&self) -> &'static str {
        match self {
            CompileError::Metaschema { .. } => "metaschema",
            CompileError::InvalidKeyword { .. } => "invalid_keyword",
            CompileError::NotASchema { .. } => "not_a_schema",
            CompileError::UnresolvedReference { .. } => "unresolved_reference",
            CompileError::UnknownMetaschema { .. } => "unknown_metaschema",
            CompileError::UnknownVocabulary { .. } => "unknown_vocabulary",
            CompileError::Pattern { .. } => "pattern",
            CompileError::TooDeep { .. } => "too_deep",
            CompileError::CompileBudget => "compile_budget",
            CompileError::NotJson { .. } => "not_json",
        }
    }

    /// Whether a `Pattern` error's reason says the pattern is no ECMAScript
    /// regular expression (rather than one this library declines).
    pub fn is_invalid_pattern(reason: &str) -> bool {
        reason == PATTERN_INVALID
    }

    /// Where in the schema, as a JSON Pointer, when known.
    pub fn pointer(&self) -> Option<&str> {
        match self {
            CompileError::Metaschema { failures, .. } => failures.first().map(|f| f.pointer.as_str()),
            CompileError::InvalidKeyword { pointer, .. }
            | CompileError::NotASchema { pointer }
            | CompileError::UnresolvedReference { pointer, .. }
            | CompileError::Pattern { pointer, .. }
            | CompileError::TooDeep { pointer }
            | CompileError::NotJson { pointer } => Some(pointer),
            _ => None,
        }
    }
}

fn first_failure(failures: &[MetaschemaFailure]) -> String {
    match failures.first() {
        Some(f) => format!("at {:?}: {}", f.pointer, f.message),
        None => String::new(),
    }
}

impl fmt::Display for OutputUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} at {:?}: {}",
            self.instance_location, self.keyword_location, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use num_bigint::BigInt;

    use super::{push_decimal, Message};
    use crate::value::Number;

    #[test]
    fn messages_read_as_the_formatter_writes_them() {
        for n in [0u64, 7, 10, 99, 1_000, 12_345_678_901, u64::MAX] {
            let mut out = String::new();
            push_decimal(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        for text in [
            "",
            "plain name",
            "^[a-z][a-z0-9_-]*$",
            "quote \" inside",
            "back\\slash",
            "tab\tand newline\n",
            "\u{7f}\u{0}",
            "é ü 🙂",
            "\u{301}combining",
            "'single'",
        ] {
            let mut built = String::new();
            Message::to(&mut built)
                .then("a ")
                .quoted(text)
                .then(" b ")
                .number(42);
            assert_eq!(built, format!("a {text:?} b 42"), "{text:?}");
        }
        let big = || BigInt::from(u64::MAX) * 1000;
        for (n, text) in [
            (Number::Int(0), "0"),
            (Number::Int(-7), "-7"),
            (Number::Int(i64::MIN), "-9223372036854775808"),
            (Number::Int(i64::MAX), "9223372036854775807"),
            (Number::Big(big()), "18446744073709551615000"),
            (Number::Big(-big()), "-18446744073709551615000"),
            (Number::Float(1.5), "1.5"),
            (Number::Float(-0.0001), "-0.0001"),
            (Number::Float(2.5e-7), "0.00000025"),
        ] {
            let mut built = String::new();
            Message::to(&mut built).then("n ").shown(&n);
            assert_eq!(built, format!("n {text}"));
        }
    }
}
