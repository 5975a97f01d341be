//! Any JSON as `[schema, arguments]` (or a schema alone, validated against
//! `{}`): the compiler, `$ref` resolution and the cycle checks must answer
//! without a panic; a compiled schema must validate, and the three walks
//! (first error, ordered, every error) must agree: the same first error,
//! and valid exactly when the others say so.
#![no_main]

use input_schema_core::json::JsonRef;
use input_schema_core::schema::compile;
use input_schema_core::validate::{validate, validate_all, validate_in_order};
use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (schema, arguments) = match value {
        Value::Array(mut pair) if pair.len() == 2 => {
            let arguments = pair.pop().unwrap_or(Value::Null);
            (pair.pop().unwrap_or(Value::Null), arguments)
        }
        schema => (schema, Value::Object(Default::default())),
    };
    let Ok(compiled) = compile(JsonRef::from(&schema)) else {
        return;
    };
    if !arguments.is_object() {
        return;
    }
    let first = validate(&compiled, JsonRef::from(&arguments));
    let ordered = validate_in_order(&compiled, JsonRef::from(&arguments));
    assert_eq!(
        format!("{first:?}"),
        format!("{ordered:?}"),
        "{schema} / {arguments}"
    );
    let all = validate_all(&compiled, JsonRef::from(&arguments)).map_err(|errors| errors.into_iter().next());
    assert_eq!(
        format!("{:?}", first.map_err(Some)),
        format!("{all:?}"),
        "{schema} / {arguments}"
    );
});
