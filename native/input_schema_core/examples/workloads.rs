//! The workloads the speed guard counts (`scripts/speed_guard`):
//! `workloads NAME` runs one of them, `RUNS` times, inside a non-inlined
//! function (`validate_all_of` or `compile_all_of`), so that `callgrind
//! --toggle-collect` counts it alone, exactly and repeatably.
//!
//! - `validate_coding`: every call of `fixtures/coding_calls.jsonl` against
//!   its compiled coding-tool schema;
//! - `validate_mcp`: every call of `fixtures/calls.jsonl` whose tool the MCP
//!   catalog has;
//! - `compile_coding`, `compile_mcp`: every schema of the coding tools and of
//!   the MCP catalog (`fixtures/mcp_catalog.json`), compiled;
//! - `standard_valid`, `standard_validate`: the standard entry point
//!   (`standard::Validator`) on the eight shapes of
//!   `fixtures/standard_shapes.json`, each shape's valid and invalid
//!   instance, through `is_valid` and through `validate` (every failure);
//! - `standard_compile`: each of the eight shapes compiled (`Validator::
//!   compile`: the metaschema check, the registry, the keywords), with the
//!   dialect's metaschema and the shapes' patterns built before the count.
//!
//! Each runs `RUNS` times; the guard divides by that.

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
use input_schema_core::pattern::Pattern;
use input_schema_core::schema::{compile, CompiledSchema};
use input_schema_core::standard::{Options, Validator};
use input_schema_core::validate::validate;
use serde_json::Value;

const RUNS: usize = 100;

fn read(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tools(name: &str) -> Vec<(String, Value)> {
    let tools: Value = serde_json::from_str(&read(name)).unwrap();
    let tools = tools.get("tools").unwrap_or(&tools).as_array().unwrap().clone();
    tools
        .into_iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_string(),
                tool["inputSchema"].clone(),
            )
        })
        .collect()
}

fn calls(name: &str, tools: &[(String, Value)]) -> Vec<(CompiledSchema, Value)> {
    read(name)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|call| {
            let (_, schema) = tools.iter().find(|(name, _)| call["name"] == name.as_str())?;
            Some((compile(JsonRef::from(schema)).unwrap(), call["arguments"].clone()))
        })
        .collect()
}

#[inline(never)]
fn validate_all_of(calls: &[(CompiledSchema, Value)]) -> usize {
    calls
        .iter()
        .filter(|(schema, arguments)| validate(schema, JsonRef::from(arguments)).is_ok())
        .count()
}

/// Each standard shape compiled, with its valid and its invalid instance.
fn standard_calls() -> Vec<(Validator, Value)> {
    let shapes: Value = serde_json::from_str(&read("standard_shapes.json")).unwrap();
    let mut calls = Vec::new();
    for shape in shapes.as_array().unwrap() {
        for instance in ["valid", "invalid"] {
            let validator = Validator::compile(&shape["schema"], &Options::default()).unwrap();
            calls.push((validator, shape[instance].clone()));
        }
    }
    calls
}

/// Each standard shape's schema.
fn standard_schemas() -> Vec<Value> {
    let shapes: Value = serde_json::from_str(&read("standard_shapes.json")).unwrap();
    shapes
        .as_array()
        .unwrap()
        .iter()
        .map(|shape| shape["schema"].clone())
        .collect()
}

#[inline(never)]
fn standard_compile_all_of(schemas: &[Value]) -> usize {
    schemas
        .iter()
        .filter(|schema| Validator::compile(schema, &Options::default()).is_ok())
        .count()
}

/// `standard_valid` (`is_valid`) or `standard_validate` (`validate`); the
/// count of valid instances.
#[inline(never)]
fn standard_all_of(calls: &[(Validator, Value)], every_failure: bool) -> usize {
    calls
        .iter()
        .filter(|(validator, instance)| {
            if every_failure {
                validator
                    .validate(JsonRef::from(instance))
                    .is_ok_and(|units| units.is_empty())
            } else {
                validator.is_valid(JsonRef::from(instance)) == Ok(true)
            }
        })
        .count()
}

#[inline(never)]
fn compile_all_of(schemas: &[(String, Value)]) -> usize {
    schemas
        .iter()
        .filter(|(_, schema)| compile(JsonRef::from(schema)).is_ok())
        .count()
}

fn main() {
    let coding = tools("coding_tools.json");
    let mcp = tools("mcp_catalog.json");
    let coding_calls = calls("coding_calls.jsonl", &coding);
    let mcp_calls = calls("calls.jsonl", &mcp);
    let standard = standard_calls();
    let standard_schemas = standard_schemas();
    // Patterns are shared between compiles once built: build them first
    // (outside the counted function's calls that follow), so that every run
    // counts the same work.
    black_box(compile(JsonRef::from(&Value::Null)).is_err());
    for (_, schema) in coding.iter().chain(&mcp) {
        black_box(compile(JsonRef::from(schema)).is_ok());
    }
    let _ = Pattern::compile(b"");
    let workload = std::env::args().nth(1).unwrap_or_default();
    for _ in 0..RUNS {
        match workload.as_str() {
            "validate_coding" => black_box(validate_all_of(black_box(&coding_calls))),
            "validate_mcp" => black_box(validate_all_of(black_box(&mcp_calls))),
            "compile_coding" => black_box(compile_all_of(black_box(&coding))),
            "compile_mcp" => black_box(compile_all_of(black_box(&mcp))),
            "standard_valid" => black_box(standard_all_of(black_box(&standard), false)),
            "standard_validate" => black_box(standard_all_of(black_box(&standard), true)),
            "standard_compile" => black_box(standard_compile_all_of(black_box(&standard_schemas))),
            _ => 0,
        };
    }
    println!(
        "runs {RUNS}: {} coding calls, {} MCP calls, {} coding schemas, {} MCP schemas, {} standard calls, {} standard schemas",
        coding_calls.len(),
        mcp_calls.len(),
        coding.len(),
        mcp.len(),
        standard.len(),
        standard_schemas.len()
    );
}
