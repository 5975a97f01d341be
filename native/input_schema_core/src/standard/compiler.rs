//! Source -> compiled graph. Every subschema becomes one node, compiled
//! once per place (a document and a JSON Pointer), from a work queue rather
//! than by recursion; a reference becomes an edge to the node at its target.
//! The keyword table (`keywords::table`) decides what each key means.

use std::cell::Cell;
use std::collections::hash_map::Entry as Memo;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use serde_json::Value as Json;

use super::dialect::Dialect;
use super::output::MetaschemaFailure;
use super::registry::{address, pointer_item, pointer_join, ByAddress, Place, Registry, Scope};
use super::uri;
use super::{CompileError, ContentMode, FormatMode, Limits, Options, Validator};
use crate::budget::Budget;
use crate::json::JsonRef;
use crate::keywords::{self, Body, Entry, Keyword, Node, NodeId, Resource};

/// The base URI of a document that names none: relative references resolve
/// against it, and locations under it are reported without a URI.
pub(crate) const DEFAULT_BASE: &str = "json-schema:///";

/// Units a subschema costs against the compile budget beyond its keywords.
const SUBSCHEMA_UNITS: u64 = 20;
/// Bytes of a subschema's JSON Pointer per further unit: the compile builds
/// and copies the pointer (its place, its location), so a deep subschema
/// costs more than a shallow one.
const POINTER_BYTES_PER_UNIT: u64 = 32;
/// Units per keyword.
const KEYWORD_UNITS: u64 = 10;
/// Units per reference resolved.
const REF_UNITS: u64 = 60;
/// Nodes (and queue slots) reserved before the compile, at most: a larger
/// schema grows them as it goes, so that a schema whose subschemas are
/// mostly never compiled does not hold room for all of them.
const RESERVED_NODES: usize = 256;

/// The schema a keyword is compiled in.
pub(crate) struct At<'c, 's> {
    pub place: &'c Place,
    pub scope: &'c Scope,
    /// The schema itself, as the document holds it.
    pub value: &'s Json,
}

impl<'s> At<'_, 's> {
    /// The value of `key` in this schema (a sibling of the keyword being
    /// compiled).
    pub fn sibling(&self, key: &str) -> Option<&'s Json> {
        self.value.get(key)
    }

    /// JSON Pointer to `key` in this schema.
    pub fn pointer(&self, key: &str) -> String {
        pointer_join(&self.place.pointer, &[key])
    }

    pub fn invalid(&self, key: &str, expected: &'static str) -> CompileError {
        CompileError::InvalidKeyword {
            pointer: self.pointer(key),
            keyword: key.to_string(),
            expected,
        }
    }
}

pub(crate) struct Compiler<'s> {
    pub registry: Registry<'s>,
    pub budget: &'s Budget,
    /// On a normal scheduler: a pattern not built before stops the
    /// compilation (`CompileBudget`) for the dirty retry to build it.
    pub inline: bool,
    /// Inline, where given: a pattern found built is charged its look-up,
    /// and its build units are added here instead, for
    /// `Validator::compile_inline` to hold against the compile budget.
    pub deferred: Option<&'s Cell<u64>>,
    pub formats: FormatMode,
    pub content: ContentMode,
    nodes: Vec<Node>,
    /// The node of each schema queued, by its value's address.
    memo: ByAddress<NodeId>,
    /// Nodes to compile: each with its place, its scope and, where the
    /// compiler already holds it, its value (read from the document
    /// otherwise), so that a subschema is not looked up from the
    /// document's root again.
    queue: VecDeque<(NodeId, Place, Scope, Option<&'s Json>)>,
    resources: Vec<Resource>,
    resource_ids: HashMap<Rc<str>, u32>,
    /// The last resource `resource_of` answered, by its base URI: the
    /// schemas of a resource share that string, and mostly come in a row.
    last_resource: Option<(Rc<str>, u32)>,
    pub annotates: bool,
    pub dynamic: bool,
    pub bytes: usize,
    /// Entries a keyword adds in its place, after its own if it has one
    /// (`dependencies`: its two halves).
    pub extra: Vec<Entry>,
    /// Where given (`compile_past_dangling`), a reference that resolves
    /// nowhere compiles to a `false` schema and the first is kept here.
    dangling: Option<&'s Cell<Option<CompileError>>>,
}

/// Checks `schema` against the metaschema its `$schema` (or the options'
/// dialect) names.
pub(crate) fn check_metaschema(
    schema: &Json,
    options: &Options,
    budget: &Budget,
    inline: bool,
) -> Result<(), CompileError> {
    let named = match schema {
        Json::Object(map) => map.get("$schema").and_then(Json::as_str),
        _ => None,
    };
    let dialect = named.map_or(Some(options.dialect), Dialect::from_uri);
    let custom;
    let (validator, metaschema_uri) = match dialect {
        Some(dialect) if inline && super::metaschema_if_built(dialect).is_none() => {
            return Err(CompileError::CompileBudget)
        }
        Some(dialect) => match super::metaschema(dialect) {
            Some(v) => (v, dialect.uri().to_string()),
            None => {
                return Err(CompileError::UnknownMetaschema {
                    uri: dialect.uri().to_string(),
                })
            }
        },
        None => {
            let uri = named.unwrap_or_default();
            let (bare, _) = uri::split_fragment(uri);
            let Some((_, document)) = options
                .resources
                .iter()
                .find(|(given, _)| uri::split_fragment(given).0 == bare)
            else {
                return Err(CompileError::UnknownMetaschema { uri: uri.to_string() });
            };
            let meta_options = Options {
                dialect: options.dialect,
                resources: options.resources.clone(),
                formats: FormatMode::Annotate,
                content: ContentMode::Annotate,
            };
            custom = compile(document, &meta_options, budget, Limits::default(), inline, None)?;
            (&custom, uri.to_string())
        }
    };
    if dialect == Some(Dialect::Draft2020_12)
        && super::known_valid::known_valid(schema, budget).map_err(|()| CompileError::CompileBudget)?
    {
        return Ok(());
    }
    let report = match validator.report_within(JsonRef::from(schema), budget) {
        Ok(report) => report,
        // The schema, read as an instance, nests past the walk's depth:
        // the document scan says whether it nests past the schema depth
        // limit, and where.
        Err(super::Limit::Depth) => return Err(too_deep(schema, options.dialect, budget)),
        Err(super::Limit::Work) => return Err(CompileError::CompileBudget),
    };
    if report.is_empty() {
        return Ok(());
    }
    let failures = report
        .units()
        .into_iter()
        .zip(report.spans())
        .map(|(unit, spans)| MetaschemaFailure {
            pointer: unit.instance_location,
            keyword: unit.keyword,
            message: unit.message,
            constraint: validator.constraint(spans),
        })
        .collect();
    Err(CompileError::Metaschema {
        metaschema: metaschema_uri,
        failures,
    })
}

/// `TooDeep` where the document scan finds the schema nested past the
/// schema depth limit; otherwise the compile budget's error.
fn too_deep(schema: &Json, dialect: Dialect, budget: &Budget) -> CompileError {
    nesting_error(schema, dialect, budget).unwrap_or(CompileError::CompileBudget)
}

/// `TooDeep` where the document scan finds the schema nested past the
/// schema depth limit.
pub(crate) fn nesting_error(schema: &Json, dialect: Dialect, budget: &Budget) -> Option<CompileError> {
    match Registry::new(Limits::default()).add_document(schema, DEFAULT_BASE, dialect, budget) {
        Err(error @ CompileError::TooDeep { .. }) => Some(error),
        _ => None,
    }
}

/// Compiles a schema (already checked, or trusted) into a validator.
pub(crate) fn compile(
    schema: &Json,
    options: &Options,
    budget: &Budget,
    limits: Limits,
    inline: bool,
    deferred: Option<&Cell<u64>>,
) -> Result<Validator, CompileError> {
    compile_as(schema, options, budget, limits, inline, deferred, None)
}

/// [`compile`] that goes on past a reference that resolves nowhere (it
/// compiles to a `false` schema) and answers the first such reference met
/// beside the validator, so that a caller can report every other compile
/// error before it. The validator is never to be used when one is
/// answered.
pub(crate) fn compile_past_dangling(
    schema: &Json,
    options: &Options,
    budget: &Budget,
    inline: bool,
    deferred: Option<&Cell<u64>>,
) -> Result<(Validator, Option<CompileError>), CompileError> {
    let dangling = Cell::new(None);
    let validator = compile_as(
        schema,
        options,
        budget,
        Limits::default(),
        inline,
        deferred,
        Some(&dangling),
    )?;
    Ok((validator, dangling.take()))
}

fn compile_as(
    schema: &Json,
    options: &Options,
    budget: &Budget,
    limits: Limits,
    inline: bool,
    deferred: Option<&Cell<u64>>,
    dangling: Option<&Cell<Option<CompileError>>>,
) -> Result<Validator, CompileError> {
    let registry = Registry::new(limits);
    let resource_ids = HashMap::with_hasher(registry.hasher.clone());
    let mut c = Compiler {
        registry,
        budget,
        inline,
        deferred,
        formats: options.formats,
        content: options.content,
        nodes: Vec::new(),
        memo: ByAddress::default(),
        queue: VecDeque::new(),
        resources: Vec::new(),
        resource_ids,
        last_resource: None,
        annotates: false,
        dynamic: false,
        bytes: 0,
        extra: Vec::new(),
        dangling,
    };
    c.registry.add_resources(&options.resources);
    let doc = c
        .registry
        .add_document(schema, DEFAULT_BASE, options.dialect, budget)?;
    // About a node per schema the scan found: the memo grows once, and
    // the node list and the queue (whose entries are larger) at most once
    // for a schema of up to `RESERVED_NODES` subschemas.
    let schemas = c.registry.schema_count();
    c.memo.reserve(schemas);
    c.nodes.reserve(schemas.min(RESERVED_NODES));
    c.queue.reserve(schemas.min(RESERVED_NODES));
    let root_place = Place {
        doc,
        pointer: String::new(),
    };
    let root_scope = c.scope_at(&root_place, None, Some(schema));
    let root = c.node_for(root_place, root_scope, Some(schema));
    c.run()?;
    super::plan::fold_all_of(&mut c.nodes, c.dynamic);
    crate::keywords::applicators::tag_branches(&mut c.nodes);
    let annotates_to_decide = c.annotates && super::plan::fold_unevaluated(&mut c.nodes);
    super::plan::inline_subschemas(&mut c.nodes, c.dynamic);
    let bytes = c.bytes + c.nodes.len() * std::mem::size_of::<Node>();
    Ok(Validator {
        nodes: c.nodes,
        root,
        resources: c.resources,
        annotates: c.annotates,
        annotates_to_decide,
        dynamic: c.dynamic,
        limits,
        bytes,
    })
}

impl<'s> Compiler<'s> {
    /// The node compiled at `place`, queued for compilation when new.
    pub fn node_for(&mut self, place: Place, scope: Scope, value: Option<&'s Json>) -> NodeId {
        let id = self.nodes.len() as NodeId;
        let value = value.or_else(|| self.registry.value(&place));
        if let Some(value) = value {
            match self.memo.entry(address(value)) {
                Memo::Occupied(known) => return *known.get(),
                Memo::Vacant(new) => {
                    new.insert(id);
                }
            }
        }
        // A place that names no value is queued unmemoized: its compile
        // reports it (`NotASchema`).
        self.nodes.push(Node {
            body: Body::Accept,
            resource: 0,
            location: Box::from(""),
            recursive_anchor: false,
        });
        self.queue.push_back((id, place, scope, value));
        id
    }

    /// The scope of the schema at `place`: as scanned, or (for a place the
    /// scan did not reach, such as one inside an unknown keyword) derived
    /// from its nearest scanned ancestor.
    fn scope_at(&self, place: &Place, parent: Option<&Scope>, value: Option<&'s Json>) -> Scope {
        let value = value.or_else(|| self.registry.value(place));
        if let Some(scope) = value.and_then(|value| self.registry.scope(value)) {
            return scope.clone();
        }
        let mut ancestor = parent.cloned();
        if ancestor.is_none() {
            let mut pointer = place.pointer.as_str();
            while let Some(at) = pointer.rfind('/') {
                pointer = pointer.get(..at).unwrap_or("");
                let up = Place {
                    doc: place.doc,
                    pointer: pointer.to_string(),
                };
                if let Some(scope) = self
                    .registry
                    .value(&up)
                    .and_then(|value| self.registry.scope(value))
                {
                    ancestor = Some(scope.clone());
                    break;
                }
            }
        }
        let mut scope = ancestor.unwrap_or_else(|| Scope {
            base: Rc::from(DEFAULT_BASE),
            resource_at: None,
            dialect: Dialect::Draft2020_12,
            vocabularies: super::Vocabularies::all(Dialect::Draft2020_12),
        });
        if let Some(Json::Object(map)) = value {
            let ref_overrides = scope.dialect.ref_overrides_siblings() && map.contains_key("$ref");
            if let (false, Some(id)) = (
                ref_overrides,
                map.get(scope.dialect.id_keyword()).and_then(Json::as_str),
            ) {
                if !id.starts_with('#') {
                    let resolved = uri::resolve(&scope.base, id);
                    scope.base = Rc::from(uri::split_fragment(&resolved).0);
                    scope.set_resource_pointer(&place.pointer);
                }
            }
        }
        scope
    }

    /// The subschema under `key` of the schema `at`.
    pub fn child(&mut self, at: &At<'_, 's>, key: &str) -> Result<NodeId, CompileError> {
        let place = Place {
            doc: at.place.doc,
            pointer: at.pointer(key),
        };
        self.subschema(place, at.scope, at.sibling(key))
    }

    /// `item`, the `index`th subschema of the list under `key`.
    pub fn child_at(
        &mut self,
        at: &At<'_, 's>,
        key: &str,
        index: usize,
        item: &'s Json,
    ) -> Result<NodeId, CompileError> {
        let place = Place {
            doc: at.place.doc,
            pointer: pointer_item(&at.place.pointer, key, index),
        };
        self.subschema(place, at.scope, Some(item))
    }

    /// `schema`, the subschema named `name` in the map under `key`.
    pub fn child_named(
        &mut self,
        at: &At<'_, 's>,
        key: &str,
        name: &str,
        schema: &'s Json,
    ) -> Result<NodeId, CompileError> {
        let place = Place {
            doc: at.place.doc,
            pointer: pointer_join(&at.place.pointer, &[key, name]),
        };
        self.subschema(place, at.scope, Some(schema))
    }

    fn subschema(
        &mut self,
        place: Place,
        parent: &Scope,
        value: Option<&'s Json>,
    ) -> Result<NodeId, CompileError> {
        let scope = self.scope_at(&place, Some(parent), value);
        Ok(self.node_for(place, scope, value))
    }

    /// The node a reference names, resolved against the schema's base URI.
    pub fn reference(
        &mut self,
        at: &At<'_, '_>,
        key: &str,
        reference: &str,
    ) -> Result<(NodeId, Place), CompileError> {
        self.budget
            .charge(REF_UNITS)
            .map_err(|_| CompileError::CompileBudget)?;
        let target = uri::resolve(&at.scope.base, reference);
        let unresolved = || CompileError::UnresolvedReference {
            pointer: at.pointer(key),
            uri: target.clone(),
        };
        let found = self.registry.lookup(&target, at.scope.dialect, self.budget)?;
        let Some((place, value)) =
            found.and_then(|place| Some((place.clone(), self.registry.value(&place)?)))
        else {
            let Some(dangling) = self.dangling else {
                return Err(unresolved());
            };
            if let Some(first) = dangling.take().or_else(|| Some(unresolved())) {
                dangling.set(Some(first));
            }
            return Ok((self.rejecting_node(), at.place.clone()));
        };
        let scope = self.scope_at(&place, None, Some(value));
        Ok((self.node_for(place.clone(), scope, Some(value)), place))
    }

    /// A node of its own that holds `false`, compiled already: what a
    /// reference that resolves nowhere stands for in
    /// `compile_past_dangling`.
    fn rejecting_node(&mut self) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(Node {
            body: Body::Reject,
            resource: 0,
            location: Box::from(""),
            recursive_anchor: false,
        });
        id
    }

    /// The resource a scope belongs to, registered on first sight with its
    /// root and its dynamic anchors.
    fn resource_of(&mut self, doc: usize, scope: &Scope) -> u32 {
        if let Some((base, id)) = &self.last_resource {
            if Rc::ptr_eq(base, &scope.base) {
                return *id;
            }
        }
        if let Some(&id) = self.resource_ids.get(&*scope.base) {
            self.last_resource = Some((Rc::clone(&scope.base), id));
            return id;
        }
        let id = self.resources.len() as u32;
        self.resource_ids.insert(Rc::clone(&scope.base), id);
        self.last_resource = Some((Rc::clone(&scope.base), id));
        self.resources.push(Resource {
            root: None,
            dynamic_anchors: Box::new([]),
        });
        let root_place = self.registry.resource(&scope.base).cloned().unwrap_or(Place {
            doc,
            pointer: String::from(scope.resource_pointer()),
        });
        // Each place's value read once, for its scope and its node.
        let root_value = self.registry.value(&root_place);
        let root_scope = self.scope_at(&root_place, None, root_value);
        let root = self.node_for(root_place, root_scope, root_value);
        let anchors: Vec<(String, Place)> = self.registry.dynamic_anchors(&scope.base).to_vec();
        let mut dynamic_anchors = Vec::with_capacity(anchors.len());
        for (name, place) in anchors {
            let value = self.registry.value(&place);
            let anchor_scope = self.scope_at(&place, None, value);
            dynamic_anchors.push((
                Box::from(name.as_str()),
                self.node_for(place, anchor_scope, value),
            ));
        }
        if let Some(resource) = self.resources.get_mut(id as usize) {
            resource.root = Some(root);
            resource.dynamic_anchors = dynamic_anchors.into_boxed_slice();
        }
        id
    }

    fn run(&mut self) -> Result<(), CompileError> {
        while let Some((id, place, scope, value)) = self.queue.pop_front() {
            let pointer_units = place.pointer.len() as u64 / POINTER_BYTES_PER_UNIT;
            self.budget
                .charge(SUBSCHEMA_UNITS + pointer_units)
                .map_err(|_| CompileError::CompileBudget)?;
            let depth = place.pointer.bytes().filter(|&b| b == b'/').count();
            if depth > self.registry.limits.max_schema_depth * 2 {
                return Err(CompileError::TooDeep {
                    pointer: place.pointer,
                });
            }
            let node = self.compile_node(&place, &scope, value)?;
            if let Some(slot) = self.nodes.get_mut(id as usize) {
                *slot = node;
            }
        }
        Ok(())
    }

    fn compile_node(
        &mut self,
        place: &Place,
        scope: &Scope,
        value: Option<&'s Json>,
    ) -> Result<Node, CompileError> {
        let resource = self.resource_of(place.doc, scope);
        let within = place.pointer.get(scope.resource_pointer().len()..).unwrap_or("");
        let base = if &*scope.base == DEFAULT_BASE {
            ""
        } else {
            &*scope.base
        };
        let mut location = String::with_capacity(base.len() + 1 + within.len());
        location.push_str(base);
        location.push('#');
        location.push_str(within);
        let location = location.into_boxed_str();
        self.bytes += location.len();
        let value = value.or_else(|| self.registry.value(place));
        let (map_value, map) = match value {
            Some(Json::Bool(true)) => {
                return Ok(Node {
                    body: Body::Accept,
                    resource,
                    location,
                    recursive_anchor: false,
                })
            }
            Some(Json::Bool(false)) => {
                return Ok(Node {
                    body: Body::Reject,
                    resource,
                    location,
                    recursive_anchor: false,
                })
            }
            Some(json @ Json::Object(map)) => (json, map),
            _ => {
                return Err(CompileError::NotASchema {
                    pointer: place.pointer.clone(),
                })
            }
        };
        let at = At {
            place,
            scope,
            value: map_value,
        };
        let mut entries: Vec<Entry> = Vec::with_capacity(map.len());
        if scope.dialect.ref_overrides_siblings() && map.contains_key("$ref") {
            if let Some(value) = map.get("$ref") {
                self.budget
                    .charge(KEYWORD_UNITS)
                    .map_err(|_| CompileError::CompileBudget)?;
                if let Some(entry) = keywords::table(self, &at, "$ref", value)? {
                    entries.push(entry);
                }
            }
        } else {
            for (key, value) in map {
                self.budget
                    .charge(KEYWORD_UNITS)
                    .map_err(|_| CompileError::CompileBudget)?;
                if let Some(entry) = keywords::table(self, &at, key, value)? {
                    entries.push(entry);
                }
                entries.append(&mut self.extra);
            }
        }
        // `additionalProperties` applies to the keys that `properties` and
        // `patternProperties` did not match, so it comes after them (and
        // reads their matches: `walk::Matched`); `unevaluated*` read what
        // every other keyword of the schema evaluated, so they come last.
        // The rest keep the document's order.
        entries.sort_by_key(|e| match e.keyword {
            Keyword::AdditionalProperties { .. } => 1,
            Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_) => 2,
            _ => 0,
        });
        if entries.iter().any(|e| {
            matches!(
                e.keyword,
                Keyword::UnevaluatedProperties(_) | Keyword::UnevaluatedItems(_)
            )
        }) {
            self.annotates = true;
        }
        if entries
            .iter()
            .any(|e| matches!(e.keyword, Keyword::DynamicRef { .. } | Keyword::RecursiveRef(_)))
        {
            self.dynamic = true;
        }
        self.bytes += entries.len() * std::mem::size_of::<Entry>();
        let recursive_anchor = scope.dialect == Dialect::Draft2019_09
            && map.get("$recursiveAnchor").and_then(Json::as_bool) == Some(true);
        Ok(Node {
            body: if entries.is_empty() {
                Body::Accept
            } else {
                let plan = super::plan::plan(&entries);
                Body::Keywords(entries.into_boxed_slice(), plan)
            },
            resource,
            location,
            recursive_anchor,
        })
    }
}
