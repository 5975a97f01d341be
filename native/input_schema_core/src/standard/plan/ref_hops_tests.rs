//! Through a property or `items` schema that is a `$ref` alone, the plans
//! go straight to the schema its chain of `$ref`s leads to
//! (`inline_subschemas`, `Walk::hopped`). Each generated schema is compiled
//! twice, and the second copy's plans visit every such schema through its
//! node (and `Walk::hop`): both must give every generated instance the
//! same verdict, the same failures and the same units, in `is_valid` and
//! in `validate`; run out of work at the same budgets; and meet the depth
//! limit at the same nesting, at every depth limit.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Map, Value};

use super::twins::{instance, visits, visits_mut, within, Rng, Schemas};
use super::Visit;
use crate::json::JsonRef;
use crate::keywords::Body;
use crate::standard::{Dialect, Limit, Options, Validator};

const NAMES: [&str; 4] = ["a", "b", "id", "kids"];

/// Each plan's visits through `$ref`s: `(visits, hops)`.
fn hopping(v: &Validator) -> (usize, u32) {
    let visits = v
        .nodes
        .iter()
        .filter_map(|node| match &node.body {
            Body::Keywords(_, Some(plan)) => Some(&**plan),
            _ => None,
        })
        .flat_map(visits)
        .filter_map(|visit| match visit {
            Visit::Hops { hops, .. } => Some(hops),
            _ => None,
        });
    visits.fold((0, 0), |(n, most), hops| (n + 1, most.max(hops)))
}

/// `v` with its plans' hops taken away: each such value is visited
/// through the `$ref`'s node.
fn without_hops(mut v: Validator) -> Validator {
    for node in v.nodes.iter_mut() {
        if let Body::Keywords(_, Some(plan)) = &mut node.body {
            for visit in visits_mut(plan) {
                if matches!(visit, Visit::Hops { .. }) {
                    *visit = Visit::Node;
                }
            }
        }
    }
    v
}

/// A `$ref` to one of the definitions: chains of 1 to 10 `$ref`s alone
/// (longer than the plans follow), a cycle of them, the root, or a schema
/// that is no `$ref`.
const SCHEMAS: Schemas = Schemas {
    names: &NAMES,
    leaf: reference,
    additional: false,
};

fn reference(rng: &mut Rng) -> Value {
    let target = match rng.below(8) {
        0 => "#".to_string(),
        1 => "#/$defs/loop0".to_string(),
        2 => "#/$defs/missing_type".to_string(),
        _ => format!("#/$defs/chain{}", rng.below(10)),
    };
    json!({ "$ref": target })
}

/// The root: an object or an array, with the definitions the references
/// name. `chain0` is the end of every chain: an object, a string of at
/// most two characters, or `true`.
fn schema(rng: &mut Rng) -> Value {
    let mut root = if rng.below(3) == 0 {
        json!({"type": "array", "items": SCHEMAS.subschema(rng, 2)})
    } else {
        SCHEMAS.object(rng, 2)
    };
    let end = match rng.below(3) {
        0 => SCHEMAS.object(rng, 1),
        1 => json!({"type": "string", "maxLength": 2}),
        _ => json!(true),
    };
    let mut defs = Map::new();
    defs.insert("chain0".into(), end);
    for i in 1..10 {
        defs.insert(
            format!("chain{i}"),
            json!({ "$ref": format!("#/$defs/chain{}", i - 1) }),
        );
    }
    defs.insert("loop0".into(), json!({"$ref": "#/$defs/loop1"}));
    defs.insert("loop1".into(), json!({"$ref": "#/$defs/loop0"}));
    defs.insert(
        "missing_type".into(),
        json!({"$ref": "#/$defs/chain1", "type": "object"}),
    );
    root["$defs"] = Value::Object(defs);
    root
}

#[test]
fn a_ref_alone_the_plan_goes_through_decides_as_its_node() {
    let mut rng = Rng(0x4ef_4095);
    let (mut compared, mut valid, mut schemas_hopping, mut cut_short) = (0, 0, 0, 0);
    let mut longest = 0;
    for round in 0..1_500 {
        let dialect = if round % 4 == 0 {
            Dialect::Draft7
        } else {
            Dialect::Draft2020_12
        };
        let options = Options {
            dialect,
            ..Options::default()
        };
        let schema = schema(&mut rng);
        let fast = Validator::compile(&schema, &options).unwrap();
        let slow = without_hops(Validator::compile(&schema, &options).unwrap());
        assert_eq!(hopping(&slow).0, 0);
        let (visits, most) = hopping(&fast);
        schemas_hopping += usize::from(visits > 0);
        longest = longest.max(most);
        for _ in 0..6 {
            let value = instance(&mut rng, 3, &NAMES);
            let at = JsonRef::from(&value);
            let verdict = fast.is_valid(at);
            assert_eq!(verdict, slow.is_valid(at), "{schema}\n{value}");
            assert_eq!(fast.validate(at), slow.validate(at), "{schema}\n{value}");
            let quick = |v: &Validator, limit| within(limit, |b| v.is_valid_within(at, b));
            let full = |v: &Validator, limit| within(limit, |b| v.validate_within(at, b));
            let (units, _) = quick(&fast, 1 << 40);
            assert_eq!(units, quick(&slow, 1 << 40).0, "{schema}\n{value}");
            assert_eq!(
                full(&fast, 1 << 40).0,
                full(&slow, 1 << 40).0,
                "{schema}\n{value}"
            );
            // Every budget short of the whole: the same answer (the work
            // limit, or a verdict reached first) and the same units spent.
            for limit in 0..units {
                assert_eq!(
                    quick(&fast, limit),
                    quick(&slow, limit),
                    "{limit}: {schema}\n{value}"
                );
                cut_short += usize::from(quick(&fast, limit).1 == Err(Limit::Work));
            }
            compared += 1;
            valid += usize::from(verdict == Ok(true));
        }
    }
    println!(
        "{compared} instances, {valid} valid; {schemas_hopping} of 1,500 schemas hop, \
         at most {longest} hops; {cut_short} budgets cut short"
    );
    // Not vacuous: most schemas hop, chains of every followed length
    // occur, both verdicts occur, and budgets run out.
    assert!(schemas_hopping > 1_000, "{schemas_hopping} of 1,500");
    assert_eq!(longest, super::MAX_VISIT_HOPS);
    assert!(
        valid > compared / 5 && valid < compared * 4 / 5,
        "{valid} of {compared}"
    );
    assert!(cut_short > 10_000, "{cut_short}");
}

#[test]
fn a_ref_alone_the_plan_goes_through_meets_the_depth_limit_where_its_node_does() {
    // Objects nested through `n` (four hops back to the root: r3, r2, r1
    // and the root) and `m` (one), and lists through `l` (whose `items`
    // takes three), down to a value that `t` checks by two hops to `true`
    // (which passes with no depth check of its own): every depth limit from 0 to 24, against
    // every nesting up to it, meets the limit where the hops through the
    // nodes do. (`minProperties` keeps the root's plan out of the `$ref`
    // nodes, which would otherwise fold it and hold no `$ref` alone.)
    let schema = json!({
        "minProperties": 1,
        "$defs": {
            "r1": {"$ref": "#"},
            "r2": {"$ref": "#/$defs/r1"},
            "r3": {"$ref": "#/$defs/r2"},
            "always": true,
            "yes": {"$ref": "#/$defs/always"}
        },
        "properties": {
            "n": {"$ref": "#/$defs/r3"},
            "m": {"$ref": "#"},
            "l": {"items": {"$ref": "#/$defs/r2"}},
            "s": {"type": "string"},
            "t": {"$ref": "#/$defs/yes"}
        }
    });
    let options = Options::default();
    let mut fast = Validator::compile(&schema, &options).unwrap();
    assert_eq!(hopping(&fast), (4, 4));
    let mut slow = without_hops(Validator::compile(&schema, &options).unwrap());
    let mut errors = 0;
    for limit in 0..25 {
        fast.limits.max_walk_depth = limit;
        slow.limits.max_walk_depth = limit;
        for key in ["n", "m", "l"] {
            let mut value = json!({"s": "x", "t": 1});
            for depth in 0..=limit {
                if depth > 0 {
                    value = if key == "l" {
                        json!({ "l": [value] })
                    } else {
                        json!({ key: value })
                    };
                }
                let at = JsonRef::from(&value);
                let verdict = fast.is_valid(at);
                assert_eq!(verdict, slow.is_valid(at), "limit {limit}, {key} {depth}");
                assert_eq!(
                    fast.validate(at),
                    slow.validate(at),
                    "limit {limit}, {key} {depth}"
                );
                let units = |v: &Validator| within(1 << 40, |b| v.is_valid_within(at, b)).0;
                assert_eq!(units(&fast), units(&slow), "limit {limit}, {key} {depth}");
                errors += usize::from(verdict == Err(Limit::Depth));
            }
        }
    }
    // Both sides of each limit are seen.
    println!("{errors} depth errors");
    assert!(errors > 300, "{errors}");
}

#[test]
fn a_schema_with_a_dynamic_scope_keeps_its_hops_in_the_walk() {
    // With `$dynamicRef`, each `$ref` is walked as a keyword (it may enter
    // a resource): the plans hop nowhere.
    let schema = json!({
        "$dynamicAnchor": "node",
        "$defs": {"r": {"$ref": "#"}},
        "properties": {"n": {"$ref": "#/$defs/r"}, "d": {"$dynamicRef": "#node"}}
    });
    let v = Validator::compile(&schema, &Options::default()).unwrap();
    assert!(v.dynamic);
    assert_eq!(hopping(&v), (0, 0));
    let value = json!({"n": {"n": {"d": 1}}});
    assert_eq!(v.is_valid(JsonRef::from(&value)), Ok(true));
}
