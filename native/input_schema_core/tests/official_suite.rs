//! The official JSON-Schema-Test-Suite against `standard::Validator`: every
//! required test file of draft 4, 6, 7, 2019-09 and 2020-12 (the `.json`
//! files directly in each dialect's directory), formats as annotations;
//! each dialect's `optional/format/` files with formats asserted; and its
//! other optional files (directly in `optional/`), formats and content
//! asserted.
//! The suite is the copy
//! PyPI's jsonschema 4.26.0 carries, fetched, pinned by SHA-256 and
//! extracted by `scripts/json_schema_suite`, which prints its `json`
//! directory; `scripts/test` exports that as `JSON_SCHEMA_SUITE`. Every
//! file under `json/remotes` is a resource at
//! `http://localhost:1234/<relative path>`, as the suite's README asks.
//!
//! A case passes when `is_valid` answers the expected verdict and
//! `validate` returns no output unit exactly when the instance is valid. A
//! group whose schema does not compile fails every case, except the groups
//! of `REFUSED_PATTERNS`: patterns that need backtracking, which the
//! pattern engine refuses at compile time by design; there a compile error
//! that names the pattern is the expected outcome.
//!
//! A last test rebuilds, from the pinned copy, the form some cases had in
//! the previous pin (jsonschema 4.23.0's copy) where the current one
//! reshaped them.
//!
//! Without `JSON_SCHEMA_SUITE` the tests pass without running, saying so
//! in one line (the test command always sets it); set to a directory that
//! does not hold the suite, they fail.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt::Write as _;
use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{ContentMode, Dialect, FormatMode, Options, Validator};
use serde_json::Value;

/// Groups whose schema holds a pattern the engine refuses by design (it
/// needs backtracking): `(file, group description)`, the file as a path
/// relative to the dialect's directory (`"pattern.json"`,
/// `"optional/format/regex.json"`), for every dialect that has it.
const REFUSED_PATTERNS: &[(&str, &str)] = &[];

/// The dialect directories of the suite, and the dialect each runs as.
const DIALECTS: [(&str, Dialect); 5] = [
    ("draft4", Dialect::Draft4),
    ("draft6", Dialect::Draft6),
    ("draft7", Dialect::Draft7),
    ("draft2019-09", Dialect::Draft2019_09),
    ("draft2020-12", Dialect::Draft2020_12),
];

/// Failing cases listed in full; the rest are counted.
const MAX_LISTED: usize = 50;

/// Where the resources of `json/remotes` are served from.
const REMOTE_BASE: &str = "http://localhost:1234/";

#[derive(Default, Clone, Copy)]
struct Tally {
    groups: usize,
    cases: usize,
    passed: usize,
    failed: usize,
    refused: usize,
}

struct Failure {
    dialect: &'static str,
    file: String,
    group: String,
    case: String,
    detail: String,
}

/// The suite's `json` directory, or `None` (the test skipped, with one
/// line saying how to include it) when `JSON_SCHEMA_SUITE` is not set. Set
/// to a directory without the suite's `tests/` and `remotes/`, it fails.
fn suite_root() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("JSON_SCHEMA_SUITE") else {
        // Once per run, and past the harness's capture of print!.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            let _ = writeln!(
                std::io::stderr(),
                "JSON_SCHEMA_SUITE is not set: the official suite skipped \
                 (include it: JSON_SCHEMA_SUITE=\"$(scripts/json_schema_suite)\" cargo test; scripts/test does)"
            );
        });
        return None;
    };
    let dir = PathBuf::from(dir);
    assert!(
        dir.join("tests").is_dir() && dir.join("remotes").is_dir(),
        "JSON_SCHEMA_SUITE={} has no tests/ and remotes/ directories: \
         run scripts/json_schema_suite and set JSON_SCHEMA_SUITE to the json directory it prints",
        dir.display()
    );
    Some(dir)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// Every file under `dir`, recursively, sorted.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries =
            std::fs::read_dir(&current).unwrap_or_else(|e| panic!("listing {}: {e}", current.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The `.json` files directly in `dir`, sorted.
fn json_files_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("listing {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

/// Every file of `json/remotes` at `http://localhost:1234/<relative path>`.
fn remotes(root: &Path) -> Vec<(String, Value)> {
    let dir = root.join("remotes");
    files_below(&dir)
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&dir).unwrap();
            let relative: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (format!("{REMOTE_BASE}{}", relative.join("/")), read_json(&path))
        })
        .collect()
}

fn text(value: &Value, key: &str) -> String {
    value.get(key).and_then(Value::as_str).unwrap_or("?").to_string()
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

/// One case: `None` when it passes, else what went wrong.
fn check_case(validator: &Validator, instance: &Value, expected: bool) -> Option<String> {
    let verdict = validator.is_valid(JsonRef::from(instance));
    let units = validator.validate(JsonRef::from(instance));
    let mut problems = Vec::new();
    match verdict {
        Ok(valid) if valid == expected => {}
        Ok(valid) => problems.push(format!("is_valid = {valid}, expected {expected}")),
        Err(limit) => problems.push(format!("is_valid stopped: {limit}")),
    }
    match units {
        Ok(units) if units.is_empty() == expected => {}
        Ok(units) if expected => problems.push(format!(
            "validate returned {} unit(s) for a valid instance, first: {}",
            units.len(),
            units[0]
        )),
        Ok(_) => problems.push("validate returned no unit for an invalid instance".to_string()),
        Err(limit) => problems.push(format!("validate stopped: {limit}")),
    }
    if problems.is_empty() {
        None
    } else {
        Some(problems.join("; "))
    }
}

/// Runs `files` (paths relative to `dir`) as `dialect` with `formats`.
fn run_files(
    dir_name: &'static str,
    dir: &Path,
    files: &[PathBuf],
    dialect: Dialect,
    formats: FormatMode,
    resources: &[(String, Value)],
    failures: &mut Vec<Failure>,
) -> Vec<(String, Tally)> {
    let mut per_file = Vec::new();
    for path in files {
        let mut tally = Tally::default();
        let file = path
            .strip_prefix(dir)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let groups = read_json(path);
        for group in groups
            .as_array()
            .unwrap_or_else(|| panic!("{}: not an array", path.display()))
        {
            tally.groups += 1;
            let group_name = text(group, "description");
            let cases = group["tests"]
                .as_array()
                .unwrap_or_else(|| panic!("{file}: {group_name}: no tests"));
            let mut fail = |case: &Value, detail: String, tally: &mut Tally| {
                tally.failed += 1;
                failures.push(Failure {
                    dialect: dir_name,
                    file: file.clone(),
                    group: group_name.clone(),
                    case: text(case, "description"),
                    detail,
                });
            };
            let options = Options {
                dialect,
                resources: resources.to_vec(),
                formats,
                // The optional files expect content asserted (draft 7's
                // `optional/content.json`), as they expect formats.
                content: match formats {
                    FormatMode::Assert => ContentMode::Assert,
                    FormatMode::Annotate => ContentMode::Annotate,
                },
            };
            let compiled = catch_unwind(AssertUnwindSafe(|| {
                Validator::compile(&group["schema"], &options)
            }));
            let validator = match compiled {
                Ok(Ok(validator)) => validator,
                Ok(Err(error)) => {
                    let message = error.to_string();
                    let allowed = REFUSED_PATTERNS.contains(&(file.as_str(), group_name.as_str()));
                    for case in cases {
                        tally.cases += 1;
                        if allowed && message.contains("pattern") {
                            tally.refused += 1;
                        } else {
                            fail(case, format!("compile error: {message}"), &mut tally);
                        }
                    }
                    continue;
                }
                Err(payload) => {
                    let message = panic_message(payload.as_ref());
                    for case in cases {
                        tally.cases += 1;
                        fail(case, format!("compile panicked: {message}"), &mut tally);
                    }
                    continue;
                }
            };
            for case in cases {
                tally.cases += 1;
                let expected = case["valid"]
                    .as_bool()
                    .unwrap_or_else(|| panic!("{file}: {group_name}: a case without a boolean `valid`"));
                let outcome = catch_unwind(AssertUnwindSafe(|| {
                    check_case(&validator, &case["data"], expected)
                }));
                match outcome {
                    Ok(None) => tally.passed += 1,
                    Ok(Some(detail)) => fail(case, detail, &mut tally),
                    Err(payload) => fail(
                        case,
                        format!("panicked: {}", panic_message(payload.as_ref())),
                        &mut tally,
                    ),
                }
            }
        }
        per_file.push((file, tally));
    }
    per_file
}

/// The sum of the files' tallies.
fn sum(per_file: &[(String, Tally)]) -> Tally {
    per_file.iter().fold(Tally::default(), |total, (_, t)| Tally {
        groups: total.groups + t.groups,
        cases: total.cases + t.cases,
        passed: total.passed + t.passed,
        failed: total.failed + t.failed,
        refused: total.refused + t.refused,
    })
}

/// One row per file name, one column per dialect: `passed/cases`, or `-`
/// where the dialect has no such file.
fn per_file_table(report: &mut String, rows: &[(&str, Vec<(String, Tally)>)]) {
    let mut names: Vec<&str> = rows
        .iter()
        .flat_map(|(_, per_file)| per_file.iter().map(|(file, _)| file.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    write!(report, "\n{:<42}", "file").unwrap();
    for (dir_name, _) in rows {
        write!(report, " {dir_name:>12}").unwrap();
    }
    writeln!(report).unwrap();
    for name in names {
        write!(report, "{name:<42}").unwrap();
        for (_, per_file) in rows {
            let cell = per_file
                .iter()
                .find(|(file, _)| file == name)
                .map_or_else(|| "-".to_string(), |(_, t)| format!("{}/{}", t.passed, t.cases));
            write!(report, " {cell:>12}").unwrap();
        }
        writeln!(report).unwrap();
    }
}

/// Runs every dialect, printing the table and the failing cases; panics
/// when any case failed.
/// With `by_file`, a table of each file's cases per dialect follows.
/// Returns the total, or `None` when the suite is missing and that is allowed.
fn run_suite(
    title: &str,
    formats: FormatMode,
    by_file: bool,
    files_of: impl Fn(&Path) -> Vec<PathBuf>,
) -> Option<Tally> {
    let root = suite_root()?;
    let resources = remotes(&root);
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    assert_eq!(
        DIALECTS.map(|(_, d)| d),
        Dialect::ALL,
        "one suite directory per dialect"
    );
    for (dir_name, dialect) in DIALECTS {
        let dir = root.join("tests").join(dir_name);
        let files = files_of(&dir);
        assert!(!files.is_empty(), "no test files in {}", dir.display());
        let per_file = run_files(
            dir_name,
            &dir,
            &files,
            dialect,
            formats,
            &resources,
            &mut failures,
        );
        rows.push((dir_name, per_file));
    }

    let mut report = String::new();
    writeln!(
        report,
        "\nofficial JSON-Schema-Test-Suite: {title} ({})",
        root.display()
    )
    .unwrap();
    writeln!(
        report,
        "{:<14} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "dialect", "files", "groups", "cases", "passed", "failed", "refused"
    )
    .unwrap();
    let mut total = Tally::default();
    let mut total_files = 0;
    for (dir_name, per_file) in &rows {
        let (files, t) = (per_file.len(), sum(per_file));
        writeln!(
            report,
            "{:<14} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8}",
            dir_name, files, t.groups, t.cases, t.passed, t.failed, t.refused
        )
        .unwrap();
        total_files += files;
        total.groups += t.groups;
        total.cases += t.cases;
        total.passed += t.passed;
        total.failed += t.failed;
        total.refused += t.refused;
    }
    writeln!(
        report,
        "{:<14} {:>6} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "total", total_files, total.groups, total.cases, total.passed, total.failed, total.refused
    )
    .unwrap();
    if by_file {
        per_file_table(&mut report, &rows);
    }
    if !failures.is_empty() {
        writeln!(report, "\nfailing cases ({}):", failures.len()).unwrap();
        for f in failures.iter().take(MAX_LISTED) {
            writeln!(
                report,
                "  {}/{} | {} | {}\n      {}",
                f.dialect, f.file, f.group, f.case, f.detail
            )
            .unwrap();
        }
        if failures.len() > MAX_LISTED {
            writeln!(report, "  ... and {} more", failures.len() - MAX_LISTED).unwrap();
        }
    }
    println!("{report}");
    assert!(
        failures.is_empty(),
        "{} of {} cases of the official suite ({title}) failed; see the list above",
        failures.len(),
        total.cases
    );
    Some(total)
}

/// Every required test file of the five dialects, formats as annotations.
#[test]
fn required_tests_of_every_dialect() {
    run_suite("required", FormatMode::Annotate, false, json_files_in);
}

/// Each dialect's `optional/format/` files, formats asserted.
#[test]
fn optional_format_tests_with_formats_asserted() {
    run_suite(
        "optional/format, formats asserted",
        FormatMode::Assert,
        true,
        |dir| json_files_in(&dir.join("optional").join("format")),
    );
}

/// Each dialect's other `optional/` files (those directly in it), formats
/// and content asserted: where these files use `format` (a pattern checked
/// through the metaschema's `"format": "regex"`) or the content keywords
/// (draft 7's `content.json`), they expect them to assert.
#[test]
fn optional_tests_of_every_dialect() {
    run_suite(
        "optional, formats and content asserted",
        FormatMode::Assert,
        true,
        |dir| json_files_in(&dir.join("optional")),
    );
}

/// Cases of the previous pin, PyPI's jsonschema 4.23.0 copy, that the
/// current one (4.26.0) reshaped, so that its files no longer check what
/// these did; the verdicts are the same in both copies. Each is rebuilt
/// here rather than fetched, so that the test command still checks what
/// 4.23.0's copy checked:
///
/// - 2020-12's `unevaluatedProperties.json`: 4.23.0's schemas had a root
///   `"type": "object"`, which 4.26.0 dropped. Every group's schema
///   without a root `type` runs again with it; every instance there is an
///   object, so the keyword decides nothing and the expected verdict
///   stands, but the walk then meets `unevaluatedProperties` beside a
///   `type`, as it does in most schemas people write.
/// - 2020-12's `optional/ecmascript-regex.json` checked `\a` (no
///   ECMAScript escape) as a `pattern` through a `$ref` to the 2020-12
///   metaschema, formats asserted; 4.26.0 checks it with `"format":
///   "regex"` directly, so nothing else in the suite shows that the
///   metaschema's own `format` asserts.
///
/// (idn-hostname's mixed Arabic-Indic digits, `\u{660}\u{6F0}`, which
/// 4.26.0 prefixed with an Arabic letter, is a unit test of
/// `format/hostname.rs`.)
#[test]
fn cases_of_the_previous_pin_that_the_current_one_reshaped() {
    let Some(root) = suite_root() else {
        return;
    };
    let resources = remotes(&root);
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("official_suite_previous_pin");
    std::fs::create_dir_all(&work).unwrap();

    let source = root.join("tests/draft2020-12/unevaluatedProperties.json");
    let mut groups = read_json(&source);
    let mut typed = 0;
    for group in groups.as_array_mut().unwrap() {
        let all_objects = group["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|case| case["data"].is_object());
        let schema = group["schema"].as_object_mut().unwrap();
        if all_objects && !schema.contains_key("type") {
            schema.insert("type".into(), Value::from("object"));
            typed += 1;
        }
    }
    // 4.23.0 had the root `type` on 28 of these groups (three more had it
    // on a subschema): fewer here means the file changed again.
    assert!(
        typed >= 28,
        "only {typed} groups of {} took a root type",
        source.display()
    );
    let unevaluated = work.join("unevaluatedProperties.json");
    std::fs::write(&unevaluated, groups.to_string()).unwrap();

    let metaschema_pattern = serde_json::json!([{
        "description": "\\a is not an ECMA 262 control escape",
        "schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": "https://json-schema.org/draft/2020-12/schema"
        },
        "tests": [
            {"description": "when used as a pattern", "data": {"pattern": "\\a"}, "valid": false},
            {"description": "a pattern with an ECMAScript escape", "data": {"pattern": "\\t"}, "valid": true}
        ]
    }]);
    let regex = work.join("ecmascript-regex.json");
    std::fs::write(&regex, metaschema_pattern.to_string()).unwrap();

    let mut failures = Vec::new();
    let mut totals = Vec::new();
    for (file, formats) in [(unevaluated, FormatMode::Annotate), (regex, FormatMode::Assert)] {
        let per_file = run_files(
            "draft2020-12",
            &work,
            std::slice::from_ref(&file),
            Dialect::Draft2020_12,
            formats,
            &resources,
            &mut failures,
        );
        totals.extend(per_file);
    }
    println!("\nthe previous pin's forms of reshaped cases ({typed} unevaluatedProperties groups given a root type):");
    for (file, t) in &totals {
        println!("  draft2020-12/{file}: {}/{} passed", t.passed, t.cases);
    }
    for f in &failures {
        println!(
            "  {}/{} | {} | {}\n      {}",
            f.dialect, f.file, f.group, f.case, f.detail
        );
    }
    assert!(
        failures.is_empty(),
        "{} reshaped cases failed; see the list above",
        failures.len()
    );
}
