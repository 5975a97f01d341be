//! Terms -> JSON text, for reports (the catalog checker's `--format json`).
//! Maps with atom or binary keys, lists, binaries (UTF-8), numbers, booleans,
//! `nil` and other atoms (as strings). Anything else is refused.

use rustler::{Binary, Term, TermType};
use serde_json::{Map, Number as JsonNumber, Value as Json};

/// Deepest term encoded; reports are shallow.
const MAX_DEPTH: usize = 64;

/// Most terms encoded: a term whose subterms are shared is small on the heap
/// but as large as its flat expansion once written out.
const MAX_TERMS: usize = 1_000_000;

pub fn encode(term: Term<'_>) -> Result<String, &'static str> {
    input_schema_core::stack::within(input_schema_core::stack::LIBRARY_RED_ZONE, || {
        let value = to_json(term, MAX_DEPTH, &std::cell::Cell::new(0))?;
        serde_json::to_string_pretty(&value).map_err(|_| "term cannot be encoded as JSON")
    })
}

fn key(term: Term<'_>) -> Result<String, &'static str> {
    match term.get_type() {
        TermType::Atom => term.atom_to_string().map_err(|_| "bad atom"),
        TermType::Binary => {
            let binary = Binary::from_term(term).map_err(|_| "map key is not a binary")?;
            String::from_utf8(binary.as_slice().to_vec()).map_err(|_| "map key is not UTF-8")
        }
        _ => Err("map keys must be atoms or strings"),
    }
}

fn to_json(term: Term<'_>, depth: usize, terms: &std::cell::Cell<usize>) -> Result<Json, &'static str> {
    input_schema_core::stack::deep(|| {
        let depth = depth.checked_sub(1).ok_or("term is nested too deep")?;
        terms.set(terms.get() + 1);
        if terms.get() > MAX_TERMS {
            return Err("term is too large to encode");
        }
        Ok(match term.get_type() {
            TermType::Atom => match term.atom_to_string().map_err(|_| "bad atom")?.as_str() {
                "nil" => Json::Null,
                "true" => Json::Bool(true),
                "false" => Json::Bool(false),
                other => Json::String(other.to_string()),
            },
            TermType::Binary => Json::String(key(term)?),
            TermType::Integer => match term.decode::<i64>() {
                Ok(n) => Json::Number(n.into()),
                Err(_) => {
                    let big: num_bigint::BigInt = term.decode().map_err(|_| "bad integer")?;
                    Json::Number(big.to_string().parse::<JsonNumber>().map_err(|_| "bad integer")?)
                }
            },
            TermType::Float => {
                let f: f64 = term.decode().map_err(|_| "bad float")?;
                Json::Number(JsonNumber::from_f64(f).ok_or("float is not finite")?)
            }
            TermType::List => {
                // Cell by cell: rustler's list decoding panics on an improper
                // list instead of failing.
                let mut items = Vec::new();
                let mut tail = term;
                while let Ok((head, rest)) = tail.list_get_cell() {
                    items.push(to_json(head, depth, terms)?);
                    tail = rest;
                }
                if !tail.is_empty_list() {
                    return Err("term cannot be encoded as JSON");
                }
                Json::Array(items)
            }
            TermType::Map => {
                let mut map = Map::new();
                for (k, v) in rustler::types::map::MapIterator::new(term).ok_or("bad map")? {
                    map.insert(key(k)?, to_json(v, depth, terms)?);
                }
                Json::Object(map)
            }
            _ => return Err("term cannot be encoded as JSON"),
        })
    })
}
