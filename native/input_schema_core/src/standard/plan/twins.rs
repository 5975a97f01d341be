//! What the twin tests of the plans' shortcuts share
//! (`type_leaves_tests.rs`, `ref_hops_tests.rs`): each compiles a
//! generated schema twice, takes a shortcut out of one copy, and compares
//! the two on generated instances.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Map, Value};

use crate::budget::Budget;

/// A small generator that repeats: the same seed, the same schemas.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    /// A number below `n` (0 when `n` is 0).
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// The schemas a twin test generates: objects of `properties` (names
/// from `names`), `type`, `required` and, when `additional`, an
/// `additionalProperties` leaf, nesting subschemas whose leaves `leaf`
/// gives (the shortcut's own shape).
pub(super) struct Schemas {
    pub(super) names: &'static [&'static str],
    pub(super) leaf: fn(&mut Rng) -> Value,
    pub(super) additional: bool,
}

impl Schemas {
    pub(super) fn subschema(&self, rng: &mut Rng, depth: usize) -> Value {
        match rng.below(if depth == 0 { 3 } else { 6 }) {
            0 | 1 => (self.leaf)(rng),
            2 => json!({"type": "string", "maxLength": 2}),
            3 => json!({"type": "array", "items": (self.leaf)(rng)}),
            4 => json!({"items": self.subschema(rng, depth - 1)}),
            _ => self.object(rng, depth - 1),
        }
    }

    pub(super) fn object(&self, rng: &mut Rng, depth: usize) -> Value {
        let names = self.names;
        let properties: Map<String, Value> = (0..1 + rng.below(4))
            .map(|_| {
                (
                    names[rng.below(names.len())].to_string(),
                    self.subschema(rng, depth),
                )
            })
            .collect();
        let mut node = Map::new();
        if rng.below(2) == 0 {
            node.insert("type".into(), json!("object"));
        }
        if rng.below(3) == 0 {
            node.insert("required".into(), json!([names[rng.below(names.len())]]));
        }
        if self.additional && rng.below(4) == 0 {
            node.insert("additionalProperties".into(), (self.leaf)(rng));
        }
        node.insert("properties".into(), Value::Object(properties));
        Value::Object(node)
    }
}

/// An instance: a scalar of each type (an integral float and a fraction
/// among them), short and long strings, empty containers, and lists and
/// objects (keys from `names`) nested up to `depth`.
pub(super) fn instance(rng: &mut Rng, depth: usize, names: &[&str]) -> Value {
    match rng.below(if depth == 0 { 10 } else { 12 }) {
        0 => json!(null),
        1 => json!(true),
        2 => json!(7),
        3 => json!(1.0),
        4 => json!(2.5),
        5 => json!("ab"),
        6 => json!("abc"),
        7 => json!([]),
        8 => json!({}),
        9 => json!({"a": "x"}),
        10 => Value::Array(
            (0..rng.below(4))
                .map(|_| instance(rng, depth - 1, names))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(5))
                .map(|_| {
                    let name = names[rng.below(names.len())].to_string();
                    (name, instance(rng, depth - 1, names))
                })
                .collect(),
        ),
    }
}

/// The units a call spends within `limit` units, and its answer.
pub(super) fn within<T>(limit: u64, call: impl FnOnce(&Budget) -> T) -> (u64, T) {
    let budget = Budget::new(limit);
    let answer = call(&budget);
    (limit - budget.left() as u64, answer)
}
