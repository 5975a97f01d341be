//! A node that is a `$ref` alone is passed straight to its target by the
//! walks that record nothing (when the schema keeps no dynamic scope):
//! the hop's frame is skipped, its unit and its level of the depth limit
//! are not. Each schema here is checked against its twin that also holds
//! an unreachable `$dynamicRef` (so that the walks keep the dynamic scope
//! and take every hop keyword by keyword): both must give the same
//! verdict, the same failures and the same units on every instance, and
//! reach the depth limit at the same length of a chain of references.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

mod twins;

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Limit, Options, Validator, MAX_WALK_DEPTH};
use serde_json::{json, Map, Value};
use twins::{compare, nested_value, spent, units, Rng};

const NAMES: [&str; 5] = ["a", "b", "kind", "items", "next"];
const DEFS: usize = 5;

/// A reference to definition `after + 1` or a later one (so that the
/// references alone never cycle).
fn later(rng: &mut Rng, after: usize) -> Option<Value> {
    let first = after + 1;
    (first < DEFS).then(|| json!({"$ref": format!("#/$defs/r{}", first + rng.below(DEFS - first))}))
}

/// A subschema of definition `at` (of the root when `at` is `None`):
/// references alone to later definitions, or to the root under a keyword
/// that descends into the instance.
fn subschema(rng: &mut Rng, depth: usize, at: Option<usize>, below_root: bool) -> Value {
    let after = at.unwrap_or(0);
    match rng.below(if depth == 0 { 4 } else { 9 }) {
        0 => json!({"type": "integer", "minimum": 1}),
        1 => json!({"type": "string", "maxLength": 3}),
        2 => later(rng, after).unwrap_or(json!(true)),
        3 if below_root => json!({"$ref": "#"}),
        3 => json!({"const": "a"}),
        4 => Value::Object(object(rng, depth - 1, at)),
        5 => json!({"type": "array", "items": subschema(rng, depth - 1, at, true)}),
        6 => {
            json!({"anyOf": [subschema(rng, depth - 1, at, below_root), subschema(rng, depth - 1, at, below_root)]})
        }
        7 => json!({"allOf": [subschema(rng, depth - 1, at, below_root)]}),
        _ => json!({"not": subschema(rng, depth - 1, at, below_root)}),
    }
}

fn object(rng: &mut Rng, depth: usize, at: Option<usize>) -> Map<String, Value> {
    let properties: Map<String, Value> = (0..1 + rng.below(3))
        .map(|_| {
            (
                NAMES[rng.below(NAMES.len())].to_string(),
                subschema(rng, depth, at, true),
            )
        })
        .collect();
    let mut node = Map::new();
    node.insert("type".into(), json!("object"));
    if rng.chance(40) {
        node.insert("required".into(), json!([NAMES[rng.below(NAMES.len())]]));
    }
    node.insert("properties".into(), Value::Object(properties));
    node
}

/// A dynamic reference no instance reaches: its schema keeps the dynamic
/// scope, so that no walk passes a `$ref` straight to its target. (A
/// `$dynamicRef` to anything but a `$dynamicAnchor` is a plain `$ref`.)
fn unreached() -> Value {
    json!({"$dynamicAnchor": "unreached", "$dynamicRef": "#unreached"})
}

/// A schema whose definitions are chains of references alone ending in
/// subschemas, and its twin with an unreachable `$dynamicRef`.
fn pair(rng: &mut Rng) -> (Value, Value) {
    let defs: Map<String, Value> = (0..DEFS)
        .map(|i| {
            let body = match later(rng, i) {
                Some(reference) if rng.chance(60) => reference,
                _ => subschema(rng, 2, Some(i), false),
            };
            (format!("r{i}"), body)
        })
        .collect();
    // The root descends into the instance before any reference reaches
    // it again.
    let mut root = object(rng, 2, None);
    root.insert("$defs".into(), Value::Object(defs));
    let schema = Value::Object(root);
    let mut twin = schema.clone();
    twin["$defs"]["unreached"] = unreached();
    (schema, twin)
}

#[test]
fn references_alone_give_the_verdicts_failures_and_units_of_the_keyword_walk() {
    let mut same_units = 0;
    let tally = compare(0x5eed_4e75, pair, |rng| nested_value(rng, 4, &NAMES));
    // Beside `same_on`'s verdicts and failures: the units, exactly, of the
    // walk that records nothing and of the two walks of `validate`.
    let mut rng = Rng(0x0dd_4e75);
    for _ in 0..3_000 {
        let (schema, twin) = pair(&mut rng);
        let fast = Validator::compile(&schema, &Options::default()).unwrap();
        let slow = Validator::compile(&twin, &Options::default()).unwrap();
        for _ in 0..4 {
            let instance = nested_value(&mut rng, 4, &NAMES);
            assert_eq!(
                units(&fast, &instance),
                units(&slow, &instance),
                "{schema}\n{instance}"
            );
            let recorded = |v: &Validator| {
                spent(|b| {
                    v.validate_within(JsonRef::from(&instance), b).unwrap();
                })
            };
            assert_eq!(recorded(&fast), recorded(&slow), "{schema}\n{instance}");
            same_units += 1;
        }
    }
    assert_eq!(tally.compared, 24_000);
    assert!(
        tally.valid > 2_000 && tally.valid < 22_000,
        "{} valid",
        tally.valid
    );
    assert_eq!(tally.cheaper, 0);
    assert_eq!(same_units, 12_000);
}

/// A root that is a `$ref` alone to the first of `length` definitions,
/// each a `$ref` alone to the next, the last to `{"type": "integer"}`.
fn chain(length: usize, dynamic: bool) -> Validator {
    let mut defs: Map<String, Value> = (0..length)
        .map(|i| (format!("a{i}"), json!({"$ref": format!("#/$defs/a{}", i + 1)})))
        .collect();
    defs.insert(format!("a{length}"), json!({"type": "integer"}));
    if dynamic {
        defs.insert("unreached".into(), unreached());
    }
    Validator::compile(&json!({"$ref": "#/$defs/a0", "$defs": defs}), &Options::default()).unwrap()
}

/// The shortest chain (`chain`) that reaches the depth limit.
fn shortest_too_deep(dynamic: bool) -> usize {
    let (mut fits, mut past) = (1, 2 * MAX_WALK_DEPTH);
    while past - fits > 1 {
        let middle = (fits + past) / 2;
        match chain(middle, dynamic).is_valid(JsonRef::from(&json!(3))) {
            Ok(true) => fits = middle,
            Err(Limit::Depth) => past = middle,
            other => panic!("{middle}: {other:?}"),
        }
    }
    past
}

#[test]
fn a_chain_of_references_alone_counts_each_against_the_depth_limit() {
    // Each `$ref` alone is a level of the depth limit, in every walk. The
    // last ones, up to four hops from the integer schema, are folded into
    // plans (as a one-branch `allOf` is, in both twins), and the plans
    // count the levels they fold: the walk that records nothing meets the
    // limit where the recording walk does. A passing schema that checks
    // the value alone takes no level of its own, the failing one does (to
    // record its keywords), but only after its depth check: the root and
    // 1,022 definitions fit, either way.
    let limit = shortest_too_deep(false);
    assert_eq!(limit, shortest_too_deep(true));
    assert_eq!(limit, MAX_WALK_DEPTH - 1);
    let [fits, past] = [limit - 1, limit].map(|length| [chain(length, false), chain(length, true)]);
    for v in &fits {
        assert_eq!(v.is_valid(JsonRef::from(&json!("3"))), Ok(false));
        assert_eq!(v.is_valid(JsonRef::from(&json!(3))), Ok(true));
    }
    assert_eq!(units(&fits[0], &json!(3)), units(&fits[1], &json!(3)));
    // A unit at least for each hop but the last four, which are folded.
    assert!(units(&fits[0], &json!(3)) >= (limit - 1 - 4) as u64);
    for v in &past {
        assert_eq!(v.is_valid(JsonRef::from(&json!(3))), Err(Limit::Depth));
        assert_eq!(v.is_valid(JsonRef::from(&json!("3"))), Err(Limit::Depth));
        assert_eq!(v.validate(JsonRef::from(&json!("3"))), Err(Limit::Depth));
    }
    for dynamic in [false, true] {
        let failures = chain(MAX_WALK_DEPTH - 2, dynamic)
            .validate(JsonRef::from(&json!("3")))
            .unwrap();
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].keyword, "type");
        let location = &failures[0].keyword_location;
        assert_eq!(
            location.matches("/$ref").count(),
            MAX_WALK_DEPTH - 1,
            "{location}"
        );
        assert!(location.ends_with("/$ref/type"), "{location}");
    }
    // Through a recursive reference (to a target with `required`, which
    // no fold takes), each level of the instance takes the `$ref`'s level
    // and its target's: the deepest instance that fits
    // is the same in both twins, and about half the limit.
    let deepest = [false, true].map(|dynamic| {
        let mut schema = json!({
            "$defs": {"node": {
                "type": "object",
                "required": ["id"],
                "properties": {"next": {"$ref": "#/$defs/node"}}
            }},
            "$ref": "#/$defs/node"
        });
        if dynamic {
            schema["$defs"]["unreached"] = unreached();
        }
        let v = Validator::compile(&schema, &Options::default()).unwrap();
        let nested =
            |depth: usize| (0..depth).fold(json!({"id": 0}), |inner, _| json!({"id": 0, "next": inner}));
        let (mut fits, mut past) = (1, 2 * MAX_WALK_DEPTH);
        while past - fits > 1 {
            let middle = (fits + past) / 2;
            match v.is_valid(JsonRef::from(&nested(middle))) {
                Ok(true) => fits = middle,
                Err(Limit::Depth) => past = middle,
                other => panic!("{middle}: {other:?}"),
            }
        }
        fits
    });
    assert_eq!(deepest[0], deepest[1]);
    assert!(
        (MAX_WALK_DEPTH / 2 - 2..=MAX_WALK_DEPTH / 2).contains(&deepest[0]),
        "{deepest:?}"
    );
    // A reference to itself: every hop on the same value, to the limit.
    for schema in [
        json!({"$ref": "#"}),
        json!({"$defs": {"x": {"$ref": "#"}}, "$ref": "#/$defs/x"}),
    ] {
        let v = Validator::compile(&schema, &Options::default()).unwrap();
        assert_eq!(
            v.is_valid(JsonRef::from(&json!(1))),
            Err(Limit::Depth),
            "{schema}"
        );
        assert_eq!(
            v.validate(JsonRef::from(&json!(1))),
            Err(Limit::Depth),
            "{schema}"
        );
    }
}
