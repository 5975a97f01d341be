//! Two shortcuts the walks take, each checked against a twin schema that
//! cannot take it; both must give the same verdict and the same failures,
//! in the same order, on every instance:
//!
//! - a leaf (a subschema of `type`, lengths and bounds only) is decided by
//!   its plan, also in the recording walk, where only a failing value is
//!   walked again keyword by keyword. The twin gives every subschema
//!   `"not": false` (true of every value, and a keyword no plan folds), so
//!   that none is a leaf;
//! - the recording walk lets the plans decide the items of a list first,
//!   and records only the items they find invalid, while it has units to
//!   spare; the items the first pass found valid, before the one where it
//!   stopped, it passes without a trial. For the failures, the twin's root also holds
//!   `"unevaluatedProperties": true` (true of every value), which makes it
//!   collect annotations: it then has no first pass, so nothing to spare.
//!   For the charges, the twin checks each item through `prefixItems`
//!   instead (`by_prefix`), which the shortcut does not take.
//!
//! Schemas and instances are generated from a fixed seed: lists of
//! objects, of lists and of leaves, `items`, `prefixItems` and the 2019-09
//! list form with `additionalItems`, `required`, `enum` and `pattern`
//! beside the folded keywords.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

mod twins;

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Dialect, Options, OutputUnit, Validator};
use serde_json::{json, Map, Value};
use twins::{same_on, spent, units, Rng};

const NAMES: [&str; 4] = ["id", "name", "tags", "n"];

fn leaf(rng: &mut Rng) -> Map<String, Value> {
    let mut leaf = Map::new();
    match rng.below(4) {
        0 => {
            leaf.insert("type".into(), json!("integer"));
            leaf.insert("minimum".into(), json!(rng.below(3)));
        }
        1 => {
            leaf.insert("type".into(), json!("string"));
            leaf.insert("maxLength".into(), json!(2 + rng.below(4)));
        }
        2 => {
            leaf.insert("type".into(), json!(["integer", "boolean"]));
        }
        _ => {
            leaf.insert("maximum".into(), json!(3));
        }
    }
    // Beside a leaf's folded keywords, some that are not.
    if rng.chance(15) {
        leaf.insert("enum".into(), json!([1, 2, "a", "ab", true, [1, 2], {"n": 1}]));
    }
    if rng.chance(10) {
        leaf.insert("pattern".into(), json!("^a"));
    }
    if rng.chance(5) {
        let choices = [json!("a"), json!("ab"), json!(1), json!(2), json!([1, 2])];
        leaf.insert("const".into(), choices[rng.below(choices.len())].clone());
    }
    if rng.chance(5) {
        leaf.insert("multipleOf".into(), json!(2));
    }
    if rng.chance(5) {
        leaf.insert("uniqueItems".into(), json!(true));
    }
    if rng.chance(5) {
        leaf.insert("minItems".into(), json!(2));
    }
    leaf
}

fn schema(rng: &mut Rng, depth: usize, dialect: Dialect) -> Map<String, Value> {
    match rng.below(if depth == 0 { 1 } else { 4 }) {
        0 => leaf(rng),
        1 => {
            let mut object = Map::new();
            object.insert("type".into(), json!("object"));
            let properties: Map<String, Value> = (0..1 + rng.below(3))
                .map(|_| {
                    let name = NAMES[rng.below(NAMES.len())].to_string();
                    (name, Value::Object(schema(rng, depth - 1, dialect)))
                })
                .collect();
            object.insert("properties".into(), Value::Object(properties));
            if rng.chance(50) {
                object.insert("required".into(), json!([NAMES[rng.below(NAMES.len())]]));
            }
            if rng.chance(20) {
                object.insert("additionalProperties".into(), json!(false));
            }
            object
        }
        _ => {
            let mut array = Map::new();
            if rng.chance(70) {
                array.insert("type".into(), json!("array"));
            }
            let items = Value::Object(schema(rng, depth - 1, dialect));
            match (rng.below(3), dialect) {
                (0, Dialect::Draft2020_12) => {
                    array.insert(
                        "prefixItems".into(),
                        json!([Value::Object(schema(rng, depth - 1, dialect))]),
                    );
                    array.insert("items".into(), items);
                }
                (0, _) => {
                    array.insert(
                        "items".into(),
                        json!([Value::Object(schema(rng, depth - 1, dialect))]),
                    );
                    array.insert("additionalItems".into(), items);
                }
                _ => {
                    array.insert("items".into(), items);
                }
            }
            array
        }
    }
}

/// The schema with `"not": false` in each of its subschemas.
fn without_leaves(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut twin: Map<String, Value> = map
                .iter()
                .map(|(k, v)| {
                    let v = match k.as_str() {
                        "properties" => Value::Object(
                            v.as_object()
                                .unwrap()
                                .iter()
                                .map(|(name, s)| (name.clone(), without_leaves(s)))
                                .collect(),
                        ),
                        "items" | "additionalItems" | "prefixItems" => without_leaves(v),
                        _ => v.clone(),
                    };
                    (k.clone(), v)
                })
                .collect();
            twin.insert("not".into(), json!(false));
            Value::Object(twin)
        }
        Value::Array(list) => Value::Array(list.iter().map(without_leaves).collect()),
        other => other.clone(),
    }
}

fn instance(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth == 0 { 5 } else { 8 }) {
        0 => json!(rng.below(5)),
        1 => json!(["a", "ab", "abcdef", "b"][rng.below(4)]),
        2 => json!(true),
        3 => json!(1.5),
        4 => json!(null),
        5 => Value::Object(
            (0..rng.below(4))
                .map(|_| {
                    (
                        NAMES[rng.below(NAMES.len())].to_string(),
                        instance(rng, depth - 1),
                    )
                })
                .collect(),
        ),
        _ => {
            // Items alike, as a list of records is: one shape, repeated,
            // with now and then another.
            let item = instance(rng, depth - 1);
            Value::Array(
                (0..rng.below(7))
                    .map(|_| {
                        if rng.chance(20) {
                            instance(rng, depth - 1)
                        } else {
                            item.clone()
                        }
                    })
                    .collect(),
            )
        }
    }
}

fn compile(schema: &Value, dialect: Dialect) -> Validator {
    let options = Options {
        dialect,
        ..Options::default()
    };
    Validator::compile(schema, &options).expect("compiles")
}

#[test]
fn the_shortcuts_record_what_the_keyword_walk_records() {
    let mut rng = Rng(0x1eaf_5eed);
    let (mut compared, mut invalid, mut later_items) = (0, 0, 0);
    for round in 0..2_000 {
        let dialect = if round % 2 == 0 {
            Dialect::Draft2020_12
        } else {
            Dialect::Draft2019_09
        };
        let root = schema(&mut rng, 3, dialect);
        let schema = Value::Object(root);
        let mut twin = without_leaves(&schema);
        twin.as_object_mut()
            .unwrap()
            .insert("unevaluatedProperties".into(), json!(true));
        let fast = compile(&schema, dialect);
        let slow = compile(&twin, dialect);
        for _ in 0..8 {
            let instance = instance(&mut rng, 3);
            let (verdict, _) = same_on(&fast, &slow, &schema, &instance);
            let errors = fast.validate(JsonRef::from(&instance)).unwrap();
            compared += 1;
            invalid += usize::from(!verdict);
            // A failure in an item after the first: one the shortcut
            // found among items it let the plans decide.
            later_items += usize::from(errors.iter().any(|e| {
                e.instance_location
                    .split('/')
                    .any(|seg| seg.parse::<usize>().is_ok_and(|i| i > 0))
            }));
        }
    }
    println!("{compared} instances compared, {invalid} invalid, {later_items} failing in a later item");
    assert!(
        invalid > compared / 5 && invalid < compared * 4 / 5,
        "{invalid} of {compared} invalid"
    );
    assert!(later_items > compared / 50, "{later_items} of {compared}");
}

/// Units of `validate` (both passes) and of `is_valid` (the first).
fn units_of(v: &Validator, instance: &Value) -> (u64, u64) {
    let both = spent(|b| {
        v.validate_within(JsonRef::from(instance), b).unwrap();
    });
    let first = spent(|b| {
        v.is_valid_within(JsonRef::from(instance), b).unwrap();
    });
    (both, first)
}

/// The schema with each `items` of `list` lists replaced by `prefixItems`
/// of as many copies: the same checks and charges, an item for an item,
/// through a keyword the items shortcut does not take.
fn by_prefix(schema: &Value, len: usize) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match k.as_str() {
                    "items" => (
                        "prefixItems".to_string(),
                        Value::Array(vec![by_prefix(v, len); len]),
                    ),
                    _ => (k.clone(), by_prefix(v, len)),
                })
                .collect(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(|v| by_prefix(v, len)).collect()),
        other => other.clone(),
    }
}

/// Units of `validate` (both passes) and `is_valid` (the first) with
/// `schema`, and of its recording walk alone: the second pass of its
/// `by_prefix` twin, which takes no items shortcut.
fn passes(schema: &Value, len: usize, instance: &Value) -> (u64, u64, u64) {
    let (both, first) = units_of(&compile(schema, Dialect::Draft2020_12), instance);
    let (twin_both, twin_first) =
        units_of(&compile(&by_prefix(schema, len), Dialect::Draft2020_12), instance);
    (both, first, twin_both - twin_first)
}

/// A list of lists to `depth` levels whose items are `[1, 2, 3]` at the
/// bottom.
fn valid_lists(depth: usize) -> Value {
    if depth == 0 {
        return json!([1, 2, 3]);
    }
    json!([
        valid_lists(depth - 1),
        valid_lists(depth - 1),
        valid_lists(depth - 1)
    ])
}

/// Lists of lists that fail in the last item at every level, and also in
/// the middle one at each level when `twice` (two failures a level).
fn failing_lists(depth: usize, twice: bool) -> Value {
    if depth == 0 {
        return json!([1, 2, "x"]);
    }
    let middle = if twice {
        failing_lists(depth - 1, twice)
    } else {
        valid_lists(depth - 1)
    };
    json!([valid_lists(depth - 1), middle, failing_lists(depth - 1, twice)])
}

/// A schema of lists of lists, six levels of `failing_lists`, and the
/// failures `validate` gives it.
fn lists(twice: bool) -> (Value, Value, Vec<OutputUnit>) {
    let schema = json!({"$defs": {"list": {"type": ["array", "integer"], "items": {"$ref": "#/$defs/list"}}}, "$ref": "#/$defs/list"});
    let instance = failing_lists(6, twice);
    let errors = compile(&schema, Dialect::Draft2020_12)
        .validate(JsonRef::from(&instance))
        .unwrap();
    (schema, instance, errors)
}

#[test]
fn the_items_shortcut_walks_only_the_path_to_the_first_pass_failure() {
    // The failure is the last value of the whole instance: the first pass
    // stops there, having found each level's last item invalid and the
    // two before it valid. The recording walk passes those two without a
    // walk or a trial, and walks the last straight away: trying it would
    // walk nearly all of it again, to fail again. So it costs what walking
    // every item recording costs, less what the valid siblings cost.
    let (schema, instance, errors) = lists(false);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_location, "/2/2/2/2/2/2/2");
    let (both, first, recording) = passes(&schema, 3, &instance);
    // A valid sibling costs the recording walk what it costs `is_valid`
    // (the schema at the root is the items' `$ref`, with its `$defs`).
    let v = compile(&schema, Dialect::Draft2020_12);
    let siblings: u64 = (0..6)
        .map(|depth| 2 * units(&v, &valid_lists(depth)))
        .sum::<u64>()
        + units(&v, &json!(1))
        + units(&v, &json!(2));
    println!(
        "first pass {first}, both passes {both}, the recording walk alone {recording}, the valid siblings {siblings}"
    );
    assert_eq!(both, first + recording - siblings);
    assert!(both - first < 50, "{both} - {first}");
}

#[test]
fn the_items_shortcut_costs_at_most_the_first_pass_more() {
    // Two failing items a level: the first pass stops in the middle ones,
    // so each level's last item is tried by the plans first, found
    // invalid, and walked again, recording. What that costs is bounded by
    // what the first pass took, and one trial past it: at most the trial
    // of the largest item, the root's last (a trial is the walk of the
    // first pass, to the item's first failure).
    let (schema, instance, errors) = lists(true);
    assert_eq!(errors.len(), 64);
    assert_eq!(errors[0].instance_location, "/1/1/1/1/1/1/2");
    assert_eq!(errors[63].instance_location, "/2/2/2/2/2/2/2");
    let (both, first, recording) = passes(&schema, 3, &instance);
    let (_, trial) = units_of(&compile(&schema, Dialect::Draft2020_12), &instance[2]);
    println!("first pass {first}, both passes {both}, the recording walk alone {recording}, the largest trial {trial}");
    assert!(
        both <= first + recording + first + trial,
        "{both} > {first} + {recording} + {first} + {trial}"
    );
    // The trials found invalid cost something: the items were tried.
    assert!(both > first + recording);
}

#[test]
fn the_items_shortcut_spares_the_recording_of_valid_items() {
    let item = json!({"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "name": {"type": "string", "minLength": 1}}});
    let schema = json!({"type": "array", "items": item});
    let mut list: Vec<Value> = (0..20).map(|i| json!({"id": i, "name": "row"})).collect();
    list.push(json!({"id": "x"}));
    let (both, first, recording) = passes(&schema, 21, &json!(list));
    println!("21 items: both passes {both}, first {first}, recording alone {recording}");
    // The plans decide the 20 valid items for less than the recording
    // walk would take over them.
    assert!(both < first + recording, "{both} >= {first} + {recording}");
}

#[test]
fn a_single_item_is_recorded_without_the_shortcut() {
    // One item, invalid: the plans would only find it invalid, then the
    // recording walk would walk it again; it is recorded at once.
    let schema =
        json!({"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}});
    let (both, first, recording) = passes(&schema, 1, &json!([{"id": "x"}]));
    println!("one item: both passes {both}, first {first}, recording alone {recording}");
    assert_eq!(both, first + recording);
}

#[test]
fn the_items_shortcut_stops_when_its_spare_runs_out() {
    // Every item invalid: the first pass stops in the first, so it spares
    // the second about one item's trial; the items after it are recorded
    // at once. The second pass costs at most the first pass, and one
    // item's trial past it, more than the recording walk alone.
    let item_schema =
        json!({"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}});
    let item = json!({"name": "row", "id": "x"});
    let schema = json!({"type": "array", "items": item_schema});
    let list: Vec<Value> = (0..40).map(|_| item.clone()).collect();
    let (both, first, recording) = passes(&schema, 40, &json!(list));
    let trial = spent(|b| {
        compile(&item_schema, Dialect::Draft2020_12)
            .is_valid_within(JsonRef::from(&item), b)
            .unwrap();
    });
    println!(
        "40 invalid items: both passes {both}, first {first}, recording alone {recording}, a trial {trial}"
    );
    assert!(
        both <= first + recording + first + trial,
        "{both} > {first} + {recording} + {first} + {trial}"
    );
    // Without the bound, every item would be tried.
    assert!(first + trial < 40 * trial);
}

#[test]
fn a_valid_leaf_costs_the_recording_walk_one_reading() {
    // A 160-byte string, valid against its leaf (`type` and both lengths),
    // after an invalid property: the recording walk reads the string once
    // by the plan (a unit per 16 bytes for its text, and for its length),
    // not once for each length keyword. (The invalid key comes first: the
    // keys the first pass passed before it are not read again at all.)
    let text = "x".repeat(160);
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", "minLength": 1, "maxLength": 1000}}});
    let instance = json!({"a": 1, "b": text});
    let leaf = compile(&schema, Dialect::Draft2020_12);
    let mut twin = schema.clone();
    twin["properties"]["b"]["not"] = json!(false);
    let no_leaf = compile(&twin, Dialect::Draft2020_12);
    let with = spent(|b| {
        leaf.validate_within(JsonRef::from(&instance), b).unwrap();
    });
    let without = spent(|b| {
        no_leaf.validate_within(JsonRef::from(&instance), b).unwrap();
    });
    println!("a valid leaf: {with} units, {without} without the shortcut");
    // `not` costs the twin a unit or two a pass; the readings, 20.
    assert!(without >= with + 20, "{without} < {with} + 20");
}
