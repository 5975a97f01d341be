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
