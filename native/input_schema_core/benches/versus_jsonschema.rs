//! The Rust core beside the `jsonschema` crate, on the same schemas and
//! instances (`serde_json` values): compile time per schema and validation
//! time per call, medians and 99th percentiles, and our/their ratio.
//!
//! Run: `cargo bench -p input_schema_core --bench versus_jsonschema`.
//! Each figure is the per-call time of a batch, over many batches.

// A benchmark program: a broken fixture should stop it loudly.
#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use input_schema_core::json::JsonRef;
use input_schema_core::schema::compile;
use input_schema_core::validate::validate;
use serde_json::Value;

const SAMPLES: usize = 300;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn read_json(name: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn read_lines(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}")))
        .collect()
}

fn tools(catalog: &Value) -> Vec<(String, Value)> {
    let list = catalog.get("tools").unwrap_or(catalog);
    list.as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_string(),
                t["inputSchema"].clone(),
            )
        })
        .collect()
}

/// Per-call nanoseconds of `SAMPLES` batches of `batch` calls: (median, p99).
fn measure(batch: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..batch.min(1000) {
        f();
    }
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            start.elapsed().as_nanos() as f64 / batch as f64
        })
        .collect();
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

fn human(ns: f64) -> String {
    if ns >= 1_000_000.0 {
        format!("{:.2} ms", ns / 1_000_000.0)
    } else if ns >= 1_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{ns:.0} ns")
    }
}

fn row(name: &str, ours: (f64, f64), theirs: (f64, f64)) {
    println!(
        "| {name} | {} | {} | {} | {} | {:.2} |",
        human(ours.0),
        human(ours.1),
        human(theirs.0),
        human(theirs.1),
        ours.0 / theirs.0
    );
}

fn main() {
    let coding = tools(&read_json("coding_tools.json"));
    let catalog = tools(&read_json("mcp_catalog.json"));
    let coding_calls = read_lines("coding_calls.jsonl");
    let catalog_calls = read_lines("calls.jsonl");

    println!("| workload | ours median | ours p99 | jsonschema median | jsonschema p99 | ratio |");
    println!("|---|---|---|---|---|---|");

    // Compile: every coding-tool schema, per schema.
    let ours = measure(20, || {
        for (_, schema) in &coding {
            black_box(compile(JsonRef::from(schema)).is_ok());
        }
    });
    let theirs = measure(20, || {
        for (_, schema) in &coding {
            black_box(jsonschema::validator_for(schema).is_ok());
        }
    });
    let per = coding.len() as f64;
    row(
        "compile, coding-tool schema",
        (ours.0 / per, ours.1 / per),
        (theirs.0 / per, theirs.1 / per),
    );

    // Compile: the whole MCP catalog.
    let ours = measure(5, || {
        for (_, schema) in &catalog {
            black_box(compile(JsonRef::from(schema)).is_ok());
        }
    });
    let theirs = measure(5, || {
        for (_, schema) in &catalog {
            black_box(jsonschema::validator_for(schema).is_ok());
        }
    });
    row(
        &format!("compile, whole MCP catalog ({} tools)", catalog.len()),
        ours,
        theirs,
    );

    // Validate: the realistic coding-tool calls, per call.
    let compiled = |set: &[(String, Value)], calls: &[Value]| {
        calls
            .iter()
            .filter_map(|call| {
                let name = call["name"].as_str()?;
                let (_, schema) = set.iter().find(|(n, _)| n == name)?;
                let ours = compile(JsonRef::from(schema)).ok()?;
                let theirs = jsonschema::validator_for(schema).ok()?;
                Some((ours, theirs, call["arguments"].clone()))
            })
            .collect::<Vec<_>>()
    };
    let coding_set = compiled(&coding, &coding_calls);
    for (ours, theirs, arguments) in &coding_set {
        assert_eq!(
            validate(ours, JsonRef::from(arguments)).is_ok(),
            theirs.is_valid(arguments),
            "validity differs on {arguments}"
        );
    }
    let per = coding_set.len() as f64;
    let ours = measure(1000, || {
        for (schema, _, arguments) in &coding_set {
            black_box(validate(schema, JsonRef::from(arguments)).is_ok());
        }
    });
    let theirs = measure(1000, || {
        for (_, validator, arguments) in &coding_set {
            black_box(validator.validate(arguments).is_ok());
        }
    });
    row(
        "validate, coding-tool call (first error)",
        (ours.0 / per, ours.1 / per),
        (theirs.0 / per, theirs.1 / per),
    );
    let theirs_bool = measure(1000, || {
        for (_, validator, arguments) in &coding_set {
            black_box(validator.is_valid(arguments));
        }
    });
    row(
        "validate, coding-tool call (vs is_valid)",
        (ours.0 / per, ours.1 / per),
        (theirs_bool.0 / per, theirs_bool.1 / per),
    );

    // Validate: the MCP sample calls (accepted and rejected).
    let catalog_set = compiled(&catalog, &catalog_calls);
    for (ours, theirs, arguments) in &catalog_set {
        assert_eq!(
            validate(ours, JsonRef::from(arguments)).is_ok(),
            theirs.is_valid(arguments)
        );
    }
    let per = catalog_set.len() as f64;
    let ours = measure(1000, || {
        for (schema, _, arguments) in &catalog_set {
            black_box(validate(schema, JsonRef::from(arguments)).is_ok());
        }
    });
    let theirs = measure(1000, || {
        for (_, validator, arguments) in &catalog_set {
            black_box(validator.validate(arguments).is_ok());
        }
    });
    row(
        "validate, MCP sample call (first error)",
        (ours.0 / per, ours.1 / per),
        (theirs.0 / per, theirs.1 / per),
    );

    // A 1 MiB string against an ordinary pattern.
    let schema = serde_json::json!({"properties": {"s": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"}}});
    let arguments = serde_json::json!({"s": "abc_DEF-123.".repeat((1 << 20) / 12)});
    let ours_schema = compile(JsonRef::from(&schema)).unwrap_or_else(|e| panic!("{e:?}"));
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
    assert!(validate(&ours_schema, JsonRef::from(&arguments)).is_ok());
    assert!(validator.is_valid(&arguments));
    let ours = measure(2, || {
        black_box(validate(&ours_schema, JsonRef::from(&arguments)).is_ok());
    });
    let theirs = measure(2, || {
        black_box(validator.validate(&arguments).is_ok());
    });
    row("validate, 1 MiB string against a pattern", ours, theirs);
}
