//! The NIF functions and the compiled-schema resource. Each function reads
//! its terms, runs the core, and turns the outcome into the contract's
//! return shape. A panic in the core comes back as an error, never a raise.

use std::panic::{catch_unwind, AssertUnwindSafe};

use rustler::types::atom;
use rustler::{Encoder, Env, ResourceArc, Term};

use crate::term::{argument_error, argument_errors, error_struct, json_error, schema_error, BeamTerm};
use crate::{decode, encode};
use input_schema_core::error::{Class, SchemaError};
use input_schema_core::schema::{self, CompiledSchema};
use input_schema_core::validate;
use input_schema_core::value::{Shape, Value};

/// A compiled schema held by the BEAM; immutable, shared between processes.
pub struct CompiledResource {
    pub schema: CompiledSchema,
}

#[rustler::resource_impl]
impl rustler::Resource for CompiledResource {}

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

/// Validates `arguments` (a map) against a compiled schema: the first error,
/// or every error up to the cap.
fn check_arguments<'a>(
    env: Env<'a>,
    schema: &CompiledSchema,
    arguments: Term<'a>,
    all_errors: bool,
) -> Term<'a> {
    let outcome = if all_errors {
        validate::validate_all(schema, BeamTerm(arguments)).map_err(|errors| argument_errors(env, &errors))
    } else {
        validate::validate(schema, BeamTerm(arguments)).map_err(|error| argument_error(env, &error))
    };
    match outcome {
        Ok(()) => (atom::ok(), arguments).encode(env),
        Err(error) => error_tuple(env, error),
    }
}

#[rustler::nif(schedule = "DirtyCpu")]
fn validate_schema<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    guarded(env, || match schema::compile(BeamTerm(schema)) {
        Ok(_) => atom::ok().encode(env),
        Err(failure) => schema_failure(env, failure.error),
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn validate<'a>(env: Env<'a>, schema: Term<'a>, arguments: Term<'a>, all_errors: bool) -> Term<'a> {
    guarded(env, || {
        if BeamTerm(schema).shape() == Shape::Nil {
            return schema_failure(env, SchemaError::SchemaRequired);
        }
        if !is_map(schema) || !is_map(arguments) {
            return schema_failure(env, SchemaError::NotMaps);
        }
        match schema::compile(BeamTerm(schema)) {
            Ok(compiled) => check_arguments(env, &compiled, arguments, all_errors),
            Err(failure) => schema_failure(env, failure.error),
        }
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn compile<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    guarded(env, || match schema::compile(BeamTerm(schema)) {
        Ok(compiled) => (
            atom::ok(),
            ResourceArc::new(CompiledResource { schema: compiled }),
        )
            .encode(env),
        Err(failure) => schema_failure(env, failure.error),
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn validate_compiled<'a>(
    env: Env<'a>,
    compiled: Term<'a>,
    arguments: Term<'a>,
    all_errors: bool,
) -> Term<'a> {
    guarded(env, || {
        let Ok(resource) = compiled.decode::<ResourceArc<CompiledResource>>() else {
            return schema_failure(env, SchemaError::NotMaps);
        };
        if !is_map(arguments) {
            return schema_failure(env, SchemaError::NotMaps);
        }
        check_arguments(env, &resource.schema, arguments, all_errors)
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

/// Like `validate_schema`, with the error's location as a JSON Pointer into
/// the schema: `:ok` or `{:error, error, pointer}`. For the catalog checker.
#[rustler::nif(schedule = "DirtyCpu")]
fn check_schema<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
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
