//! The work limit counts what a keyword does with its input, not only the
//! values it visits: a keyword that reads a long string, sorts a long list
//! or tests many keys against many patterns is charged in proportion,
//! however few values it visits. Each test pins a charge between two
//! bounds around the cost its comment states, so that a charge dropped or
//! miscounted shows.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::budget::Budget;
use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Limit, Options, Validator};
use serde_json::{json, Map, Value};

fn compiled(schema: &Value) -> Validator {
    Validator::compile(schema, &Options::default()).unwrap()
}

/// Whether deciding `instance` fits `units` of work.
fn fits(v: &Validator, instance: &Value, units: u64) -> bool {
    match v.is_valid_within(JsonRef::from(instance), &Budget::new(units)) {
        Ok(_) => true,
        Err(Limit::Work) => false,
        Err(other) => panic!("{other:?}"),
    }
}

/// A string's bytes are charged a unit per 16 where they are read, and
/// again where its length is counted (1,600,000 ASCII bytes: 100,000
/// units each).
#[test]
fn a_long_string_is_charged_for_its_text_and_for_its_length() {
    let v = compiled(&json!({"maxLength": 10_000_000}));
    let text = json!("a".repeat(1_600_000));
    assert!(!fits(&v, &text, 150_000));
    assert!(fits(&v, &text, 250_000));
}

/// `uniqueItems` sorts the items' keys: charged n·log2(n)/4 units
/// (100,000 items: 425,000), beside a unit or so per item.
#[test]
fn unique_items_is_charged_for_its_sort() {
    let v = compiled(&json!({"uniqueItems": true}));
    let items = Value::Array((0..100_000).map(|i| json!(i)).collect());
    assert!(!fits(&v, &items, 400_000));
    assert!(fits(&v, &items, 1_000_000));
}

/// Each test of a key against a pattern is charged at least a unit, however
/// short the key: 20,000 one-letter keys against 10 patterns are 200,000
/// tests. (`unevaluatedItems` makes the schema collect annotations, so the
/// keyword-by-keyword walk decides, as it does for `validate/3`.)
#[test]
fn pattern_properties_are_charged_per_key_and_pattern() {
    let patterns: Map<String, Value> = (0..10).map(|i| (format!("^z{i}"), json!(true))).collect();
    for schema in [
        json!({"patternProperties": patterns}),
        json!({"patternProperties": patterns, "unevaluatedItems": true}),
    ] {
        let v = compiled(&schema);
        let keys: Map<String, Value> = (0..20_000)
            .map(|i| (format!("{}", char::from_u32(0x4e00 + i).unwrap()), json!(1)))
            .collect();
        let object = Value::Object(keys);
        assert!(!fits(&v, &object, 150_000), "{schema}");
        assert!(fits(&v, &object, 400_000), "{schema}");
    }
}
