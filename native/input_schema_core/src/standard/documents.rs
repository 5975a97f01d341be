//! Every reference of a schema and of the resources given with it,
//! resolved without compiling: which document each names, whether the
//! schema, a resource or a built-in metaschema holds it, and whether the
//! reference names a schema there. What a caller's loader is asked for
//! before a compile (the documents nothing holds), and which references
//! resolve nowhere, used or not. Nothing is fetched here either.

use std::cmp::Ordering;

use serde_json::Value as Json;

use super::compiler::DEFAULT_BASE;
use super::registry::{self, Registry};
use super::uri;
use super::{CompileError, Limits, Options};
use crate::budget::Budget;

/// Units a reference costs beside the scan that found it: resolving it
/// and looking its document and its fragment up, as the compile charges a
/// reference it links.
const REFERENCE_UNITS: u64 = 60;

/// One reference (`$ref`, `$dynamicRef`, `$recursiveRef`), resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub keyword: &'static str,
    /// The reference as written.
    pub written: String,
    /// Which document holds it: 0 the schema, then each resource in the
    /// order given.
    pub doc: usize,
    /// The JSON Pointer of the schema that holds it, in that document.
    pub pointer: String,
    /// The document it names: resolved against its base URI, without its
    /// fragment.
    pub document: String,
    /// What a loader is asked for that document: as written (without its
    /// fragment) where no base URI is named; the resolved URI otherwise,
    /// relative to the default base when it lies under it.
    pub request: String,
    /// Whether the document is one of the built-in metaschemas.
    pub built_in: bool,
    /// Whether the schema, a resource given or a built-in holds the
    /// document.
    pub document_known: bool,
    /// Whether the reference names a schema there, its fragment included.
    pub resolves: bool,
}

/// Every reference of `schema` and of `options.resources`, each once, in
/// the order of the documents, then of their keys (JSON Pointer order, an
/// array's items by index).
pub fn references(schema: &Json, options: &Options, budget: &Budget) -> Result<Vec<Reference>, CompileError> {
    let mut registry = Registry::new(Limits::default());
    registry.collect_references();
    registry.add_resources(&options.resources);
    registry.add_document(schema, DEFAULT_BASE, options.dialect, budget)?;
    registry.scan_pending(options.dialect, budget)?;
    let mut found = registry.take_collected();
    // The main schema is the document added last: number it 0.
    let main = options.resources.len();
    let order = |doc: usize| if doc == main { 0 } else { doc + 1 };
    let documents: Vec<&Json> = (0..=main).filter_map(|doc| registry.document(doc)).collect();
    found.sort_by(|a, b| {
        order(a.place.doc).cmp(&order(b.place.doc)).then_with(|| {
            let document = documents.get(a.place.doc).copied();
            document.map_or(Ordering::Equal, |d| {
                pointer_order(d, &a.place.pointer, &b.place.pointer)
            })
        })
    });
    let mut references = Vec::with_capacity(found.len());
    for collected in found {
        budget
            .charge(REFERENCE_UNITS)
            .map_err(|_| CompileError::CompileBudget)?;
        let Some(scope) = registry.scope_at(collected.scope).cloned() else {
            continue;
        };
        let resolved = uri::resolve(&scope.base, collected.value);
        let (document, _) = uri::split_fragment(&resolved);
        let document = document.to_string();
        let request = if &*scope.base == DEFAULT_BASE {
            uri::split_fragment(collected.value).0.to_string()
        } else {
            document
                .strip_prefix(DEFAULT_BASE)
                .unwrap_or(&document)
                .to_string()
        };
        let document_known = registry.locate(&document, scope.dialect, budget)?.is_some();
        let resolves = document_known
            && registry
                .lookup(&resolved, scope.dialect, budget)?
                .is_some_and(|place| registry.value(&place).is_some());
        references.push(Reference {
            keyword: collected.keyword,
            written: collected.value.to_string(),
            doc: order(collected.place.doc),
            pointer: collected.place.pointer,
            built_in: registry::built_in_document(&document).is_some(),
            document,
            request,
            document_known,
            resolves,
        });
    }
    Ok(references)
}

/// The order of two JSON Pointers into `document` as a walk of it meets
/// them: a schema before what it holds, keys in the map's order, items by
/// index.
fn pointer_order(document: &Json, a: &str, b: &str) -> Ordering {
    let (mut at, mut left, mut right) = (Some(document), tokens(a), tokens(b));
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x == y => {
                at = at.and_then(|value| match value {
                    Json::Object(map) => map.get(&x),
                    Json::Array(items) => x.parse::<usize>().ok().and_then(|i| items.get(i)),
                    _ => None,
                });
            }
            (Some(x), Some(y)) => {
                return match (at, x.parse::<usize>(), y.parse::<usize>()) {
                    (Some(Json::Array(_)), Ok(i), Ok(j)) => i.cmp(&j),
                    _ => x.cmp(&y),
                }
            }
        }
    }
}

/// The unescaped tokens of a JSON Pointer.
fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|token| token.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(schema: Json, resources: Vec<(String, Json)>) -> Vec<Reference> {
        let options = Options {
            resources,
            ..Options::default()
        };
        references(&schema, &options, &Budget::unlimited()).unwrap()
    }

    fn brief(references: &[Reference]) -> Vec<(&str, &str, &str, bool, bool)> {
        references
            .iter()
            .map(|r| {
                (
                    r.written.as_str(),
                    r.pointer.as_str(),
                    r.request.as_str(),
                    r.document_known,
                    r.resolves,
                )
            })
            .collect()
    }

    #[test]
    fn references_come_in_document_order_with_what_each_names() {
        let mut items = vec![json!(true); 10];
        items.push(json!({"$ref": "#"}));
        items.push(json!({"$ref": "#/$defs/a"}));
        let schema = json!({
            "$defs": {"a": {"type": "string"}},
            "properties": {
                "b": {"$ref": "#/$defs/a"},
                "a": {"$ref": "other.json#/x"},
                "c": {"$ref": "#/$defs/missing"}
            },
            "prefixItems": items,
            "allOf": [{"$ref": "https://json-schema.org/draft/2020-12/schema"}]
        });
        let refs = found(schema, vec![]);
        let meta = "https://json-schema.org/draft/2020-12/schema";
        assert_eq!(
            brief(&refs),
            vec![
                (meta, "/allOf/0", meta, true, true),
                ("#", "/prefixItems/10", "", true, true),
                ("#/$defs/a", "/prefixItems/11", "", true, true),
                ("other.json#/x", "/properties/a", "other.json", false, false),
                ("#/$defs/a", "/properties/b", "", true, true),
                ("#/$defs/missing", "/properties/c", "", true, false),
            ]
        );
        assert!(refs[0].built_in);
        assert!(!refs[3].built_in);
        assert_eq!(refs[3].document, "json-schema:///other.json");
    }

    #[test]
    fn a_base_uri_resolves_requests_and_resources_are_searched_too() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "properties": {"a": {"$ref": "item.json"}, "b": {"$ref": "inner.json"}},
            "$defs": {"inner": {"$id": "inner.json"}}
        });
        let resources = vec![(
            "https://example.com/item.json".to_string(),
            json!({"items": {"$ref": "deeper.json#/$defs/x"}}),
        )];
        let refs = found(schema, resources);
        assert_eq!(
            brief(&refs),
            vec![
                (
                    "item.json",
                    "/properties/a",
                    "https://example.com/item.json",
                    true,
                    true
                ),
                (
                    "inner.json",
                    "/properties/b",
                    "https://example.com/inner.json",
                    true,
                    true
                ),
                (
                    "deeper.json#/$defs/x",
                    "/items",
                    "https://example.com/deeper.json",
                    false,
                    false
                ),
            ]
        );
        assert_eq!(refs[2].doc, 1);
    }

    #[test]
    fn a_schema_without_a_base_asks_for_a_reference_as_written() {
        let schema = json!({"$ref": "./a/../name.json#/x"});
        let refs = found(schema, vec![]);
        assert_eq!(refs[0].request, "./a/../name.json");
        assert_eq!(refs[0].document, "json-schema:///name.json");
        // The document given under what it resolves to: its own relative
        // references are asked for under the default base, relatively.
        let resources = vec![(
            "json-schema:///name.json".to_string(),
            json!({"$defs": {"x": {"$ref": "sub/other.json"}}}),
        )];
        let refs = found(json!({"$ref": "name.json#/$defs/x"}), resources);
        assert_eq!(
            brief(&refs),
            vec![
                ("name.json#/$defs/x", "", "name.json", true, true),
                ("sub/other.json", "/$defs/x", "sub/other.json", false, false),
            ]
        );
    }

    #[test]
    fn anchors_and_dynamic_references_resolve_by_name() {
        let schema = json!({
            "$dynamicAnchor": "node",
            "properties": {
                "a": {"$dynamicRef": "#node"},
                "b": {"$ref": "#nowhere"},
                "c": {"$anchor": "here", "$ref": "#here"}
            }
        });
        let refs = found(schema, vec![]);
        assert_eq!(
            brief(&refs),
            vec![
                ("#node", "/properties/a", "", true, true),
                ("#nowhere", "/properties/b", "", true, false),
                ("#here", "/properties/c", "", true, true),
            ]
        );
        assert_eq!(refs[0].keyword, "$dynamicRef");
    }
}
