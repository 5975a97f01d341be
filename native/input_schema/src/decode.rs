//! JSON text -> the terms an Elixir host would have: string keys, integers
//! of any size, floats, `nil`, booleans. For hosts without a JSON library
//! (no Jason here) and for the catalog checker.

use num_bigint::BigInt;
use rustler::types::atom;
use rustler::{Encoder, Env, NewBinary, Term};
use serde_json::Value as Json;

use input_schema_core::json::number;
use input_schema_core::value::Number;

// Depth: serde_json refuses text nesting 128 or more arrays or objects
// ("recursion limit exceeded"), which also bounds `to_term`'s recursion.

/// Why JSON text was refused: a reason and where (1-based line and column).
pub struct JsonError {
    pub reason: String,
    pub line: usize,
    pub column: usize,
}

pub fn decode<'a>(env: Env<'a>, text: &[u8]) -> Result<Term<'a>, JsonError> {
    input_schema_core::stack::within(input_schema_core::stack::LIBRARY_RED_ZONE, || {
        let value: Json = serde_json::from_slice(text).map_err(|e| {
            let full = e.to_string();
            // serde_json appends " at line L column C"; the caller gets both apart.
            let reason = match full.rfind(" at line ") {
                Some(at) => full.get(..at).unwrap_or(&full).to_string(),
                None => full,
            };
            JsonError {
                reason,
                line: e.line(),
                column: e.column(),
            }
        })?;
        to_term(env, &value).ok_or(JsonError {
            reason: "number out of range".to_string(),
            line: 0,
            column: 0,
        })
    })
}

fn binary<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    let mut out = NewBinary::new(env, bytes.len());
    out.as_mut_slice().copy_from_slice(bytes);
    out.into()
}

fn to_term<'a>(env: Env<'a>, value: &Json) -> Option<Term<'a>> {
    input_schema_core::stack::deep(|| {
        Some(match value {
            Json::Null => atom::nil().encode(env),
            Json::Bool(b) => b.encode(env),
            Json::Number(n) => match number(n)? {
                Number::Int(i) => i.encode(env),
                Number::Big(b) => BigInt::encode(&b, env),
                Number::Float(f) => f.encode(env),
            },
            Json::String(s) => binary(env, s.as_bytes()),
            Json::Array(items) => {
                let terms: Option<Vec<Term<'a>>> = items.iter().map(|v| to_term(env, v)).collect();
                terms?.encode(env)
            }
            Json::Object(entries) => {
                let mut keys = Vec::with_capacity(entries.len());
                let mut values = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    keys.push(binary(env, k.as_bytes()));
                    values.push(to_term(env, v)?);
                }
                crate::term::map_of(env, &keys, &values)?
            }
        })
    })
}
