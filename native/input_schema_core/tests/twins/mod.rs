//! What the twin tests share (`tests/folded_all_of.rs`,
//! `tests/recording_shortcuts.rs`, `tests/tagged_branches.rs`): each
//! compares a schema that takes a shortcut with a twin that cannot, on
//! schemas and instances generated from a fixed seed.

#![allow(dead_code, clippy::unwrap_used)]

use input_schema_core::budget::Budget;
use input_schema_core::json::JsonRef;
use input_schema_core::standard::Validator;
use serde_json::Value;

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
