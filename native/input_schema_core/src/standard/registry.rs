//! The documents a compilation may read, indexed once: the schema itself,
//! the caller's `resources:`, and the built-in metaschemas (loaded only when
//! something refers to them). Every schema resource is found by its absolute
//! URI and every anchor by its resource and name; nothing is ever fetched.
//!
//! Documents are scanned without recursion (an explicit stack), under the
//! compile budget and the schema depth limit.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;
use std::sync::OnceLock;

use serde_json::Value as Json;

use super::dialect::Dialect;
use super::output::push_decimal;
use super::uri;
use super::vocabulary::Vocabularies;
use super::{CompileError, Limits};
use crate::budget::Budget;
use crate::value::push_pointer_token;

/// Where a schema sits: a document and a JSON Pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Place {
    pub doc: usize,
    pub pointer: String,
}

/// A schema's value by its address: two places hold the same schema
/// exactly when they name the same value of a document, and every document
/// is borrowed for the whole compilation, so the address is the place's
/// identity. The compile's per-subschema tables are keyed by it, hashed as
/// one word, rather than by the place's pointer string (SipHash over every
/// byte, a copy of the pointer for each key). An address is no input a
/// schema's author can choose, so a plain mixing hash serves.
pub(crate) fn address(value: &Json) -> usize {
    std::ptr::from_ref(value) as usize
}

/// A table keyed by [`address`].
pub(crate) type ByAddress<V> = HashMap<usize, V, BuildHasherDefault<AddressHasher>>;

/// Hashes one address: the two halves of its product with a 64-bit odd
/// constant, folded, so that the low bits (the bucket) depend on every bit
/// of the address, whose own low bits are always zero.
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(u64::from(byte));
        }
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn write_u64(&mut self, word: u64) {
        let product = u128::from(self.0 ^ word) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

/// What holds at a schema's place: its base URI, the place of the resource
/// it belongs to, and its dialect and vocabularies.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// Shared: a scope is copied for every subschema, its strings are not.
    pub base: Rc<str>,
    /// The resource's pointer in its document; `None` for the document's
    /// root (most schemas), which needs no allocation.
    pub resource_at: Option<Rc<str>>,
    pub dialect: Dialect,
    pub vocabularies: Vocabularies,
}

impl Scope {
    /// The JSON Pointer of the resource's root in its document.
    pub fn resource_pointer(&self) -> &str {
        self.resource_at.as_deref().unwrap_or("")
    }

    /// Makes the schema at `pointer` the root of the scope's resource.
    pub fn set_resource_pointer(&mut self, pointer: &str) {
        self.resource_at = (!pointer.is_empty()).then(|| Rc::from(pointer));
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Anchor {
    pub place: Place,
    pub dynamic: bool,
}

/// The built-in metaschemas: each document's URI (as `$id` names it) and
/// its text, written by build.rs from the pinned `referencing` crate.
const BUILT_IN: [(&str, &str); 19] = [
    (
        "http://json-schema.org/draft-04/schema",
        include_str!(concat!(env!("OUT_DIR"), "/draft4.json")),
    ),
    (
        "http://json-schema.org/draft-06/schema",
        include_str!(concat!(env!("OUT_DIR"), "/draft6.json")),
    ),
    (
        "http://json-schema.org/draft-07/schema",
        include_str!(concat!(env!("OUT_DIR"), "/draft7.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/schema",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/applicator",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_applicator.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/content",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_content.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/core",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_core.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/format",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_format.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/meta-data",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_meta_data.json")),
    ),
    (
        "https://json-schema.org/draft/2019-09/meta/validation",
        include_str!(concat!(env!("OUT_DIR"), "/draft2019_09_validation.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/schema",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/core",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_core.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/applicator",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_applicator.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/unevaluated",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_unevaluated.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/validation",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_validation.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/meta-data",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_meta_data.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-annotation",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_format_annotation.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/format-assertion",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_format_assertion.json")),
    ),
    (
        "https://json-schema.org/draft/2020-12/meta/content",
        include_str!(concat!(env!("OUT_DIR"), "/draft2020_12_content.json")),
    ),
];

/// The built-in documents, parsed once per process.
fn built_in() -> &'static [(&'static str, Json)] {
    static PARSED: OnceLock<Vec<(&'static str, Json)>> = OnceLock::new();
    PARSED.get_or_init(|| {
        BUILT_IN
            .iter()
            .filter_map(|(uri, text)| serde_json::from_str(text).ok().map(|json| (*uri, json)))
            .collect()
    })
}

/// A built-in metaschema by URI (with or without an empty fragment).
pub(crate) fn built_in_document(uri: &str) -> Option<&'static Json> {
    let bare = uri.strip_suffix('#').unwrap_or(uri);
    built_in().iter().find(|(u, _)| *u == bare).map(|(_, json)| json)
}

/// What a keyword's value holds, for the scan: subschemas as the
/// keyword's own value, as a list, or as a map's values (in any dialect
/// that has the keyword); `items` is a subschema or a list of them, as its
/// value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    Single,
    List,
    Map,
    Nothing,
}

/// How a subschema's pointer extends its parent's.
#[derive(Debug, Clone, Copy)]
enum Step<'s> {
    Root,
    /// `/key`: a keyword that holds one schema.
    Key(&'s str),
    /// `/key/name`: a schema in a keyword's map.
    Named(&'s str, &'s str),
    /// `/key/index`: a schema in a keyword's list.
    Item(&'s str, usize),
}

impl Step<'_> {
    fn write(self, path: &mut String) {
        match self {
            Step::Root => {}
            Step::Key(key) => push_pointer_token(path, key),
            Step::Named(key, name) => {
                push_pointer_token(path, key);
                push_pointer_token(path, name);
            }
            Step::Item(key, index) => {
                push_pointer_token(path, key);
                path.push('/');
                push_decimal(path, index as u64);
            }
        }
    }
}

/// A schema the scan has still to visit: its parent's pointer is the
/// first `prefix` bytes of the scan's buffer, and `scope` its parent's.
struct Visit<'s> {
    value: &'s Json,
    prefix: usize,
    step: Step<'s>,
    scope: u32,
    depth: usize,
}

fn holds(key: &str) -> Holds {
    match key {
        "additionalItems"
        | "additionalProperties"
        | "contains"
        | "not"
        | "propertyNames"
        | "if"
        | "then"
        | "else"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Holds::Single,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::List,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Holds::Map,
        _ => Holds::Nothing,
    }
}

pub(crate) struct Registry<'s> {
    docs: Vec<&'s Json>,
    /// Absolute URI (no fragment) -> the resource's root.
    resources: HashMap<Rc<str>, Place>,
    /// (resource URI, anchor name) -> the anchored schema.
    anchors: HashMap<(String, String), Anchor>,
    /// Every scanned schema's scope, by its value's address: an index into
    /// `scope_list`, where a scope is stored once for all the subschemas
    /// that share it (most share their parent's).
    scopes: ByAddress<u32>,
    scope_list: Vec<Scope>,
    /// The caller's resources, by the URI they were given under, before
    /// they are scanned (a `$schema` may name one).
    pending: HashMap<String, usize>,
    /// Dynamic anchors by resource URI.
    dynamic: HashMap<String, Vec<(String, Place)>>,
    /// The hasher of the tables above, for the compiler's own.
    pub hasher: RandomState,
    pub limits: Limits,
    /// Every reference of every schema scanned, when asked for
    /// (`collect_references`): what `documents::references` resolves.
    collected: Option<Vec<Collected<'s>>>,
}

/// A reference the scan met: the keyword, its value, the scope it sits in
/// (an index into the scan's scopes) and its place.
pub(crate) struct Collected<'s> {
    pub keyword: &'static str,
    pub value: &'s str,
    pub scope: u32,
    pub place: Place,
}

/// The value a JSON Pointer names in `root` (RFC 6901, as
/// `serde_json::Value::pointer` reads it: array indexes without a sign or
/// leading zeros), copying a token only when it holds an escape.
pub(crate) fn at_pointer<'j>(root: &'j Json, pointer: &str) -> Option<&'j Json> {
    if pointer.is_empty() {
        return Some(root);
    }
    let mut at = root;
    for token in pointer.strip_prefix('/')?.split('/') {
        let token: Cow<'_, str> = if token.contains('~') {
            Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
        } else {
            Cow::Borrowed(token)
        };
        at = match at {
            Json::Object(map) => map.get(&*token)?,
            Json::Array(items) => items.get(array_index(&token)?)?,
            _ => return None,
        };
    }
    Some(at)
}

fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// `base` followed by each token as a JSON Pointer step (`/`, then the
/// token with `~` and `/` escaped), built in one allocation: a compile
/// makes one of these per subschema.
pub(crate) fn pointer_join(base: &str, tokens: &[&str]) -> String {
    let extra: usize = tokens.iter().map(|token| token.len() + 1).sum();
    let mut pointer = String::with_capacity(base.len() + extra);
    pointer.push_str(base);
    for token in tokens {
        push_pointer_token(&mut pointer, token);
    }
    pointer
}

/// `base`, `/key`, then `/index`: the place of a list's item.
pub(crate) fn pointer_item(base: &str, key: &str, index: usize) -> String {
    let mut pointer = String::with_capacity(base.len() + key.len() + 22);
    pointer.push_str(base);
    Step::Item(key, index).write(&mut pointer);
    pointer
}

impl<'s> Registry<'s> {
    pub fn new(limits: Limits) -> Registry<'s> {
        // One random key for the compile's tables keyed by text: each
        // `RandomState::new` reads a thread-local.
        let hasher = RandomState::new();
        Registry {
            docs: Vec::new(),
            resources: HashMap::with_hasher(hasher.clone()),
            anchors: HashMap::with_hasher(hasher.clone()),
            scopes: ByAddress::default(),
            scope_list: Vec::new(),
            pending: HashMap::with_hasher(hasher.clone()),
            dynamic: HashMap::with_hasher(hasher.clone()),
            hasher,
            limits,
            collected: None,
        }
    }

    /// From now on, every scan records the references it meets.
    pub fn collect_references(&mut self) {
        self.collected.get_or_insert_with(Vec::new);
    }

    /// The references recorded so far.
    pub fn take_collected(&mut self) -> Vec<Collected<'s>> {
        self.collected.take().unwrap_or_default()
    }

    /// The scope recorded at `index` (a [`Collected`]'s).
    pub fn scope_at(&self, index: u32) -> Option<&Scope> {
        self.scope_list.get(index as usize)
    }

    /// Scans every resource given and not scanned yet, under the URI it
    /// was given with, in `dialect` unless its `$schema` says otherwise.
    pub fn scan_pending(&mut self, dialect: Dialect, budget: &Budget) -> Result<(), CompileError> {
        let mut pending: Vec<(String, usize)> = self.pending.drain().collect();
        pending.sort_by_key(|(_, doc)| *doc);
        for (given, doc) in pending {
            self.scan(doc, &given, dialect, budget)?;
            self.resources.entry(Rc::from(given.as_str())).or_insert(Place {
                doc,
                pointer: String::new(),
            });
        }
        Ok(())
    }

    /// Adds the caller's resources (scanned when first needed).
    pub fn add_resources(&mut self, resources: &'s [(String, Json)]) {
        for (uri, json) in resources {
            let doc = self.docs.len();
            self.docs.push(json);
            let (bare, _) = uri::split_fragment(uri);
            self.pending.insert(bare.to_string(), doc);
        }
    }

    pub fn document(&self, doc: usize) -> Option<&'s Json> {
        self.docs.get(doc).copied()
    }

    /// The value at a place.
    pub fn value(&self, place: &Place) -> Option<&'s Json> {
        at_pointer(self.document(place.doc)?, &place.pointer)
    }

    /// How many schemas the scans found (every document's).
    pub fn schema_count(&self) -> usize {
        self.scopes.len()
    }

    /// The scope the scan found for the schema `value`.
    pub fn scope(&self, value: &Json) -> Option<&Scope> {
        let index = *self.scopes.get(&address(value))?;
        self.scope_list.get(index as usize)
    }

    pub fn resource(&self, uri: &str) -> Option<&Place> {
        self.resources.get(uri)
    }

    pub fn dynamic_anchors(&self, uri: &str) -> &[(String, Place)] {
        if self.dynamic.is_empty() {
            return &[];
        }
        self.dynamic.get(uri).map_or(&[], Vec::as_slice)
    }

    /// Adds a document and scans it, with `base` as its retrieval URI and
    /// `dialect` unless its `$schema` says otherwise.
    pub fn add_document(
        &mut self,
        json: &'s Json,
        base: &str,
        dialect: Dialect,
        budget: &Budget,
    ) -> Result<usize, CompileError> {
        let doc = self.docs.len();
        self.docs.push(json);
        self.scan(doc, base, dialect, budget)?;
        Ok(doc)
    }

    /// The root place of the resource named by `uri` (no fragment): a
    /// scanned resource, a caller's resource scanned now, or a built-in
    /// metaschema loaded now. `None` when nothing has that URI.
    /// A caller's resource without `$schema` is read in `hint`, the dialect
    /// of the schema that refers to it.
    pub fn locate(
        &mut self,
        uri: &str,
        hint: Dialect,
        budget: &Budget,
    ) -> Result<Option<Place>, CompileError> {
        if let Some(place) = self.resources.get(uri) {
            return Ok(Some(place.clone()));
        }
        if let Some(doc) = self.pending.remove(uri) {
            self.scan(doc, uri, hint, budget)?;
            self.resources.entry(Rc::from(uri)).or_insert(Place {
                doc,
                pointer: String::new(),
            });
            return Ok(self.resources.get(uri).cloned());
        }
        if let Some(json) = built_in_document(uri) {
            let dialect = json
                .get("$schema")
                .and_then(Json::as_str)
                .and_then(Dialect::from_uri)
                .unwrap_or(Dialect::Draft2020_12);
            let doc = self.add_document(json, uri, dialect, budget)?;
            self.resources.entry(Rc::from(uri)).or_insert(Place {
                doc,
                pointer: String::new(),
            });
            return Ok(self.resources.get(uri).cloned());
        }
        // A resource may be known by an `$id` of its own rather than the URI
        // it was given under: scan what is left, then look again.
        if !self.pending.is_empty() {
            let mut pending: Vec<(String, usize)> = self.pending.drain().collect();
            pending.sort();
            for (given, doc) in pending {
                self.scan(doc, &given, hint, budget)?;
            }
            return Ok(self.resources.get(uri).cloned());
        }
        Ok(None)
    }

    /// Resolves an absolute URI with an optional fragment to a place.
    pub fn lookup(
        &mut self,
        target: &str,
        hint: Dialect,
        budget: &Budget,
    ) -> Result<Option<Place>, CompileError> {
        let (bare, fragment) = uri::split_fragment(target);
        let Some(root) = self.locate(bare, hint, budget)? else {
            return Ok(None);
        };
        let Some(fragment) = fragment else {
            return Ok(Some(root));
        };
        let Some(fragment) = uri::percent_decode(fragment) else {
            return Ok(None);
        };
        if fragment.starts_with('/') {
            let place = Place {
                doc: root.doc,
                pointer: format!("{}{}", root.pointer, fragment),
            };
            return Ok(self.value(&place).map(|_| place));
        }
        Ok(self
            .anchors
            .get(&(bare.to_string(), fragment))
            .map(|anchor| anchor.place.clone()))
    }

    pub fn anchor(&self, resource: &str, name: &str) -> Option<&Anchor> {
        self.anchors.get(&(resource.to_string(), name.to_string()))
    }

    /// The dialect and vocabularies a `$schema` value selects: one of the
    /// five dialects, or a metaschema among the caller's resources, whose
    /// own `$schema` gives the dialect and whose `$vocabulary` the keywords.
    pub fn dialect_of(
        &self,
        schema_uri: &str,
        depth: usize,
    ) -> Result<(Dialect, Vocabularies), CompileError> {
        if let Some(dialect) = Dialect::from_uri(schema_uri) {
            return Ok((dialect, Vocabularies::all(dialect)));
        }
        let (bare, _) = uri::split_fragment(schema_uri);
        let doc = self.pending.get(bare).copied().or_else(|| {
            self.resources
                .get(bare)
                .filter(|p| p.pointer.is_empty())
                .map(|p| p.doc)
        });
        let meta = doc.and_then(|d| self.document(d));
        let Some(meta) = meta.filter(|_| depth < 8) else {
            return Err(CompileError::UnknownMetaschema {
                uri: schema_uri.to_string(),
            });
        };
        let dialect = match meta.get("$schema").and_then(Json::as_str) {
            Some(parent) if parent.trim_end_matches('#') != bare => self.dialect_of(parent, depth + 1)?.0,
            _ => Dialect::Draft2020_12,
        };
        let vocabularies = match meta.get("$vocabulary") {
            Some(declared) => Vocabularies::declared(dialect, declared, schema_uri)?,
            None => Vocabularies::all(dialect),
        };
        Ok((dialect, vocabularies))
    }

    /// Records every schema of a document: scopes, resources and anchors.
    ///
    /// Depth first, in the order an explicit stack pops them. One buffer
    /// holds the pointer of the schema at hand: a schema popped is a child
    /// of one already visited, whose pointer is still a prefix of the
    /// buffer, so it is cut back to that prefix and the child's steps
    /// written after it. No pointer is copied unless an id, an anchor or
    /// an error keeps it.
    fn scan(
        &mut self,
        doc: usize,
        base: &str,
        dialect: Dialect,
        budget: &Budget,
    ) -> Result<(), CompileError> {
        let Some(json) = self.document(doc) else {
            return Ok(());
        };
        let (bare, _) = uri::split_fragment(base);
        let root_scope = self.scope_list.len() as u32;
        // The scope's base is the resource table's key too: one copy.
        let base: Rc<str> = Rc::from(bare);
        self.scope_list.push(Scope {
            base: Rc::clone(&base),
            resource_at: None,
            dialect,
            vocabularies: Vocabularies::all(dialect),
        });
        self.resources.entry(base).or_insert(Place {
            doc,
            pointer: String::new(),
        });
        let mut path = String::new();
        // The root is visited before the stack is used: a schema without
        // subschemas allocates none.
        let mut root = Some(Visit {
            value: json,
            prefix: 0,
            step: Step::Root,
            scope: root_scope,
            depth: 0,
        });
        let mut stack: Vec<Visit<'s>> = Vec::new();
        while let Some(visit) = root.take().or_else(|| stack.pop()) {
            path.truncate(visit.prefix);
            // Sized once, at the first subschema, for a pointer a few
            // levels deep, rather than grown from empty.
            if path.capacity() == 0 && !matches!(visit.step, Step::Root) {
                path.reserve(64);
            }
            visit.step.write(&mut path);
            let (value, depth) = (visit.value, visit.depth);
            // Two units, and one per 64 bytes of its pointer.
            budget
                .charge(2 + path.len() as u64 / 64)
                .map_err(|_| CompileError::CompileBudget)?;
            if depth > self.limits.max_schema_depth {
                return Err(CompileError::TooDeep { pointer: path });
            }
            let scope = self.enter(doc, value, &path, visit.scope)?;
            // The table of scopes, sized once for a dozen subschemas.
            if self.scopes.is_empty() {
                self.scopes.reserve(16);
            }
            self.scopes.insert(address(value), scope);
            let Json::Object(map) = value else {
                continue;
            };
            if self.collected.is_some() {
                self.collect(doc, map, &path, scope);
            }
            let prefix = path.len();
            let child = |value, step| Visit {
                value,
                prefix,
                step,
                scope,
                depth: depth + 1,
            };
            // Drafts 4 to 7: beside `$ref`, nothing else is a keyword, but
            // a pointer may still reach what is written there.
            for (key, held_value) in map {
                let key = key.as_str();
                let held = match (key, held_value) {
                    ("items", Json::Array(_)) => Holds::List,
                    ("items", Json::Object(_) | Json::Bool(_)) => Holds::Single,
                    _ => holds(key),
                };
                match (held, held_value) {
                    (Holds::Single, _) => stack.push(child(held_value, Step::Key(key))),
                    (Holds::List, Json::Array(items)) => {
                        for (i, item) in items.iter().enumerate() {
                            stack.push(child(item, Step::Item(key, i)));
                        }
                    }
                    (Holds::Map, Json::Object(entries)) => {
                        for (name, item) in entries {
                            if key == "dependencies" && !(item.is_object() || item.is_boolean()) {
                                continue;
                            }
                            stack.push(child(item, Step::Named(key, name)));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Records the references of the schema `map` at `pointer`: `$ref`,
    /// and the dynamic reference of its dialect.
    fn collect(&mut self, doc: usize, map: &'s serde_json::Map<String, Json>, pointer: &str, scope: u32) {
        let Some(dialect) = self.scope_list.get(scope as usize).map(|s| s.dialect) else {
            return;
        };
        let keywords: &[&'static str] = match dialect {
            Dialect::Draft2020_12 => &["$dynamicRef", "$ref"],
            Dialect::Draft2019_09 => &["$recursiveRef", "$ref"],
            _ => &["$ref"],
        };
        for &keyword in keywords {
            if let (Some(Json::String(value)), Some(collected)) = (map.get(keyword), self.collected.as_mut())
            {
                collected.push(Collected {
                    keyword,
                    value,
                    scope,
                    place: Place {
                        doc,
                        pointer: pointer.to_string(),
                    },
                });
            }
        }
    }

    /// The scope of a schema given its parent's (`$schema`, the id and
    /// anchors it declares, registered as it goes), as its index in
    /// `scope_list`: the parent's own unless the schema changes it.
    fn enter(&mut self, doc: usize, value: &Json, pointer: &str, parent: u32) -> Result<u32, CompileError> {
        let Json::Object(map) = value else {
            return Ok(parent);
        };
        let Some(parent_scope) = self.scope_list.get(parent as usize) else {
            return Ok(parent);
        };
        // Every key read below is `$`-prefixed but drafts 4 to 7's `id`: a
        // schema with none of them is in its parent's scope, found in one
        // pass over its keys instead of a look-up for each.
        let id_keyword = parent_scope.dialect.id_keyword();
        if !map.keys().any(|key| key.starts_with('$') || key == id_keyword) {
            return Ok(parent);
        }
        let mut scope = parent_scope.clone();
        let mut changed = false;
        let is_resource_root =
            pointer.is_empty() || map.contains_key(scope.dialect.id_keyword()) || map.contains_key("$id");
        if is_resource_root {
            if let Some(schema_uri) = map.get("$schema").and_then(Json::as_str) {
                let (dialect, vocabularies) = self.dialect_of(schema_uri, 0)?;
                scope.dialect = dialect;
                scope.vocabularies = vocabularies;
                changed = true;
            }
        }
        let dialect = scope.dialect;
        let ref_overrides = dialect.ref_overrides_siblings() && map.contains_key("$ref");
        if !ref_overrides {
            if let Some(id) = map.get(dialect.id_keyword()).and_then(Json::as_str) {
                let resolved = uri::resolve(&scope.base, id);
                let (bare, fragment) = uri::split_fragment(&resolved);
                let place = Place {
                    doc,
                    pointer: pointer.to_string(),
                };
                match fragment {
                    // Drafts 4 to 7: `"$id": "#name"` is an anchor.
                    Some(name) if dialect <= Dialect::Draft7 => {
                        if !id.starts_with('#') {
                            scope.base = Rc::from(bare);
                            scope.set_resource_pointer(pointer);
                            changed = true;
                            self.resources
                                .entry(Rc::clone(&scope.base))
                                .or_insert(place.clone());
                        }
                        self.anchors
                            .entry((bare.to_string(), name.to_string()))
                            .or_insert(Anchor {
                                place,
                                dynamic: false,
                            });
                    }
                    Some(_) => {}
                    None => {
                        scope.base = Rc::from(bare);
                        scope.set_resource_pointer(pointer);
                        changed = true;
                        self.resources.entry(Rc::clone(&scope.base)).or_insert(place);
                    }
                }
            }
        }
        if dialect >= Dialect::Draft2019_09 {
            let place = || Place {
                doc,
                pointer: pointer.to_string(),
            };
            if let Some(name) = map.get("$anchor").and_then(Json::as_str) {
                self.anchors
                    .entry((String::from(&*scope.base), name.to_string()))
                    .or_insert_with(|| Anchor {
                        place: place(),
                        dynamic: false,
                    });
            }
            if dialect >= Dialect::Draft2020_12 {
                if let Some(name) = map.get("$dynamicAnchor").and_then(Json::as_str) {
                    self.anchors.insert(
                        (String::from(&*scope.base), name.to_string()),
                        Anchor {
                            place: place(),
                            dynamic: true,
                        },
                    );
                    self.dynamic
                        .entry(String::from(&*scope.base))
                        .or_default()
                        .push((name.to_string(), place()));
                }
            }
        }
        if !changed {
            return Ok(parent);
        }
        let index = self.scope_list.len() as u32;
        self.scope_list.push(scope);
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn pointers_are_joined_with_their_tokens_escaped() {
        assert_eq!(pointer_join("", &["properties"]), "/properties");
        assert_eq!(pointer_join("/a", &["b~c", "d/e"]), "/a/b~0c/d~1e");
        assert_eq!(pointer_join("/a", &["~1/~0", ""]), "/a/~01~1~00/");
        assert_eq!(pointer_join("/ü", &["é/"]), "/ü/é~1");
        assert_eq!(pointer_item("", "allOf", 0), "/allOf/0");
        assert_eq!(pointer_item("/x~1y", "a/b", 1234), "/x~1y/a~1b/1234");
        // Each joined pointer names the value it was built for.
        let doc = serde_json::json!({"a": {"b~c": {"d/e": [1, {"~1/~0": true}]}}});
        let pointer = pointer_item(&pointer_join("/a", &["b~c", "d/e"]), "", 0);
        assert_eq!(pointer, "/a/b~0c/d~1e//0");
        let deep = pointer_join(&pointer_join("/a", &["b~c", "d/e"]), &["1", "~1/~0"]);
        assert_eq!(at_pointer(&doc, &deep), Some(&serde_json::json!(true)));
    }

    #[test]
    fn the_scan_registers_each_id_and_anchor_at_its_own_pointer() {
        // A deep subtree before a shallower sibling (the scan's pointer
        // buffer is cut back to the sibling's parent), names to escape, a
        // list past ten items, and a resource inside the document.
        let all_of: Vec<Json> = (0..12)
            .map(|i| match i {
                11 => serde_json::json!({"$anchor": "eleventh"}),
                _ => serde_json::json!({}),
            })
            .collect();
        let doc = serde_json::json!({
            "$id": "https://example.com/root",
            "properties": {
                "a": {"properties": {"deep/x~y": {"$anchor": "deep", "items": {"$id": "inner", "$anchor": "in"}}}},
                "b": {"$anchor": "b", "not": {"$anchor": "not"}}
            },
            "allOf": all_of,
            "$defs": {"d": {"$dynamicAnchor": "node", "prefixItems": [true, {"$anchor": "second"}]}}
        });
        let budget = Budget::unlimited();
        let mut registry = Registry::new(Limits::default());
        let added = registry.add_document(&doc, "json-schema:///", Dialect::Draft2020_12, &budget);
        assert_eq!(added.ok(), Some(0));
        // Twelve `allOf` items, nine other subschemas.
        assert_eq!(registry.schema_count(), 21);
        let root = "https://example.com/root";
        let inner = "https://example.com/inner";
        let anchor = |resource: &str, name: &str| {
            registry
                .anchor(resource, name)
                .map(|a| (a.place.pointer.clone(), a.dynamic))
        };
        let at = |pointer: &str| Some((pointer.to_string(), false));
        assert_eq!(anchor(root, "deep"), at("/properties/a/properties/deep~1x~0y"));
        assert_eq!(anchor(root, "b"), at("/properties/b"));
        assert_eq!(anchor(root, "not"), at("/properties/b/not"));
        assert_eq!(anchor(root, "eleventh"), at("/allOf/11"));
        assert_eq!(anchor(root, "second"), at("/$defs/d/prefixItems/1"));
        assert_eq!(anchor(root, "node"), Some(("/$defs/d".to_string(), true)));
        assert_eq!(
            anchor(inner, "in"),
            at("/properties/a/properties/deep~1x~0y/items")
        );
        assert_eq!(anchor(root, "in"), None);
        assert_eq!(
            registry.resource(inner).map(|p| p.pointer.as_str()),
            Some("/properties/a/properties/deep~1x~0y/items")
        );
        // Every schema's scope, found by its value: the resource it is in.
        let scope = |pointer: &str| {
            let value = at_pointer(&doc, pointer).expect(pointer);
            registry
                .scope(value)
                .map(|s| (s.base.to_string(), s.resource_pointer().to_string()))
        };
        let in_root = Some((root.to_string(), String::new()));
        for pointer in [
            "",
            "/properties/a",
            "/properties/b/not",
            "/allOf/11",
            "/$defs/d/prefixItems/0",
        ] {
            assert_eq!(scope(pointer), in_root, "{pointer}");
        }
        assert_eq!(
            scope("/properties/a/properties/deep~1x~0y/items"),
            Some((
                inner.to_string(),
                "/properties/a/properties/deep~1x~0y/items".to_string()
            ))
        );
    }

    #[test]
    fn at_pointer_reads_what_serde_json_reads() {
        let doc = serde_json::json!({
            "a": {"b/c": [10, {"~d": true}], "": 1, "~1": 2},
            "list": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
            "0": "zero"
        });
        for pointer in [
            "",
            "/",
            "/a",
            "/a/b~1c",
            "/a/b~1c/0",
            "/a/b~1c/1/~0d",
            "/a/",
            "/a/~01",
            "/a/~1",
            "/list/11",
            "/list/01",
            "/list/+1",
            "/list/-1",
            "/list/12",
            "/list/1/x",
            "/0",
            "a",
            "/nope",
            "/a/b~1c/1/~0d/x",
            "/list/18446744073709551616",
        ] {
            assert_eq!(at_pointer(&doc, pointer), doc.pointer(pointer), "{pointer:?}");
        }
    }
}
