//! The Draft 2020-12 tool-call contract: its limits on schemas and
//! arguments, the one dialect it takes, the object root, and which
//! references need a document from the caller. Each check walks in the
//! value's own order (a map's keys as the map holds them), so that of two
//! problems the one a walk meets first is the one reported, and each is
//! charged to the caller's budget, one unit a value.

use serde_json::Value as Json;

use crate::budget::{Budget, OverBudget};
use crate::standard::documents::Reference;
use crate::value::{Kind, Value};

/// The one dialect the contract takes (a trailing empty fragment allowed).
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Where the built-in 2020-12 metaschemas live: a reference into them needs
/// no document from the caller.
const BUILT_IN_PREFIX: &str = "https://json-schema.org/draft/2020-12/";

/// The contract's limits: a schema's `:erlang.external_size/1`, the
/// nesting of a schema or of arguments (a value more than this many levels
/// below the root), their maps and lists, and a schema's references. The
/// runtime's own boundary sets these numbers; they stay its.
pub const MAX_SCHEMA_BYTES: u64 = 1_048_576;
pub const MAX_DEPTH: usize = 128;
pub const MAX_NODES: usize = 100_000;
pub const MAX_REFERENCES: usize = 10_000;

/// Which limit a schema or arguments exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    SchemaBytes,
    SchemaDepth,
    SchemaNodes,
    References,
    InputDepth,
    InputNodes,
}

impl Limit {
    /// The name the contract reports (`details.limit`).
    pub fn name(self) -> &'static str {
        match self {
            Limit::SchemaBytes => "schema_bytes",
            Limit::SchemaDepth => "schema_depth",
            Limit::SchemaNodes => "schema_nodes",
            Limit::References => "references",
            Limit::InputDepth => "input_depth",
            Limit::InputNodes => "input_nodes",
        }
    }

    /// The limit's number (`details.maximum`).
    pub fn maximum(self) -> u64 {
        match self {
            Limit::SchemaBytes => MAX_SCHEMA_BYTES,
            Limit::SchemaDepth | Limit::InputDepth => MAX_DEPTH as u64,
            Limit::SchemaNodes | Limit::InputNodes => MAX_NODES as u64,
            Limit::References => MAX_REFERENCES as u64,
        }
    }
}

/// What a value is: the arguments, or a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of {
    Arguments,
    Schema,
}

enum Children<'a, V: Value<'a>> {
    List(V::Items),
    Map(V::Entries),
}

/// The first of the nesting and size limits `value` exceeds, in a walk in
/// its order: a value (of any kind) more than [`MAX_DEPTH`] levels below
/// the root, or the map or list that makes more than [`MAX_NODES`].
pub fn shape<'a, V: Value<'a>>(value: V, of: Of, budget: &Budget) -> Result<Option<Limit>, OverBudget> {
    let (too_deep, too_many) = match of {
        Of::Arguments => (Limit::InputDepth, Limit::InputNodes),
        Of::Schema => (Limit::SchemaDepth, Limit::SchemaNodes),
    };
    let mut nodes = 0usize;
    let mut stack: Vec<(Children<'a, V>, usize)> = Vec::new();
    let mut next = Some((value, 0usize));
    loop {
        if let Some((value, depth)) = next.take() {
            budget.charge_one()?;
            if depth > MAX_DEPTH {
                return Ok(Some(too_deep));
            }
            let children = match value.kind() {
                Kind::List => Some(Children::List(value.list_items())),
                Kind::Map => Some(Children::Map(value.map_entries())),
                _ => None,
            };
            if let Some(children) = children {
                nodes += 1;
                if nodes > MAX_NODES {
                    return Ok(Some(too_many));
                }
                stack.push((children, depth + 1));
            }
        }
        let Some((children, depth)) = stack.last_mut() else {
            return Ok(None);
        };
        let child = match children {
            Children::List(items) => items.next(),
            Children::Map(entries) => entries.next().map(|(_, value)| value),
        };
        match child {
            Some(child) => next = Some((child, *depth)),
            None => {
                stack.pop();
            }
        }
    }
}

/// Whether `schema` has more than [`MAX_REFERENCES`] references: a
/// `$ref` or `$dynamicRef` whose value is a string, in any map.
pub fn too_many_references(schema: &Json, budget: &Budget) -> Result<bool, OverBudget> {
    let mut count = 0usize;
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        budget.charge_one()?;
        match value {
            Json::Object(map) => {
                for (key, value) in map {
                    if matches!(key.as_str(), "$ref" | "$dynamicRef") && value.is_string() {
                        count += 1;
                        if count > MAX_REFERENCES {
                            return Ok(true);
                        }
                    }
                    pending.push(value);
                }
            }
            Json::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    Ok(false)
}

/// The first `$schema` value, in any map of `schema`, that is not
/// [`DIALECT`] (a `null` one is as absent): a map's own before what it
/// holds, then its values in order.
pub fn unsupported_dialect<'s>(schema: &'s Json, budget: &Budget) -> Result<Option<&'s Json>, OverBudget> {
    enum Held<'s> {
        Values(serde_json::map::Values<'s>),
        Items(std::slice::Iter<'s, Json>),
    }
    let mut stack: Vec<Held<'s>> = Vec::new();
    let mut next = Some(schema);
    loop {
        if let Some(value) = next.take() {
            budget.charge_one()?;
            match value {
                Json::Object(map) => {
                    match map.get("$schema") {
                        None | Some(Json::Null) => {}
                        Some(Json::String(uri)) if uri.strip_suffix('#').unwrap_or(uri) == DIALECT => {}
                        Some(other) => return Ok(Some(other)),
                    }
                    stack.push(Held::Values(map.values()));
                }
                Json::Array(items) => stack.push(Held::Items(items.iter())),
                _ => {}
            }
        }
        let Some(held) = stack.last_mut() else {
            return Ok(None);
        };
        let child = match held {
            Held::Values(values) => values.next(),
            Held::Items(items) => items.next(),
        };
        match child {
            Some(child) => next = Some(child),
            None => {
                stack.pop();
            }
        }
    }
}

/// The root's `type` when it is not an object's: absent (or `null`),
/// `"object"` and `["object"]` are.
pub fn non_object_root(schema: &Json) -> Option<&Json> {
    match schema.get("type") {
        None | Some(Json::Null) => None,
        Some(Json::String(name)) if name == "object" => None,
        Some(Json::Array(names))
            if names.len() == 1 && names.first().and_then(Json::as_str) == Some("object") =>
        {
            None
        }
        Some(other) => Some(other),
    }
}

/// Whether the contract counts `reference` as external: written as
/// anything but a fragment (`#...`), and not into the built-in 2020-12
/// metaschemas. An external reference needs a registry or a loader.
pub fn is_external(reference: &Reference) -> bool {
    !reference.written.starts_with('#') && !in_built_in(reference)
}

fn in_built_in(reference: &Reference) -> bool {
    reference.built_in && reference.document.starts_with(BUILT_IN_PREFIX)
}

/// Whether the caller must supply the document `reference` names: it is
/// external, and neither the schema itself nor `provided` (the documents
/// loaded so far, by the URIs they resolve to) holds it. A built-in
/// metaschema of another dialect is not taken for one.
pub fn needs_document(reference: &Reference, provided: &[String]) -> bool {
    let held_by_schema = reference.document_known && !reference.built_in;
    is_external(reference) && !held_by_schema && !provided.contains(&reference.document)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::json::JsonRef;
    use serde_json::json;

    fn nested(levels: usize) -> Json {
        (0..levels).fold(json!(1), |inner, _| json!({ "a": inner }))
    }

    fn limit(value: &Json, of: Of) -> Option<Limit> {
        shape(JsonRef::from(value), of, &Budget::unlimited()).unwrap()
    }

    #[test]
    fn a_value_more_than_128_levels_down_is_too_deep() {
        // 128 maps: their leaf is 128 levels below the root.
        assert_eq!(limit(&nested(128), Of::Arguments), None);
        assert_eq!(limit(&nested(129), Of::Arguments), Some(Limit::InputDepth));
        assert_eq!(limit(&nested(129), Of::Schema), Some(Limit::SchemaDepth));
        let lists = (0..129).fold(json!([]), |inner, _| json!([inner]));
        assert_eq!(limit(&lists, Of::Schema), Some(Limit::SchemaDepth));
    }

    #[test]
    fn more_than_100000_maps_and_lists_are_too_many() {
        let many = Json::Array(vec![json!({}); MAX_NODES - 1]);
        assert_eq!(limit(&many, Of::Arguments), None);
        let more = Json::Array(vec![json!([]); MAX_NODES]);
        assert_eq!(limit(&more, Of::Arguments), Some(Limit::InputNodes));
        // Scalars are not counted.
        let scalars = Json::Array(vec![json!(1); MAX_NODES * 2]);
        assert_eq!(limit(&scalars, Of::Schema), None);
    }

    #[test]
    fn the_first_limit_met_in_order_is_reported() {
        // "a" holds the deep value, "b" the many lists: "a" comes first.
        let both = json!({"a": nested(200), "b": vec![json!([]); MAX_NODES + 1]});
        assert_eq!(limit(&both, Of::Schema), Some(Limit::SchemaDepth));
        let swapped = json!({"b": nested(200), "a": vec![json!([]); MAX_NODES + 1]});
        assert_eq!(limit(&swapped, Of::Schema), Some(Limit::SchemaNodes));
    }

    #[test]
    fn references_are_counted_in_every_map() {
        let refs = |n: usize| Json::Array((0..n).map(|_| json!({"$ref": "#"})).collect());
        assert!(!too_many_references(&refs(MAX_REFERENCES), &Budget::unlimited()).unwrap());
        assert!(too_many_references(&refs(MAX_REFERENCES + 1), &Budget::unlimited()).unwrap());
        let mixed =
            json!({"$dynamicRef": "#a", "enum": [{"$ref": "#"}], "$recursiveRef": "#", "x": {"$ref": 1}});
        let budget = Budget::unlimited();
        assert!(!too_many_references(&mixed, &budget).unwrap());
    }

    #[test]
    fn the_first_other_dialect_anywhere_is_named() {
        let ok = json!({"$schema": DIALECT, "properties": {"a": {"$schema": format!("{DIALECT}#")}}});
        assert_eq!(unsupported_dialect(&ok, &Budget::unlimited()).unwrap(), None);
        let nested = json!({"properties": {"a": {"$schema": "http://json-schema.org/draft-07/schema#"}, "b": {"$schema": 1}}});
        assert_eq!(
            unsupported_dialect(&nested, &Budget::unlimited()).unwrap(),
            Some(&json!("http://json-schema.org/draft-07/schema#"))
        );
        // A map's own `$schema` before what it holds; `null` is absent.
        let own = json!({"$schema": "x", "properties": {"a": {"$schema": "y"}}});
        assert_eq!(
            unsupported_dialect(&own, &Budget::unlimited()).unwrap(),
            Some(&json!("x"))
        );
        let null = json!({"$schema": null, "enum": [{"$schema": 2}]});
        assert_eq!(
            unsupported_dialect(&null, &Budget::unlimited()).unwrap(),
            Some(&json!(2))
        );
    }

    #[test]
    fn the_root_must_be_an_object_schema() {
        for root in [
            json!({}),
            json!({"type": "object"}),
            json!({"type": ["object"]}),
            json!({"type": null}),
        ] {
            assert_eq!(non_object_root(&root), None, "{root}");
        }
        for (root, ty) in [
            (json!({"type": "string"}), json!("string")),
            (json!({"type": ["object", "null"]}), json!(["object", "null"])),
            (json!({"type": 1}), json!(1)),
        ] {
            assert_eq!(non_object_root(&root), Some(&ty));
        }
    }

    #[test]
    fn external_references_and_the_documents_they_need() {
        use crate::standard::{documents, Options};
        let schema = json!({
            "$defs": {"inner": {"$id": "inner.json"}},
            "properties": {
                "local": {"$ref": "#/$defs/inner"},
                "meta": {"$ref": "https://json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes"},
                "draft7": {"$ref": "http://json-schema.org/draft-07/schema#"},
                "held": {"$ref": "inner.json"},
                "remote": {"$ref": "remote.json#/x"}
            }
        });
        let refs = documents::references(&schema, &Options::default(), &Budget::unlimited()).unwrap();
        let of = |written: &str| refs.iter().find(|r| r.written == written).unwrap();
        let rows = [
            ("#/$defs/inner", false, false),
            (
                "https://json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes",
                false,
                false,
            ),
            ("http://json-schema.org/draft-07/schema#", true, true),
            ("inner.json", true, false),
            ("remote.json#/x", true, true),
        ];
        for (written, external, needs) in rows {
            assert_eq!(is_external(of(written)), external, "{written}");
            assert_eq!(needs_document(of(written), &[]), needs, "{written}");
        }
        let provided = ["json-schema:///remote.json".to_string()];
        assert!(!needs_document(of("remote.json#/x"), &provided));
    }

    #[test]
    fn the_walks_are_charged() {
        let wide = Json::Array(vec![json!(1); 100]);
        assert!(shape(JsonRef::from(&wide), Of::Schema, &Budget::new(50)).is_err());
        assert!(too_many_references(&wide, &Budget::new(50)).is_err());
        assert!(unsupported_dialect(&wide, &Budget::new(50)).is_err());
    }
}
