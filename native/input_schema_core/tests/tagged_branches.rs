//! `anyOf` and `oneOf` over object shapes told apart by a constant (a
//! tagged union) evaluate only the branches whose tag matches the
//! instance's. Each schema here is checked against its twin whose tag
//! schemas also hold `"not": false` (true of every value), which keeps the
//! tag from being found: both must give the same verdict and the same
//! failures, in the same order, on every instance. Schemas and instances
//! are generated from a fixed seed: `const` and `enum` tags, tags shared by
//! two branches, list constants, branches behind `$ref`, branches that do
//! not require the tag or allow more than objects (no tag then),
//! `unevaluatedProperties` beside the union, and instances with every tag,
//! other values (lists and maps among them), no tag, and other types.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod twins;

use serde_json::{json, Map, Value};
use twins::{compare, Rng, Tally};

const TAGS: [&str; 5] = ["circle", "square", "rect", "line", "dot"];
const FIELDS: [&str; 3] = ["a", "b", "c"];

/// A branch with tag `tag`; `twin`: its tag schema also holds
/// `"not": false`.
fn branch(rng: &mut Rng, tag: &str, twin: bool, plain: bool) -> Map<String, Value> {
    let mut tag_schema = match rng.below(10) {
        0..=5 => json!({"const": tag}),
        // A constant that is a list: the instance's value is compared
        // item by item, not by its shape.
        6 => json!({"const": [tag]}),
        _ => json!({"enum": [tag, TAGS[rng.below(TAGS.len())]]}),
    };
    if twin {
        tag_schema["not"] = json!(false);
    }
    let mut properties = Map::new();
    properties.insert("kind".into(), tag_schema);
    let mut required = vec![json!("kind")];
    for field in FIELDS {
        if rng.chance(50) {
            properties.insert(field.into(), json!({"type": "integer", "minimum": 0}));
            if rng.chance(50) {
                required.push(json!(field));
            }
        }
    }
    let mut branch = Map::new();
    // Now and then a branch that does not rule the others out: one that
    // allows more than objects, or does not require the tag.
    if !plain || rng.chance(90) {
        branch.insert("type".into(), json!("object"));
    } else {
        branch.insert("type".into(), json!(["object", "string"]));
    }
    if !plain || rng.chance(90) {
        branch.insert("required".into(), Value::Array(required));
    }
    branch.insert("properties".into(), Value::Object(properties));
    if rng.chance(20) {
        branch.insert("additionalProperties".into(), json!(false));
    }
    branch
}

/// A schema and its twin.
fn schemas(rng: &mut Rng) -> (Value, Value) {
    let applicator = if rng.chance(60) { "oneOf" } else { "anyOf" };
    let count = 2 + rng.below(4);
    let mut tags: Vec<&str> = (0..count).map(|i| TAGS[i]).collect();
    if rng.chance(20) {
        // Two branches of one tag.
        tags[count - 1] = tags[0];
    }
    let plain = rng.chance(80);
    let (mut root, mut twin) = (Map::new(), Map::new());
    let (mut list, mut twin_list) = (Vec::new(), Vec::new());
    let (mut defs, mut twin_defs) = (Map::new(), Map::new());
    for (i, tag) in tags.iter().enumerate() {
        let seed = rng.0;
        let body = branch(rng, tag, false, plain);
        let mut again = Rng(seed);
        let twin_body = branch(&mut again, tag, true, plain);
        if rng.chance(30) {
            let name = format!("shape{i}");
            defs.insert(name.clone(), Value::Object(body));
            twin_defs.insert(name.clone(), Value::Object(twin_body));
            list.push(json!({"$ref": format!("#/$defs/{name}")}));
            twin_list.push(json!({"$ref": format!("#/$defs/{name}")}));
        } else {
            list.push(Value::Object(body));
            twin_list.push(Value::Object(twin_body));
        }
    }
    root.insert(applicator.into(), Value::Array(list));
    twin.insert(applicator.into(), Value::Array(twin_list));
    root.insert("$defs".into(), Value::Object(defs));
    twin.insert("$defs".into(), Value::Object(twin_defs));
    if rng.chance(25) {
        for schema in [&mut root, &mut twin] {
            schema.insert("unevaluatedProperties".into(), json!(false));
        }
    }
    if rng.chance(25) {
        // The union as a property's schema, beside a sibling.
        let wrap = |union: Map<String, Value>| {
            let defs = union.get("$defs").cloned().unwrap_or(json!({}));
            let mut inner = union;
            inner.remove("$defs");
            json!({"$defs": defs, "type": "object", "properties": {"shape": inner, "n": {"type": "integer"}}})
        };
        return (wrap(root), wrap(twin));
    }
    (Value::Object(root), Value::Object(twin))
}

fn instance(rng: &mut Rng) -> Value {
    let shape = match rng.below(10) {
        0 => json!("circle"),
        1 => json!([1, 2]),
        2 => json!(null),
        _ => {
            let mut object = Map::new();
            match rng.below(6) {
                0 => {}
                1 => {
                    let others = [
                        json!("other"),
                        json!(7),
                        json!(true),
                        json!([TAGS[rng.below(TAGS.len())]]),
                        json!({"kind": "circle"}),
                    ];
                    object.insert("kind".into(), others[rng.below(others.len())].clone());
                }
                _ => {
                    object.insert("kind".into(), json!(TAGS[rng.below(TAGS.len())]));
                }
            }
            for field in FIELDS {
                if rng.chance(50) {
                    let values = [json!(1), json!(-1), json!("x")];
                    object.insert(field.into(), values[rng.below(values.len())].clone());
                }
            }
            if rng.chance(10) {
                object.insert("extra".into(), json!(1));
            }
            Value::Object(object)
        }
    };
    if rng.chance(25) {
        json!({"shape": shape, "n": 1})
    } else {
        shape
    }
}

#[test]
fn a_tagged_union_decides_and_records_as_its_untagged_twin() {
    let Tally {
        compared,
        valid,
        cheaper,
    } = compare(0x007a_66ed, schemas, instance);
    println!("{compared} instances compared, {valid} valid, {cheaper} decided in fewer units tagged");
    assert!(
        valid > compared / 10 && valid < compared * 9 / 10,
        "{valid} of {compared} valid"
    );
    // The tag is found, and spares work.
    assert!(cheaper > compared / 4, "{cheaper} of {compared} cheaper");
}
