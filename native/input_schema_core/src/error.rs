//! Every error the component returns, typed until the boundary. Each kind
//! knows its class and message; its details are read by `term.rs` (for the
//! BEAM) or by tests. Messages are part of the contract: callers match them.

use thiserror::Error;

use crate::value::Datum;

/// The error classes InputSchema returns (a subset of the runtime's classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Validation,
    UnsupportedCapability,
    ExecutionFailure,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Validation => "validation",
            Class::UnsupportedCapability => "unsupported_capability",
            Class::ExecutionFailure => "execution_failure",
        }
    }
}

/// A problem with the schema itself, found before any argument is read.
/// `V` is the caller's value type, so details report terms as written.
#[derive(Debug, Clone, Error)]
pub enum SchemaError<V> {
    #[error("tool schema must be a map")]
    SchemaNotMap,
    #[error("tool schema is required")]
    SchemaRequired,
    #[error("tool schema and arguments must be maps")]
    NotMaps,
    #[error("only object tool schemas are supported")]
    RootNotObject,
    #[error("property schema must be a map")]
    SubschemaNotMap,
    #[error("schema keyword is unsupported")]
    UnsupportedKeyword(V),
    #[error("schema {0} must be a string")]
    AnnotationNotString(&'static str),
    #[error("schema {0} must be a boolean")]
    AnnotationNotBoolean(&'static str),
    #[error("schema examples must be a list")]
    ExamplesNotList,
    #[error("property schema type is unsupported")]
    UnsupportedType(V),
    #[error("schema type must be a supported type or non-empty unique list")]
    MalformedType,
    #[error("schema enum must be a list of JSON values")]
    MalformedEnum,
    #[error("schema const must be a JSON value")]
    MalformedConst,
    #[error("schema {0} must be a number")]
    NotNumber(&'static str),
    #[error("schema {0} must be a non-negative integer")]
    NotCount(&'static str),
    #[error("schema pattern must be a string")]
    PatternNotString,
    #[error("schema pattern exceeds the supported size")]
    PatternTooLarge,
    #[error("schema pattern uses unsupported syntax")]
    PatternUnsupported,
    #[error("schema pattern must be a valid regular expression")]
    PatternInvalid,
    #[error("schema properties must be a map")]
    PropertiesNotMap,
    #[error("schema property names must be strings or atoms")]
    PropertyNameNotString,
    #[error("schema required must be a list of property names")]
    MalformedRequired,
    #[error("schema additionalProperties must be a boolean or schema")]
    MalformedAdditional,
    #[error("schema items must be a schema map")]
    MalformedItems,
    #[error("schema not must be a schema map")]
    MalformedNot,
    #[error("schema oneOf must be a non-empty list")]
    MalformedOneOf,
    #[error("schema anyOf must be a non-empty list")]
    MalformedAnyOf,
    #[error("combining schema compositions is unsupported")]
    CombinedCompositions,
    #[error("schema allOf must be a non-empty list")]
    MalformedAllOf,
    #[error("schema prefixItems must be a non-empty list")]
    MalformedPrefixItems,
    #[error("schema items must not be a list beside prefixItems")]
    ItemsListBesidePrefixItems,
    #[error("schema additionalItems must be a boolean or schema")]
    MalformedAdditionalItems,
    #[error("schema propertyNames must be a boolean or schema")]
    MalformedPropertyNames,
    #[error("schema dependentRequired must be a map of property name lists")]
    MalformedDependentRequired,
    #[error("schema {0} must be a map of schemas")]
    MalformedDefinitions(&'static str),
    #[error("schema $ref cycle does not descend into the arguments")]
    RefCycle,
    #[error("schema references expand beyond the supported size")]
    RefExpansion,
    #[error("tool schema nesting exceeds the supported depth")]
    SchemaTooDeep,
    #[error("tool schema exceeds the supported compile budget")]
    CompileBudget(BudgetReason),
}

/// Which part of a schema's compile budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetReason {
    /// Building the schema's pattern automata.
    Patterns,
    /// Everything else: keywords, property tables, enum and const values.
    Work,
}

impl BudgetReason {
    pub fn name(self) -> &'static str {
        match self {
            BudgetReason::Patterns => "patterns",
            BudgetReason::Work => "work",
        }
    }
}

impl<V> SchemaError<V> {
    pub fn class(&self) -> Class {
        match self {
            SchemaError::SchemaRequired
            | SchemaError::RootNotObject
            | SchemaError::UnsupportedKeyword(_)
            | SchemaError::UnsupportedType(_)
            | SchemaError::CombinedCompositions => Class::UnsupportedCapability,
            _ => Class::Validation,
        }
    }
}

/// One value of an error's details, before it becomes a term (the NIF) or
/// JSON (the Rust tests): the one place that names each error's details.
#[derive(Debug, Clone, Copy)]
pub enum Detail<'e, V> {
    /// Bytes shown as a string: an argument path, a property name.
    Text(&'e [u8]),
    /// A schema value as written: a bound, a `type`.
    Datum(&'e Datum),
    /// The caller's own term: a key or keyword as written, a `type` value.
    Term(V),
    /// A reason: an atom on the BEAM.
    Reason(&'static str),
}

/// An error's details: `(key, value)` pairs in the order they are listed.
pub type Details<'e, V> = Vec<(&'static str, Detail<'e, V>)>;

impl<V: Copy> SchemaError<V> {
    pub fn details(&self) -> Details<'_, V> {
        match self {
            SchemaError::UnsupportedKeyword(key) => vec![("keyword", Detail::Term(*key))],
            SchemaError::UnsupportedType(value) => vec![("type", Detail::Term(*value))],
            SchemaError::CompileBudget(reason) => vec![("reason", Detail::Reason(reason.name()))],
            _ => Vec::new(),
        }
    }
}

/// A rendered argument path such as `$arguments.items[2].name`. Bytes, as a
/// binary map key need not be UTF-8.
pub type PathBytes = Vec<u8>;

/// Why arguments were rejected. Built only on the failure path.
#[derive(Debug, Clone, Error)]
pub enum ArgumentError<V> {
    #[error("tool argument has the wrong type")]
    WrongType { path: PathBytes, expected: Datum },
    #[error("tool argument is not an allowed enum value")]
    NotInEnum { path: PathBytes },
    #[error("tool argument is not the allowed constant value")]
    NotConst { path: PathBytes },
    #[error("tool argument is below the minimum")]
    BelowMinimum { path: PathBytes, limit: Datum },
    #[error("tool argument is above the maximum")]
    AboveMaximum { path: PathBytes, limit: Datum },
    #[error("tool argument is not above the exclusive minimum")]
    NotAboveExclusiveMinimum { path: PathBytes, limit: Datum },
    #[error("tool argument is not below the exclusive maximum")]
    NotBelowExclusiveMaximum { path: PathBytes, limit: Datum },
    #[error("tool argument is shorter than the minimum length")]
    TooShort { path: PathBytes, limit: Datum },
    #[error("tool argument is longer than the maximum length")]
    TooLong { path: PathBytes, limit: Datum },
    #[error("tool argument does not match the pattern")]
    PatternMismatch { path: PathBytes },
    #[error("schema pattern evaluation failed")]
    PatternLimit { path: PathBytes },
    /// Only when formats are asserted (`formats: :assert`).
    #[error("tool argument does not match the format")]
    FormatMismatch { path: PathBytes, format: &'static str },
    #[error("tool argument has too few items")]
    TooFewItems { path: PathBytes, limit: Datum },
    #[error("tool argument has too many items")]
    TooManyItems { path: PathBytes, limit: Datum },
    #[error("required tool argument is missing")]
    MissingRequired { path: PathBytes, property: Box<[u8]> },
    #[error("additional tool argument is not allowed")]
    AdditionalNotAllowed { path: PathBytes, key: V },
    #[error("tool argument must match at least one anyOf branch")]
    NoAnyOfMatch { path: PathBytes },
    #[error("tool argument must match exactly one oneOf branch")]
    NotExactlyOneOf { path: PathBytes },
    #[error("tool argument must not match the negated schema")]
    MatchesNot { path: PathBytes },
    #[error("tool argument is not a proper list")]
    ImproperList { path: PathBytes },
    #[error("tool argument is not valid UTF-8")]
    InvalidUtf8 { path: PathBytes },
    #[error("tool argument must be a plain map")]
    Struct { path: PathBytes },
    #[error("tool argument keys must be strings")]
    KeyNotString { path: PathBytes },
    #[error("tool argument nesting exceeds the supported depth")]
    TooDeep { path: PathBytes },
    #[error("tool argument is not allowed")]
    FalseSchema { path: PathBytes },
    #[error("tool argument has duplicate items")]
    DuplicateItems { path: PathBytes },
    #[error("tool argument property name is not allowed")]
    PropertyNameNotAllowed { path: PathBytes, key: V },
    #[error("tool argument validation exceeds the supported work")]
    WorkLimit { path: PathBytes },
}

impl<V> ArgumentError<V> {
    pub fn class(&self) -> Class {
        match self {
            ArgumentError::PatternLimit { .. }
            | ArgumentError::TooDeep { .. }
            | ArgumentError::WorkLimit { .. } => Class::ExecutionFailure,
            _ => Class::Validation,
        }
    }

    /// Aborting errors end the whole validation: inside `anyOf`, `oneOf` and
    /// `not` they are never read as "this branch does not match".
    pub fn is_aborting(&self) -> bool {
        matches!(
            self,
            ArgumentError::PatternLimit { .. }
                | ArgumentError::TooDeep { .. }
                | ArgumentError::WorkLimit { .. }
                | ArgumentError::ImproperList { .. }
                | ArgumentError::InvalidUtf8 { .. }
                | ArgumentError::Struct { .. }
                | ArgumentError::KeyNotString { .. }
        )
    }

    /// `path` first, then the detail each kind adds.
    pub fn details(&self) -> Details<'_, V>
    where
        V: Copy,
    {
        let mut details = vec![("path", Detail::Text(self.path()))];
        let (key, value) = match self {
            ArgumentError::WrongType { expected, .. } => ("type", Detail::Datum(expected)),
            ArgumentError::BelowMinimum { limit, .. } => ("minimum", Detail::Datum(limit)),
            ArgumentError::AboveMaximum { limit, .. } => ("maximum", Detail::Datum(limit)),
            ArgumentError::NotAboveExclusiveMinimum { limit, .. } => {
                ("exclusiveMinimum", Detail::Datum(limit))
            }
            ArgumentError::NotBelowExclusiveMaximum { limit, .. } => {
                ("exclusiveMaximum", Detail::Datum(limit))
            }
            ArgumentError::TooShort { limit, .. } => ("minLength", Detail::Datum(limit)),
            ArgumentError::TooLong { limit, .. } => ("maxLength", Detail::Datum(limit)),
            ArgumentError::TooFewItems { limit, .. } => ("minItems", Detail::Datum(limit)),
            ArgumentError::TooManyItems { limit, .. } => ("maxItems", Detail::Datum(limit)),
            ArgumentError::MissingRequired { property, .. } => ("property", Detail::Text(property)),
            ArgumentError::AdditionalNotAllowed { key, .. } => ("property", Detail::Term(*key)),
            ArgumentError::PatternLimit { .. } => ("reason", Detail::Reason("match_limit")),
            ArgumentError::FormatMismatch { format, .. } => ("format", Detail::Text(format.as_bytes())),
            ArgumentError::PropertyNameNotAllowed { key, .. } => ("property", Detail::Term(*key)),
            ArgumentError::WorkLimit { .. } => ("reason", Detail::Reason("work")),
            _ => return details,
        };
        details.push((key, value));
        details
    }

    /// An aborting error met on another value (a key's name, checked by
    /// `propertyNames`), reported at `path`.
    pub fn at<W>(&self, path: PathBytes) -> ArgumentError<W> {
        match self {
            ArgumentError::PatternLimit { .. } => ArgumentError::PatternLimit { path },
            ArgumentError::TooDeep { .. } => ArgumentError::TooDeep { path },
            ArgumentError::WorkLimit { .. } => ArgumentError::WorkLimit { path },
            ArgumentError::InvalidUtf8 { .. } => ArgumentError::InvalidUtf8 { path },
            ArgumentError::ImproperList { .. } => ArgumentError::ImproperList { path },
            ArgumentError::Struct { .. } => ArgumentError::Struct { path },
            ArgumentError::KeyNotString { .. } => ArgumentError::KeyNotString { path },
            // Not aborting: no such error is carried over; refuse.
            _ => ArgumentError::NoAnyOfMatch { path },
        }
    }

    pub fn path(&self) -> &[u8] {
        match self {
            ArgumentError::WrongType { path, .. }
            | ArgumentError::NotInEnum { path }
            | ArgumentError::NotConst { path }
            | ArgumentError::BelowMinimum { path, .. }
            | ArgumentError::AboveMaximum { path, .. }
            | ArgumentError::NotAboveExclusiveMinimum { path, .. }
            | ArgumentError::NotBelowExclusiveMaximum { path, .. }
            | ArgumentError::TooShort { path, .. }
            | ArgumentError::TooLong { path, .. }
            | ArgumentError::PatternMismatch { path }
            | ArgumentError::FormatMismatch { path, .. }
            | ArgumentError::PatternLimit { path }
            | ArgumentError::TooFewItems { path, .. }
            | ArgumentError::TooManyItems { path, .. }
            | ArgumentError::MissingRequired { path, .. }
            | ArgumentError::AdditionalNotAllowed { path, .. }
            | ArgumentError::NoAnyOfMatch { path }
            | ArgumentError::NotExactlyOneOf { path }
            | ArgumentError::MatchesNot { path }
            | ArgumentError::ImproperList { path }
            | ArgumentError::InvalidUtf8 { path }
            | ArgumentError::Struct { path }
            | ArgumentError::KeyNotString { path }
            | ArgumentError::TooDeep { path }
            | ArgumentError::FalseSchema { path }
            | ArgumentError::DuplicateItems { path }
            | ArgumentError::PropertyNameNotAllowed { path, .. }
            | ArgumentError::WorkLimit { path } => path,
        }
    }
}
