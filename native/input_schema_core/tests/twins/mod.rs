//! What the twin tests share (`tests/folded_all_of.rs`,
//! `tests/recording_shortcuts.rs`, `tests/tagged_branches.rs`): each
//! compares a schema that takes a shortcut with a twin that cannot, on
//! schemas and instances generated from a fixed seed.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use input_schema_core::budget::Budget;
use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Options, Validator};
use serde_json::{json, Value};

/// A small deterministic generator (64-bit LCG, high bits).
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Units a call takes.
pub fn spent(call: impl FnOnce(&Budget)) -> u64 {
    let budget = Budget::new(u64::MAX / 2);
    call(&budget);
    u64::MAX / 2 - budget.left() as u64
}

/// Units `is_valid` takes.
pub fn units(v: &Validator, instance: &Value) -> u64 {
    spent(|b| {
        v.is_valid_within(JsonRef::from(instance), b).unwrap();
    })
}

/// Asserts that `fast` and its twin `slow` give `instance` the same
/// verdict and the same failures, in the same order; the verdict, and
/// whether `fast` decided it in fewer units.
pub fn same_on(fast: &Validator, slow: &Validator, schema: &Value, instance: &Value) -> (bool, bool) {
    let verdict = fast.is_valid(JsonRef::from(instance)).unwrap();
    assert_eq!(
        verdict,
        slow.is_valid(JsonRef::from(instance)).unwrap(),
        "schema {schema}\ninstance {instance}"
    );
    let errors = fast.validate(JsonRef::from(instance)).unwrap();
    assert_eq!(
        errors,
        slow.validate(JsonRef::from(instance)).unwrap(),
        "schema {schema}\ninstance {instance}"
    );
    assert_eq!(verdict, errors.is_empty(), "schema {schema}\ninstance {instance}");
    (verdict, units(fast, instance) < units(slow, instance))
}

/// What `compare` found: the instances compared, how many were valid, and
/// how many the schema with the shortcut decided in fewer units.
pub struct Tally {
    pub compared: usize,
    pub valid: usize,
    pub cheaper: usize,
}

/// Compiles 3,000 generated pairs of a schema and its twin, and checks 8
/// generated instances against each pair (`same_on`).
pub fn compare(
    seed: u64,
    mut schemas: impl FnMut(&mut Rng) -> (Value, Value),
    mut instance: impl FnMut(&mut Rng) -> Value,
) -> Tally {
    let mut rng = Rng(seed);
    let mut tally = Tally {
        compared: 0,
        valid: 0,
        cheaper: 0,
    };
    for _ in 0..3_000 {
        let (schema, twin) = schemas(&mut rng);
        let fast = Validator::compile(&schema, &Options::default()).expect("compiles");
        let slow = Validator::compile(&twin, &Options::default()).expect("compiles");
        for _ in 0..8 {
            let instance = instance(&mut rng);
            let (verdict, fewer) = same_on(&fast, &slow, &schema, &instance);
            tally.compared += 1;
            tally.valid += usize::from(verdict);
            tally.cheaper += usize::from(fewer);
        }
    }
    tally
}

/// A value of up to `depth` levels: a number, one of `names`, `true`, a
/// long string, or an object keyed by `names`.
pub fn nested_value(rng: &mut Rng, depth: usize, names: &[&str]) -> Value {
    match rng.below(if depth == 0 { 4 } else { 6 }) {
        0 => json!(rng.below(4)),
        1 => json!(names[rng.below(names.len())]),
        2 => json!(true),
        3 => json!("long text"),
        _ => Value::Object(
            (0..rng.below(5))
                .map(|_| {
                    (
                        names[rng.below(names.len())].to_string(),
                        nested_value(rng, depth - 1, names),
                    )
                })
                .collect(),
        ),
    }
}
