//! Differential tests of the standard entry point (`standard::Validator`).
//!
//! 1. Against the `jsonschema` crate (0.60.2, a dev-dependency), draft by
//!    draft: documents generated in each of draft 4, 6, 7, 2019-09 and
//!    2020-12 with that dialect's keywords (`type`, `enum`, `const`, the
//!    number bounds with `multipleOf` and draft 4's boolean exclusive
//!    bounds, string lengths and patterns, `items` in the dialect's forms
//!    with `prefixItems`/`additionalItems`, `contains` with
//!    `minContains`/`maxContains`, `uniqueItems`, the object keywords with
//!    `dependencies` or `dependentRequired`/`dependentSchemas` (and at
//!    times `dependencies`, which later metaschemas keep), the
//!    applicators with `if`/`then`/`else`, `$ref` to `definitions`/`$defs`,
//!    beside other keywords too, `unevaluatedProperties`/`unevaluatedItems`),
//!    compiled by both with the same draft, `is_valid` compared on generated
//!    instances. A schema one side compiles and the other refuses is a
//!    failure too.
//! 2. The three ways of asking agree on every case: `is_valid` (stops at the
//!    first failure), `validate` (every failure: no unit exactly when
//!    valid), and `validate` again (the same units).
//! 3. Against the gateway, where their semantics coincide: documents of
//!    the gateway's subset (object root, no `multipleOf`,
//!    `patternProperties`, `contains`, `if`, `unevaluated*`; `$ref` beside
//!    other keywords only from 2019-09, where both apply them) in each
//!    dialect, on object instances without `1.0`-like numbers; schemas one
//!    side refuses (the gateway refuses `anyOf` beside `oneOf`) are skipped
//!    and counted.
//!
//! Generators and checks: `tests/oracle/standard.rs`, shared with the fuzz
//! target `standard_schemas`. Seeds are fixed; `ORACLE_CASES` sets the
//! schemas per dialect (default 3,000, eight instances each).
//!
//! Differences kept out of the generated space (each found by this test,
//! each checked by hand):
//! - Draft 4 and `1.0` (no longer a difference): both sides follow draft 4's
//!   own definition of an integer ("a JSON number without a fraction or
//!   exponent part"), so `{"type": "integer"}` refuses `1.0` in draft 4 and
//!   accepts it from draft 6. This test found the difference first; draft
//!   4 instances are still written without such numbers (`1.0` becomes
//!   `1`), and schemas keep them (`enum: [1.0]` against `1` agrees).
//! - Numbers written with a fraction or an exponent are read as doubles
//!   here; `jsonschema` (arbitrary precision) keeps the decimal:
//!   `9007199254740993.0` is 9007199254740992 here, so `{"enum":
//!   [9007199254740993]}` refuses it and `jsonschema` accepts it; `1e300`
//!   is the nearest double here, not 10^300. Generated floats are exact
//!   doubles, and an integer is rewritten as a float (`1` -> `1.0`) only up
//!   to 2^53. Integers of any size are exact on both sides.
//! - 2019-09 `contains` and `unevaluatedItems`: `jsonschema` counts the items
//!   `contains` matched as evaluated in 2019-09 too; that is 2020-12's rule
//!   (2019-09's `unevaluatedItems` reads only `items`, `additionalItems` and
//!   `unevaluatedItems`): `{"contains": true, "unevaluatedItems": false}`
//!   and `[1]` are invalid here in 2019-09, valid there. A 2019-09 document
//!   has one of the two keywords, never both.
//! - `dependencies` in 2019-09 and 2020-12 (both sides check it, as those
//!   dialects' metaschemas keep it): here its schemas are in-place
//!   applicators like `dependentSchemas`, so what they evaluate counts for
//!   `unevaluatedProperties`; `jsonschema` reads only `dependentSchemas`
//!   there. `{"dependencies": {"a": {"additionalProperties": true}},
//!   "unevaluatedProperties": false}` and `{"a": 1, "b": 2}`: valid here,
//!   invalid there. Generated 2019-09 and 2020-12 documents give
//!   `dependencies` lists of names only; its schemas there are checked by
//!   the suite's optional `dependencies-compatibility` files.
//! - `format`: an annotation here; `jsonschema` asserts formats by default
//!   in drafts 4 to 7, so it runs with `should_validate_formats(false)`
//!   (`{"format": "email"}` and `"x"`: valid here, invalid in its default
//!   draft-7 mode).
//! - Patterns: only the portable subset (`PATTERNS`), on strings without
//!   `\r` or line separators. `jsonschema` translates ECMAScript into Rust
//!   regex syntax and keeps Rust's meanings elsewhere: its `.` matches `\r`
//!   and U+2028 (ECMAScript's does not: `^.$` against `"\r"` is invalid
//!   here, valid there), its `\b` is Unicode-aware (`\bé` finds `"aé"` here,
//!   not there). The whole ECMAScript grammar is compared against `regress`
//!   in `tests/oracles.rs`.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod oracle;
#[path = "oracle/standard.rs"]
mod standard;

use input_schema_core::standard::Dialect;
use oracle::Rng;
use standard::{gateway_case, standard_case, Disagreement, GatewayTally, Tally};

/// Instances per generated schema.
const INSTANCES: usize = 8;

/// Disagreements printed in full.
const SHOWN: usize = 12;

fn cases() -> usize {
    std::env::var("ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000)
}

fn seed(dialect: Dialect) -> u64 {
    0x5DEE_CE66_D1CE_4E5B ^ (dialect as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn report(found: &[Disagreement]) {
    if found.is_empty() {
        return;
    }
    for d in found.iter().take(SHOWN) {
        eprintln!("{d}");
    }
    panic!(
        "{} disagreements (the first {} above)",
        found.len(),
        found.len().min(SHOWN)
    );
}

fn against_jsonschema(dialect: Dialect) {
    let mut rng = Rng::seeded(seed(dialect));
    let mut found = Vec::new();
    let mut tally = Tally::default();
    let schemas = cases();
    for _ in 0..schemas {
        standard_case(&mut tally, &mut rng, dialect, INSTANCES, &mut found);
    }
    println!(
        "{} vs jsonschema: {schemas} schemas, {} instances compared ({} valid), {} schemas refused by both, {} instances over a limit (skipped), {} disagreements",
        dialect.name(),
        tally.compared,
        tally.valid,
        tally.refused_by_both,
        tally.over_limit,
        found.len()
    );
    println!("  failing keywords: {}", tally.failing());
    if !tally.refusals.is_empty() {
        println!("  refused by both (reason here): {}", tally.refused());
    }
    report(&found);
}

#[test]
fn draft4_agrees_with_jsonschema() {
    against_jsonschema(Dialect::Draft4);
}

#[test]
fn draft6_agrees_with_jsonschema() {
    against_jsonschema(Dialect::Draft6);
}

#[test]
fn draft7_agrees_with_jsonschema() {
    against_jsonschema(Dialect::Draft7);
}

#[test]
fn draft2019_09_agrees_with_jsonschema() {
    against_jsonschema(Dialect::Draft2019_09);
}

#[test]
fn draft2020_12_agrees_with_jsonschema() {
    against_jsonschema(Dialect::Draft2020_12);
}

#[test]
fn gateway_agrees_with_the_standard_where_they_coincide() {
    let mut found = Vec::new();
    for dialect in Dialect::ALL {
        let mut rng = Rng::seeded(seed(dialect).rotate_left(17));
        let mut tally = GatewayTally::default();
        for _ in 0..cases() {
            gateway_case(&mut tally, &mut rng, dialect, INSTANCES, &mut found);
        }
        println!(
            "{} gateway vs standard: {} instances compared ({} valid), {} schemas skipped (outside the subset or refused by the metaschema), {} instances skipped",
            dialect.name(),
            tally.compared,
            tally.valid,
            tally.schemas_skipped,
            tally.instances_skipped,
        );
        if !tally.refusals.is_empty() {
            println!("  schemas skipped: {}", tally.refused());
        }
    }
    report(&found);
}
