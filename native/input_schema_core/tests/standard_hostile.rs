//! Hostile input against the standard entry point (`standard::Validator`):
//! every shape is decided within the limits of docs/behaviour.md section
//! 11, as the gateway's are. A compile is bounded (`CompileBudget`,
//! `TooDeep`), a validation stops at its work or depth limit
//! (`Limit::Work`, `Limit::Depth`), never with a verdict past it, and
//! nothing panics or overflows a stack. Each test asserts the exact
//! outcome, never a time. The BEAM side's twin is
//! `test/backplane/json_schema/hostile_test.exs`.
//!
//! The shapes found five faults, fixed with them: `$dynamicRef` lookups
//! along the dynamic scope, the rules of `dependentRequired` and
//! `dependentSchemas` whose property is absent, and `enum`/`const`
//! comparisons of large values were not charged to the work limit (each a
//! hang of minutes to hours within it); a schema nested past the depth the
//! metaschema check walks was refused as over the compile budget rather
//! than too deep; `patternProperties` left the pattern out of its keyword
//! location.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{CompileError, Limit, Options, OutputUnit, Validator, MAX_SCHEMA_DEPTH};
use serde_json::{json, Map, Value};

fn compile(schema: &Value) -> Result<Validator, CompileError> {
    Validator::compile(schema, &Options::default())
}

fn compiled(schema: &Value) -> Validator {
    compile(schema).unwrap_or_else(|e| panic!("{e}"))
}

/// Every failure, and the fast path's verdict, which must agree.
fn outcome(v: &Validator, instance: &Value) -> Result<Vec<OutputUnit>, Limit> {
    let units = v.validate(JsonRef::from(instance));
    let valid = v.is_valid(JsonRef::from(instance));
    match &units {
        Ok(units) => assert_eq!(valid, Ok(units.is_empty())),
        Err(limit) => assert_eq!(valid, Err(*limit)),
    }
    units
}

/// A unit's (keyword, keyword location, instance location, message).
fn unit(u: &OutputUnit) -> (&str, &str, &str, &str) {
    (u.keyword, &u.keyword_location, &u.instance_location, &u.message)
}

/// `depth` levels of `wrap` around `leaf`.
fn nest(depth: usize, leaf: Value, wrap: impl Fn(Value) -> Value) -> Value {
    (0..depth).fold(leaf, |inner, _| wrap(inner))
}

/// Drops a value without recursion (a value nested 100,000 levels would
/// overflow the test thread's stack in the recursive `Drop`).
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => stack.append(items),
            Value::Object(map) => {
                let map = std::mem::take(map);
                stack.extend(map.into_iter().map(|(_, v)| v));
            }
            _ => {}
        }
    }
}

fn object(entries: impl IntoIterator<Item = (String, Value)>) -> Value {
    Value::Object(entries.into_iter().collect::<Map<String, Value>>())
}

/// `{key: value}`, moving `value` (`json!` would copy it through
/// serialisation and drop the original recursively).
fn with(key: &str, value: Value) -> Value {
    object([(key.to_string(), value)])
}

/// `[value]`, moving it.
fn list(value: Value) -> Value {
    Value::Array(vec![value])
}

// --- unevaluatedProperties / unevaluatedItems over in-place chains ---

/// 100 levels of `allOf`, each with `unevaluatedProperties: false`, over a
/// leaf that evaluates `id` and every `k...` key.
fn all_of_chain() -> Value {
    let leaf = json!({
        "properties": {"id": {"type": "integer"}},
        "patternProperties": {"^k": {"type": "integer"}}
    });
    nest(100, leaf, |inner| {
        let mut level = with("allOf", list(inner));
        level["unevaluatedProperties"] = json!(false);
        level
    })
}

fn k_object(count: usize) -> Map<String, Value> {
    let mut map: Map<String, Value> = (0..count).map(|i| (format!("k{i}"), json!(i))).collect();
    map.insert("id".into(), json!(1));
    map
}

#[test]
fn unevaluated_properties_through_100_levels_of_all_of_on_a_large_object() {
    let v = compiled(&all_of_chain());
    let mut instance = k_object(20_000);
    assert_eq!(outcome(&v, &Value::Object(instance.clone())), Ok(vec![]));

    // One key nothing evaluates: the innermost level rejects it; every
    // level above sees no annotation of the failed `allOf` and rejects
    // every key, up to the 64 units.
    instance.insert("zz".into(), json!(0));
    let units = outcome(&v, &Value::Object(instance)).unwrap();
    assert_eq!(units.len(), 64);
    let innermost = format!("{}/unevaluatedProperties", "/allOf/0".repeat(99));
    assert_eq!(
        unit(&units[0]),
        (
            "unevaluatedProperties",
            innermost.as_str(),
            "/zz",
            "no value is allowed here (the schema is false)"
        )
    );
    let next = format!("{}/unevaluatedProperties", "/allOf/0".repeat(98));
    assert_eq!(unit(&units[1]).1, next);
    assert_eq!(unit(&units[1]).2, "/id");

    // 100 levels x 100,000 keys: past the work limit, no verdict.
    assert_eq!(outcome(&v, &Value::Object(k_object(100_000))), Err(Limit::Work));
}

#[test]
fn unevaluated_properties_over_a_wide_any_of_of_1000_branches() {
    let branches: Vec<Value> = (0..1_000)
        .map(|i| json!({"properties": {format!("p{i}"): {"type": "integer"}}, "required": [format!("p{i}")]}))
        .collect();
    let v = compiled(&json!({"anyOf": branches, "unevaluatedProperties": false}));

    let all = |count: usize| object((0..count).map(|i| (format!("p{i}"), json!(i))));
    // Every branch holds, and together they evaluate every key.
    assert_eq!(outcome(&v, &all(1_000)), Ok(vec![]));

    let mut extra = all(1_000);
    extra["q"] = json!(1);
    assert_eq!(
        outcome(&v, &extra).unwrap().iter().map(unit).collect::<Vec<_>>(),
        vec![(
            "unevaluatedProperties",
            "/unevaluatedProperties",
            "/q",
            "no value is allowed here (the schema is false)"
        )]
    );

    // 1,000 branches x 10,000 keys: past the work limit. (Decided, the
    // 9,000 keys no branch names would make it invalid.)
    assert_eq!(outcome(&v, &all(10_000)), Err(Limit::Work));
}

/// 100 levels of `if`/`then`, each with `unevaluatedItems: false`, over a
/// leaf whose `prefixItems` and `contains` evaluate every item.
fn if_chain() -> Value {
    let leaf = json!({"prefixItems": [{"type": "string"}], "contains": {"type": "integer"}});
    nest(100, leaf, |inner| {
        let mut level = with("then", inner);
        level["if"] = json!({"type": "array"});
        level["unevaluatedItems"] = json!(false);
        level
    })
}

fn items(count: usize) -> Vec<Value> {
    std::iter::once(json!("a"))
        .chain((0..count).map(|i| json!(i)))
        .collect()
}

#[test]
fn unevaluated_items_through_100_levels_of_if_then_on_large_arrays() {
    let v = compiled(&if_chain());
    assert_eq!(outcome(&v, &Value::Array(items(20_000))), Ok(vec![]));

    let mut bad = items(20_000);
    bad.push(json!(true));
    let units = outcome(&v, &Value::Array(bad)).unwrap();
    assert_eq!(units.len(), 64);
    let innermost = format!("{}/unevaluatedItems", "/then".repeat(99));
    assert_eq!(
        unit(&units[0]),
        (
            "unevaluatedItems",
            innermost.as_str(),
            "/20001",
            "no value is allowed here (the schema is false)"
        )
    );

    // A million items under 100 levels: past the work limit.
    assert_eq!(outcome(&v, &Value::Array(items(1_000_000))), Err(Limit::Work));
}

// --- $dynamicRef ---

/// The specification's recursive tree: `children` refer to `#node`
/// through `$dynamicRef`.
fn tree() -> Value {
    json!({
        "$id": "https://example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$dynamicRef": "#node"}}
        },
        "required": ["value"]
    })
}

/// A tree that extends it: no property beside those of `tree`.
fn strict_tree() -> Value {
    json!({
        "$id": "https://example.com/strict-tree",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "unevaluatedProperties": false,
        "$defs": {"tree": tree()}
    })
}

fn deep_tree(depth: usize) -> Value {
    nest(depth, json!({"value": 0}), |inner| {
        let mut node = with("children", list(inner));
        node["value"] = json!(1);
        node
    })
}

fn wide_tree(width: usize) -> Value {
    json!({"value": 0, "children": (0..width).map(|i| json!({"value": i})).collect::<Vec<_>>()})
}

#[test]
fn dynamic_ref_recursion_over_a_deep_instance_stops_at_the_depth_limit() {
    for schema in [tree(), strict_tree()] {
        let v = compiled(&schema);
        assert_eq!(outcome(&v, &deep_tree(100)), Ok(vec![]));
        let deep = deep_tree(100_000);
        assert_eq!(outcome(&v, &deep), Err(Limit::Depth));
        dismantle(deep);
    }
}

#[test]
fn dynamic_ref_recursion_over_a_wide_instance() {
    let v = compiled(&tree());
    let mut wide = wide_tree(200_000);
    assert_eq!(outcome(&v, &wide), Ok(vec![]));
    wide["children"][123_456]["extra"] = json!(true);
    assert_eq!(outcome(&v, &wide), Ok(vec![]));

    // The strict tree's `$dynamicRef` reaches the outermost `#node`: the
    // extra property of one child deep in the list is refused.
    let strict = compiled(&strict_tree());
    assert_eq!(
        outcome(&strict, &wide)
            .unwrap()
            .iter()
            .map(unit)
            .collect::<Vec<_>>(),
        vec![
            (
                "unevaluatedProperties",
                "/$ref/properties/children/items/$dynamicRef/unevaluatedProperties",
                "/children/123456/extra",
                "no value is allowed here (the schema is false)"
            ),
            // The root's `$ref` failed, so its annotations are dropped and
            // the root's own `unevaluatedProperties` refuses both keys.
            (
                "unevaluatedProperties",
                "/unevaluatedProperties",
                "/children",
                "no value is allowed here (the schema is false)"
            ),
            (
                "unevaluatedProperties",
                "/unevaluatedProperties",
                "/value",
                "no value is allowed here (the schema is false)"
            )
        ]
    );

    // Two million children: past the work limit.
    assert_eq!(outcome(&strict, &wide_tree(2_000_000)), Err(Limit::Work));
}

#[test]
fn a_dynamic_ref_cycle_that_never_descends_stops_at_the_depth_limit() {
    let cycles = [
        json!({"$id": "https://example.com/loop", "$dynamicAnchor": "a", "$dynamicRef": "#a"}),
        json!({
            "$id": "https://example.com/loop2",
            "$dynamicAnchor": "a",
            "anyOf": [{"$dynamicRef": "#a"}, {"$dynamicRef": "#a"}]
        }),
        // Two resources that hand the same value to each other.
        json!({
            "$id": "https://example.com/ping",
            "$dynamicAnchor": "a",
            "$ref": "pong",
            "$defs": {"pong": {"$id": "pong", "$dynamicAnchor": "b", "not": {"$dynamicRef": "ping#a"}}}
        }),
    ];
    for schema in cycles {
        let v = compiled(&schema);
        for instance in [json!(1), json!({"a": [1, 2]}), json!(null)] {
            assert_eq!(outcome(&v, &instance), Err(Limit::Depth));
        }
    }
}

// --- contains ---

#[test]
fn contains_with_min_and_max_contains_on_a_million_items() {
    let million = Value::Array((0..1_000_000).map(|i| json!(i)).collect());

    let v = compiled(&json!({"contains": {"const": 999_999}, "minContains": 2}));
    assert_eq!(
        outcome(&v, &million)
            .unwrap()
            .iter()
            .map(unit)
            .collect::<Vec<_>>(),
        vec![(
            "contains",
            "/contains",
            "",
            "array contains fewer than 2 items valid against the schema of contains"
        )]
    );
    let v = compiled(&json!({"contains": {"minimum": 999_998}, "minContains": 2}));
    assert_eq!(outcome(&v, &million), Ok(vec![]));

    let v = compiled(&json!({"contains": {"type": "integer"}, "maxContains": 999_999}));
    assert_eq!(
        outcome(&v, &million)
            .unwrap()
            .iter()
            .map(unit)
            .collect::<Vec<_>>(),
        vec![(
            "contains",
            "/contains",
            "",
            "array contains more than 999999 items valid against the schema of contains"
        )]
    );
    let v = compiled(
        &json!({"contains": {"type": "integer"}, "minContains": 1_000_000, "maxContains": 1_000_000}),
    );
    assert_eq!(outcome(&v, &million), Ok(vec![]));

    // A costlier `contains` schema over the same million: the work limit.
    let consts: Vec<Value> = (1..=10).map(|i| json!({"const": -i})).collect();
    let v = compiled(&json!({"contains": {"not": {"anyOf": consts}}, "maxContains": 5}));
    assert_eq!(outcome(&v, &million), Err(Limit::Work));
}

// --- patternProperties ---

#[test]
fn thousands_of_pattern_properties_against_an_object_with_many_keys() {
    let patterns =
        |count: usize| object((0..count).map(|i| (format!("^p{i}_[a-z]+$"), json!({"type": "integer"}))));
    // 5,000 patterns: over the compile budget.
    assert_eq!(
        compile(&json!({"patternProperties": patterns(5_000)})).map(|_| ()),
        Err(CompileError::CompileBudget)
    );
    let v = compiled(&json!({"patternProperties": patterns(1_000)}));
    let keys = |count: usize| object((0..count).map(|i| (format!("p{i}_abc"), json!(i))));

    assert_eq!(outcome(&v, &keys(200)), Ok(vec![]));
    let mut bad = keys(200);
    bad["p150_abc"] = json!("x");
    assert_eq!(
        outcome(&v, &bad).unwrap().iter().map(unit).collect::<Vec<_>>(),
        vec![(
            "type",
            "/patternProperties/^p150_[a-z]+$/type",
            "/p150_abc",
            "instance is not of type integer"
        )]
    );
    // 1,000 patterns x 20,000 keys: past the work limit.
    assert_eq!(outcome(&v, &keys(20_000)), Err(Limit::Work));

    // Beside `additionalProperties`, which reads the same patterns: keys
    // that each match one of them.
    let v = compiled(&json!({"patternProperties": patterns(1_000), "additionalProperties": false}));
    let matching = |count: usize| {
        object((0..count).map(|i| (format!("p{}_{}", i % 1_000, "x".repeat(1 + i / 1_000)), json!(i))))
    };
    assert_eq!(outcome(&v, &matching(1_000)), Ok(vec![]));
    let mut bad = matching(1_000);
    bad["p7_"] = json!(0);
    assert_eq!(
        outcome(&v, &bad).unwrap().iter().map(unit).collect::<Vec<_>>(),
        vec![(
            "additionalProperties",
            "/additionalProperties",
            "/p7_",
            "no value is allowed here (the schema is false)"
        )]
    );
    assert_eq!(outcome(&v, &matching(20_000)), Err(Limit::Work));
}

// --- embedded resources ---

#[test]
fn ten_thousand_embedded_id_resources() {
    let defs = object((0..10_000).map(|i| {
        (
            format!("r{i}"),
            json!({"$id": format!("https://example.com/r{i}"), "type": "integer", "minimum": i}),
        )
    }));
    let schema = json!({
        "$id": "https://example.com/root",
        "properties": {"a": {"$ref": "https://example.com/r9999"}},
        "$defs": defs
    });
    let v = compiled(&schema);
    assert_eq!(outcome(&v, &json!({"a": 9_999})), Ok(vec![]));
    assert_eq!(
        outcome(&v, &json!({"a": 5}))
            .unwrap()
            .iter()
            .map(unit)
            .collect::<Vec<_>>(),
        vec![(
            "minimum",
            "/properties/a/$ref/minimum",
            "/a",
            "instance is less than the minimum 9999"
        )]
    );

    // 10,000 resources, each referring to the next by its URI: a chain
    // longer than the depth limit on one value.
    let chain = object((0..10_000).map(|i| {
        (
            format!("r{i}"),
            json!({"$id": format!("https://example.com/c{i}"), "$ref": format!("c{}", i + 1)}),
        )
    }));
    let mut chain = chain;
    chain["end"] = json!({"$id": "https://example.com/c10000", "type": "integer"});
    let schema = json!({"$id": "https://example.com/chain", "$ref": "c0", "$defs": chain});
    let v = compiled(&schema);
    assert_eq!(outcome(&v, &json!(1)), Err(Limit::Depth));
}

// --- references that multiply ---

fn doubling(levels: usize) -> Value {
    let mut defs: Map<String, Value> = (0..levels)
        .map(|i| {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            (format!("d{i}"), json!({"allOf": [next, next]}))
        })
        .collect();
    defs.insert(format!("d{levels}"), json!({"type": "integer"}));
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

#[test]
fn references_that_multiply_stop_at_the_work_limit() {
    let v = compiled(&doubling(30));
    assert_eq!(outcome(&v, &json!(1)), Err(Limit::Work));
    // A failure on the first path decides `allOf`: invalid, with the first
    // 64 of its 2^30 failures.
    let units = outcome(&v, &json!("x")).unwrap();
    assert_eq!(units.len(), 64);
    let first = format!("{}/$ref/type", "/$ref/allOf/0".repeat(30));
    assert_eq!(
        unit(&units[0]),
        ("type", first.as_str(), "", "instance is not of type integer")
    );
    // Ten levels: 1,024 paths, decided.
    let v = compiled(&doubling(10));
    assert_eq!(outcome(&v, &json!(1)), Ok(vec![]));
    assert_eq!(outcome(&v, &json!("x")).unwrap().len(), 64);
}

// --- a reference into a metaschema ---

#[test]
fn a_reference_to_the_metaschema_over_huge_and_deep_instances() {
    let v = compiled(&json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}));

    let deep = nest(100_000, json!(true), |inner| with("not", inner));
    assert_eq!(outcome(&v, &deep), Err(Limit::Depth));
    dismantle(deep);
    let deep = nest(100_000, json!({}), |inner| with("items", inner));
    assert_eq!(outcome(&v, &deep), Err(Limit::Depth));
    dismantle(deep);

    let wide = |count: usize| json!({"type": "object", "properties": object((0..count).map(|i| (format!("p{i}"), json!({"type": "integer", "minimum": i}))))});
    assert_eq!(outcome(&v, &wide(1_000)), Ok(vec![]));
    let mut bad = wide(1_000);
    bad["properties"]["p500"]["minimum"] = json!("0");
    assert_eq!(
        outcome(&v, &bad).unwrap().iter().map(unit).collect::<Vec<_>>(),
        vec![(
            "type",
            "/$ref/allOf/1/$ref/properties/properties/additionalProperties/$dynamicRef/allOf/3/$ref/properties/minimum/type",
            "/properties/p500/minimum",
            "instance is not of type number"
        )]
    );
    assert_eq!(outcome(&v, &wide(1_000_000)), Err(Limit::Work));
}

// --- the rest ---

#[test]
fn unique_items_over_a_million_items() {
    let v = compiled(&json!({"uniqueItems": true}));
    let mut million: Vec<Value> = (0..1_000_000).map(|i| json!(i)).collect();
    assert_eq!(outcome(&v, &Value::Array(million.clone())), Ok(vec![]));
    million[999_999] = json!(17.0);
    assert_eq!(
        outcome(&v, &Value::Array(million))
            .unwrap()
            .iter()
            .map(unit)
            .collect::<Vec<_>>(),
        vec![("uniqueItems", "/uniqueItems", "", "array items are not unique")]
    );
}

#[test]
fn a_schema_nested_10000_levels_is_refused() {
    type Wrap = fn(Value) -> Value;
    let wraps: [(&str, Wrap); 5] = [
        ("/properties/a", |s| with("properties", with("a", s))),
        ("/items", |s| with("items", s)),
        ("/not", |s| with("not", s)),
        ("/allOf/0", |s| with("allOf", list(s))),
        ("/$defs/a", |s| with("$defs", with("a", s))),
    ];
    for (step, wrap) in wraps {
        // The deepest nesting allowed (MAX_SCHEMA_DEPTH) compiles.
        assert!(
            compile(&nest(MAX_SCHEMA_DEPTH, json!({}), wrap)).is_ok(),
            "{step}"
        );
        let too_deep = Err(CompileError::TooDeep {
            pointer: step.repeat(MAX_SCHEMA_DEPTH + 1),
        });
        assert_eq!(
            compile(&nest(MAX_SCHEMA_DEPTH + 1, json!({}), wrap)).map(|_| ()),
            too_deep
        );
        // Nested far deeper than the metaschema check's walk goes: the
        // same error, not the compile budget's.
        let schema = nest(10_000, json!({}), wrap);
        assert_eq!(compile(&schema).map(|_| ()), too_deep);
        dismantle(schema);
    }
}

#[test]
fn ref_to_the_root_cycles_stop_at_the_depth_limit() {
    let cycles = [
        json!({"$ref": "#"}),
        json!({"allOf": [{"$ref": "#"}]}),
        json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}),
        json!({"not": {"$ref": "#"}}),
        json!({"if": {"$ref": "#"}}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
    ];
    for schema in cycles {
        let v = compiled(&schema);
        for instance in [json!(1), json!([1]), json!({})] {
            assert_eq!(outcome(&v, &instance), Err(Limit::Depth), "{schema}");
        }
    }
}

#[test]
fn a_deep_instance_under_items_ref_root_stops_at_the_depth_limit() {
    let v = compiled(&json!({"items": {"$ref": "#"}}));
    let deep = nest(100_000, json!(1), list);
    assert_eq!(outcome(&v, &deep), Err(Limit::Depth));
    dismantle(deep);
    let shallow = nest(300, json!(1), list);
    assert_eq!(outcome(&v, &shallow), Ok(vec![]));
}

// --- uncharged work: found by these shapes, each a hang before its fix ---

/// Resources `a` and `a2` hand an instance's levels to each other (the
/// dynamic scope alternates between them, up to the depth limit); `a`
/// declares `anchors` dynamic anchors, none named `x`. At the bottom,
/// resource `b` applies `$dynamicRef: "#x"` to every item of a list:
/// each lookup reads the dynamic scope from its outermost resource, past
/// every anchor of each `a` in it, to reach `b`.
fn dynamic_scope(anchors: usize) -> Value {
    let defs = object((0..anchors).map(|i| (format!("n{i}"), json!({"$dynamicAnchor": format!("n{i}")}))));
    json!({
        "$id": "https://example.com/root",
        "$ref": "a",
        "$defs": {
            "a": {
                "$id": "a",
                "$defs": defs,
                "prefixItems": [{"$ref": "a2"}],
                "items": {"$ref": "b"}
            },
            "a2": {"$id": "a2", "prefixItems": [{"$ref": "a"}], "items": {"$ref": "b"}},
            "b": {"$id": "b", "$dynamicAnchor": "x", "items": {"$dynamicRef": "#x"}}
        }
    })
}

/// `levels` of `[next]`, and at the bottom `[0, [0, 0, ... (count)]]`.
fn scope_instance(levels: usize, count: usize) -> Value {
    let bottom = Value::Array(vec![json!(0), Value::Array(vec![json!(0); count])]);
    nest(levels, bottom, list)
}

#[test]
fn dynamic_ref_lookups_along_a_long_dynamic_scope_are_charged() {
    let v = compiled(&dynamic_scope(5_000));
    // Shallow, the lookups are short: decided.
    assert_eq!(outcome(&v, &scope_instance(2, 1_000)), Ok(vec![]));
    // 450 levels: each lookup reads 225 copies of `a`'s 5,000 anchors.
    let deep = scope_instance(450, 100_000);
    assert_eq!(outcome(&v, &deep), Err(Limit::Work));
    dismantle(deep);
}

#[test]
fn dependent_required_and_dependent_schemas_rules_are_charged() {
    let rules = |count: usize| object((0..count).map(|i| (format!("d{i}"), json!(["x"]))));
    let schemas = |count: usize| object((0..count).map(|i| (format!("d{i}"), json!({"required": ["x"]}))));
    let many = Value::Array(vec![json!({"y": 1}); 100_000]);
    // `dependencies` (2020-12 keeps it) in both forms too.
    for (keyword, value, names) in [
        ("dependentRequired", rules(50_000), true),
        ("dependentSchemas", schemas(20_000), false),
        ("dependencies", rules(50_000), true),
        ("dependencies", schemas(20_000), false),
    ] {
        let v = compiled(&with("items", with(keyword, value)));
        assert_eq!(outcome(&v, &Value::Array(vec![json!({"y": 1}); 10])), Ok(vec![]));
        let (name_location, schema_location) = (
            format!("/items/{keyword}"),
            format!("/items/{keyword}/d7/required"),
        );
        assert_eq!(
            outcome(&v, &json!([{"d7": 1}]))
                .unwrap()
                .iter()
                .map(unit)
                .collect::<Vec<_>>(),
            vec![if names {
                (
                    keyword,
                    name_location.as_str(),
                    "/0",
                    "property \"x\" is required when \"d7\" is present",
                )
            } else {
                (
                    "required",
                    schema_location.as_str(),
                    "/0",
                    "required property \"x\" is missing",
                )
            }]
        );
        assert_eq!(outcome(&v, &many), Err(Limit::Work));
    }
}

/// `count - 1` lists that differ from `long` only in their last item, then
/// `long`.
fn near_misses(long: &[Value], count: usize) -> Vec<Value> {
    let mut near = long.to_vec();
    near[long.len() - 1] = json!(-1);
    let mut choices = vec![Value::Array(near); count - 1];
    choices.push(Value::Array(long.to_vec()));
    choices
}

#[test]
fn comparisons_of_large_enum_and_const_values_are_charged() {
    let long: Vec<Value> = (0..1_000).map(|i| json!(i)).collect();
    let choices = near_misses(&long, 500);
    let branches: Vec<Value> = choices.iter().map(|c| json!({"const": c})).collect();
    for schema in [
        json!({"items": {"enum": choices}}),
        json!({"items": {"anyOf": branches}}),
    ] {
        let v = compiled(&schema);
        // Each item is compared with 500 lists, nearly all of each.
        let few = Value::Array(vec![Value::Array(long.clone()); 3]);
        assert_eq!(outcome(&v, &few), Ok(vec![]));
        let many = Value::Array(vec![Value::Array(long.clone()); 1_000]);
        assert_eq!(outcome(&v, &many), Err(Limit::Work));
    }
}

/// Copying `const` and `enum` values is compile work in proportion to their
/// size (three units a value): 700,701 values (2,102,103 units) pass the
/// compile budget, whichever keyword holds them; 600,601 (1,801,803) fit.
#[test]
fn large_enum_and_const_values_are_charged_when_compiled() {
    let long: Vec<Value> = (0..1_000).map(|i| json!(i)).collect();
    let choices = near_misses(&long, 700);
    let branches: Vec<Value> = choices.iter().map(|c| json!({"const": c})).collect();
    for schema in [
        json!({"enum": choices}),
        json!({"anyOf": branches}),
        json!({"const": choices}),
    ] {
        assert!(matches!(compile(&schema), Err(CompileError::CompileBudget)));
    }
    assert!(compile(&json!({"const": near_misses(&long, 600)})).is_ok());
    assert!(compile(&json!({"enum": near_misses(&long, 600)})).is_ok());
}
