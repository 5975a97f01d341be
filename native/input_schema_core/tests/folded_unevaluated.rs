//! `unevaluatedProperties` is decided by its node's plan when what the node
//! evaluates is known from the schema: its `properties`,
//! `patternProperties` and `additionalProperties`, and an `allOf` folded
//! into the plan, beside keywords that evaluate no property. Each schema
//! here is checked against its twin that also holds `"not": false` beside
//! every `unevaluatedProperties` (true of every instance, and an in-place
//! applicator, so that nothing is folded and every walk collects the
//! annotations): both must give the same verdict and the same failures on
//! every instance. Schemas and instances are generated from a fixed seed,
//! in 2020-12 and 2019-09, with base schemas through `$ref` (folded as an
//! `allOf` branch is, or not), nested and recursive
//! `unevaluatedProperties`, and beside one that no plan can fold.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod twins;

use input_schema_core::standard::{Options, Validator};
use serde_json::{json, Map, Value};
use twins::{compare, nested_value, Rng, Tally};

const NAMES: [&str; 6] = ["a", "b", "kind", "x1", "x2", "tag"];

/// A schema for a property's value: a leaf, or (while `depth` lasts) an
/// object with an `unevaluatedProperties` of its own.
fn value_schema(rng: &mut Rng, depth: usize, twin: bool) -> Value {
    match rng.below(if depth == 0 { 5 } else { 8 }) {
        0 => json!({"type": "integer"}),
        1 => json!({"type": "string", "maxLength": 3}),
        2 => json!({"const": NAMES[rng.below(NAMES.len())]}),
        3 => json!(true),
        4 => json!({"$ref": "#"}),
        // Never folded (an `anyOf` beside it), in both.
        5 => json!({"anyOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}),
        _ => object_schema(rng, depth - 1, twin),
    }
}

fn properties(rng: &mut Rng, depth: usize, twin: bool) -> Map<String, Value> {
    (0..rng.below(3))
        .map(|_| {
            (
                NAMES[rng.below(NAMES.len())].to_string(),
                value_schema(rng, depth, twin),
            )
        })
        .collect()
}

/// A node with `unevaluatedProperties` and, each by chance, the keywords
/// whose evaluation it reads and some that evaluate nothing.
fn object_schema(rng: &mut Rng, depth: usize, twin: bool) -> Value {
    let mut node = Map::new();
    if rng.chance(50) {
        node.insert("properties".into(), Value::Object(properties(rng, depth, twin)));
    }
    if rng.chance(30) {
        node.insert(
            "patternProperties".into(),
            json!({"^x": value_schema(rng, depth, twin)}),
        );
    }
    if rng.chance(15) {
        let additional = [json!(false), json!({"type": "integer"})];
        node.insert("additionalProperties".into(), additional[rng.below(2)].clone());
    }
    if rng.chance(50) {
        // Branches of `type` and `properties`, which `allOf` folds; now
        // and then one that it does not (`minProperties`), in both.
        let branches: Vec<Value> = (0..1 + rng.below(3))
            .map(|_| {
                let mut branch = Map::new();
                branch.insert("properties".into(), Value::Object(properties(rng, depth, twin)));
                if rng.chance(30) {
                    branch.insert("type".into(), json!("object"));
                }
                if rng.chance(10) {
                    branch.insert("minProperties".into(), json!(1));
                }
                Value::Object(branch)
            })
            .collect();
        node.insert("allOf".into(), Value::Array(branches));
    }
    if rng.chance(30) {
        // A base schema beside it: one that folds, or one that does not.
        let bases = ["#/$defs/named", "#/$defs/typed", "#/$defs/counted"];
        node.insert("$ref".into(), json!(bases[rng.below(bases.len())]));
    }
    if rng.chance(25) {
        node.insert("required".into(), json!([NAMES[rng.below(NAMES.len())]]));
    }
    if rng.chance(20) {
        node.insert("maxProperties".into(), json!(3));
    }
    if rng.chance(20) {
        node.insert("propertyNames".into(), json!({"maxLength": 3}));
    }
    if rng.chance(20) {
        node.insert("dependentRequired".into(), json!({"a": ["b"]}));
    }
    if rng.chance(30) {
        let types = [json!("object"), json!(["object", "integer"])];
        node.insert("type".into(), types[rng.below(types.len())].clone());
    }
    let unevaluated = [
        json!(false),
        json!({"type": "integer"}),
        json!({"const": "a"}),
        json!({"$ref": "#"}),
    ];
    node.insert(
        "unevaluatedProperties".into(),
        unevaluated[rng.below(unevaluated.len())].clone(),
    );
    if twin {
        node.insert("not".into(), json!(false));
    }
    Value::Object(node)
}

/// A generated schema and its twin that folds nothing: the same draws.
fn schemas(rng: &mut Rng) -> (Value, Value) {
    let mut twin_rng = Rng(rng.0);
    let mut schema = object_schema(rng, 2, false);
    let mut twin = object_schema(&mut twin_rng, 2, true);
    let defs = json!({
        "named": {"properties": {"a": {"type": "string"}, "kind": {"const": "x1"}}},
        "typed": {"type": "object", "properties": {"b": {"type": "integer"}, "tag": true}},
        "counted": {"properties": {"tag": {"type": "string"}}, "minProperties": 1}
    });
    for root in [&mut schema, &mut twin] {
        root["$defs"] = defs.clone();
    }
    if rng.chance(30) {
        for root in [&mut schema, &mut twin] {
            root["$schema"] = json!("https://json-schema.org/draft/2019-09/schema");
        }
    }
    (schema, twin)
}

#[test]
fn a_folded_unevaluated_properties_decides_as_its_annotated_twin() {
    let Tally {
        compared,
        valid,
        cheaper,
    } = compare(0x0e7a_1ded, schemas, |rng| nested_value(rng, 3, &NAMES));
    println!("{compared} instances compared, {valid} valid, {cheaper} decided in fewer units folded");
    // Both verdicts occur often, and the fold does apply.
    assert!(
        valid > compared / 10 && valid < compared * 9 / 10,
        "{valid} of {compared} valid"
    );
    assert!(cheaper > compared / 10, "{cheaper} of {compared} cheaper");
}

/// Units `is_valid` takes for `instance`.
fn decided_in(schema: &Value, instance: &Value) -> u64 {
    let v = Validator::compile(schema, &Options::default()).expect("compiles");
    twins::units(&v, instance)
}

#[test]
fn a_folded_unevaluated_properties_costs_what_additional_properties_costs() {
    // Folded, `unevaluatedProperties` is the plan's check of the keys no
    // name or pattern covers, read in the same pass as
    // `additionalProperties` is: an object costs the same units either way
    // (an `allOf` branch's property, folded, as the node's own).
    let string = json!({"type": "string"});
    let pairs = [
        (
            json!({"properties": {"a": string}, "unevaluatedProperties": false}),
            json!({"properties": {"a": string}, "additionalProperties": false}),
        ),
        (
            json!({"patternProperties": {"^x": string}, "unevaluatedProperties": {"type": "integer"}}),
            json!({"patternProperties": {"^x": string}, "additionalProperties": {"type": "integer"}}),
        ),
        (
            json!({"allOf": [{"properties": {"a": string}}], "unevaluatedProperties": false}),
            json!({"properties": {"a": string}, "additionalProperties": false}),
        ),
        (
            json!({"$defs": {"base": {"properties": {"a": string}}}, "$ref": "#/$defs/base", "unevaluatedProperties": false}),
            json!({"properties": {"a": string}, "additionalProperties": false}),
        ),
        // Through a node that holds only a `$ref` (followed to the schema
        // it folds, `Node::reference_alone`).
        (
            json!({
                "$defs": {"alias": {"$ref": "#/$defs/base"}, "base": {"properties": {"a": string}}},
                "$ref": "#/$defs/alias",
                "unevaluatedProperties": false
            }),
            json!({"properties": {"a": string}, "additionalProperties": false}),
        ),
        // Nodes with no plan of their own but the fold's, beside a keyword
        // that evaluates nothing.
        (
            json!({"unevaluatedProperties": {"type": "integer"}}),
            json!({"additionalProperties": {"type": "integer"}}),
        ),
        (
            json!({"unevaluatedProperties": false, "maxProperties": 3, "propertyNames": {"maxLength": 2}}),
            json!({"additionalProperties": false, "maxProperties": 3, "propertyNames": {"maxLength": 2}}),
        ),
    ];
    let instances = [
        json!({"a": "s"}),
        json!({"a": "s", "x1": "t"}),
        json!({"a": "s", "b": 1}),
        json!({"x1": "t", "b": 2, "c": 3}),
        json!({}),
        json!("not an object"),
    ];
    for (unevaluated, additional) in &pairs {
        for instance in &instances {
            assert_eq!(
                decided_in(unevaluated, instance),
                decided_in(additional, instance),
                "{unevaluated} against {additional} on {instance}"
            );
        }
    }
}
