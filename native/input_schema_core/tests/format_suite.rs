//! The official JSON-Schema-Test-Suite's `optional/format/*.json` files for
//! the five dialects, against `Format::lookup` and `Format::check` alone.
//!
//! `JSON_SCHEMA_SUITE` names the suite's `json` directory or its `tests`
//! directory (the one holding `draft4`, ..., `draft2020-12`); without it
//! the test says so and passes.
//! For every case whose schema is `{"$schema"?: ..., "format": NAME}`: a
//! non-string instance is valid (a format applies to strings only), and a
//! string is valid exactly when `Format::lookup(NAME, dialect)` finds no
//! format (an unknown one is an annotation) or the format's check accepts
//! it. Prints a pass count per dialect and per format; fails on any
//! mismatch, listing each.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use input_schema_core::format::Format;
use input_schema_core::standard::dialect::Dialect;
use serde_json::Value;

const DIALECTS: [(&str, Dialect); 5] = [
    ("draft4", Dialect::Draft4),
    ("draft6", Dialect::Draft6),
    ("draft7", Dialect::Draft7),
    ("draft2019-09", Dialect::Draft2019_09),
    ("draft2020-12", Dialect::Draft2020_12),
];

#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
}

#[test]
fn official_format_suite() {
    let Some(root) = std::env::var_os("JSON_SCHEMA_SUITE") else {
        // Past the harness's capture of print!, so that it shows.
        let _ = writeln!(
            std::io::stderr(),
            "JSON_SCHEMA_SUITE is not set: the official format suite skipped \
             (include it: JSON_SCHEMA_SUITE=\"$(scripts/json_schema_suite)\" cargo test; scripts/test does)"
        );
        return;
    };
    // The suite's `json` directory (as scripts/test exports it) or its
    // `tests` directory.
    let root = Path::new(&root);
    let tests = root.join("tests");
    let root = if tests.is_dir() { tests.as_path() } else { root };
    let mut by_dialect: BTreeMap<usize, Tally> = BTreeMap::new();
    let mut by_format: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut files = 0;
    for (index, (directory, dialect)) in DIALECTS.into_iter().enumerate() {
        let folder = root.join(directory).join("optional").join("format");
        let mut paths: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .collect();
        paths.sort();
        for path in paths {
            files += 1;
            let groups: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            for group in groups.as_array().unwrap() {
                let schema = group["schema"].as_object().unwrap();
                let name = schema["format"].as_str().unwrap();
                assert!(
                    schema.keys().all(|key| key == "format" || key == "$schema"),
                    "{}: a schema with more than format: {schema:?}",
                    path.display()
                );
                let format = Format::lookup(name, dialect);
                for case in group["tests"].as_array().unwrap() {
                    let expected = case["valid"].as_bool().unwrap();
                    let actual = match &case["data"] {
                        Value::String(text) => format.is_none_or(|format| format.check(text)),
                        _ => true,
                    };
                    let dialect_tally = by_dialect.entry(index).or_default();
                    let format_tally = by_format.entry(name.to_owned()).or_default();
                    dialect_tally.total += 1;
                    format_tally.total += 1;
                    if actual == expected {
                        dialect_tally.passed += 1;
                        format_tally.passed += 1;
                    } else {
                        failures.push(format!(
                            "{directory} {name}: {} ({}): expected {expected}, got {actual}",
                            case["data"],
                            case["description"].as_str().unwrap_or_default()
                        ));
                    }
                }
            }
        }
    }
    assert!(files > 0, "no suite files under {}", root.display());
    println!("{:<24} {:>7} {:>7}", "dialect", "passed", "cases");
    for (index, tally) in &by_dialect {
        println!(
            "{:<24} {:>7} {:>7}",
            DIALECTS[*index].0, tally.passed, tally.total
        );
    }
    println!("{:<24} {:>7} {:>7}", "format", "passed", "cases");
    for (name, tally) in &by_format {
        println!("{name:<24} {:>7} {:>7}", tally.passed, tally.total);
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
