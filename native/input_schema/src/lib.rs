//! The InputSchema NIF, loaded as
//! `Elixir.Backplane.AgentRuntime.InputSchema.Native`: reads BEAM terms
//! (`term.rs`) for the core in `input_schema_core` and returns the
//! contract's terms (`nif.rs`). The only crate that uses `rustler`.
//!
//! The library's entry is written here rather than by `rustler::init!`,
//! which has no upgrade callback: without one, loading a new instance of the
//! module (a hot upgrade, `:code.load_file/1`, IEx's `r/1`) fails and leaves
//! every NIF of the new instance raising. `load` and `upgrade` do the same
//! work: learn the VM's map order and open the compiled-schema resource type
//! (`resource.rs`), taking over the resources of an earlier instance of this
//! same image. Static state (the caches, the gate's counters) belongs to the
//! image, so an instance that reloads the same file keeps it.

mod cache;
mod contract;
mod decode;
mod deferred;
mod encode;
mod nif;
mod resource;
mod standard;
mod term;

use std::sync::OnceLock;

use rustler::codegen_runtime::{c_int, c_void, inventory, ErlNifEntry, ErlNifEnv, ErlNifFunc, ErlNifTerm};
use rustler::{Env, Term};

const MODULE: &std::ffi::CStr = c"Elixir.Backplane.AgentRuntime.InputSchema.Native";

mod nif_atoms {
    rustler::atoms! { map_order }
}

/// `load_info` is `{:map_order, probes}` (see `term::learn_map_order`).
/// `true` when the library may run.
fn init(env: Env<'_>, load_info: Term<'_>) -> bool {
    let order_learned = match load_info.decode::<(rustler::Atom, Term<'_>)>() {
        Ok((tag, probes)) if tag == nif_atoms::map_order() => term::learn_map_order(probes),
        _ => false,
    };
    contract::measure_atom_header(env);
    order_learned && resource::open(env)
}

/// Runs `init` for a callback; a panic refuses the load.
fn callback(env: *mut ErlNifEnv, load_info: ErlNifTerm) -> c_int {
    let outcome = std::panic::catch_unwind(|| {
        // SAFETY: the runtime passes a valid environment for the callback's
        // duration, and `load_info` is a term of it.
        let env = unsafe { Env::new_init_env(&env, env) };
        init(env, unsafe { Term::new(env, load_info) })
    });
    c_int::from(!matches!(outcome, Ok(true)))
}

extern "C" fn load(env: *mut ErlNifEnv, _priv: *mut *mut c_void, load_info: ErlNifTerm) -> c_int {
    callback(env, load_info)
}

extern "C" fn upgrade(
    env: *mut ErlNifEnv,
    _priv: *mut *mut c_void,
    _old_priv: *mut *mut c_void,
    load_info: ErlNifTerm,
) -> c_int {
    callback(env, load_info)
}

struct Entry(ErlNifEntry);

// SAFETY: the entry is built once and only read afterwards; its pointers
// are to leaked, immutable data (the name and the function table).
unsafe impl Sync for Entry {}
unsafe impl Send for Entry {}

/// The symbol the runtime looks up when it loads the library.
#[no_mangle]
extern "C" fn nif_init() -> *const ErlNifEntry {
    static ENTRY: OnceLock<Entry> = OnceLock::new();
    // SAFETY: fills rustler's table of runtime functions (a no-op where
    // they are linked directly, as on Linux), as `rustler::init!` does.
    unsafe { rustler::codegen_runtime::internal_write_symbols() };
    let entry = ENTRY.get_or_init(|| {
        let hot = nif::HOT.iter().map(|&(name, arity, function)| ErlNifFunc {
            name: name.as_ptr(),
            arity,
            function,
            flags: 0,
        });
        let functions: &'static [ErlNifFunc] = Box::leak(
            inventory::iter::<rustler::Nif>()
                .map(rustler::Nif::get_def)
                .chain(hot)
                .collect::<Box<[_]>>(),
        );
        let mut entry = ErlNifEntry::new(MODULE, functions, load);
        entry.upgrade = Some(upgrade);
        Entry(entry)
    });
    &entry.0
}
