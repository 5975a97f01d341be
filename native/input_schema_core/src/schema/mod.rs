//! The gateway profile's compile: schema source -> compiled schema. Reads a
//! schema through `Value`, applies every preflight check of the contract in
//! its order (each keyword's own compile is in its family's file under
//! `crate::keywords`), and produces an immutable arena of nodes (`Node`)
//! that the validator walks. It knows nothing of the BEAM and nothing of
//! arguments.

mod cycles;
mod keyword;
mod object;
mod refs;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::budget::Budget;
use crate::error::{BudgetReason, SchemaError};
use crate::format::Format;
use crate::keywords::{applicators, arrays, numbers, objects, strings, types};
use crate::pattern::Pattern;
pub use crate::standard::FormatMode;
use crate::value::{push_pointer_token as push_token, Datum, Number, Shape, Value};

pub use crate::keywords::types::Choices;
pub use crate::keywords::types::TypeSet;
pub use keyword::{Keyword, KEYWORD_COUNT};
pub(crate) use object::{object_rules, DependentSource, PropertySource};
pub use object::{Additional, Dependent, Name, NameKey, ObjectRules, OnePass, Property, Required};

/// Deepest schema accepted, counted in nested maps and lists of the schema
/// term (a `properties` level costs two: the properties map and the property
/// schema; `items` costs one). Real MCP tool schemas stay under 20; the bound
/// keeps compilation's recursion far inside a dirty scheduler's stack.
pub const MAX_SCHEMA_DEPTH: usize = 96;

/// A count bound (`minLength`, `maxItems`, ...): the number as written, for
/// error details, and its value, saturated for integers beyond `u64`.
#[derive(Debug)]
pub struct Count {
    pub value: u64,
    pub written: Number,
}

/// A `type` keyword: the set it allows and the term as written.
#[derive(Debug)]
pub struct Types {
    pub set: TypeSet,
    pub written: Datum,
}

/// A node of a compiled schema's arena ([`CompiledSchema::node`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A compiled (sub)schema. Subschemas are nodes of the schema's arena, so a
/// `$ref` is an edge to the node it names: each schema is compiled once and
/// shared, and recursion makes the arena a graph.
#[derive(Debug, Default)]
pub struct Node {
    pub types: Option<Types>,
    pub choices: Option<Choices>,
    pub constant: Option<Datum>,
    pub minimum: Option<Number>,
    pub maximum: Option<Number>,
    pub exclusive_minimum: Option<Number>,
    pub exclusive_maximum: Option<Number>,
    pub min_length: Option<Count>,
    pub max_length: Option<Count>,
    pub pattern: Option<Arc<Pattern>>,
    /// `format`, asserted: only when compiled with [`FormatMode::Assert`]
    /// and the name is a format 2020-12 defines (any other stays an
    /// annotation).
    pub format: Option<Format>,
    pub min_items: Option<Count>,
    pub max_items: Option<Count>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    /// `prefixItems`, or a draft-07 list `items`: one schema per leading element.
    pub prefix_items: Vec<NodeId>,
    /// The schema of every element past `prefix_items`: `items` (a schema),
    /// or `additionalItems` after a list `items`.
    pub items: Option<NodeId>,
    pub object: Option<Box<ObjectRules>>,
    pub any_of: Vec<NodeId>,
    pub one_of: Vec<NodeId>,
    pub all_of: Vec<NodeId>,
    pub not: Option<NodeId>,
    /// The node a `$ref` names (linked once every node exists).
    pub reference: Option<NodeId>,
    /// The boolean schema `false`: nothing matches it.
    pub never: bool,
    /// The array step applies to lists (an array keyword or `type` names array).
    pub checks_arrays: bool,
    /// The object step applies to maps (an object keyword or `type` names object).
    pub checks_objects: bool,
    pub checks_numbers: bool,
    pub checks_lengths: bool,
    /// `minLength`, `maxLength`, `pattern` or an asserted `format` applies.
    pub checks_strings: bool,
    /// Nothing but `type` applies (and the UTF-8 check every binary gets):
    /// the validator's fast path.
    pub plain: bool,
    /// `enum`, `const`, a composition, `$ref` or `false` applies: the
    /// validator's general path.
    pub compound: bool,
}

/// A whole tool schema, compiled: an arena of nodes and its root.
#[derive(Debug)]
pub struct CompiledSchema {
    /// Boxed: a node is built on the heap and moved in as a pointer, and
    /// a walk follows one pointer per node, as through a tree of boxes.
    #[allow(clippy::vec_box)]
    nodes: Vec<Box<Node>>,
    root: NodeId,
    /// What compiling it spent of [`COMPILE_BUDGET`].
    pub compile_units: u64,
    /// Whether the schema has a `$ref` (validation then has a work limit).
    pub has_refs: bool,
    /// Whether `format` was compiled as an assertion: part of what the
    /// schema cache files a compiled schema under.
    pub formats: FormatMode,
    /// [`CompiledSchema::approximate_bytes`], counted on first use.
    bytes: OnceLock<usize>,
}

impl CompiledSchema {
    /// Approximate heap bytes held, for cache accounting: counted the first
    /// time it is asked (a pass over the nodes), then kept.
    pub fn approximate_bytes(&self) -> usize {
        *self.bytes.get_or_init(|| {
            std::mem::size_of::<CompiledSchema>()
                + self.nodes.iter().map(|n| n.approximate_bytes()).sum::<usize>()
        })
    }

    /// [`CompiledSchema::approximate_bytes`] when it has been counted (the
    /// cache counts what it files), else an estimate that costs nothing:
    /// 16 bytes a compile unit (a compiled schema holds 2-18 bytes a unit,
    /// about 12 for the MCP catalog's and for large `enum`s).
    pub fn bytes_or_estimate(&self) -> usize {
        self.bytes
            .get()
            .copied()
            .unwrap_or_else(|| usize::try_from(self.compile_units.saturating_mul(16)).unwrap_or(usize::MAX))
    }

    pub fn nodes(&self) -> &[Box<Node>] {
        &self.nodes
    }

    pub fn root(&self) -> NodeId {
        self.root
    }
}

impl Node {
    fn approximate_bytes(&self) -> usize {
        let datum = |d: &Datum| d.approximate_bytes();
        let ids = std::mem::size_of::<NodeId>();
        let types = self.types.as_ref().map_or(0, |t| datum(&t.written));
        let choices = self.choices.as_ref().map_or(0, |c| c.all.iter().map(datum).sum());
        let constant = self.constant.as_ref().map_or(0, datum);
        let pattern = self.pattern.as_ref().map_or(0, |p| p.memory_usage());
        let lists =
            ids * (self.prefix_items.len() + self.any_of.len() + self.one_of.len() + self.all_of.len());
        let object = self.object.as_ref().map_or(0, |o| o.approximate_bytes());
        std::mem::size_of::<Node>() + types + choices + constant + pattern + lists + object
    }
}

pub(crate) type Slots<V> = [Option<(V, bool)>; KEYWORD_COUNT];

/// One step of a location inside a schema.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'p> {
    Root,
    Keyword(&'static str),
    Name(&'p [u8]),
    Index(usize),
}

/// Where the compiler is in the schema: a list on the stack, rendered as a
/// JSON Pointer only when a check fails (or, on the pass that records
/// locations for `$ref`, for every subschema).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SchemaPath<'p, V> {
    parent: Option<&'p SchemaPath<'p, V>>,
    step: Step<'p>,
    pub(crate) cx: &'p Context<'p, V>,
}

/// One compilation: what it may spend, the arena it fills, and what `$ref`
/// needs (the document's root, the locations of its subschemas, the
/// references met).
#[derive(Debug)]
pub(crate) struct Context<'b, V> {
    budget: &'b Budget,
    pub(crate) cached_patterns_only: bool,
    pub(crate) formats: FormatMode,
    /// Units spent so far against [`COMPILE_BUDGET`]: every charge, and the
    /// build units of every pattern met, whether it was built now or before.
    spent: Cell<u64>,
    /// [`COMPILE_BUDGET`] (another limit only in tests of its boundary).
    limit: u64,
    root: V,
    #[allow(clippy::vec_box)]
    nodes: RefCell<Vec<Box<Node>>>,
    /// Every subschema's JSON Pointer and node, kept on the pass that meets
    /// a `$ref` (the first pass stops at the first `$ref` and the
    /// compilation starts over recording: schemas without one never pay).
    located: Option<RefCell<HashMap<String, NodeId>>>,
    /// The `$ref`s met, linked to their nodes once every node exists.
    refs: RefCell<Vec<refs::Pending<V>>>,
    /// The maps and lists `$ref` pointers walked through, indexed.
    indexes: RefCell<Option<refs::Indexes<V>>>,
    /// The resolved target of each `$ref` whose schema is being compiled,
    /// innermost last: pushed when the key is read, taken when the node is
    /// added.
    targets: RefCell<Vec<(String, V)>>,
}

/// The compile budget of one schema, in work units (about 50 ns each here:
/// `bench/hostile.exs` prints what hostile shapes cost). A schema from an
/// untrusted server must not hold a dirty scheduler for long nor take the
/// node's memory: the budget keeps a compile under about 50 ms on this
/// machine class (one pattern may overshoot it, by at most its own build,
/// 20 ms at the pattern limits), and the automata of one schema under about
/// 12 MiB. The largest real tool schemas use under 1 % of it. Over it, the
/// schema is rejected (`SchemaError::CompileBudget`): a function of the
/// schema alone, whether its patterns were built before or not, on either
/// scheduler.
pub const COMPILE_BUDGET: u64 = 1_000_000;

/// Units a subschema costs against [`COMPILE_BUDGET`] beyond its keywords:
/// its node, its keyword table and its entry in the parent's table (about
/// 1 µs here for a one-keyword property). Not charged to the caller's
/// budget, whose calibration (`bench/budget.exs`) counts keywords only.
const SUBSCHEMA_UNITS: u64 = 20;

/// Work units charged per schema keyword (a keyword costs a slot lookup,
/// a check and an allocation or two: several times a validation step).
const KEYWORD_UNITS: u64 = 10;

/// Units a subschema's recorded location costs on the pass that records
/// them (its JSON Pointer and its entry in the table), beyond a unit per
/// 16 bytes of the pointer.
const LOCATION_UNITS: u64 = 10;

/// Units a `$ref` costs beyond its keyword: parsing and resolving its
/// pointer, noting it, linking it and checking its edge (calibrated with
/// `bench/hostile.exs`: a chain of references at the compile budget takes
/// about as long as the other hostile shapes).
const REF_UNITS: u64 = 60;

impl<'p, 'a, V: Value<'a>> SchemaPath<'p, V> {
    pub(crate) fn child(&'p self, step: Step<'p>) -> SchemaPath<'p, V> {
        SchemaPath {
            parent: Some(self),
            step,
            cx: self.cx,
        }
    }

    pub(crate) fn keyword(&'p self, keyword: Keyword) -> SchemaPath<'p, V> {
        self.child(Step::Keyword(keyword.name()))
    }

    /// RFC 6901: `~` is written `~0` and `/` is written `~1`.
    fn pointer(&self) -> String {
        let mut out = String::new();
        self.write_pointer(&mut out);
        out
    }

    /// Writes the pointer: the parent's first, then this step.
    fn write_pointer(&self, out: &mut String) {
        crate::stack::deep(|| {
            if let Some(parent) = self.parent {
                parent.write_pointer(out);
            }
            match self.step {
                Step::Root => {}
                Step::Keyword(name) => push_token(out, name),
                Step::Name(name) => push_token(out, &String::from_utf8_lossy(name)),
                Step::Index(index) => {
                    out.push('/');
                    out.push_str(&index.to_string());
                }
            }
        })
    }

    pub(crate) fn fail(&self, error: SchemaError<V>) -> Stop<V> {
        Stop::Failure(SchemaFailure {
            error,
            pointer: self.pointer(),
        })
    }

    /// Charges work against the schema's compile budget (over it, the
    /// schema is rejected) and the caller's budget (over it, the caller
    /// hands the call to a dirty scheduler).
    pub(crate) fn charge(&self, units: u64) -> Compiled<(), V> {
        self.spend(units, BudgetReason::Work)?;
        self.cx.budget.charge(units).map_err(|_| Stop::OverBudget)
    }

    /// Units [`Self::charge`] can still take before it fails.
    pub(crate) fn units_left(&self) -> u64 {
        let limit_left = self.cx.limit.saturating_sub(self.cx.spent.get());
        limit_left.min(self.cx.budget.left() as u64)
    }

    pub(crate) fn spend(&self, units: u64, reason: BudgetReason) -> Compiled<(), V> {
        let spent = self.cx.spent.get().saturating_add(units);
        if spent > self.cx.limit {
            return Err(self.fail(SchemaError::CompileBudget(reason)));
        }
        self.cx.spent.set(spent);
        Ok(())
    }

    /// Adds a compiled node to the arena, at this location. Out of line and
    /// boxed until here, so no frame of the compiler's recursion holds a node.
    #[inline(never)]
    fn add(&self, node: Box<Node>) -> Compiled<NodeId, V> {
        let mut nodes = self.cx.nodes.borrow_mut();
        let id = NodeId(u32::try_from(nodes.len()).map_err(|_| self.fail(SchemaError::SchemaTooDeep))?);
        nodes.push(node);
        drop(nodes);
        if let Some(located) = &self.cx.located {
            let pointer = self.pointer();
            self.charge(LOCATION_UNITS + pointer.len() as u64 / 16)?;
            located.borrow_mut().entry(pointer).or_insert(id);
        }
        Ok(id)
    }

    /// A boolean schema at this location: a node of its own on the pass
    /// that records locations (a `$ref` may name it), nothing otherwise.
    pub(crate) fn record_boolean(&self, value: bool) -> Compiled<(), V> {
        if self.cx.located.is_some() {
            self.add(Box::new(Node::boolean(value)))?;
        }
        Ok(())
    }
}

/// A schema error and where it sits, as a JSON Pointer into the schema
/// (`/properties/path/minimum`). `validate_schema` reports the error alone;
/// the catalog checker reports both.
#[derive(Debug, Clone)]
pub struct SchemaFailure<V> {
    pub error: SchemaError<V>,
    pub pointer: String,
}

/// Why a compilation stopped: a schema error, or (within a budget) the
/// budget ran out before a decision.
#[derive(Debug, Clone)]
pub enum CompileStop<V> {
    Failure(SchemaFailure<V>),
    OverBudget,
}

/// Why a pass stopped: a [`CompileStop`], or a `$ref` met by a pass that
/// does not record locations.
#[derive(Debug)]
pub(crate) enum Stop<V> {
    Failure(SchemaFailure<V>),
    OverBudget,
    Restart,
}

pub(crate) type Compiled<T, V> = Result<T, Stop<V>>;

/// Checks a tool schema (a map) and compiles it. The root must be an object
/// schema; then it is checked like every subschema.
pub fn compile<'a, V: Value<'a>>(schema: V) -> Result<CompiledSchema, SchemaFailure<V>> {
    compile_with(schema, FormatMode::Annotate)
}

/// [`compile`], with `format` compiled as `formats` says: an annotation (as
/// [`compile`]) or an assertion.
pub fn compile_with<'a, V: Value<'a>>(
    schema: V,
    formats: FormatMode,
) -> Result<CompiledSchema, SchemaFailure<V>> {
    match compile_within(schema, &Budget::unlimited(), false, formats) {
        Ok(compiled) => Ok(compiled),
        Err(CompileStop::Failure(failure)) => Err(failure),
        // An unlimited budget cannot run out (the compile budget is a
        // failure of its own); refuse rather than accept.
        Err(CompileStop::OverBudget) => Err(SchemaFailure {
            error: SchemaError::CompileBudget(BudgetReason::Work),
            pointer: String::new(),
        }),
    }
}

/// [`compile`] within a work budget; with `cached_patterns_only`, a pattern
/// that was not compiled before also stops it with `OverBudget`.
pub fn compile_within<'a, V: Value<'a>>(
    schema: V,
    budget: &Budget,
    cached_patterns_only: bool,
    formats: FormatMode,
) -> Result<CompiledSchema, CompileStop<V>> {
    compile_limited(schema, budget, cached_patterns_only, formats, COMPILE_BUDGET)
}

/// [`compile_within`] against `limit` units instead of [`COMPILE_BUDGET`].
fn compile_limited<'a, V: Value<'a>>(
    schema: V,
    budget: &Budget,
    cached_patterns_only: bool,
    formats: FormatMode,
    limit: u64,
) -> Result<CompiledSchema, CompileStop<V>> {
    let first = Cell::new(0);
    let options = (cached_patterns_only, formats);
    let pass = |recording| compile_pass(schema, budget, options, recording, limit, &first);
    let outcome = match pass(None) {
        // The pass that records starts with what the first one spent: the
        // two together stay within the compile budget.
        Err(Stop::Restart) => pass(Some(first.get())),
        outcome => outcome,
    };
    outcome.map_err(|stop| match stop {
        Stop::Failure(failure) => CompileStop::Failure(failure),
        Stop::OverBudget => CompileStop::OverBudget,
        // The recording pass never restarts; should it, refuse the schema.
        Stop::Restart => CompileStop::Failure(SchemaFailure {
            error: SchemaError::CompileBudget(BudgetReason::Work),
            pointer: String::new(),
        }),
    })
}

/// One pass over the schema; `recording` (with the units spent before it)
/// for the pass that records every location. What the pass spent is left in
/// `spent_out`.
fn compile_pass<'a, V: Value<'a>>(
    schema: V,
    budget: &Budget,
    (cached_patterns_only, formats): (bool, FormatMode),
    recording: Option<u64>,
    limit: u64,
    spent_out: &Cell<u64>,
) -> Compiled<CompiledSchema, V> {
    let cx = Context {
        budget,
        cached_patterns_only,
        formats,
        spent: Cell::new(recording.unwrap_or(0)),
        limit,
        root: schema,
        nodes: RefCell::new(Vec::with_capacity(16)),
        located: recording.map(|_| RefCell::new(HashMap::new())),
        refs: RefCell::new(Vec::new()),
        indexes: RefCell::new(None),
        targets: RefCell::new(Vec::new()),
    };
    let root_path = SchemaPath {
        parent: None,
        step: Step::Root,
        cx: &cx,
    };
    let outcome = compile_root(schema, &root_path);
    spent_out.set(cx.spent.get());
    let root = outcome?;
    let has_refs = !cx.refs.borrow().is_empty();
    Ok(CompiledSchema {
        nodes: cx.nodes.take(),
        root,
        compile_units: cx.spent.get(),
        has_refs,
        formats,
        bytes: OnceLock::new(),
    })
}

/// The root, every subschema below it, and, with `$ref`, the links and the
/// checks of the linked graph.
fn compile_root<'a, V: Value<'a>>(schema: V, root_path: &SchemaPath<'_, V>) -> Compiled<NodeId, V> {
    let cx = root_path.cx;
    if schema.shape() != Shape::Map {
        return Err(root_path.fail(SchemaError::SchemaNotMap));
    }
    // The root's type comes first, before any key is checked: a scalar tool
    // schema is "only object tool schemas", whatever else it holds.
    if let Some(type_value) = root_type(schema, root_path)? {
        if !is_object_root_type(type_value) {
            return Err(root_path.keyword(Keyword::Type).fail(SchemaError::RootNotObject));
        }
    }
    let slots = keyword_slots(schema, root_path)?;
    let mut root = compile_slots(&slots, 1, root_path)?;
    root.checks_objects = true;
    root.settle();
    let root = finish_node(&slots, root, root_path)?;

    let pending = cx.refs.borrow();
    if !pending.is_empty() {
        refs::link(&pending, root_path)?;
        cycles::check(&pending, root_path)?;
    }
    Ok(root)
}

/// The root's `type` value, found as every keyword is: the atom form wins
/// over the string form.
fn root_type<'a, V: Value<'a>>(schema: V, path: &SchemaPath<'_, V>) -> Compiled<Option<V>, V> {
    path.charge(schema.map_len() as u64)?;
    let mut string_form = None;
    for (key, value) in schema.map_entries() {
        match key.shape() {
            Shape::Binary(b"type") => string_form = Some(value),
            Shape::Atom if key.atom_name().as_deref() == Some("type") => return Ok(Some(value)),
            _ => {}
        }
    }
    Ok(string_form)
}

/// Absent, `"object"`, `:object`, `["object"]` or `[:object]`.
fn is_object_root_type<'a, V: Value<'a>>(value: V) -> bool {
    let is_object = |v: V| type_name(v).as_deref() == Some(b"object".as_slice());
    match value.shape() {
        Shape::List => value.list_len() == Some(1) && value.list_items().all(is_object),
        _ => is_object(value),
    }
}

/// A type name written as an atom or a binary.
pub(crate) fn type_name<'a, V: Value<'a>>(value: V) -> Option<Vec<u8>> {
    match value.shape() {
        Shape::Binary(bytes) => Some(bytes.to_vec()),
        Shape::Atom | Shape::Nil | Shape::Bool(_) => value.atom_name().map(String::into_bytes),
        _ => None,
    }
}

/// Reads a schema map's keys into keyword slots (atom form wins over string
/// form), or reports the first unsupported key in the map's own order. A
/// `$ref` that does not resolve inside the document is unsupported at its
/// place in that order.
#[inline(never)]
fn keyword_slots<'a, V: Value<'a>>(schema: V, path: &SchemaPath<'_, V>) -> Compiled<Box<Slots<V>>, V> {
    path.charge(KEYWORD_UNITS * schema.map_len() as u64)?;
    let at_root = path.parent.is_none();
    let mut slots: Box<Slots<V>> = Box::new([None; KEYWORD_COUNT]);
    // The target of the `$ref` kept, its key, and whether that key is an
    // atom (the atom form wins, as for every keyword).
    let mut target: Option<(String, V, bool)> = None;
    for (key, value) in schema.map_entries() {
        let (keyword, is_atom, name) = match key.shape() {
            Shape::Binary(name) => (Keyword::from_name(name), false, Some(name.to_vec())),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                let name = key.atom_name().map(String::into_bytes);
                (name.as_deref().and_then(Keyword::from_name), true, name)
            }
            _ => (None, false, None),
        };
        // `$id` below the root would change what `#` means: unsupported there.
        let keyword = keyword.filter(|k| at_root || *k != Keyword::Id);
        let keyword = match keyword {
            Some(Keyword::Ref) if path.cx.located.is_none() => return Err(Stop::Restart),
            Some(Keyword::Ref) => {
                path.charge(REF_UNITS)?;
                let resolved = refs::resolve_target(value, path)?;
                // Unresolved, it is unsupported here, like an unknown key.
                resolved.map(|resolved| {
                    if !matches!(target, Some((_, _, true))) {
                        target = Some((resolved, key, is_atom));
                    }
                    Keyword::Ref
                })
            }
            keyword => keyword,
        };
        // A keyword without a slot (one the table does not list) is refused
        // as an unknown key is: never accepted and left unenforced.
        let Some(slot) = keyword.and_then(|keyword| slots.get_mut(keyword.index())) else {
            let name = name.unwrap_or_else(|| format!("{key:?}").into_bytes());
            return Err(path
                .child(Step::Name(&name))
                .fail(SchemaError::UnsupportedKeyword(key)));
        };
        match slot {
            Some((_, true)) if !is_atom => {}
            _ => *slot = Some((value, is_atom)),
        }
    }
    if let Some((resolved, key, _)) = target {
        path.cx.targets.borrow_mut().push((resolved, key));
    }
    Ok(slots)
}

/// Every subschema map is compiled here, the compiler's one recursive step
/// (`stack::deep`).
pub(crate) fn compile_node<'a, V: Value<'a>>(
    schema: V,
    depth: usize,
    path: &SchemaPath<'_, V>,
) -> Compiled<NodeId, V> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(path.fail(SchemaError::SchemaTooDeep));
    }
    crate::stack::deep(|| {
        path.spend(SUBSCHEMA_UNITS, BudgetReason::Work)?;
        let slots = keyword_slots(schema, path)?;
        let node = compile_slots(&slots, depth, path)?;
        finish_node(&slots, node, path)
    })
}

/// Adds a compiled node to the arena and notes its `$ref`, if any.
fn finish_node<'a, V: Value<'a>>(
    slots: &Slots<V>,
    node: Box<Node>,
    path: &SchemaPath<'_, V>,
) -> Compiled<NodeId, V> {
    let id = path.add(node)?;
    if let Some(reference) = get(slots, Keyword::Ref) {
        refs::note(reference, id, &path.keyword(Keyword::Ref))?;
    }
    Ok(id)
}

/// A subschema: a map, or the boolean schema `true` or `false`; anything
/// else fails with the message of its position.
pub(crate) fn compile_subschema<'a, V: Value<'a>>(
    schema: V,
    depth: usize,
    path: &SchemaPath<'_, V>,
    not_a_schema: SchemaError<V>,
) -> Compiled<NodeId, V> {
    match schema.shape() {
        Shape::Map => compile_node(schema, depth, path),
        Shape::Bool(value) => {
            path.spend(SUBSCHEMA_UNITS, BudgetReason::Work)?;
            path.add(Box::new(Node::boolean(value)))
        }
        _ => Err(path.fail(not_a_schema)),
    }
}

pub(crate) fn get<V: Copy>(slots: &Slots<V>, keyword: Keyword) -> Option<V> {
    slots
        .get(keyword.index())
        .copied()
        .flatten()
        .map(|(value, _)| value)
}

/// A non-empty proper list, for `oneOf`/`anyOf`/`allOf`/`prefixItems`/`type`.
pub(crate) fn non_empty_list<'a, V: Value<'a>>(value: V) -> bool {
    value.shape() == Shape::List && value.list_len().is_some_and(|n| n > 0)
}

/// Compiles one schema from its keyword slots. The recursion through
/// subschemas passes only through this function, `compile_children` and the
/// list/map helpers, which keep their frames small: the leaf work (annotations,
/// numbers, enum, pattern) runs out of line in `compile_assertions`.
fn compile_slots<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_, V>,
) -> Compiled<Box<Node>, V> {
    let mut node = Box::<Node>::default();
    compile_assertions(slots, depth, path, &mut node)?;
    compile_children(slots, depth, path, &mut node)?;
    Ok(node)
}

#[inline(never)]
fn compile_assertions<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_, V>,
    node: &mut Node,
) -> Compiled<(), V> {
    for keyword in Keyword::STRING_ANNOTATIONS {
        if let Some(value) = get(slots, keyword) {
            if !matches!(value.shape(), Shape::Binary(_)) {
                return Err(path
                    .keyword(keyword)
                    .fail(SchemaError::AnnotationNotString(keyword.name())));
            }
        }
    }
    if let Some(value) = get(slots, Keyword::Examples) {
        if value.shape() != Shape::List || value.list_len().is_none() {
            return Err(path.keyword(Keyword::Examples).fail(SchemaError::ExamplesNotList));
        }
    }
    for keyword in Keyword::BOOLEAN_ANNOTATIONS {
        if let Some(value) = get(slots, keyword) {
            if !matches!(value.shape(), Shape::Bool(_)) {
                return Err(path
                    .keyword(keyword)
                    .fail(SchemaError::AnnotationNotBoolean(keyword.name())));
            }
        }
    }

    types::gateway_type(slots, path, node)?;
    types::gateway_choices(slots, depth, path, node)?;
    numbers::gateway_bounds(slots, path, node)?;

    strings::gateway_lengths(slots, path, node)?;
    arrays::gateway_counts(slots, path, node)?;
    strings::gateway_pattern(slots, path, node)?;
    strings::gateway_format(slots, path, node);
    Ok(())
}

#[inline(never)]
fn compile_children<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_, V>,
    node: &mut Node,
) -> Compiled<(), V> {
    let (object, has_object_keywords) = objects::gateway_object(slots, depth, path)?;
    node.object = object;

    let has_array_keywords = arrays::gateway_items(slots, depth, path, node)?;

    applicators::gateway_compositions(slots, depth, path, node)?;
    for keyword in [Keyword::Defs, Keyword::Definitions] {
        if let Some(value) = get(slots, keyword) {
            compile_definitions(value, depth, &path.keyword(keyword), keyword)?;
        }
    }

    node.checks_arrays = has_array_keywords || node.names_type(TypeSet::ARRAY);
    node.checks_objects = has_object_keywords || node.names_type(TypeSet::OBJECT);
    node.checks_numbers = node.minimum.is_some()
        || node.maximum.is_some()
        || node.exclusive_minimum.is_some()
        || node.exclusive_maximum.is_some();
    node.checks_lengths = node.min_length.is_some() || node.max_length.is_some();
    node.settle();
    Ok(())
}

/// `$defs`/`definitions`: a map of schemas, each checked like every
/// subschema (used or not) and kept in the arena for the `$ref`s naming it.
#[inline(never)]
fn compile_definitions<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &SchemaPath<'_, V>,
    keyword: Keyword,
) -> Compiled<(), V> {
    if value.shape() != Shape::Map {
        return Err(path.fail(SchemaError::MalformedDefinitions(keyword.name())));
    }
    for (key, schema) in value.map_entries() {
        let name = match key.shape() {
            Shape::Binary(name) => name.to_vec(),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => key.atom_name().unwrap_or_default().into_bytes(),
            _ => return Err(path.fail(SchemaError::MalformedDefinitions(keyword.name()))),
        };
        let at = path.child(Step::Name(&name));
        compile_subschema(schema, depth + 2, &at, SchemaError::SubschemaNotMap)?;
    }
    Ok(())
}

impl Node {
    /// The boolean schema `true` (an empty schema) or `false`.
    fn boolean(value: bool) -> Node {
        let mut node = Node {
            never: !value,
            ..Node::default()
        };
        node.settle();
        node
    }

    /// Derives `plain` from the other fields, once they are final.
    fn settle(&mut self) {
        self.compound = self.choices.is_some()
            || self.constant.is_some()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || !self.all_of.is_empty()
            || self.not.is_some()
            || self.reference.is_some()
            || self.never;
        self.checks_strings = self.checks_lengths || self.pattern.is_some() || self.format.is_some();
        self.plain = !self.compound
            && !self.checks_numbers
            && !self.checks_strings
            && !self.checks_arrays
            && !self.checks_objects;
    }

    /// Whether `type` is present and names one of `types`.
    fn names_type(&self, types: TypeSet) -> bool {
        self.types.as_ref().is_some_and(|t| t.set.intersects(types))
    }
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests;
