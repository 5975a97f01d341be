//! The plans check a property or `items` schema that holds `type` alone
//! themselves (`inline_subschemas`, `Walk::type_leaf`). Each generated
//! schema is compiled twice, and the second copy's plans have those `type`
//! bits taken away, so that it visits each such schema's node: both must
//! give every generated instance the same verdict, the same failures and
//! the same units, in `is_valid` and in `validate`, and meet the depth
//! limit at the same nesting.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{json, Value};

use super::twins::{instance, visits, visits_mut, within, Rng, Schemas};
use super::Visit;
use crate::json::JsonRef;
use crate::keywords::Body;
use crate::standard::{Dialect, Limit, Options, Validator, MAX_WALK_DEPTH};

const NAMES: [&str; 4] = ["a", "b", "id", "tags"];
const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// The schemas' `type` bits the plans hold for their values.
fn inlined(v: &Validator) -> usize {
    v.nodes
        .iter()
        .filter_map(|node| match &node.body {
            Body::Keywords(_, Some(plan)) => Some(plan),
            _ => None,
        })
        .map(|plan| {
            visits(plan)
                .filter(|visit| matches!(visit, Visit::Type(_)))
                .count()
        })
        .sum()
}

/// Of them, those of `patternProperties`.
fn inlined_patterns(v: &Validator) -> usize {
    v.nodes
        .iter()
        .filter_map(|node| match &node.body {
            Body::Keywords(_, Some(plan)) => plan.object.as_ref(),
            _ => None,
        })
        .map(|object| {
            object
                .patterns
                .iter()
                .filter(|pattern| matches!(pattern.2, Visit::Type(_)))
                .count()
        })
        .sum()
}

/// `v` with its plans' `type` bits taken away: each such value is checked
/// through its schema's node.
fn without_inlined_types(mut v: Validator) -> Validator {
    for node in v.nodes.iter_mut() {
        if let Body::Keywords(_, Some(plan)) = &mut node.body {
            for visit in visits_mut(plan) {
                if matches!(visit, Visit::Type(_)) {
                    *visit = Visit::Node;
                }
            }
        }
    }
    v
}

const SCHEMAS: Schemas = Schemas {
    names: &NAMES,
    leaf: type_alone,
    additional: true,
};

fn type_alone(rng: &mut Rng) -> Value {
    if rng.below(4) == 0 {
        let first = rng.below(7);
        let second = (first + 1 + rng.below(6)) % 7;
        json!({"type": [TYPES[first], TYPES[second]]})
    } else {
        json!({"type": TYPES[rng.below(7)]})
    }
}

#[test]
fn a_type_alone_checked_by_the_plan_decides_as_its_node() {
    let mut rng = Rng(0x7e57_1eaf);
    let (mut compared, mut valid, mut schemas_inlined, mut patterns_inlined) = (0, 0, 0, 0);
    for round in 0..2_000 {
        // Draft 4 counts no float as an integer; 2020-12 counts 1.0.
        let dialect = if round % 4 == 0 {
            Dialect::Draft4
        } else {
            Dialect::Draft2020_12
        };
        let options = Options {
            dialect,
            ..Options::default()
        };
        let schema = if rng.below(3) == 0 {
            json!({"type": "array", "items": SCHEMAS.subschema(&mut rng, 2)})
        } else {
            SCHEMAS.object(&mut rng, 2)
        };
        let fast = Validator::compile(&schema, &options).unwrap();
        let slow = without_inlined_types(Validator::compile(&schema, &options).unwrap());
        assert_eq!(inlined(&slow), 0);
        schemas_inlined += usize::from(inlined(&fast) > 0);
        patterns_inlined += usize::from(inlined_patterns(&fast) > 0);
        for _ in 0..8 {
            let value = instance(&mut rng, 3, &NAMES);
            let (at, verdict) = (JsonRef::from(&value), fast.is_valid(JsonRef::from(&value)));
            assert_eq!(verdict, slow.is_valid(at), "{schema}\n{value}");
            assert_eq!(fast.validate(at), slow.validate(at), "{schema}\n{value}");
            // The units of `is_valid` (`all` false) or `validate`.
            let units = |v: &Validator, all: bool| {
                within(1 << 40, |b| {
                    let _ = if all {
                        v.validate_within(at, b).map(|_| true)
                    } else {
                        v.is_valid_within(at, b)
                    };
                })
                .0
            };
            for all in [false, true] {
                assert_eq!(units(&fast, all), units(&slow, all), "{schema}\n{value}");
            }
            compared += 1;
            valid += usize::from(verdict == Ok(true));
        }
    }
    // Not vacuous: most schemas hold a type alone, and both verdicts occur.
    println!(
        "{compared} instances, {valid} valid; {schemas_inlined} of 2,000 schemas inlined, {patterns_inlined} with a pattern's"
    );
    assert!(schemas_inlined > 1_500, "{schemas_inlined} of 2,000");
    assert!(patterns_inlined > 300, "{patterns_inlined} of 2,000");
    assert!(
        valid > compared / 5 && valid < compared * 4 / 5,
        "{valid} of {compared}"
    );
}

#[test]
fn a_type_alone_checked_by_the_plan_meets_the_depth_limit_where_its_node_does() {
    // Objects nested through `n`, with a string `s` at the bottom (and an
    // `items` of strings, and a pattern's string, beside it): the type
    // alone is checked one level below its object, as its node would be.
    let schema = json!({
        "properties": {"n": {"$ref": "#"}, "s": {"type": "string"}, "t": {"items": {"type": "string"}}},
        "patternProperties": {"^p": {"type": "string"}}
    });
    let options = Options::default();
    let fast = Validator::compile(&schema, &options).unwrap();
    assert!(inlined(&fast) >= 3);
    assert_eq!(inlined_patterns(&fast), 1);
    let slow = without_inlined_types(Validator::compile(&schema, &options).unwrap());
    for bottom in [json!({"s": "x"}), json!({"t": ["x"]}), json!({"p": "x"})] {
        let mut first_error = None;
        let mut value = bottom.clone();
        for depth in 0..MAX_WALK_DEPTH {
            if depth > 0 {
                value = json!({ "n": value });
            }
            let at = JsonRef::from(&value);
            let verdict = fast.is_valid(at);
            assert_eq!(verdict, slow.is_valid(at), "depth {depth}");
            assert_eq!(fast.validate(at), slow.validate(at), "depth {depth}");
            if verdict == Err(Limit::Depth) && first_error.is_none() {
                first_error = Some(depth);
            }
            if first_error.is_none() {
                assert_eq!(verdict, Ok(true), "depth {depth}");
            }
        }
        // The limit falls inside the range, so both sides of it are seen.
        println!("{bottom}: a depth error from {first_error:?} levels");
        assert!(first_error.is_some());
    }
}

#[test]
fn a_type_alone_of_every_type_set_checked_by_the_plan_decides_as_its_node() {
    // Every set of the seven types (the generated schemas hold one or
    // two), as a property's schema, in both kinds of dialect, against a
    // value of each type: the plan's check of the type and the node's
    // give the same verdicts and units.
    let values = [
        json!(null),
        json!(true),
        json!(7),
        json!(1.0),
        json!(2.5),
        json!("ab"),
        json!([1]),
        json!({"a": 1}),
    ];
    let mut compared = 0;
    for set in 1..128usize {
        let types: Vec<&str> = (0..7).filter(|i| set & (1 << i) != 0).map(|i| TYPES[i]).collect();
        let schema = json!({"properties": {"a": {"type": types}}});
        for dialect in [Dialect::Draft4, Dialect::Draft2020_12] {
            let options = Options {
                dialect,
                ..Options::default()
            };
            let fast = Validator::compile(&schema, &options).unwrap();
            assert_eq!(inlined(&fast), 1, "{schema}");
            let slow = without_inlined_types(Validator::compile(&schema, &options).unwrap());
            for value in &values {
                let instance = json!({ "a": value });
                let at = JsonRef::from(&instance);
                assert_eq!(fast.is_valid(at), slow.is_valid(at), "{schema} {instance}");
                assert_eq!(fast.validate(at), slow.validate(at), "{schema} {instance}");
                let units = |v: &Validator| within(1 << 40, |b| v.is_valid_within(at, b)).0;
                assert_eq!(units(&fast), units(&slow), "{schema} {instance}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 127 * 2 * values.len());
}
