//! The contract table, run through the `serde_json` backend: every row of
//! `test/support/contract_cases.ex` that JSON carries exactly, read from
//! `fixtures/contract_rows.json` (written by `scripts/contract_rows`; the
//! ExUnit suite fails when the file and the rows differ). Each row's class,
//! message and details are asserted exactly, so the core's own tests pin
//! every order and message rule those rows pin. Rows with terms only the
//! BEAM has (atom keys, improper lists, structs, ...) stay ExUnit-only.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::error::{Class, Detail, Details};
use input_schema_core::json::JsonRef;
use input_schema_core::schema::compile;
use input_schema_core::validate::{validate, validate_all, validate_in_order};
use input_schema_core::value::{Datum, Number, Value as _};
use serde_json::{json, Map, Value};

fn rows() -> Value {
    let path = format!("{}/../../fixtures/contract_rows.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn number_json(n: &Number) -> Value {
    let text = match n {
        Number::Int(i) => i.to_string(),
        Number::Big(b) => b.to_string(),
        Number::Float(f) => return json!(f),
    };
    Value::Number(text.parse().unwrap())
}

fn datum_json(d: &Datum) -> Value {
    match d {
        Datum::Nil => Value::Null,
        Datum::Bool(b) => json!(b),
        Datum::Atom(name) => json!(name.as_ref()),
        Datum::Number(n) => number_json(n),
        Datum::Binary(bytes) => json!(String::from_utf8_lossy(bytes)),
        Datum::List(items) => Value::Array(items.iter().map(datum_json).collect()),
        Datum::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), datum_json(v)))
                .collect(),
        ),
    }
}

fn term_json(value: JsonRef<'_>) -> Value {
    match value {
        JsonRef::Value(v) => v.clone(),
        JsonRef::Key(k) => json!(k),
    }
}

fn details_json(details: &Details<'_, JsonRef<'_>>) -> Value {
    let mut map = Map::new();
    for (key, value) in details {
        let value = match value {
            Detail::Text(bytes) => json!(String::from_utf8_lossy(bytes)),
            Detail::Datum(d) => datum_json(d),
            Detail::Term(v) => term_json(*v),
            Detail::Reason(name) => json!(name),
        };
        map.insert((*key).to_string(), value);
    }
    Value::Object(map)
}

fn error_json(class: Class, message: String, details: Value) -> Value {
    json!({"class": class.name(), "message": message, "details": details})
}

#[test]
fn every_shared_preflight_row() {
    let rows = rows();
    let rows = rows["preflight"].as_array().unwrap();
    assert!(rows.len() >= 100, "{} rows", rows.len());
    for row in rows {
        let got = match compile(JsonRef::from(&row["schema"])) {
            Ok(_) => json!("ok"),
            Err(failure) => error_json(
                failure.error.class(),
                failure.error.to_string(),
                details_json(&failure.error.details()),
            ),
        };
        assert_eq!(got, row["expected"], "{}", row["name"]);
    }
}

#[test]
fn every_shared_argument_row_in_each_walk() {
    let rows = rows();
    let rows = rows["arguments"].as_array().unwrap();
    assert!(rows.len() >= 100, "{} rows", rows.len());
    for row in rows {
        let name = &row["name"];
        let compiled = compile(JsonRef::from(&row["schema"])).unwrap_or_else(|f| panic!("{name}: {f:?}"));
        let arguments = JsonRef::from(&row["arguments"]);
        assert_eq!(arguments.shape(), input_schema_core::value::Shape::Map, "{name}");
        let as_json = |result: Result<(), input_schema_core::error::ArgumentError<JsonRef<'_>>>| match result
        {
            Ok(()) => json!("ok"),
            Err(e) => error_json(e.class(), e.to_string(), details_json(&e.details())),
        };
        // The one-pass walk, the ordered walk, and the first of all errors.
        assert_eq!(as_json(validate(&compiled, arguments)), row["expected"], "{name}");
        assert_eq!(
            as_json(validate_in_order(&compiled, arguments)),
            row["expected"],
            "{name}: in order"
        );
        let first_of_all =
            validate_all(&compiled, arguments).map_err(|errors| errors.into_iter().next().unwrap());
        assert_eq!(as_json(first_of_all), row["expected"], "{name}: first of all");
    }
}
