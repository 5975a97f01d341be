//! What the twin tests of the plans' shortcuts share
//! (`type_leaves_tests.rs`, `ref_hops_tests.rs`): each compiles a
//! generated schema twice, takes a shortcut out of one copy, and compares
//! the two on generated instances.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Map, Value};

use super::{Plan, Visit};
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
/// from `names`), `type`, `required`, `patternProperties` (patterns that
/// some of the names match) and, when `additional`, an
/// `additionalProperties` leaf, nesting subschemas whose leaves `leaf`
/// gives (the shortcut's own shape).
pub(super) struct Schemas {
    pub(super) names: &'static [&'static str],
    pub(super) leaf: fn(&mut Rng) -> Value,
    pub(super) additional: bool,
}

/// The patterns `Schemas::object` draws: a prefix, a suffix and a
/// character class.
const PATTERNS: [&str; 3] = ["^a", "s$", "^[bi]"];

/// Every visit a plan makes of a subschema: `items`, each property's and
/// each pattern's.
pub(super) fn visits(plan: &Plan) -> impl Iterator<Item = Visit> + '_ {
    let object = plan.object.iter();
    std::iter::once(plan.items_visit)
        .chain(object.clone().flat_map(|o| o.names.iter().map(|name| name.visit)))
        .chain(object.flat_map(|o| o.patterns.iter().map(|pattern| pattern.2)))
}

/// `visits`, to change.
pub(super) fn visits_mut(plan: &mut Plan) -> impl Iterator<Item = &mut Visit> + '_ {
    let Plan {
        items_visit, object, ..
    } = plan;
    let (names, patterns) = match object {
        Some(o) => (&mut o.names[..], &mut o.patterns[..]),
        None => (&mut [][..], &mut [][..]),
    };
    std::iter::once(items_visit)
        .chain(names.iter_mut().map(|name| &mut name.visit))
        .chain(patterns.iter_mut().map(|pattern| &mut pattern.2))
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
        if rng.below(3) == 0 {
            let patterns: Map<String, Value> = (0..1 + rng.below(2))
                .map(|_| (PATTERNS[rng.below(PATTERNS.len())].to_string(), (self.leaf)(rng)))
                .collect();
            node.insert("patternProperties".into(), Value::Object(patterns));
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
pub(crate) fn within<T>(limit: u64, call: impl FnOnce(&Budget) -> T) -> (u64, T) {
    let budget = Budget::new(limit);
    let answer = call(&budget);
    (limit - budget.left() as u64, answer)
}
