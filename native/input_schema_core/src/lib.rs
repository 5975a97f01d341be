//! InputSchema's core: a strict, fail-closed subset of JSON Schema for
//! tool-call arguments, compiled once and validated in place. No BEAM here:
//! the NIF crate (`native/input_schema`) reads terms through [`value::Value`].
//!
//! Layers, each depending only on those above it: `value` (the data model),
//! `pattern` (syntax -> automaton -> matcher), `schema` (source -> compiled
//! tree), `validate` (tree + arguments -> result), `error`; `json` is the
//! `serde_json` backend the tests and benchmarks use.

pub mod budget;
pub mod error;
pub mod format;
pub mod json;
pub(crate) mod keywords;
pub mod pattern;
pub mod profile;
pub mod schema;
pub mod stack;
pub mod standard;
pub mod validate;
pub mod value;
