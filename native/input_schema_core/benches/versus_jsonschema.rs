//! The Rust core beside the `jsonschema` crate, on the same schemas and
//! instances (`serde_json` values): compile time per schema and validation
//! time per call, medians and 99th percentiles, and our/their ratio.
//!
//! Two entry points of ours: the gateway's strict subset (`schema::compile`,
//! `validate::validate`) on the tool-schema fixtures, then standard JSON
//! Schema (`standard::Validator`) on the eight shapes of
//! `fixtures/standard_shapes.json` (which `bench/json_schema.exs` times
//! through the NIF), each with `is_valid` on its valid and its invalid instance,
//! every error of the invalid one (`validate` against `iter_errors`), and
//! compile + `is_valid` cold.
//!
//! Run: `cargo bench -p input_schema_core --bench versus_jsonschema`.
//! Each figure is the per-call time of a batch, over many batches; the two
//! sides' batches alternate, so a drift of the machine's speed hits both.

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
use input_schema_core::standard::{Options, Validator};
use input_schema_core::validate::validate;
use serde_json::Value;

mod support;
use support::{figures, human, Figures};

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

/// Per-call nanoseconds of `SAMPLES` batches of `batch` calls of each side,
/// the two sides' batches alternating so that both see the same machine
/// (this VM's speed drifts by tens of percent over seconds).
fn measure_pair(batch: usize, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (Figures, Figures) {
    for _ in 0..batch.min(1000) {
        ours();
        theirs();
    }
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..batch {
            f();
        }
        start.elapsed().as_nanos() as f64 / batch as f64
    };
    let (mut a, mut b) = (Vec::with_capacity(SAMPLES), Vec::with_capacity(SAMPLES));
    for _ in 0..SAMPLES {
        a.push(time(&mut ours));
        b.push(time(&mut theirs));
    }
    (figures(a), figures(b))
}

fn row(name: &str, (ours, theirs): (Figures, Figures)) {
    println!(
        "| {name} | {} | {} | {} | {} | {:.2} |",
        human(ours.0),
        human(ours.1),
        human(theirs.0),
        human(theirs.1),
        ours.0 / theirs.0
    );
}

/// Divides both sides' figures by the calls in one batch item.
fn per_item(((a, b), (c, d)): (Figures, Figures), per: f64) -> (Figures, Figures) {
    ((a / per, b / per), (c / per, d / per))
}

fn main() {
    let coding = tools(&read_json("coding_tools.json"));
    let catalog = tools(&read_json("mcp_catalog.json"));
    let coding_calls = read_lines("coding_calls.jsonl");
    let catalog_calls = read_lines("calls.jsonl");

    println!("| workload | ours median | ours p99 | jsonschema median | jsonschema p99 | ratio |");
    println!("|---|---|---|---|---|---|");

    // Compile: per coding-tool schema, and the whole MCP catalog at once.
    let catalog_name = format!("compile, whole MCP catalog ({} tools)", catalog.len());
    for (name, set, batch, per) in [
        ("compile, coding-tool schema", &coding, 20, coding.len() as f64),
        (catalog_name.as_str(), &catalog, 5, 1.0),
    ] {
        let pair = measure_pair(
            batch,
            || {
                for (_, schema) in set {
                    black_box(compile(JsonRef::from(schema)).is_ok());
                }
            },
            || {
                for (_, schema) in set {
                    black_box(jsonschema::validator_for(schema).is_ok());
                }
            },
        );
        row(name, per_item(pair, per));
    }

    // Validate: the realistic calls, per call, against both validators.
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
    for (name, set) in [
        ("coding-tool call", compiled(&coding, &coding_calls)),
        ("MCP sample call", compiled(&catalog, &catalog_calls)),
    ] {
        for (ours, theirs, arguments) in &set {
            assert_eq!(
                validate(ours, JsonRef::from(arguments)).is_ok(),
                theirs.is_valid(arguments),
                "validity differs on {arguments}"
            );
        }
        let per = set.len() as f64;
        let ours = || {
            for (schema, _, arguments) in &set {
                black_box(validate(schema, JsonRef::from(arguments)).is_ok());
            }
        };
        let pair = measure_pair(1000, ours, || {
            for (_, validator, arguments) in &set {
                black_box(validator.validate(arguments).is_ok());
            }
        });
        row(&format!("validate, {name} (vs validate)"), per_item(pair, per));
        // Where every call is valid, neither side builds an error, and
        // `is_valid` is the other crate's fastest path.
        if set
            .iter()
            .all(|(_, validator, arguments)| validator.is_valid(arguments))
        {
            let pair = measure_pair(1000, ours, || {
                for (_, validator, arguments) in &set {
                    black_box(validator.is_valid(arguments));
                }
            });
            row(&format!("validate, {name} (vs is_valid)"), per_item(pair, per));
        }
    }

    // A 1 MiB string against an ordinary pattern.
    let schema = serde_json::json!({"properties": {"s": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"}}});
    let arguments = serde_json::json!({"s": "abc_DEF-123.".repeat((1 << 20) / 12)});
    let ours_schema = compile(JsonRef::from(&schema)).unwrap_or_else(|e| panic!("{e:?}"));
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
    assert!(validate(&ours_schema, JsonRef::from(&arguments)).is_ok());
    assert!(validator.is_valid(&arguments));
    let pair = measure_pair(
        2,
        || {
            black_box(validate(&ours_schema, JsonRef::from(&arguments)).is_ok());
        },
        || {
            black_box(validator.validate(&arguments).is_ok());
        },
    );
    row("validate, 1 MiB string against a pattern", pair);

    standard_rows();
}

/// A schema with a valid and an invalid instance.
struct Shape {
    name: String,
    schema: Value,
    valid: Value,
    invalid: Value,
}

/// The eight shapes of `fixtures/standard_shapes.json` (the standard entry
/// point's speed targets; `bench/json_schema.exs` times the same ones
/// through the NIF).
fn standard_shapes() -> Vec<Shape> {
    let Value::Array(shapes) = read_json("standard_shapes.json") else {
        panic!("standard_shapes.json: not a list");
    };
    shapes
        .into_iter()
        .map(|shape| Shape {
            name: shape["name"].as_str().unwrap().to_string(),
            schema: shape["schema"].clone(),
            valid: shape["valid"].clone(),
            invalid: shape["invalid"].clone(),
        })
        .collect()
}

/// Compilations in one batch of the cold rows: a compilation (the
/// metaschema check included) costs tens of microseconds.
const COMPILE_BATCH: usize = 20;

/// `standard::Validator` beside `jsonschema` on each standard shape:
/// `is_valid` on the valid and the invalid instance, every error of the
/// invalid one, and compile + `is_valid` cold. Both sides must agree on
/// every verdict first.
fn standard_rows() {
    let options = Options::default();
    for Shape {
        name,
        schema,
        valid,
        invalid,
    } in standard_shapes()
    {
        let ours = Validator::compile(&schema, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let theirs = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (instance, expected) in [(&valid, true), (&invalid, false)] {
            let verdict = ours
                .is_valid(JsonRef::from(instance))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(verdict, expected, "{name}: our is_valid on {instance}");
            assert_eq!(
                theirs.is_valid(instance),
                expected,
                "{name}: their is_valid on {instance}"
            );
            let errors = ours
                .validate(JsonRef::from(instance))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(errors.is_empty(), expected, "{name}: our validate on {instance}");
            assert_eq!(
                theirs.iter_errors(instance).count() == 0,
                expected,
                "{name}: their iter_errors on {instance}"
            );
        }

        // A call on 100 rows costs about what 100 calls on a small value do.
        let batch = if valid.is_array() { 100 } else { 1000 };
        for (label, instance) in [("valid", &valid), ("invalid", &invalid)] {
            let pair = measure_pair(
                batch,
                || {
                    black_box(ours.is_valid(JsonRef::from(instance)).ok());
                },
                || {
                    black_box(theirs.is_valid(instance));
                },
            );
            row(&format!("standard {name}: is_valid, {label}"), pair);
        }
        let pair = measure_pair(
            batch,
            || {
                black_box(ours.validate(JsonRef::from(&invalid)).ok());
            },
            || {
                black_box(theirs.iter_errors(&invalid).count());
            },
        );
        row(&format!("standard {name}: validate, invalid"), pair);
        let pair = measure_pair(
            COMPILE_BATCH,
            || {
                let validator = Validator::compile(&schema, &options).unwrap();
                black_box(validator.is_valid(JsonRef::from(&valid)).ok());
            },
            || {
                let validator = jsonschema::validator_for(&schema).unwrap();
                black_box(validator.is_valid(&valid));
            },
        );
        row(&format!("standard {name}: compile + validate"), pair);
    }
}
