//! The instruction-count comparison behind `bench/instructions`: validates
//! coding-tool calls 1,000 times each with our validator and with
//! `jsonschema`'s `is_valid` (plus one call each that checks that their
//! verdicts agree), each side behind its own non-inlined function, so that
//! `callgrind --toggle-collect` counts one side at a time.
//!
//! `instructions [N]`: only the call on line N (0-based) of
//! `fixtures/coding_calls.jsonl`; without N, every call.

// A benchmark program: a broken fixture should stop it loudly.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::path::PathBuf;

use input_schema_core::json::JsonRef;
use input_schema_core::schema::{compile, CompiledSchema};
use input_schema_core::validate::validate;
use serde_json::Value;

const RUNS: usize = 1000;

#[inline(never)]
fn ours(schema: &CompiledSchema, arguments: &Value) -> bool {
    validate(schema, JsonRef::from(arguments)).is_ok()
}

#[inline(never)]
fn theirs(validator: &jsonschema::Validator, arguments: &Value) -> bool {
    validator.is_valid(arguments)
}

fn read(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn main() {
    let tools: Value = serde_json::from_str(&read("coding_tools.json")).unwrap();
    let tools = tools.get("tools").unwrap_or(&tools).as_array().unwrap();
    let calls: Vec<Value> = read("coding_calls.jsonl")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let only: Option<usize> = std::env::args().nth(1).map(|n| n.parse().unwrap());
    for (index, call) in calls.iter().enumerate() {
        if only.is_some_and(|n| n != index) {
            continue;
        }
        let tool = tools.iter().find(|tool| tool["name"] == call["name"]).unwrap();
        let schema = &tool["inputSchema"];
        let compiled = compile(JsonRef::from(schema)).unwrap();
        let validator = jsonschema::validator_for(schema).unwrap();
        let arguments = &call["arguments"];
        // One call of each side more than the runs: the verdict check.
        assert_eq!(
            ours(&compiled, arguments),
            theirs(&validator, arguments),
            "verdicts differ on call {index}"
        );
        for _ in 0..RUNS {
            black_box(ours(&compiled, arguments));
            black_box(theirs(&validator, arguments));
        }
        println!("{index} {}", call["name"].as_str().unwrap_or_default());
    }
}
