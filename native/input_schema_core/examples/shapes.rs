//! The instruction-count comparison of the standard entry point with the
//! `jsonschema` crate on the eight shapes of `fixtures/standard_shapes.json`
//! (`benches/versus_jsonschema.rs` times them): 1,000 `is_valid` calls (or,
//! with `every`, calls that list every error: our `validate`, their
//! `iter_errors`) on one shape's valid or invalid instance, by one side,
//! each side behind its own non-inlined function so that `callgrind
//! --toggle-collect` counts it alone.
//!
//! `shapes SHAPE valid|invalid ours|theirs [every]`, SHAPE the shape's
//! index (0-7), for example:
//!
//! ```sh
//! cargo build --release -p input_schema_core --example shapes
//! valgrind --tool=callgrind --toggle-collect='shapes::ours' target/release/examples/shapes 1 valid ours
//! ```

// A benchmark program: a broken fixture or argument should stop it loudly.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::path::PathBuf;

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Options, Validator, WALK_BUDGET};
use serde_json::Value;

const RUNS: usize = 1000;

#[inline(never)]
fn ours(validator: &Validator, instance: &Value) -> bool {
    validator.is_valid(JsonRef::from(instance)) == Ok(true)
}

#[inline(never)]
fn theirs(validator: &jsonschema::Validator, instance: &Value) -> bool {
    validator.is_valid(instance)
}

#[inline(never)]
fn ours_every(validator: &Validator, instance: &Value) -> bool {
    validator
        .report_limited(JsonRef::from(instance), WALK_BUDGET)
        .is_ok_and(|report| report.is_empty())
}

#[inline(never)]
fn theirs_every(validator: &jsonschema::Validator, instance: &Value) -> bool {
    validator.iter_errors(instance).count() == 0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (shape, instance, side, every) = match &args[..] {
        [shape, instance, side] => (shape, instance, side, false),
        [shape, instance, side, every] if every == "every" => (shape, instance, side, true),
        _ => panic!("usage: shapes SHAPE valid|invalid ours|theirs [every]"),
    };
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/standard_shapes.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let shapes: Value = serde_json::from_str(&text).unwrap();
    let shape = &shapes[shape.parse::<usize>().unwrap()];
    let instance = &shape[instance.as_str()];
    assert!(!instance.is_null(), "no such instance");
    let mine = Validator::compile(&shape["schema"], &Options::default()).unwrap();
    let other = jsonschema::validator_for(&shape["schema"]).unwrap();
    // Not through the counted functions: each counts its loop alone.
    assert_eq!(
        mine.is_valid(JsonRef::from(instance)) == Ok(true),
        other.is_valid(instance),
        "the verdicts differ"
    );
    let valid = match (side.as_str(), every) {
        ("ours", false) => (0..RUNS).filter(|_| ours(&mine, black_box(instance))).count(),
        ("theirs", false) => (0..RUNS).filter(|_| theirs(&other, black_box(instance))).count(),
        ("ours", true) => (0..RUNS)
            .filter(|_| ours_every(&mine, black_box(instance)))
            .count(),
        ("theirs", true) => (0..RUNS)
            .filter(|_| theirs_every(&other, black_box(instance)))
            .count(),
        _ => panic!("ours or theirs, not {side}"),
    };
    println!("{}: {valid} of {RUNS} valid", shape["name"]);
}
