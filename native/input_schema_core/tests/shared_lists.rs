//! The recording walk passes, without a walk, the items of a list that
//! `validate`'s first pass found valid before the item where it stopped,
//! when it meets the same list, under the same `items` schema, at the same
//! depth. A term the instance holds twice is one list; here a backend whose
//! equal lists share one identity stands for it (JSON documents hold no
//! shared values). At another depth the same items may meet the depth
//! limit where the first pass's did not: there the finding passes nothing,
//! and the answer is the one a backend without shared lists gives.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Limit, Options, Validator, MAX_WALK_DEPTH};
use input_schema_core::value::{AtomId, Shape, Value as Read};
use serde_json::{json, Value};

/// A JSON value whose equal lists share one identity: their text's hash.
#[derive(Debug, Clone, Copy)]
struct Shared<'a>(JsonRef<'a>);

struct SharedItems<'a>(<JsonRef<'a> as Read<'a>>::Items);

impl<'a> Iterator for SharedItems<'a> {
    type Item = Shared<'a>;

    fn next(&mut self) -> Option<Shared<'a>> {
        self.0.next().map(Shared)
    }
}

struct SharedEntries<'a>(<JsonRef<'a> as Read<'a>>::Entries);

impl<'a> Iterator for SharedEntries<'a> {
    type Item = (Shared<'a>, Shared<'a>);

    fn next(&mut self) -> Option<(Shared<'a>, Shared<'a>)> {
        self.0.next().map(|(k, v)| (Shared(k), Shared(v)))
    }
}

impl<'a> Read<'a> for Shared<'a> {
    type Items = SharedItems<'a>;
    type Entries = SharedEntries<'a>;

    fn shape(self) -> Shape<'a> {
        self.0.shape()
    }

    fn list_len(self) -> Option<usize> {
        self.0.list_len()
    }

    fn list_items(self) -> SharedItems<'a> {
        SharedItems(self.0.list_items())
    }

    fn map_entries(self) -> SharedEntries<'a> {
        SharedEntries(self.0.map_entries())
    }

    fn map_len(self) -> usize {
        self.0.map_len()
    }

    fn is_struct(self) -> bool {
        self.0.is_struct()
    }

    fn identity(self) -> usize {
        match self.0 {
            JsonRef::Value(list @ Value::Array(_)) => {
                let mut hasher = DefaultHasher::new();
                list.to_string().hash(&mut hasher);
                hasher.finish() as usize
            }
            other => other.identity(),
        }
    }

    fn atom_name(self) -> Option<String> {
        self.0.atom_name()
    }

    fn atom_id(self) -> Option<AtomId> {
        self.0.atom_id()
    }
}

/// `levels` objects nested through `n`, with `list` under `l` at the bottom.
fn nested(list: &Value, levels: usize) -> Value {
    let mut value = json!({ "l": list });
    for _ in 0..levels {
        value = json!({ "n": value });
    }
    value
}

/// Lists nested `levels` deep around a string.
fn deep_list(levels: usize) -> Value {
    let mut value = json!("s");
    for _ in 0..levels {
        value = json!([value]);
    }
    value
}

#[test]
fn a_shared_list_deeper_down_meets_the_depth_limit_as_an_unshared_one() {
    // The list's first item nests 40 levels of lists, valid; its second
    // is no list and no string. Under `a` the first pass finds the first
    // valid and stops at the second. Under `b` the same list sits deeper,
    // at every depth to the limit: its first item meets the limit before
    // its second fails.
    let schema = json!({
        "$defs": {
            "list": {"type": ["array", "string"], "items": {"$ref": "#/$defs/list"}},
            "deep": {"properties": {"n": {"$ref": "#/$defs/deep"}, "l": {"$ref": "#/$defs/list"}}}
        },
        "properties": {"a": {"$ref": "#/$defs/list"}, "b": {"$ref": "#/$defs/deep"}}
    });
    let v = Validator::compile(&schema, &Options::default()).unwrap();
    let list = json!([deep_list(40), 1]);
    let mut limited = 0;
    let mut reported = 0;
    for levels in 0..MAX_WALK_DEPTH / 2 {
        let instance = json!({"a": list, "b": nested(&list, levels)});
        let plain = v.validate(JsonRef::from(&instance));
        let shared = v.validate(Shared(JsonRef::from(&instance)));
        assert_eq!(shared, plain, "{levels} levels");
        match plain {
            Err(Limit::Depth) => limited += 1,
            Ok(errors) => {
                assert_eq!(errors.len(), 2, "{levels} levels");
                reported += 1;
            }
            Err(other) => panic!("{other:?} at {levels} levels"),
        }
    }
    println!("{reported} reported, {limited} over the depth limit");
    assert!(reported > 0 && limited > 0);
}

#[test]
fn a_shared_list_at_the_same_depth_is_reported_at_both_places() {
    // The same list under `a` and `b`, at one depth: the recording walk
    // passes its valid items under `b` by the first pass's finding under
    // `a`, and reports the same failure at both places.
    let schema = json!({
        "$defs": {"list": {"type": "array", "items": {"type": "string", "minLength": 1}}},
        "properties": {"a": {"$ref": "#/$defs/list"}, "b": {"$ref": "#/$defs/list"}}
    });
    let v = Validator::compile(&schema, &Options::default()).unwrap();
    let list = json!(["s", "t", "", "u", 2]);
    let instance = json!({"a": list, "b": list});
    let plain = v.validate(JsonRef::from(&instance)).unwrap();
    let shared = v.validate(Shared(JsonRef::from(&instance))).unwrap();
    assert_eq!(shared, plain);
    let at: Vec<&str> = plain.iter().map(|u| u.instance_location.as_str()).collect();
    assert_eq!(at, ["/a/2", "/a/4", "/b/2", "/b/4"]);
}

#[test]
fn a_shared_list_under_two_dynamic_scopes_is_decided_at_each() {
    // The same items schema (`$dynamicRef`) over the same list at one
    // depth, under two scopes: strings under `a`, integers under `b`. The
    // first pass finds the first two items valid under `a`; under `b`
    // they fail.
    let schema = json!({
        "$id": "https://example.com/root",
        "properties": {"a": {"$ref": "strings"}, "b": {"$ref": "integers"}},
        "$defs": {
            "list": {
                "$id": "list",
                "$dynamicAnchor": "element",
                "type": "array",
                "items": {"$dynamicRef": "#element"}
            },
            "strings": {
                "$id": "strings",
                "$ref": "list",
                "$defs": {"element": {"$dynamicAnchor": "element", "type": "string"}}
            },
            "integers": {
                "$id": "integers",
                "$ref": "list",
                "$defs": {"element": {"$dynamicAnchor": "element", "type": "integer"}}
            }
        }
    });
    let v = Validator::compile(&schema, &Options::default()).unwrap();
    let list = json!(["s", "t", 1]);
    let instance = json!({"a": list, "b": list});
    let plain = v.validate(JsonRef::from(&instance)).unwrap();
    let shared = v.validate(Shared(JsonRef::from(&instance))).unwrap();
    assert_eq!(shared, plain);
    let at: Vec<&str> = plain.iter().map(|u| u.instance_location.as_str()).collect();
    assert_eq!(at, ["/a/2", "/b/0", "/b/1"]);
}
