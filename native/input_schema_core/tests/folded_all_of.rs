//! The fast path folds an `allOf` whose branches check only `type` and
//! `properties` into its node's single pass over an object (as the 2019-09
//! and 2020-12 metaschemas' vocabularies need). Each schema here is checked
//! against its twin whose branches also hold `"minProperties": 0` (true of
//! every object, ignored by everything else), which keeps them from being
//! folded: both must give the same verdict and the same failures on every
//! instance. Schemas and instances are generated from a fixed seed: names
//! shared between branches and the parent, `additionalProperties` and
//! `required` beside the `allOf`, a `$ref` beside it (folded as a branch
//! is), branches behind `$ref` chains, in
//! resources of their own, and recursion through `$ref` and
//! `$dynamicRef`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod twins;

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Options, Validator};
use serde_json::{json, Map, Value};
use twins::{compare, nested_value, Rng, Tally};

const NAMES: [&str; 6] = ["a", "b", "kind", "size", "items", "tag"];

fn property_schema(rng: &mut Rng, recursion: &Value) -> Value {
    match rng.below(6) {
        0 => json!({"type": "integer", "minimum": rng.below(3)}),
        1 => json!({"type": "string", "maxLength": 3}),
        2 => json!({"const": NAMES[rng.below(NAMES.len())]}),
        3 => recursion.clone(),
        4 => json!({"type": ["integer", "string"]}),
        _ => json!(true),
    }
}

fn properties(rng: &mut Rng, recursion: &Value) -> Map<String, Value> {
    (0..rng.below(4))
        .map(|_| {
            (
                NAMES[rng.below(NAMES.len())].to_string(),
                property_schema(rng, recursion),
            )
        })
        .collect()
}

/// A branch: `type` and `properties`, or either alone.
fn branch(rng: &mut Rng, recursion: &Value) -> Map<String, Value> {
    let mut branch = Map::new();
    if rng.chance(60) {
        // `number` beside `integer` too: they meet at the integers.
        let types = [
            json!("object"),
            json!(["object", "boolean"]),
            json!(["object", "integer"]),
            json!(["object", "number"]),
            json!("integer"),
        ];
        branch.insert("type".into(), types[rng.below(types.len())].clone());
    }
    if rng.chance(85) {
        branch.insert("properties".into(), Value::Object(properties(rng, recursion)));
    }
    branch
}

/// A generated schema and its unfolded twin.
fn schemas(rng: &mut Rng) -> (Value, Value) {
    let dynamic = rng.chance(30);
    let recursion = if dynamic {
        json!({"$dynamicRef": "#meta"})
    } else {
        json!({"$ref": "#"})
    };
    let mut defs = Map::new();
    let mut twin_defs = Map::new();
    let (mut all_of, mut twin_all_of) = (Vec::new(), Vec::new());
    for i in 0..1 + rng.below(4) {
        let body = branch(rng, &recursion);
        let mut twin_body = body.clone();
        twin_body.insert("minProperties".into(), json!(0));
        match rng.below(3) {
            // Inline.
            0 => {
                all_of.push(Value::Object(body));
                twin_all_of.push(Value::Object(twin_body));
            }
            // Behind a `$ref` (and, half the time, a second one).
            1 => {
                let name = format!("d{i}");
                let target = if rng.chance(50) {
                    defs.insert(format!("via{i}"), json!({"$ref": format!("#/$defs/{name}")}));
                    twin_defs.insert(format!("via{i}"), json!({"$ref": format!("#/$defs/{name}")}));
                    format!("#/$defs/via{i}")
                } else {
                    format!("#/$defs/{name}")
                };
                defs.insert(name.clone(), Value::Object(body));
                twin_defs.insert(name, Value::Object(twin_body));
                all_of.push(json!({"$ref": target}));
                twin_all_of.push(json!({"$ref": target}));
            }
            // A resource of its own, as the vocabularies are.
            _ => {
                let id = format!("https://example.com/vocab/{i}");
                let mut own = body;
                let mut twin_own = twin_body;
                for resource in [&mut own, &mut twin_own] {
                    resource.insert("$id".into(), json!(id));
                    if dynamic {
                        resource.insert("$dynamicAnchor".into(), json!("meta"));
                    }
                }
                defs.insert(format!("r{i}"), Value::Object(own));
                twin_defs.insert(format!("r{i}"), Value::Object(twin_own));
                all_of.push(json!({"$ref": id}));
                twin_all_of.push(json!({"$ref": id}));
            }
        }
    }
    let mut root = Map::new();
    root.insert("$id".into(), json!("https://example.com/root"));
    if dynamic {
        root.insert("$dynamicAnchor".into(), json!("meta"));
    }
    if rng.chance(50) {
        root.insert("properties".into(), Value::Object(properties(rng, &recursion)));
    }
    if rng.chance(30) {
        let additional = [json!(false), json!({"type": "integer"})];
        root.insert("additionalProperties".into(), additional[rng.below(2)].clone());
    }
    if rng.chance(30) {
        root.insert("required".into(), json!([NAMES[rng.below(NAMES.len())]]));
    }
    if rng.chance(40) {
        let types = [json!(["object", "boolean"]), json!(["object", "number"])];
        root.insert("type".into(), types[rng.below(2)].clone());
    }
    // A `$ref` beside the other keywords, to a base schema that folds as a
    // branch does (the twin's does not).
    if rng.chance(40) {
        let base = branch(rng, &recursion);
        let mut twin_base = base.clone();
        twin_base.insert("minProperties".into(), json!(0));
        defs.insert("base".into(), Value::Object(base));
        twin_defs.insert("base".into(), Value::Object(twin_base));
        root.insert("$ref".into(), json!("#/$defs/base"));
    }
    let mut twin = root.clone();
    root.insert("allOf".into(), Value::Array(all_of));
    root.insert("$defs".into(), Value::Object(defs));
    twin.insert("allOf".into(), Value::Array(twin_all_of));
    twin.insert("$defs".into(), Value::Object(twin_defs));
    (Value::Object(root), Value::Object(twin))
}

#[test]
fn a_folded_all_of_decides_as_its_unfolded_twin() {
    let Tally {
        compared,
        valid,
        cheaper,
    } = compare(0x5eed_a110f, schemas, |rng| nested_value(rng, 3, &NAMES));
    println!("{compared} instances compared, {valid} valid, {cheaper} decided in fewer units folded");
    // Both verdicts occur often, and the fold does apply.
    assert!(
        valid > compared / 10 && valid < compared * 9 / 10,
        "{valid} of {compared} valid"
    );
    assert!(cheaper > compared / 10, "{cheaper} of {compared} cheaper");
}

#[test]
fn the_metaschema_check_runs_folded() {
    // A schema of many subschemas: its 2020-12 metaschema check visits each
    // subschema once through the vocabularies' `allOf`, folded.
    let schema = json!({"properties": {"a": {"type": "integer"}, "b": {"items": {"minimum": 1}}}});
    let meta = json!({"$ref": "https://json-schema.org/draft/2020-12/schema"});
    let folded = Validator::compile(&meta, &Options::default()).unwrap();
    assert_eq!(folded.is_valid(JsonRef::from(&schema)), Ok(true));
    assert_eq!(
        folded.is_valid(JsonRef::from(&json!({"minimum": "1"}))),
        Ok(false)
    );
    assert_eq!(
        folded.is_valid(JsonRef::from(&json!({"properties": {"a": {"type": "nothing"}}}))),
        Ok(false)
    );
}

#[test]
fn a_branch_whose_property_is_a_resource_of_its_own_keeps_its_dynamic_scope() {
    // Evaluated through the branch `r`, the scope at `inner` is root, r,
    // inner: `#x` there resolves to `r` (the outermost resource declaring
    // `x`). Folding `r` into the root would leave it out of the scope, and
    // `#x` would resolve to `inner`; so `r` is not folded.
    let inner = json!({
        "$id": "https://example.com/inner",
        "$dynamicAnchor": "x",
        "type": "object",
        "properties": {"q": {"$dynamicRef": "#x"}}
    });
    let branch = |extra: Option<Value>| {
        let mut r = json!({
            "$id": "https://example.com/r",
            "$dynamicAnchor": "x",
            "type": "object",
            "properties": {"p": inner}
        });
        if let Some(extra) = extra {
            r["minProperties"] = extra;
        }
        json!({
            "$id": "https://example.com/root",
            "allOf": [{"$ref": "https://example.com/r"}],
            "$defs": {"r": r}
        })
    };
    let folded = Validator::compile(&branch(None), &Options::default()).unwrap();
    let unfolded = Validator::compile(&branch(Some(json!(0))), &Options::default()).unwrap();
    // `q` against `r`: its `p` must be an object, and 5 is not.
    let instance = json!({"p": {"q": {"p": 5}}});
    assert_eq!(unfolded.is_valid(JsonRef::from(&instance)), Ok(false));
    assert_eq!(folded.is_valid(JsonRef::from(&instance)), Ok(false));
    let instance = json!({"p": {"q": {"p": {}}}});
    assert_eq!(folded.is_valid(JsonRef::from(&instance)), Ok(true));
}

/// Folded `type`s meet as sets of values, where `number` holds every
/// integer: `number` beside a branch of `integer` (inline, behind `$ref`s,
/// or a `$ref` beside it) allows the integers, not nothing. The verdicts
/// are the specification's, by hand: `2.0` is an integer from draft 6 on,
/// never in draft 4.
#[test]
fn number_and_integer_meet_at_integer() {
    let schemas = [
        json!({"type": "number", "allOf": [{"type": "integer"}]}),
        json!({"allOf": [{"type": "number"}, {"type": "integer"}]}),
        json!({"allOf": [{"type": "integer"}, {"type": ["number", "string"]}]}),
        json!({"type": "number", "allOf": [{"$ref": "#/definitions/int"}, {"$ref": "#/definitions/int"}],
               "definitions": {"int": {"type": "integer"}}}),
        json!({"type": ["number", "null"], "$ref": "#/definitions/int", "definitions": {"int": {"type": "integer"}}}),
        json!({"type": "number", "allOf": [{"type": "number"}]}),
    ];
    let dialects = [
        ("http://json-schema.org/draft-04/schema#", false),
        ("http://json-schema.org/draft-07/schema#", true),
        ("https://json-schema.org/draft/2019-09/schema", true),
        ("https://json-schema.org/draft/2020-12/schema", true),
    ];
    for (i, schema) in schemas.iter().enumerate() {
        let only_numbers = i == schemas.len() - 1;
        for (dialect, whole_floats_are_integers) in dialects {
            // Draft 7 ignores a `$ref`'s siblings: there the fifth schema
            // is `integer` alone, which gives the same verdicts.
            let mut schema = schema.clone();
            schema["$schema"] = json!(dialect);
            let v = Validator::compile(&schema, &Options::default()).unwrap();
            for (instance, expected) in [
                (json!(0), true),
                (json!(-7), true),
                (json!(2.0), whole_floats_are_integers || only_numbers),
                (json!(1.5), only_numbers),
                (json!("1"), false),
                (json!(null), false),
            ] {
                let units = v.validate(JsonRef::from(&instance)).unwrap();
                assert_eq!(
                    (v.is_valid(JsonRef::from(&instance)), units.is_empty()),
                    (Ok(expected), expected),
                    "{schema} on {instance}: {units:?}"
                );
            }
        }
    }
}

/// Branches that read whole floats differently (a draft 4 resource, where
/// `2.0` is no integer, beside a 2020-12 branch, where it is one) are not
/// met into one type set: each keeps its own reading, in either order.
#[test]
fn branches_of_two_readings_of_integers_keep_their_own() {
    // A resource of the caller's, in its own dialect.
    let options = Options {
        resources: vec![(
            "https://example.com/old".to_string(),
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}),
        )],
        ..Options::default()
    };
    for all_of in [
        json!([{"$ref": "https://example.com/old"}, {"type": "integer"}]),
        json!([{"type": "integer"}, {"$ref": "https://example.com/old"}]),
    ] {
        let schema = json!({"allOf": all_of});
        let v = Validator::compile(&schema, &options).unwrap();
        for (instance, expected) in [(json!(2), true), (json!(2.0), false), (json!(2.5), false)] {
            let units = v.validate(JsonRef::from(&instance)).unwrap();
            assert_eq!(
                (v.is_valid(JsonRef::from(&instance)), units.is_empty()),
                (Ok(expected), expected),
                "{schema} on {instance}: {units:?}"
            );
        }
    }
}
