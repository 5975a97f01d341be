//! Schema source -> compiled schema. Reads a schema through `Value`, applies
//! every preflight check of the contract in its order, and produces an
//! immutable tree (`Node`) that the validator walks. It knows nothing of the
//! BEAM and nothing of arguments.

mod keyword;

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use crate::budget::Budget;
use crate::error::{BudgetReason, SchemaError};
use crate::pattern::{Pattern, PatternError};
use crate::value::{equals, AtomId, Datum, DatumError, Number, Shape, Value};

pub use keyword::{Keyword, TypeSet, KEYWORD_COUNT};

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

/// What happens to keys not named in `properties`.
#[derive(Debug)]
pub enum Additional {
    Allow,
    Deny,
    Schema(Box<Node>),
}

/// A property schema with everything its lookup needs.
#[derive(Debug)]
pub struct Property {
    /// The name's string form (an atom by its name), as used in paths.
    pub name: Box<[u8]>,
    /// Set when the name was written as an atom.
    pub atom: Option<AtomId>,
    /// Index into the object's name slots.
    pub slot: usize,
    pub schema: Box<Node>,
}

/// A `required` name and its slot.
#[derive(Debug)]
pub struct Required {
    pub name: Box<[u8]>,
    pub slot: usize,
}

/// A name's length and first eight bytes (zero-padded): for the names of
/// eight bytes or fewer that most tool schemas use, equal keys mean equal
/// names, so a lookup compares two words and no bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameKey {
    head: u64,
    len: usize,
}

impl NameKey {
    const HEAD: usize = 8;

    /// Reads the head in at most three loads and no loop. Overlapping
    /// loads put equal bytes at equal places, so OR-ing them is exact.
    #[inline]
    fn of(name: &[u8]) -> NameKey {
        let len = name.len();
        let head = if let Some(word) = name.first_chunk::<8>() {
            u64::from_le_bytes(*word)
        } else if len >= 4 {
            let low = name.first_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b));
            let high = name.last_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b));
            u64::from(low) | u64::from(high) << (8 * (len - 4))
        } else if let (Some(first), Some(last)) = (name.first(), name.last()) {
            let middle = name.get(len / 2).copied().unwrap_or(0);
            u64::from(*first) | u64::from(middle) << (8 * (len / 2)) | u64::from(*last) << (8 * (len - 1))
        } else {
            0
        };
        NameKey { head, len }
    }

    /// Whether two names with equal keys are equal: the key covers names of
    /// up to eight bytes; up to sixteen, their last eight bytes (overlapping
    /// the head) settle it in one comparison; past that, the bytes after the
    /// head are compared.
    #[inline]
    fn same_rest(key: NameKey, a: &[u8], b: &[u8]) -> bool {
        if key.len <= NameKey::HEAD {
            true
        } else if key.len <= 2 * NameKey::HEAD {
            a.last_chunk::<8>() == b.last_chunk::<8>()
        } else {
            a.get(NameKey::HEAD..) == b.get(NameKey::HEAD..)
        }
    }
}

/// A distinct string form among property and required names.
#[derive(Debug)]
pub struct Name {
    pub key: NameKey,
    pub slot: usize,
    /// The slot as a bit, for the one-pass check's set of names seen (zero
    /// past the 64th slot, where that check does not apply).
    pub bit: u64,
    /// The property carrying this form: the first, if several do.
    pub property: Option<usize>,
    pub bytes: Box<[u8]>,
}

/// The choices of an `enum`, with the string ones keyed for a lookup that
/// compares words, not bytes (most string enums are short words).
#[derive(Debug)]
pub struct Choices {
    pub all: Vec<Datum>,
    /// Each binary choice's key and its index in `all`.
    binaries: Vec<(NameKey, usize)>,
}

impl Choices {
    fn new(all: Vec<Datum>) -> Choices {
        let binaries = all
            .iter()
            .enumerate()
            .filter_map(|(index, choice)| match choice {
                Datum::Binary(bytes) => Some((NameKey::of(bytes), index)),
                _ => None,
            })
            .collect();
        Choices { all, binaries }
    }

    /// Whether a value equals (Erlang `==`) one of the choices.
    #[inline]
    pub fn contain<'a, V: Value<'a>>(&self, value: V) -> bool {
        match value.bytes() {
            Some(bytes) => self.contain_binary(bytes),
            None => self.all.iter().any(|choice| equals(value, choice)),
        }
    }

    /// Whether a binary equals one of the choices (only a binary choice
    /// with the same bytes can).
    #[inline]
    fn contain_binary(&self, bytes: &[u8]) -> bool {
        let key = NameKey::of(bytes);
        self.binaries.iter().any(|(k, index)| {
            *k == key
                && matches!(self.all.get(*index), Some(Datum::Binary(b)) if NameKey::same_rest(key, b, bytes))
        })
    }
}

/// Object keywords of one schema, compiled for a single pass over the
/// argument map: every distinct string form among property and required
/// names has a slot, found in `names`.
#[derive(Debug)]
pub struct ObjectRules {
    pub properties: Vec<Property>,
    pub required: Vec<Required>,
    /// Sorted by string form.
    pub names: Vec<Name>,
    pub additional: Additional,
    /// Set when a one-pass check applies (see `OnePass`).
    pub one_pass: Option<OnePass>,
}

/// For a check in one pass over the argument map, in its order: the
/// required slots as a bit set. Built when there are at most 64 slots and
/// no two properties share a string form (a property written as an atom and
/// one as a string), so that a name leads to exactly one property.
#[derive(Debug)]
pub struct OnePass {
    pub required: u64,
}

impl OnePass {
    fn of(properties: &[Property], required: &[Required], names: &[Name]) -> Option<OnePass> {
        if names.len() > 64 {
            return None;
        }
        let mut taken = vec![false; names.len()];
        for property in properties {
            let cell = taken.get_mut(property.slot)?;
            if std::mem::replace(cell, true) {
                return None;
            }
        }
        let bit_of = |slot: usize| names.iter().find(|n| n.slot == slot).map(|n| n.bit);
        let mut bits = 0u64;
        for r in required {
            bits |= bit_of(r.slot)?;
        }
        Some(OnePass { required: bits })
    }
}

impl ObjectRules {
    pub fn slot_count(&self) -> usize {
        self.names.len()
    }

    /// The entry of a string form. Tool schemas have a handful of
    /// properties: a scan that compares `NameKey`s (and the bytes past the
    /// eighth only for longer names) beats a binary search's full
    /// comparisons; large objects use the search.
    #[inline(always)]
    pub fn find(&self, name: &[u8]) -> Option<&Name> {
        if self.names.len() > 16 {
            return self.search(name);
        }
        let key = NameKey::of(name);
        self.names
            .iter()
            .find(|n| n.key == key && NameKey::same_rest(key, &n.bytes, name))
    }

    #[inline(never)]
    fn search(&self, name: &[u8]) -> Option<&Name> {
        let at = self.names.binary_search_by(|n| (*n.bytes).cmp(name)).ok()?;
        self.names.get(at)
    }

    /// The property written as this atom, if any.
    pub fn find_atom(&self, atom: AtomId) -> Option<usize> {
        self.properties.iter().position(|p| p.atom == Some(atom))
    }

    fn is_trivial(&self) -> bool {
        self.properties.is_empty() && self.required.is_empty() && matches!(self.additional, Additional::Allow)
    }
}

/// A compiled (sub)schema.
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
    pub min_items: Option<Count>,
    pub max_items: Option<Count>,
    pub items: Option<Box<Node>>,
    pub object: Option<Box<ObjectRules>>,
    #[allow(clippy::vec_box)]
    pub any_of: Vec<Box<Node>>,
    #[allow(clippy::vec_box)]
    pub one_of: Vec<Box<Node>>,
    pub not: Option<Box<Node>>,
    /// The array step applies to lists (an array keyword or `type` names array).
    pub checks_arrays: bool,
    /// The object step applies to maps (an object keyword or `type` names object).
    pub checks_objects: bool,
    pub checks_numbers: bool,
    pub checks_lengths: bool,
    /// `minLength`, `maxLength` or `pattern` applies.
    pub checks_strings: bool,
    /// Nothing but `type` applies (and the UTF-8 check every binary gets):
    /// the validator's fast path.
    pub plain: bool,
    /// `enum`, `const`, `anyOf`, `oneOf` or `not` applies: the validator's
    /// general path.
    pub compound: bool,
}

impl Node {
    pub fn allows(&self, types: TypeSet) -> bool {
        self.types.as_ref().is_none_or(|t| t.set.intersects(types))
    }
}

/// A whole tool schema, compiled.
#[derive(Debug)]
pub struct CompiledSchema {
    pub root: Node,
    /// What compiling it spent of [`COMPILE_BUDGET`].
    pub compile_units: u64,
}

impl CompiledSchema {
    /// Approximate heap bytes held, for cache accounting.
    pub fn approximate_bytes(&self) -> usize {
        std::mem::size_of::<CompiledSchema>() + self.root.approximate_bytes()
    }
}

impl Node {
    fn approximate_bytes(&self) -> usize {
        let datum = |d: &Datum| d.approximate_bytes();
        let node = std::mem::size_of::<Node>();
        let types = self.types.as_ref().map_or(0, |t| datum(&t.written));
        let choices = self.choices.as_ref().map_or(0, |c| c.all.iter().map(datum).sum());
        let constant = self.constant.as_ref().map_or(0, datum);
        let pattern = self.pattern.as_ref().map_or(0, |p| p.memory_usage());
        let items = self.items.as_ref().map_or(0, |n| n.approximate_bytes());
        let not = self.not.as_ref().map_or(0, |n| n.approximate_bytes());
        let branches: usize = self
            .any_of
            .iter()
            .chain(&self.one_of)
            .map(|n| n.approximate_bytes())
            .sum();
        let object = self.object.as_ref().map_or(0, |o| {
            let properties: usize = o
                .properties
                .iter()
                .map(|p| p.name.len() + std::mem::size_of::<Property>() + p.schema.approximate_bytes())
                .sum();
            let names: usize = o
                .names
                .iter()
                .map(|n| n.bytes.len() + std::mem::size_of::<Name>())
                .sum();
            let required: usize = o.required.iter().map(|r| r.name.len() + 32).sum();
            let additional = match &o.additional {
                Additional::Schema(n) => n.approximate_bytes(),
                _ => 0,
            };
            properties + names + required + additional
        });
        node + types + choices + constant + pattern + items + not + branches + object
    }
}

type Slots<V> = [Option<(V, bool)>; KEYWORD_COUNT];

/// One step of a location inside a schema.
#[derive(Debug, Clone, Copy)]
enum Step<'p> {
    Root,
    Keyword(&'static str),
    Name(&'p [u8]),
    Index(usize),
}

/// Where the compiler is in the schema: a list on the stack, rendered as a
/// JSON Pointer only when a check fails.
#[derive(Debug, Clone, Copy)]
struct SchemaPath<'p> {
    parent: Option<&'p SchemaPath<'p>>,
    step: Step<'p>,
    cx: &'p Context<'p>,
}

/// What a compilation may spend: its budget, and whether a pattern not
/// compiled before counts as over it (the inline path never determinises).
#[derive(Debug)]
struct Context<'b> {
    budget: &'b Budget,
    cached_patterns_only: bool,
    /// Units spent so far against [`COMPILE_BUDGET`]: every charge, and the
    /// build units of every pattern met, whether it was built now or before.
    spent: Cell<u64>,
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

impl<'p> SchemaPath<'p> {
    fn child(&'p self, step: Step<'p>) -> SchemaPath<'p> {
        SchemaPath {
            parent: Some(self),
            step,
            cx: self.cx,
        }
    }

    fn keyword(&'p self, keyword: Keyword) -> SchemaPath<'p> {
        self.child(Step::Keyword(keyword.name()))
    }

    /// RFC 6901: `~` is written `~0` and `/` is written `~1`.
    fn pointer(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            steps.push(path.step);
            at = path.parent;
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            let text = match step {
                Step::Root => continue,
                Step::Keyword(name) => (*name).to_string(),
                Step::Name(name) => String::from_utf8_lossy(name).into_owned(),
                Step::Index(index) => index.to_string(),
            };
            out.push('/');
            out.push_str(&text.replace('~', "~0").replace('/', "~1"));
        }
        out
    }

    fn fail<V>(&self, error: SchemaError<V>) -> CompileStop<V> {
        CompileStop::Failure(SchemaFailure {
            error,
            pointer: self.pointer(),
        })
    }

    /// Charges work against the schema's compile budget (over it, the
    /// schema is rejected) and the caller's budget (over it, the caller
    /// hands the call to a dirty scheduler).
    fn charge<V>(&self, units: u64) -> Compiled<(), V> {
        self.spend(units, BudgetReason::Work)?;
        self.cx.budget.charge(units).map_err(|_| CompileStop::OverBudget)
    }

    fn spend<V>(&self, units: u64, reason: BudgetReason) -> Compiled<(), V> {
        let spent = self.cx.spent.get().saturating_add(units);
        if spent > COMPILE_BUDGET {
            return Err(self.fail(SchemaError::CompileBudget(reason)));
        }
        self.cx.spent.set(spent);
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

type Compiled<T, V> = Result<T, CompileStop<V>>;

/// Checks a tool schema (a map) and compiles it. The root must be an object
/// schema; then it is checked like every subschema.
pub fn compile<'a, V: Value<'a>>(schema: V) -> Result<CompiledSchema, SchemaFailure<V>> {
    match compile_within(schema, &Budget::unlimited(), false) {
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
) -> Compiled<CompiledSchema, V> {
    let cx = Context {
        budget,
        cached_patterns_only,
        spent: Cell::new(0),
    };
    let root_path = SchemaPath {
        parent: None,
        step: Step::Root,
        cx: &cx,
    };
    if schema.shape() != Shape::Map {
        return Err(root_path.fail(SchemaError::SchemaNotMap));
    }
    // The root's type comes first, before any key is checked: a scalar tool
    // schema is "only object tool schemas", whatever else it holds.
    if let Some(type_value) = root_type(schema, &root_path)? {
        if !is_object_root_type(type_value) {
            return Err(root_path.keyword(Keyword::Type).fail(SchemaError::RootNotObject));
        }
    }
    let slots = keyword_slots(schema, &root_path)?;
    let mut root = compile_slots(&slots, 1, &root_path)?;
    root.checks_objects = true;
    root.settle();
    Ok(CompiledSchema {
        root: *root,
        compile_units: cx.spent.get(),
    })
}

/// The root's `type` value, found as every keyword is: the atom form wins
/// over the string form.
fn root_type<'a, V: Value<'a>>(schema: V, path: &SchemaPath<'_>) -> Compiled<Option<V>, V> {
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
fn type_name<'a, V: Value<'a>>(value: V) -> Option<Vec<u8>> {
    match value.shape() {
        Shape::Binary(bytes) => Some(bytes.to_vec()),
        Shape::Atom | Shape::Nil | Shape::Bool(_) => value.atom_name().map(String::into_bytes),
        _ => None,
    }
}

/// Reads a schema map's keys into keyword slots (atom form wins over string
/// form), or reports the first unsupported key in the map's own order.
#[inline(never)]
fn keyword_slots<'a, V: Value<'a>>(schema: V, path: &SchemaPath<'_>) -> Compiled<Box<Slots<V>>, V> {
    path.charge(KEYWORD_UNITS * schema.map_len() as u64)?;
    let at_root = path.parent.is_none();
    let mut slots: Box<Slots<V>> = Box::new([None; KEYWORD_COUNT]);
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
        let Some(keyword) = keyword else {
            let name = name.unwrap_or_else(|| format!("{key:?}").into_bytes());
            return Err(path
                .child(Step::Name(&name))
                .fail(SchemaError::UnsupportedKeyword(key)));
        };
        if let Some(slot) = slots.get_mut(keyword.index()) {
            match slot {
                Some((_, true)) if !is_atom => {}
                _ => *slot = Some((value, is_atom)),
            }
        }
    }
    Ok(slots)
}

fn compile_node<'a, V: Value<'a>>(schema: V, depth: usize, path: &SchemaPath<'_>) -> Compiled<Box<Node>, V> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(path.fail(SchemaError::SchemaTooDeep));
    }
    path.spend(SUBSCHEMA_UNITS, BudgetReason::Work)?;
    let slots = keyword_slots(schema, path)?;
    compile_slots(&slots, depth, path)
}

/// A subschema that must be a map, with the message of its position.
fn compile_subschema<'a, V: Value<'a>>(
    schema: V,
    depth: usize,
    path: &SchemaPath<'_>,
    not_a_map: SchemaError<V>,
) -> Compiled<Box<Node>, V> {
    if schema.shape() != Shape::Map {
        return Err(path.fail(not_a_map));
    }
    compile_node(schema, depth, path)
}

fn get<V: Copy>(slots: &Slots<V>, keyword: Keyword) -> Option<V> {
    slots
        .get(keyword.index())
        .copied()
        .flatten()
        .map(|(value, _)| value)
}

fn number<'a, V: Value<'a>>(
    slots: &Slots<V>,
    keyword: Keyword,
    path: &SchemaPath<'_>,
) -> Compiled<Option<Number>, V> {
    match get(slots, keyword).map(|v| v.shape()) {
        None => Ok(None),
        Some(Shape::Number(n)) => Ok(Some(n)),
        Some(_) => Err(path.keyword(keyword).fail(SchemaError::NotNumber(keyword.name()))),
    }
}

fn count<'a, V: Value<'a>>(
    slots: &Slots<V>,
    keyword: Keyword,
    path: &SchemaPath<'_>,
) -> Compiled<Option<Count>, V> {
    match get(slots, keyword).map(|v| v.shape()) {
        None => Ok(None),
        Some(Shape::Number(n)) => match n.as_count() {
            Some(value) if !matches!(n, Number::Float(_)) => Ok(Some(Count { value, written: n })),
            _ => Err(path.keyword(keyword).fail(SchemaError::NotCount(keyword.name()))),
        },
        Some(_) => Err(path.keyword(keyword).fail(SchemaError::NotCount(keyword.name()))),
    }
}

/// A non-empty proper list, for `oneOf`/`anyOf`/`type`.
fn non_empty_list<'a, V: Value<'a>>(value: V) -> bool {
    value.shape() == Shape::List && value.list_len().is_some_and(|n| n > 0)
}

/// Compiles one schema from its keyword slots. The recursion through
/// subschemas passes only through this function, `compile_children` and the
/// list/map helpers, which keep their frames small: the leaf work (annotations,
/// numbers, enum, pattern) runs out of line in `compile_assertions`.
fn compile_slots<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_>,
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
    path: &SchemaPath<'_>,
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

    if let Some(value) = get(slots, Keyword::Type) {
        node.types = Some(compile_type(value).map_err(|e| path.keyword(Keyword::Type).fail(e))?);
    }

    if let Some(value) = get(slots, Keyword::Enum) {
        let at = path.keyword(Keyword::Enum);
        if value.shape() != Shape::List || value.list_len().is_none() {
            return Err(at.fail(SchemaError::MalformedEnum));
        }
        path.charge(value.list_len().unwrap_or(0) as u64)?;
        let mut choices = Vec::new();
        for (index, choice) in value.list_items().enumerate() {
            let datum = json_datum(choice, depth + 1, SchemaError::MalformedEnum)
                .map_err(|e| at.child(Step::Index(index)).fail(e))?;
            path.charge(datum_units(&datum))?;
            choices.push(datum);
        }
        node.choices = Some(Choices::new(choices));
    }
    if let Some(value) = get(slots, Keyword::Const) {
        let datum = json_datum(value, depth, SchemaError::MalformedConst)
            .map_err(|e| path.keyword(Keyword::Const).fail(e))?;
        path.charge(datum_units(&datum))?;
        node.constant = Some(datum);
    }

    node.minimum = number(slots, Keyword::Minimum, path)?;
    node.maximum = number(slots, Keyword::Maximum, path)?;
    node.exclusive_minimum = number(slots, Keyword::ExclusiveMinimum, path)?;
    node.exclusive_maximum = number(slots, Keyword::ExclusiveMaximum, path)?;

    node.min_length = count(slots, Keyword::MinLength, path)?;
    node.max_length = count(slots, Keyword::MaxLength, path)?;
    node.min_items = count(slots, Keyword::MinItems, path)?;
    node.max_items = count(slots, Keyword::MaxItems, path)?;

    if let Some(value) = get(slots, Keyword::Pattern) {
        let at = path.keyword(Keyword::Pattern);
        let Shape::Binary(source) = value.shape() else {
            return Err(at.fail(SchemaError::PatternNotString));
        };
        let pattern = if path.cx.cached_patterns_only {
            Pattern::find_shared(source).ok_or(CompileStop::OverBudget)?
        } else {
            Pattern::compile_shared(source).map_err(|e| {
                at.fail(match e {
                    PatternError::TooLarge => SchemaError::PatternTooLarge,
                    PatternError::Unsupported => SchemaError::PatternUnsupported,
                    PatternError::Invalid => SchemaError::PatternInvalid,
                })
            })?
        };
        // Built now or before, a pattern costs what building it costs.
        at.spend(pattern.build_units(), BudgetReason::Patterns)?;
        node.pattern = Some(pattern);
    }
    Ok(())
}

#[inline(never)]
fn compile_children<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_>,
    node: &mut Node,
) -> Compiled<(), V> {
    let properties = match get(slots, Keyword::Properties) {
        None => Vec::new(),
        Some(value) => compile_properties(value, depth, &path.keyword(Keyword::Properties))?,
    };

    let required = match get(slots, Keyword::Required) {
        None => Vec::new(),
        Some(value) => {
            let malformed = || {
                path.keyword(Keyword::Required)
                    .fail(SchemaError::MalformedRequired)
            };
            if value.shape() != Shape::List || value.list_len().is_none() {
                return Err(malformed());
            }
            let mut names = Vec::new();
            for name in value.list_items() {
                let Shape::Binary(name) = name.shape() else {
                    return Err(malformed());
                };
                names.push(Box::<[u8]>::from(name));
            }
            names
        }
    };

    // `additional_properties` only when neither form of the camelCase one is there.
    let (additional_keyword, additional_value) = match get(slots, Keyword::AdditionalProperties) {
        Some(value) => (Keyword::AdditionalProperties, Some(value)),
        None => (
            Keyword::AdditionalPropertiesSnake,
            get(slots, Keyword::AdditionalPropertiesSnake),
        ),
    };
    let additional = match additional_value {
        None => Additional::Allow,
        Some(value) => match value.shape() {
            Shape::Bool(true) => Additional::Allow,
            Shape::Bool(false) => Additional::Deny,
            Shape::Map => {
                Additional::Schema(compile_node(value, depth + 1, &path.keyword(additional_keyword))?)
            }
            _ => {
                return Err(path
                    .keyword(additional_keyword)
                    .fail(SchemaError::MalformedAdditional))
            }
        },
    };
    let has_object_keywords = get(slots, Keyword::Properties).is_some()
        || get(slots, Keyword::Required).is_some()
        || additional_value.is_some();
    let object = object_rules(properties, required, additional);
    if !object.is_trivial() {
        node.object = Some(Box::new(object));
    }

    if let Some(value) = get(slots, Keyword::Items) {
        let at = path.keyword(Keyword::Items);
        node.items = Some(compile_subschema(
            value,
            depth + 1,
            &at,
            SchemaError::MalformedItems,
        )?);
    }
    if let Some(value) = get(slots, Keyword::Not) {
        let at = path.keyword(Keyword::Not);
        node.not = Some(compile_subschema(
            value,
            depth + 1,
            &at,
            SchemaError::MalformedNot,
        )?);
    }
    if let Some(value) = get(slots, Keyword::OneOf) {
        let at = path.keyword(Keyword::OneOf);
        node.one_of = compile_branches(value, depth, &at, SchemaError::MalformedOneOf)?;
    }
    if let Some(value) = get(slots, Keyword::AnyOf) {
        let at = path.keyword(Keyword::AnyOf);
        node.any_of = compile_branches(value, depth, &at, SchemaError::MalformedAnyOf)?;
    }
    if !node.one_of.is_empty() && !node.any_of.is_empty() {
        return Err(path
            .keyword(Keyword::AnyOf)
            .fail(SchemaError::CombinedCompositions));
    }

    node.checks_arrays = node.min_items.is_some()
        || node.max_items.is_some()
        || node.items.is_some()
        || node.names_type(TypeSet::ARRAY);
    node.checks_objects = has_object_keywords || node.names_type(TypeSet::OBJECT);
    node.checks_numbers = node.minimum.is_some()
        || node.maximum.is_some()
        || node.exclusive_minimum.is_some()
        || node.exclusive_maximum.is_some();
    node.checks_lengths = node.min_length.is_some() || node.max_length.is_some();
    node.settle();
    Ok(())
}

impl Node {
    /// Derives `plain` from the other fields, once they are final.
    fn settle(&mut self) {
        self.compound = self.choices.is_some()
            || self.constant.is_some()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some();
        self.checks_strings = self.checks_lengths || self.pattern.is_some();
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

/// Work units for an `enum` choice or `const` value: reading it and
/// building its copy cost about a unit per 16 bytes of the copy.
fn datum_units(datum: &Datum) -> u64 {
    (datum.approximate_bytes() / 16) as u64
}

fn json_datum<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    malformed: SchemaError<V>,
) -> Result<Datum, SchemaError<V>> {
    let depth_left = MAX_SCHEMA_DEPTH.saturating_sub(depth);
    Datum::from_json_value(value, depth_left).map_err(|e| match e {
        DatumError::NotJson => malformed,
        DatumError::TooDeep => SchemaError::SchemaTooDeep,
    })
}

fn compile_type<'a, V: Value<'a>>(value: V) -> Result<Types, SchemaError<V>> {
    match value.shape() {
        Shape::Binary(_) | Shape::Atom | Shape::Nil | Shape::Bool(_) => {
            let name = type_name(value).unwrap_or_default();
            let set = TypeSet::from_name(&name).ok_or(SchemaError::UnsupportedType(value))?;
            Ok(Types {
                set,
                written: written_name(value, name),
            })
        }
        Shape::List if non_empty_list(value) => {
            let mut set = TypeSet::EMPTY;
            let mut written = Vec::new();
            for item in value.list_items() {
                let name = match item.shape() {
                    Shape::Binary(_) | Shape::Atom | Shape::Nil | Shape::Bool(_) => type_name(item),
                    _ => None,
                };
                let Some(name) = name else {
                    return Err(SchemaError::MalformedType);
                };
                let one = TypeSet::from_name(&name).ok_or(SchemaError::MalformedType)?;
                if set.intersects(one) {
                    return Err(SchemaError::MalformedType);
                }
                set = set.union(one);
                written.push(written_name(item, name));
            }
            Ok(Types {
                set,
                written: Datum::List(written),
            })
        }
        _ => Err(SchemaError::MalformedType),
    }
}

/// A type name as written: a binary stays a binary, an atom an atom.
fn written_name<'a, V: Value<'a>>(value: V, name: Vec<u8>) -> Datum {
    match value.shape() {
        Shape::Binary(_) => Datum::Binary(name.into()),
        _ => Datum::Atom(String::from_utf8_lossy(&name).into()),
    }
}

/// A property before slots are assigned: string form, atom identity, schema.
type PropertySource = (Box<[u8]>, Option<AtomId>, Box<Node>);

#[inline(never)]
fn compile_properties<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &SchemaPath<'_>,
) -> Compiled<Vec<PropertySource>, V> {
    if value.shape() != Shape::Map {
        return Err(path.fail(SchemaError::PropertiesNotMap));
    }
    let mut names = Vec::with_capacity(value.map_len());
    for (key, _) in value.map_entries() {
        let name = match key.shape() {
            Shape::Binary(name) => (Box::<[u8]>::from(name), None),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => match (key.atom_name(), key.atom_id()) {
                (Some(name), id) => (name.into_bytes().into_boxed_slice(), id),
                _ => return Err(path.fail(SchemaError::PropertyNameNotString)),
            },
            _ => return Err(path.fail(SchemaError::PropertyNameNotString)),
        };
        names.push(name);
    }
    let mut properties = Vec::with_capacity(names.len());
    for ((name, atom), (_, schema)) in names.into_iter().zip(value.map_entries()) {
        let at = path.child(Step::Name(&name));
        let node = compile_subschema(schema, depth + 2, &at, SchemaError::SubschemaNotMap)?;
        properties.push((name, atom, node));
    }
    Ok(properties)
}

// Boxed nodes: a branch is built on the heap and never moved through the
// recursion's stack frames.
#[allow(clippy::vec_box)]
#[inline(never)]
fn compile_branches<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &SchemaPath<'_>,
    malformed: SchemaError<V>,
) -> Compiled<Vec<Box<Node>>, V> {
    if !non_empty_list(value) {
        return Err(path.fail(malformed));
    }
    let mut branches = Vec::new();
    for (index, branch) in value.list_items().enumerate() {
        let at = path.child(Step::Index(index));
        branches.push(compile_subschema(
            branch,
            depth + 2,
            &at,
            SchemaError::SubschemaNotMap,
        )?);
    }
    Ok(branches)
}

/// Gives every distinct string form among property and required names a slot.
#[inline(never)]
fn object_rules(
    properties: Vec<PropertySource>,
    required: Vec<Box<[u8]>>,
    additional: Additional,
) -> ObjectRules {
    let mut names: Vec<Name> = Vec::new();
    let mut slots: HashMap<Box<[u8]>, usize> = HashMap::new();
    let mut slot_of = |name: &[u8], property: Option<usize>, names: &mut Vec<Name>| {
        if let Some(&slot) = slots.get(name) {
            if let Some(entry) = names.get_mut(slot) {
                entry.property = entry.property.or(property);
            }
            return slot;
        }
        let slot = names.len();
        names.push(Name {
            key: NameKey::of(name),
            slot,
            bit: u32::try_from(slot)
                .ok()
                .and_then(|s| 1u64.checked_shl(s))
                .unwrap_or(0),
            property,
            bytes: name.into(),
        });
        slots.insert(name.into(), slot);
        slot
    };
    let properties: Vec<Property> = properties
        .into_iter()
        .enumerate()
        .map(|(index, (name, atom, schema))| {
            let slot = slot_of(&name, Some(index), &mut names);
            Property {
                name,
                atom,
                slot,
                schema,
            }
        })
        .collect();
    let required: Vec<Required> = required
        .into_iter()
        .map(|name| {
            let slot = slot_of(&name, None, &mut names);
            Required { name, slot }
        })
        .collect();
    names.sort_by(|a, b| a.bytes.cmp(&b.bytes));
    let one_pass = OnePass::of(&properties, &required, &names);
    ObjectRules {
        properties,
        required,
        names,
        additional,
        one_pass,
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
