//! The InputSchema NIF, loaded as
//! `Elixir.Backplane.AgentRuntime.InputSchema.Native`: reads BEAM terms
//! (`term.rs`) for the core in `input_schema_core` and returns the
//! contract's terms (`nif.rs`). The only crate that uses `rustler`.

mod cache;
mod decode;
mod encode;
mod nif;
mod term;

rustler::init!("Elixir.Backplane.AgentRuntime.InputSchema.Native");
