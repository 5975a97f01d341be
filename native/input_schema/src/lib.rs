//! The InputSchema NIF, loaded as
//! `Elixir.Backplane.AgentRuntime.InputSchema.Native`: reads BEAM terms
//! (`term.rs`) for the core in `input_schema_core` and returns the
//! contract's terms (`nif.rs`). The only crate that uses `rustler`.

mod cache;
mod decode;
mod encode;
mod nif;
mod term;

/// `load_info` is `{:map_order, probes}` (see `term::learn_map_order`).
fn load(_env: rustler::Env, load_info: rustler::Term) -> bool {
    match load_info.decode::<(rustler::Atom, rustler::Term)>() {
        Ok((tag, probes)) if tag == nif_atoms::map_order() => term::learn_map_order(probes),
        _ => false,
    }
}

mod nif_atoms {
    rustler::atoms! { map_order }
}

rustler::init!("Elixir.Backplane.AgentRuntime.InputSchema.Native", load = load);
