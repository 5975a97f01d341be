//! The depth limit counts nested evaluations: instance levels and in-place
//! steps (`$ref`, `allOf` and the other applicators). The walks that record
//! nothing fold some in-place steps into one plan (a `$ref` or an `allOf`
//! whose targets hold only `type` and `properties`); they still count the
//! steps they fold, so `is_valid`, `validate`'s first pass and its
//! recording walk meet the limit at the same nesting, for a valid instance
//! and an invalid one alike.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Limit, Options, Validator, MAX_WALK_DEPTH};
use serde_json::{json, Value};

/// A recursive schema through property `a`, written as definitions, and
/// the nested evaluations (as the recording walk makes them, keyword by
/// keyword) it takes: on entering its `entry` definition, on each level
/// of the instance, and at the bottom, past the last level's entry. Each
/// allows objects and integers, and only the last schemas on the way down
/// say so: a string at the bottom fails there, after every depth check on
/// the way, in every walk.
struct Family {
    name: &'static str,
    defs: Value,
    entry: &'static str,
    enter: usize,
    level: usize,
    bottom: usize,
}

fn families() -> Vec<Family> {
    let types = json!(["object", "integer"]);
    vec![
        Family {
            // `s`; then `a`'s `$ref` alone and `s` again.
            name: "a property that is a $ref alone",
            defs: json!({"s": {"type": types, "properties": {"a": {"$ref": "#/$defs/s"}}}}),
            entry: "s",
            enter: 1,
            level: 2,
            bottom: 0,
        },
        Family {
            // `a`'s `$ref` beside `type` is folded into `a`'s plan.
            name: "a property of a $ref beside type",
            defs: json!({"s": {"properties": {"a": {"$ref": "#/$defs/s", "type": types}}}}),
            entry: "s",
            enter: 1,
            level: 2,
            bottom: 0,
        },
        Family {
            // `a`, its branch's `$ref` alone and `n`.
            name: "a property of a one-branch allOf of a $ref alone",
            defs: json!({"n": {"type": types, "properties": {"a": {"allOf": [{"$ref": "#/$defs/n"}]}}}}),
            entry: "n",
            enter: 1,
            level: 3,
            bottom: 0,
        },
        Family {
            // As above, through one more `$ref` alone (`m`).
            name: "an allOf branch through two $refs alone",
            defs: json!({
                "m": {"$ref": "#/$defs/n"},
                "n": {"type": types, "properties": {"a": {"allOf": [{"$ref": "#/$defs/m"}]}}}
            }),
            entry: "n",
            enter: 1,
            level: 4,
            bottom: 0,
        },
        Family {
            // `b`'s `allOf` folds `n`, whose own `allOf` folds `c`: `b`,
            // its branch's `$ref` alone, `n`, its branch's `$ref` alone and
            // `c`; then `a`'s `$ref` alone and the same five.
            name: "an allOf of a schema whose own allOf is folded",
            defs: json!({
                "c": {"type": types, "properties": {"a": {"$ref": "#/$defs/b"}}},
                "n": {"allOf": [{"$ref": "#/$defs/c"}]},
                "b": {"allOf": [{"$ref": "#/$defs/n"}]}
            }),
            entry: "b",
            enter: 5,
            level: 6,
            bottom: 0,
        },
        Family {
            // `n`; then its first branch's `$ref` alone, `c`, `a`'s `$ref`
            // alone and `n`. Below the last `n`, its second branch goes
            // deepest: its `$ref` alone, `m` and `t`.
            name: "an allOf whose branches reach different depths",
            defs: json!({
                "c": {"type": types, "properties": {"a": {"$ref": "#/$defs/n"}}},
                "t": {"type": types},
                "m": {"$ref": "#/$defs/t"},
                "n": {"allOf": [{"$ref": "#/$defs/c"}, {"$ref": "#/$defs/m"}]}
            }),
            entry: "n",
            enter: 1,
            level: 4,
            bottom: 3,
        },
        Family {
            // `n` folds both its `$ref` and its `allOf`: `n`, then `c` and
            // `a`'s `$ref` alone. Below the last `n`, the `allOf` goes
            // deepest: its branch's `$ref` alone, `m` and `t`.
            name: "a $ref and an allOf of different depths beside each other",
            defs: json!({
                "c": {"type": types, "properties": {"a": {"$ref": "#/$defs/n"}}},
                "t": {"type": types},
                "m": {"$ref": "#/$defs/t"},
                "n": {"$ref": "#/$defs/c", "allOf": [{"$ref": "#/$defs/m"}]}
            }),
            entry: "n",
            enter: 1,
            level: 3,
            bottom: 3,
        },
    ]
}

/// `a` nested `levels` deep around `leaf`.
fn nested(levels: usize, leaf: Value) -> Value {
    (0..levels).fold(leaf, |inner, _| json!({"a": inner}))
}

/// The family's schema behind a root `$ref` alone and `hops` more `$ref`s
/// alone, each a nested evaluation.
fn behind_hops(family: &Family, hops: usize) -> Value {
    let mut defs = family.defs.clone();
    for i in 0..hops {
        let next = if i + 1 == hops {
            family.entry.to_string()
        } else {
            format!("p{}", i + 1)
        };
        defs[format!("p{i}")] = json!({"$ref": format!("#/$defs/{next}")});
    }
    let first = if hops == 0 {
        family.entry.to_string()
    } else {
        "p0".to_string()
    };
    json!({"$defs": defs, "$ref": format!("#/$defs/{first}")})
}

#[test]
fn every_walk_meets_the_depth_limit_at_the_same_nesting_through_folded_schemas() {
    for family in families() {
        // Every residue of the limit by the level's evaluations, so that
        // the deepest check of the bottom lands on the limit exactly.
        for hops in 0..family.level {
            let name = format!("{}, behind {hops} more $refs", family.name);
            let v = Validator::compile(&behind_hops(&family, hops), &Options::default()).unwrap();
            // The deepest nesting whose evaluations all fit under the limit.
            let above = 1 + hops + family.enter + family.bottom;
            let fits = (MAX_WALK_DEPTH - above) / family.level;
            let past = fits + 1;
            let valid = |levels| nested(levels, json!(1));
            let invalid = |levels| nested(levels, json!("x"));
            assert_eq!(v.is_valid(JsonRef::from(&valid(fits))), Ok(true), "{name}");
            assert_eq!(v.validate(JsonRef::from(&valid(fits))), Ok(vec![]), "{name}");
            assert_eq!(v.is_valid(JsonRef::from(&invalid(fits))), Ok(false), "{name}");
            let failures = v.validate(JsonRef::from(&invalid(fits))).unwrap();
            assert!(!failures.is_empty(), "{name}");
            assert!(
                failures.iter().all(|f| f.keyword == "type"),
                "{name}: {failures:?}"
            );
            for instance in [valid(past), invalid(past)] {
                assert_eq!(v.is_valid(JsonRef::from(&instance)), Err(Limit::Depth), "{name}");
                assert_eq!(v.validate(JsonRef::from(&instance)), Err(Limit::Depth), "{name}");
            }
        }
    }
}
