//! InputSchema: a strict, fail-closed subset of JSON Schema for tool-call
//! arguments, compiled once and validated in place, loaded into the BEAM as
//! `Elixir.Backplane.AgentRuntime.InputSchema.Native`.
//!
//! Layers, each depending only on those above it: `value` (the data model),
//! `pattern` (syntax -> automaton -> matcher), `schema` (source -> compiled
//! tree), `validate` (tree + arguments -> result), `error`; `term` and `nif`
//! are the BEAM edge, `json` a second backend for tests and benchmarks.

pub mod error;
pub mod json;
pub mod pattern;
pub mod schema;
pub mod validate;
pub mod value;

mod nif;
mod term;

rustler::init!("Elixir.Backplane.AgentRuntime.InputSchema.Native");
