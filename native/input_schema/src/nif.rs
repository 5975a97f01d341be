//! The NIF functions and the compiled-schema resource. Each function reads
//! its terms, runs the core, and turns the outcome into the contract's
//! return shape. A panic in the core comes back as an error, never a raise.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use rustler::types::atom;
use rustler::{Encoder, Env, NifResult, Term};

use crate::cache::{self, Caller};
use crate::term::{argument_error, argument_errors, error_struct, json_error, schema_error, BeamTerm};
use crate::{decode, encode, resource};
use input_schema_core::error::{Class, SchemaError};
use input_schema_core::schema::{self, CompileStop, CompiledSchema, FormatMode};
use input_schema_core::validate::{self, Budget, Outcome};
use input_schema_core::value::{Shape, Value};

/// The message of the error a panic turns into. A panic is a bug; the
/// caller still gets a refusal, never `:ok`.
const PANIC_MESSAGE: &str = "tool schema validation failed unexpectedly";

fn guarded<'a>(env: Env<'a>, body: impl FnOnce() -> Term<'a>) -> Term<'a> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(term) => term,
        Err(_) => error_tuple(
            env,
            error_struct(env, Class::ExecutionFailure, PANIC_MESSAGE, &[]),
        ),
    }
}

fn error_tuple<'a>(env: Env<'a>, error: Term<'a>) -> Term<'a> {
    (atom::error(), error).encode(env)
}

fn schema_failure<'a>(env: Env<'a>, error: SchemaError<BeamTerm<'a>>) -> Term<'a> {
    error_tuple(env, schema_error(env, &error))
}

fn is_map(term: Term<'_>) -> bool {
    BeamTerm(term).shape() == Shape::Map
}

/// Work units a call may spend on the calling (normal) scheduler before it
/// is handed whole to a dirty CPU scheduler. Measured here (what the
/// calibration `bench/budget.exs` prints): a unit costs 50-100 ns
/// of walking (map entries are the dearest), so 1,000 units hold a scheduler
/// for at most about 100 µs, a tenth of the 1 ms a NIF may take, while a
/// dirty-CPU hop costs about 4 µs, more than a typical tool call's
/// validation (10-40 units).
pub const INLINE_BUDGET: u64 = 1_000;

mod atoms {
    rustler::atoms! { dirty, foreign, first, all, first_asserting, all_asserting }
}

/// What a validation reports and how it reads `format`, as the one atom
/// the Elixir side passes: `:first` or `:all` errors, with formats
/// annotated; `:first_asserting` or `:all_asserting`, with formats
/// asserted. One term, so the hottest calls decode one argument, and the
/// common modes are the first compared.
fn mode(term: Term<'_>) -> Option<(bool, FormatMode)> {
    let raw = term.as_c_arg();
    if raw == atoms::first().as_c_arg() {
        Some((false, FormatMode::Annotate))
    } else if raw == atoms::all().as_c_arg() {
        Some((true, FormatMode::Annotate))
    } else if raw == atoms::first_asserting().as_c_arg() {
        Some((false, FormatMode::Assert))
    } else if raw == atoms::all_asserting().as_c_arg() {
        Some((true, FormatMode::Assert))
    } else {
        None
    }
}

/// Validates `arguments` (a map) against a compiled schema within `budget`:
/// the first error, or every error up to the cap. `None` when the budget ran
/// out before a decision.
fn check_arguments<'a>(
    env: Env<'a>,
    schema: &CompiledSchema,
    arguments: Term<'a>,
    all_errors: bool,
    budget: &Budget,
) -> Option<Term<'a>> {
    let outcome = if all_errors {
        match validate::validate_all_within(schema, BeamTerm(arguments), budget) {
            Outcome::Valid => Ok(()),
            Outcome::Invalid(errors) => Err(argument_errors(env, &errors)),
            Outcome::OverBudget => return None,
        }
    } else {
        match validate::validate_within(schema, BeamTerm(arguments), budget) {
            Outcome::Valid => Ok(()),
            Outcome::Invalid(error) => Err(argument_error(env, &error)),
            Outcome::OverBudget => return None,
        }
    };
    Some(match outcome {
        Ok(()) => (atom::ok(), arguments).encode(env),
        Err(error) => error_tuple(env, error),
    })
}

/// Validates `arguments` (a map) against a compiled schema with the
/// schema's whole walk budget (on a dirty scheduler): its end is the
/// work-limit failure, which an all-errors list ends with. Out of line: the
/// inline calls' path stays as short as it was.
#[cold]
#[inline(never)]
fn check_arguments_whole<'a>(
    env: Env<'a>,
    schema: &CompiledSchema,
    arguments: Term<'a>,
    all_errors: bool,
) -> Term<'a> {
    if !all_errors {
        // Through `check_arguments`, as the inline calls go: with one
        // caller in this crate, the first-error walk stays inlined into
        // their path (a second caller cost `beam_compiled_coding` 10 to 20
        // instructions a call in the speed guard).
        return check_arguments(env, schema, arguments, false, &validate::walk_budget(schema))
            .unwrap_or_else(|| error_tuple(env, argument_error(env, &validate::work_limit())));
    }
    match validate::validate_all(schema, BeamTerm(arguments)) {
        Ok(()) => (atom::ok(), arguments).encode(env),
        Err(errors) => error_tuple(env, argument_errors(env, &errors)),
    }
}

/// The entry checks of `validate/2`, in the contract's order.
fn entry_error<'a>(env: Env<'a>, schema: Term<'a>, arguments: Term<'a>) -> Option<Term<'a>> {
    if BeamTerm(schema).shape() == Shape::Nil {
        return Some(schema_failure(env, SchemaError::SchemaRequired));
    }
    if !is_map(schema) || !is_map(arguments) {
        return Some(schema_failure(env, SchemaError::NotMaps));
    }
    None
}

/// The outcome of a compilation on the calling scheduler.
enum Inline<T> {
    Done(T),
    Dirty,
}

/// Compiles within `budget`, using only patterns compiled before: the
/// inline half of every call that compiles.
fn compile_inline<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    formats: FormatMode,
    budget: &Budget,
) -> Inline<Result<CompiledSchema, Term<'a>>> {
    match schema::compile_within(BeamTerm(schema), budget, true, formats) {
        Ok(compiled) => Inline::Done(Ok(compiled)),
        Err(CompileStop::Failure(failure)) => Inline::Done(Err(schema_failure(env, failure.error))),
        Err(CompileStop::OverBudget) => Inline::Dirty,
    }
}

fn format_mode(assert_formats: bool) -> FormatMode {
    if assert_formats {
        FormatMode::Assert
    } else {
        FormatMode::Annotate
    }
}

fn dirty(env: Env<'_>) -> Term<'_> {
    atoms::dirty().encode(env)
}

/// A schema through the cache, on the calling scheduler: a cached schema,
/// or one compiled within `budget` (and then filed). `Dirty` when it needs a
/// pattern not built before, more than the budget, or a lookup or a filing
/// that grows with the schema (see `cache::INLINE_TERM_BYTES`).
fn schema_inline<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    formats: FormatMode,
    budget: &Budget,
) -> Inline<Result<Arc<CompiledSchema>, Term<'a>>> {
    let found = match cache::find(schema, formats, Caller::Inline) {
        cache::Found::Hit(compiled) => return Inline::Done(Ok(compiled)),
        cache::Found::TooLarge => return Inline::Dirty,
        found => found,
    };
    match compile_inline(env, schema, formats, budget) {
        Inline::Done(Ok(compiled)) => {
            let compiled = Arc::new(compiled);
            if let cache::Found::Miss(hash) = found {
                if !cache::insert(schema, hash, Arc::clone(&compiled), Caller::Inline) {
                    return Inline::Dirty;
                }
            }
            Inline::Done(Ok(compiled))
        }
        Inline::Done(Err(error)) => Inline::Done(Err(error)),
        Inline::Dirty => Inline::Dirty,
    }
}

/// A schema through the cache, without a budget (on a dirty scheduler).
fn schema_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    formats: FormatMode,
) -> Result<Arc<CompiledSchema>, Term<'a>> {
    let hash = match cache::find(schema, formats, Caller::Dirty) {
        cache::Found::Hit(compiled) => return Ok(compiled),
        cache::Found::Miss(hash) => Some(hash),
        cache::Found::Skip | cache::Found::TooLarge => None,
    };
    let compiled =
        Arc::new(schema::compile_with(BeamTerm(schema), formats).map_err(|f| schema_failure(env, f.error))?);
    if let Some(hash) = hash {
        cache::insert(schema, hash, Arc::clone(&compiled), Caller::Dirty);
    }
    Ok(compiled)
}

/// The inline half of `validate_schema/1`; `:dirty` hands it to
/// `validate_schema_dirty/1`. A schema checked before is found in the cache.
#[rustler::nif]
fn validate_schema<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    guarded(env, || {
        match schema_inline(env, schema, FormatMode::Annotate, &Budget::new(INLINE_BUDGET)) {
            Inline::Done(Ok(_)) => atom::ok().encode(env),
            Inline::Done(Err(error)) => error,
            Inline::Dirty => dirty(env),
        }
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn validate_schema_dirty<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || match schema_dirty(env, schema, FormatMode::Annotate) {
        Ok(_) => atom::ok().encode(env),
        Err(error) => error,
    })
}

/// The inline half of `validate/3`: on the calling scheduler, a cached or
/// cheaply compiled schema and a walk within one [`INLINE_BUDGET`]. Returns
/// `:dirty` when a pattern must be compiled or the budget ran out; the caller
/// then compiles on a dirty scheduler (`compile_dirty/2`) and validates there
/// (`validate_compiled_dirty/4`).
///
/// Its entry is [`HOT`]'s, not rustler's.
#[inline(never)]
fn validate_inline<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    arguments: Term<'a>,
    all_errors: bool,
    formats: FormatMode,
) -> Term<'a> {
    guarded(env, || {
        if let Some(error) = entry_error(env, schema, arguments) {
            return error;
        }
        let budget = Budget::new(INLINE_BUDGET);
        // This thread's recent hits first: no shared write (`cache::front_hit`).
        let check =
            |compiled: &CompiledSchema| check_arguments(env, compiled, arguments, all_errors, &budget);
        if let Some(result) = cache::front_hit(schema, formats, Caller::Inline, check) {
            return result.unwrap_or_else(|| dirty(env));
        }
        let compiled = match schema_inline(env, schema, formats, &budget) {
            Inline::Done(Ok(compiled)) => compiled,
            Inline::Done(Err(error)) => return error,
            Inline::Dirty => return dirty(env),
        };
        check_arguments(env, &compiled, arguments, all_errors, &budget).unwrap_or_else(|| dirty(env))
    })
}

fn resource_tuple<'a>(env: Env<'a>, compiled: Arc<CompiledSchema>) -> Term<'a> {
    match resource::make(env, compiled) {
        Some(resource) => (atom::ok(), resource).encode(env),
        None => unbudgeted_overrun(env),
    }
}

/// Whether a compiled schema's struct may carry `term` as its source: its
/// flat size is at most [`cache::MAX_SOURCE_BYTES`]. Inline up to
/// [`cache::INLINE_TERM_BYTES`]; past that `:dirty` hands it to
/// `source_fits_dirty/1`.
#[rustler::nif]
fn source_fits<'a>(env: Env<'a>, term: Term<'a>) -> Term<'a> {
    guarded(env, || {
        match cache::term_bytes_within(term, cache::INLINE_TERM_BYTES) {
            Some(_) => true.encode(env),
            None => dirty(env),
        }
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn source_fits_dirty(term: Term<'_>) -> bool {
    cache::term_bytes_within(term, cache::MAX_SOURCE_BYTES).is_some()
}

/// The inline half of `compile/2`; `:dirty` hands it to `compile_dirty/2`.
/// Compiled trees are immutable, so a resource may share the cache's.
/// `assert_formats`: `format` is compiled as an assertion.
#[rustler::nif]
fn compile<'a>(env: Env<'a>, schema: Term<'a>, assert_formats: bool) -> Term<'a> {
    guarded(env, || {
        match schema_inline(
            env,
            schema,
            format_mode(assert_formats),
            &Budget::new(INLINE_BUDGET),
        ) {
            Inline::Done(Ok(compiled)) => resource_tuple(env, compiled),
            Inline::Done(Err(error)) => error,
            Inline::Dirty => dirty(env),
        }
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn compile_dirty<'a>(env: Env<'a>, schema: Term<'a>, assert_formats: bool) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || {
        match schema_dirty(env, schema, format_mode(assert_formats)) {
            Ok(compiled) => resource_tuple(env, compiled),
            Err(error) => error,
        }
    })
}

/// The compiled schema a `%Compiled{}` stands for on this node.
enum Held<'a> {
    /// A resource this image made.
    Own(&'a CompiledSchema),
    /// Compiled again here from the struct's source, found in the cache
    /// under the source binary.
    Adopted(Arc<CompiledSchema>),
    /// Inline only: the source is too large to look up on this scheduler.
    Dirty,
    /// Neither: the Elixir side compiles the source again (`:foreign`).
    Foreign,
}

fn held<'a>(compiled: Term<'a>, source: Term<'a>, formats: FormatMode, caller: Caller) -> Held<'a> {
    if let Some(schema) = resource::get(compiled) {
        return Held::Own(schema);
    }
    let Ok(bytes) = rustler::Binary::from_term(source) else {
        return Held::Foreign;
    };
    if caller == Caller::Inline && bytes.len() > cache::INLINE_TERM_BYTES {
        return Held::Dirty;
    }
    // A source is filed with the format mode its schema was compiled
    // with; which one the struct wants, the Elixir side knows: a miss here
    // recompiles it with the struct's mode.
    match cache::find(source, formats, caller) {
        cache::Found::Hit(schema) => Held::Adopted(schema),
        cache::Found::TooLarge => Held::Dirty,
        cache::Found::Miss(_) | cache::Found::Skip => Held::Foreign,
    }
}

/// Validates against a compiled schema (a resource term, with the source
/// its struct carries) within `budget`; `None` when the budget ran out.
/// `budget` `None` is the schema's own [`validate::walk_budget`] (dirty).
fn check_compiled<'a>(
    env: Env<'a>,
    (compiled, source, formats): (Term<'a>, Term<'a>, FormatMode),
    arguments: Term<'a>,
    all_errors: bool,
    budget: Option<&Budget>,
) -> Option<Term<'a>> {
    if !is_map(arguments) {
        return Some(schema_failure(env, SchemaError::NotMaps));
    }
    let caller = if budget.is_some() {
        Caller::Inline
    } else {
        Caller::Dirty
    };
    let adopted;
    let schema: &CompiledSchema = match held(compiled, source, formats, caller) {
        Held::Own(schema) => schema,
        Held::Adopted(schema) => {
            adopted = schema;
            &adopted
        }
        Held::Dirty => return None,
        Held::Foreign => return Some(atoms::foreign().encode(env)),
    };
    match budget {
        Some(budget) => check_arguments(env, schema, arguments, all_errors, budget),
        // The schema's walk budget is finite only with `$ref`.
        None => Some(check_arguments_whole(env, schema, arguments, all_errors)),
    }
}

/// Compiles `schema` (the term a `%Compiled{}`'s `source` decodes to, on a
/// node where its resource is foreign) through the cache, files the result
/// under `source` too, so that the struct is found by its source from then
/// on, and answers `{:ok, resource}` or the schema's error.
#[rustler::nif(schedule = "DirtyCpu")]
fn compile_source_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    source: Term<'a>,
    assert_formats: bool,
) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || {
        match schema_dirty(env, schema, format_mode(assert_formats)) {
            Ok(compiled) => {
                if source.get_type() == rustler::TermType::Binary {
                    cache::file(source, Arc::clone(&compiled));
                }
                resource_tuple(env, compiled)
            }
            Err(error) => error,
        }
    })
}

/// The inline half of validating against a compiled schema; `:dirty` when
/// the budget ran out.
///
/// Its entry is [`HOT`]'s, not rustler's.
#[inline(never)]
fn validate_compiled_inline<'a>(
    env: Env<'a>,
    held: (Term<'a>, Term<'a>, FormatMode),
    arguments: Term<'a>,
    all_errors: bool,
) -> Term<'a> {
    guarded(env, || {
        check_compiled(
            env,
            held,
            arguments,
            all_errors,
            Some(&Budget::new(INLINE_BUDGET)),
        )
        .unwrap_or_else(|| dirty(env))
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn validate_compiled_dirty<'a>(
    env: Env<'a>,
    compiled: Term<'a>,
    source: Term<'a>,
    arguments: Term<'a>,
    mode_term: Term<'a>,
) -> NifResult<Term<'a>> {
    crate::deferred::drain();
    let (all_errors, formats) = mode(mode_term).ok_or(rustler::Error::BadArg)?;
    Ok(guarded(env, || {
        check_compiled(env, (compiled, source, formats), arguments, all_errors, None)
            .unwrap_or_else(|| unbudgeted_overrun(env))
    }))
}

/// An unlimited budget cannot run out; should it, refuse the call.
fn unbudgeted_overrun(env: Env<'_>) -> Term<'_> {
    error_tuple(
        env,
        error_struct(env, Class::ExecutionFailure, PANIC_MESSAGE, &[]),
    )
}

/// A bound given as `nil` is the default ([`cache::DEFAULT_MAX_ENTRIES`],
/// [`cache::DEFAULT_MAX_BYTES`]).
#[rustler::nif]
fn configure_cache(enabled: bool, max_entries: Option<usize>, max_bytes: Option<usize>) -> rustler::Atom {
    cache::configure(
        enabled,
        max_entries.unwrap_or(cache::DEFAULT_MAX_ENTRIES),
        max_bytes.unwrap_or(cache::DEFAULT_MAX_BYTES),
    );
    atom::ok()
}

#[rustler::nif]
fn clear_cache() -> rustler::Atom {
    cache::clear();
    atom::ok()
}

/// `{enabled, entries, bytes, max_entries, max_bytes, hits, misses}`.
#[rustler::nif]
fn cache_stats() -> (bool, usize, usize, usize, usize, u64, u64) {
    cache::stats()
}

/// Test builds only: a panic inside the guard every NIF body runs under,
/// which must come back as the `:execution_failure` error, not a raise.
#[cfg(feature = "test-probes")]
#[allow(clippy::panic)] // the deliberate panic is the point; never in a release build
#[rustler::nif]
fn panic_probe(env: Env<'_>) -> Term<'_> {
    guarded(env, || std::panic::panic_any("panic_probe: a deliberate panic"))
}

#[cfg(feature = "test-probes")]
mod probe_atoms {
    rustler::atoms! { proper, longer, improper }
}

/// Test builds only: the list-length count the array checks use, with its
/// bound given, so that its boundaries are tested exactly: `{:proper, n}`,
/// `:longer` (more than `limit` cells) or `:improper`.
#[cfg(feature = "test-probes")]
#[rustler::nif]
fn list_length_within<'a>(env: Env<'a>, list: Term<'a>, limit: usize) -> Term<'a> {
    use input_schema_core::value::ListLength;
    guarded(env, || match BeamTerm(list).list_len_within(limit) {
        ListLength::Proper(n) => (probe_atoms::proper(), n).encode(env),
        ListLength::Longer => probe_atoms::longer().encode(env),
        ListLength::Improper => probe_atoms::improper().encode(env),
    })
}

/// Test builds only: the walk directions `{flat_backward, hash_backward}`
/// that `probes` (`{map, keys}` pairs, as the loader passes) show, or
/// `:error`; the learned order is left as it is.
#[cfg(feature = "test-probes")]
#[rustler::nif]
fn map_order_probe<'a>(env: Env<'a>, probes: Term<'a>) -> Term<'a> {
    guarded(env, || match crate::term::map_order(probes) {
        Some(directions) => directions.encode(env),
        None => atom::error().encode(env),
    })
}

#[cfg(feature = "test-probes")]
mod stack_atoms {
    rustler::atoms! { compile, cached, validate, validate_all, decode_json, encode_json, drop }
}

/// Test builds only: runs one operation on this scheduler and answers
/// `{result, bytes, available}`: the result term, how many bytes of this
/// scheduler's own stack the call's deepest frame reached, and how many
/// were free when it began (`input_schema_core::stack::probe`). `grow: false` keeps every step on
/// this stack (the whole depth of the call; the caller makes sure it fits).
/// Operations: `:compile` (schema), `:cached` (schema: through the cache,
/// hashed, sized, filed, then found and compared), `:validate` and `:validate_all` (schema,
/// arguments, with the result term built), `:decode_json` (text),
/// `:encode_json` (term), `:drop` (schema: compiled first, then measured
/// while it is dropped).
#[cfg(feature = "test-probes")]
#[rustler::nif]
fn stack_use<'a>(env: Env<'a>, op: rustler::Atom, grow: bool, a: Term<'a>, b: Term<'a>) -> Term<'a> {
    use input_schema_core::stack::probe;
    let compiled = || schema::compile(BeamTerm(a)).map_err(|f| schema_failure(env, f.error));
    guarded(env, || {
        let (result, bytes, available) = if op == stack_atoms::compile() {
            probe::measure(grow, || match compiled() {
                Ok(_) => atom::ok().encode(env),
                Err(error) => error,
            })
        } else if op == stack_atoms::cached() {
            probe::measure(grow, || {
                let first = schema_dirty(env, a, FormatMode::Annotate).map(|_| ());
                let again = schema_dirty(env, a, FormatMode::Annotate).map(|_| ());
                match (first, again) {
                    (Ok(()), Ok(())) => atom::ok().encode(env),
                    (Err(error), _) | (_, Err(error)) => error,
                }
            })
        } else if op == stack_atoms::validate() || op == stack_atoms::validate_all() {
            let all = op == stack_atoms::validate_all();
            probe::measure(grow, || match compiled() {
                Ok(schema) => check_arguments_whole(env, &schema, b, all),
                Err(error) => error,
            })
        } else if op == stack_atoms::decode_json() {
            let text = rustler::Binary::from_term(a)
                .map(|t| t.as_slice().to_vec())
                .unwrap_or_default();
            probe::measure(grow, || match decode::decode(env, &text) {
                Ok(term) => term,
                Err(_) => atom::error().encode(env),
            })
        } else if op == stack_atoms::encode_json() {
            probe::measure(grow, || match encode::encode(a) {
                Ok(text) => text.encode(env),
                Err(_) => atom::error().encode(env),
            })
        } else if op == stack_atoms::drop() {
            match compiled() {
                Ok(schema) => probe::measure(grow, || {
                    drop(schema);
                    atom::ok().encode(env)
                }),
                Err(error) => (error, 0, 0),
            }
        } else {
            (atom::error().encode(env), 0, 0)
        };
        (result, bytes, available).encode(env)
    })
}

/// An empty NIF on the calling scheduler: the floor the benchmarks compare to.
#[rustler::nif]
fn noop() -> rustler::Atom {
    phase_mark()
}

/// Out of line under a name of its own: the BEAM-side speed guard marks
/// the end of each phase it counts with `noop/0` (`scripts/speed_guard`).
#[inline(never)]
fn phase_mark() -> rustler::Atom {
    std::hint::black_box(atom::ok())
}

/// `{count, bytes}`: the compiled schemas that destructors on normal
/// schedulers left for a dirty call to free (`deferred.rs`), and about how
/// many bytes they hold.
#[rustler::nif]
fn deferred_held() -> (usize, usize) {
    crate::deferred::held()
}

/// Frees what destructors left for a dirty call (as every dirty call does
/// first), for the library's periodic sweep when no other dirty call comes;
/// answers what is still held.
#[rustler::nif(schedule = "DirtyCpu")]
fn deferred_free_dirty() -> (usize, usize) {
    crate::deferred::drain();
    crate::deferred::held()
}

/// An empty NIF on a dirty CPU scheduler: the cost of the hop.
#[rustler::nif(schedule = "DirtyCpu")]
fn noop_dirty() -> rustler::Atom {
    atom::ok()
}

/// Like `validate_schema`, with the error's location as a JSON Pointer into
/// the schema: `:ok` or `{:error, error, pointer}`. For the catalog checker.
#[rustler::nif(schedule = "DirtyCpu")]
fn check_schema<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || match schema::compile(BeamTerm(schema)) {
        Ok(_) => atom::ok().encode(env),
        Err(failure) => (
            atom::error(),
            schema_error(env, &failure.error),
            failure.pointer.as_str(),
        )
            .encode(env),
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn encode_json<'a>(env: Env<'a>, value: Term<'a>) -> Term<'a> {
    guarded(env, || match encode::encode(value) {
        Ok(text) => (atom::ok(), text.as_str()).encode(env),
        Err(message) => error_tuple(env, error_struct(env, Class::Validation, message, &[])),
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn decode_json<'a>(env: Env<'a>, text: Term<'a>) -> Term<'a> {
    guarded(env, || {
        let Ok(bytes) = text.decode::<rustler::Binary>() else {
            return error_tuple(
                env,
                error_struct(env, Class::Validation, "JSON text must be a binary", &[]),
            );
        };
        match decode::decode(env, bytes.as_slice()) {
            Ok(term) => (atom::ok(), term).encode(env),
            Err(error) => error_tuple(env, json_error(env, &error)),
        }
    })
}

// ---------------------------------------------------------------- entries
//
// `validate/3` and `validate_compiled/4` are the calls a runtime makes on
// every tool call, and the standard entry point's validation of a compiled
// schema or a schema map is the same kind of call. Their entries are
// written here (and in `standard.rs`) rather than by `#[rustler::nif]`,
// whose wrapper collects the arguments into a `Vec`: an allocation and a
// free on every call, a tenth of a coding-tool call's instructions. The
// bodies (`validate_inline`, `validate_compiled_inline`, and the standard
// ones) catch panics themselves; decoding the mode cannot panic.

/// The hand-written entries, for the library's function table (`lib.rs`).
pub const HOT: [(&std::ffi::CStr, u32, RawNif); 4] = [
    (c"validate", 3, validate_entry),
    (c"validate_compiled", 4, validate_compiled_entry),
    (
        c"json_schema_validate",
        3,
        crate::standard::json_schema_validate_entry,
    ),
    (c"json_schema_check", 7, crate::standard::json_schema_check_entry),
];

pub(crate) type RawTerm = rustler::sys::ErlNifTerm;
pub(crate) type RawEnv = rustler::sys::ErlNifEnv;
type RawNif = unsafe extern "C" fn(*mut RawEnv, i32, *const RawTerm) -> RawTerm;

/// Runs `body` on a call's arguments; `badarg` when it refuses them (only a
/// caller other than the library's Elixir side could pass such).
///
/// # Safety
/// `env`, `argc` and `argv` are what the runtime passed to a NIF.
pub(crate) unsafe fn entry(
    env: *mut RawEnv,
    argc: i32,
    argv: *const RawTerm,
    body: for<'a> fn(Env<'a>, &[RawTerm]) -> Option<Term<'a>>,
) -> RawTerm {
    let lifetime = ();
    // SAFETY: the runtime passes a valid environment for this call, and
    // `argc` terms of it at `argv`.
    let (env, args) = unsafe {
        (
            Env::new(&lifetime, env),
            std::slice::from_raw_parts(argv, usize::try_from(argc).unwrap_or(0)),
        )
    };
    match body(env, args) {
        Some(term) => term.as_c_arg(),
        // SAFETY: `env` is this call's.
        None => unsafe { rustler::sys::enif_make_badarg(env.as_c_arg()) },
    }
}

/// Exactly `N` arguments, as terms of `env`.
pub(crate) fn terms<'a, const N: usize>(env: Env<'a>, args: &[RawTerm]) -> Option<[Term<'a>; N]> {
    let args: &[RawTerm; N] = args.try_into().ok()?;
    // SAFETY: the runtime's arguments are terms of this call's environment.
    Some(args.map(|raw| unsafe { Term::new(env, raw) }))
}

/// Exactly `N` arguments, as terms of `env`, then the mode atom (`mode`).
fn arguments<'a, const N: usize>(
    env: Env<'a>,
    args: &[RawTerm],
) -> Option<([Term<'a>; N], bool, FormatMode)> {
    let (last, rest) = args.split_last()?;
    let rest = terms::<N>(env, rest)?;
    // SAFETY: the runtime's arguments are terms of this call's environment.
    let (all_errors, formats) = mode(unsafe { Term::new(env, *last) })?;
    Some((rest, all_errors, formats))
}

unsafe extern "C" fn validate_entry(env: *mut RawEnv, argc: i32, argv: *const RawTerm) -> RawTerm {
    // SAFETY: the runtime calls this as a NIF.
    unsafe {
        entry(env, argc, argv, |env, args| {
            let ([schema, values], all_errors, formats) = arguments(env, args)?;
            Some(validate_inline(env, schema, values, all_errors, formats))
        })
    }
}

unsafe extern "C" fn validate_compiled_entry(env: *mut RawEnv, argc: i32, argv: *const RawTerm) -> RawTerm {
    // SAFETY: the runtime calls this as a NIF.
    unsafe {
        entry(env, argc, argv, |env, args| {
            let ([compiled, source, values], all_errors, formats) = arguments(env, args)?;
            Some(validate_compiled_inline(
                env,
                (compiled, source, formats),
                values,
                all_errors,
            ))
        })
    }
}
