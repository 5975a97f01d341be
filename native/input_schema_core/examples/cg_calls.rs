#![allow(
    clippy::all,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
use input_schema_core::json::JsonRef;
use input_schema_core::schema::{compile, CompiledSchema};
use input_schema_core::validate::validate;
use serde_json::Value;
use std::hint::black_box;

#[inline(never)]
fn ours_call(s: &CompiledSchema, a: &Value) -> bool {
    validate(s, JsonRef::from(a)).is_ok()
}
#[inline(never)]
fn theirs_call(v: &jsonschema::Validator, a: &Value) -> bool {
    v.is_valid(a)
}
fn main() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let tools: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("coding_tools.json")).unwrap()).unwrap();
    let tools = tools.get("tools").unwrap_or(&tools).as_array().unwrap().clone();
    let calls: Vec<Value> = std::fs::read_to_string(root.join("coding_calls.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let which: Option<usize> = std::env::args().nth(1).map(|a| a.parse().unwrap());
    for (i, call) in calls.iter().enumerate() {
        if which.is_some_and(|w| w != i) {
            continue;
        }
        let schema = &tools.iter().find(|t| t["name"] == call["name"]).unwrap()["inputSchema"];
        let ours = compile(JsonRef::from(schema)).unwrap();
        let theirs = jsonschema::validator_for(schema).unwrap();
        eprintln!("{i}: {}", call["name"]);
        for _ in 0..1000 {
            black_box(ours_call(&ours, &call["arguments"]));
            black_box(theirs_call(&theirs, &call["arguments"]));
        }
    }
}
