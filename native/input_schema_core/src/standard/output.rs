//! What the standard entry point returns: compile errors, limit errors, and
//! output units with the specification's locations. Built only on failure.

use std::fmt;

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

/// An output unit's message, built from its pieces. A failing instance
/// builds one per unit, and the formatting machinery (`format!`, and `{:?}`
/// to quote a name or a pattern) cost more than the rest of the unit.
pub(crate) struct Message(String);

impl Message {
    pub fn new(text: &str) -> Message {
        let mut message = String::with_capacity(text.len() + 32);
        message.push_str(text);
        Message(message)
    }

    pub fn then(mut self, text: &str) -> Message {
        self.0.push_str(text);
        self
    }

    /// `n` in decimal digits.
    pub fn number(mut self, n: u64) -> Message {
        push_decimal(&mut self.0, n);
        self
    }

    /// `text` in double quotes, exactly as `{:?}` writes it.
    pub fn quoted(mut self, text: &str) -> Message {
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

    pub fn done(self) -> String {
        self.0
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

/// One place where a schema fails its metaschema.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaschemaFailure {
    /// JSON Pointer into the schema.
    pub pointer: String,
    /// The metaschema keyword that failed.
    pub keyword: &'static str,
    pub message: String,
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
    use super::{push_decimal, Message};

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
            let built = Message::new("a ").quoted(text).then(" b ").number(42).done();
            assert_eq!(built, format!("a {text:?} b 42"), "{text:?}");
        }
    }
}
