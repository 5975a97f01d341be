//! Differential tests against independent implementations (dev-dependencies
//! only): the `regress` crate, an ECMAScript regular-expression engine, for
//! patterns; the `jsonschema` crate for whole schemas. Cases are generated
//! from a fixed seed; `ORACLE_CASES` raises the count (default 3,000 each).
//!
//! Documented differences kept out of the generated space:
//! - `integer` does not accept `1.0` here (JSON Schema says it does), so
//!   generated floats always have a fraction;
//! - a `]` right after `[` is a literal here (ECMAScript: an empty class), and
//!   a lone `{`, `}` or `]` is a literal here (ECMAScript Unicode mode: a
//!   syntax error), so none of these is generated;
//! - `\-` outside a class is a literal here (the contract lists it among the
//!   escapes); ECMAScript's Unicode mode allows it only inside a class;
//! - `required` may repeat a name here; `jsonschema` refuses the schema;
//! - integers beyond 64 bits are compared exactly here; they are generated
//!   only far from every other generated number (see `gen_wide_integer`).

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod oracle;

use oracle::{draft04_case, pattern_case, schema_case, section9_case, Draft, Rng};

fn cases() -> usize {
    std::env::var("ORACLE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000)
}

#[test]
fn patterns_agree_with_regress() {
    let mut rng = Rng::seeded(0x9E37_79B9_7F4A_7C15);
    let (mut compared, mut skipped) = (0usize, 0usize);
    for _ in 0..cases() {
        let (c, s) = pattern_case(&mut rng);
        compared += c;
        skipped += s;
    }
    println!("patterns vs regress: {compared} matches compared, {skipped} patterns refused by both");
}

#[test]
fn schemas_agree_with_jsonschema() {
    let mut rng = Rng::seeded(0xD1B5_4A32_D192_ED03);
    let (mut compared, mut rejected) = (0usize, 0usize);
    for _ in 0..cases() {
        let (c, r) = schema_case(&mut rng);
        compared += c;
        rejected += r;
    }
    println!("schemas vs jsonschema: {compared} instances compared, {rejected} rejected by both");
}

fn agree_with(draft: Draft, seed: u64) -> (usize, usize, usize) {
    let mut rng = Rng::seeded(seed);
    let (mut compared, mut rejected) = (0, 0);
    for _ in 0..cases() {
        let (c, r) = section9_case(&mut rng, draft);
        compared += c;
        rejected += r;
    }
    (cases(), compared, rejected)
}

#[test]
fn references_and_section_9_keywords_agree_with_jsonschema_2020_12() {
    let (schemas, compared, rejected) = agree_with(Draft::Current, 0x9E37_79B9_7F4A_7C15);
    println!("section 9 (2020-12) vs jsonschema: {schemas} schemas, {compared} instances compared, {rejected} rejected by both");
}

#[test]
fn draft_07_forms_agree_with_jsonschema_draft_07() {
    let (schemas, compared, rejected) = agree_with(Draft::Seven, 0xBF58_476D_1CE4_E5B9);
    println!("section 9 (draft-07) vs jsonschema: {schemas} schemas, {compared} instances compared, {rejected} rejected by both");
}

#[test]
fn draft_04_boolean_exclusive_bounds_agree_with_jsonschema_draft_04() {
    let mut rng = Rng::seeded(0x94D0_49BB_1331_11EB);
    let compared: usize = (0..cases()).map(|_| draft04_case(&mut rng)).sum();
    println!("draft-04 bounds vs jsonschema: {compared} instances compared");
}
