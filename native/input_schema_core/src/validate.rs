//! The gateway profile's walk: compiled schema + arguments -> accepted, or
//! the first failure. Walks the argument value in place (through `Value`) in
//! the contract's check order (`check`, `check_step`, `check_keywords`); each
//! keyword's own check is in its family's file under `crate::keywords`.
//! Paths and error details are built only when a check fails, and
//! composition branches are asked "does it match?" without building errors.

use std::cell::RefCell;

pub use crate::budget::{Budget, OverBudget};
use crate::error::{ArgumentError, PathBytes};
use crate::schema::{CompiledSchema, Node, NodeId, TypeSet};
use crate::value::{Datum, Kind, Number, Shape, Value};

/// Deepest argument value the validator descends to (the root arguments map
/// is level 0). Tool calls nest a handful of levels; the bound keeps the
/// walk's recursion far inside a dirty scheduler's stack.
pub const MAX_ARGUMENT_DEPTH: usize = 64;

/// Most frames the walk may stack at once: a level of the arguments, or a
/// step that stays on the same value (a composition branch, an `allOf`
/// entry, a `$ref`). Schemas without `$ref` stay below it (their nesting is
/// bounded by `MAX_SCHEMA_DEPTH`); with references, past it the walk stops
/// with the depth error. It fits a dirty scheduler's stack.
pub const MAX_WALK_FRAMES: usize = 192;

/// The work a validation against a schema with `$ref` may do, in budget
/// units (about one per value visited: 5,000,000 is about 110 ms here).
/// References can make a small schema visit a value many times; past the
/// limit the validation stops with an `:execution_failure`. Without `$ref`
/// the work is bounded by the schema's and the arguments' sizes, and
/// unlimited.
pub const REF_WALK_BUDGET: u64 = 5_000_000;

/// The work budget of an unbudgeted validation of this schema.
pub fn walk_budget(schema: &CompiledSchema) -> Budget {
    if schema.has_refs {
        Budget::new(REF_WALK_BUDGET)
    } else {
        Budget::unlimited()
    }
}

/// The failure of a validation whose [`walk_budget`] ran out.
pub fn work_limit<V>() -> ArgumentError<V> {
    ArgumentError::WorkLimit {
        path: b"$arguments".to_vec(),
    }
}

/// Where a value sits in the arguments; rendered only for an error.
#[derive(Clone, Copy)]
pub(crate) enum Segment<'p, V> {
    Root,
    Property(&'p [u8]),
    Index(usize),
    /// A key of the argument map (binary, atom or integer).
    Key(V),
}

#[derive(Clone, Copy)]
pub(crate) struct Path<'p, V> {
    parent: Option<&'p Path<'p, V>>,
    segment: Segment<'p, V>,
}

impl<'p, 'a, V: Value<'a>> Path<'p, V> {
    pub(crate) fn child(&'p self, segment: Segment<'p, V>) -> Path<'p, V> {
        Path {
            parent: Some(self),
            segment,
        }
    }

    /// `$arguments.items[2].name`.
    pub(crate) fn render(&self) -> Vec<u8> {
        let mut segments = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            segments.push(path.segment);
            at = path.parent;
        }
        let mut out = Vec::with_capacity(16 * segments.len());
        for segment in segments.iter().rev() {
            match segment {
                Segment::Root => out.extend_from_slice(b"$arguments"),
                Segment::Property(name) => {
                    out.push(b'.');
                    out.extend_from_slice(name);
                }
                Segment::Index(index) => {
                    out.push(b'[');
                    out.extend_from_slice(index.to_string().as_bytes());
                    out.push(b']');
                }
                Segment::Key(key) => {
                    out.push(b'.');
                    match key.shape() {
                        Shape::Binary(bytes) => out.extend_from_slice(bytes),
                        Shape::Number(Number::Int(n)) => out.extend_from_slice(n.to_string().as_bytes()),
                        Shape::Number(Number::Big(n)) => out.extend_from_slice(n.to_string().as_bytes()),
                        _ => out.extend_from_slice(key.atom_name().unwrap_or_default().as_bytes()),
                    }
                }
            }
        }
        out
    }
}

/// Why a check did not pass.
pub(crate) enum Failure<V> {
    /// A branch probe found a `:validation` failure; nothing was built.
    Mismatch,
    /// The first failure of a first-error walk, or an aborting failure.
    Error(Box<ArgumentError<V>>),
    /// An all-errors walk reached its cap.
    Full,
    /// The walk's budget ran out: nothing was decided.
    OverBudget,
}

impl<V> From<OverBudget> for Failure<V> {
    fn from(_: OverBudget) -> Self {
        Failure::OverBudget
    }
}

pub(crate) type Check<V> = Result<(), Failure<V>>;

/// Builds the error of a violated bound from its path and limit.
pub(crate) type ErrorAt<V> = fn(PathBytes, Datum) -> ArgumentError<V>;

/// Most failures an all-errors walk collects: enough for an agent to repair
/// a call in one round trip, bounded so a huge argument cannot make the
/// report (and the BEAM term built from it) huge.
pub const MAX_ERRORS: usize = 64;

pub(crate) fn root_path<'p, 'a, V: Value<'a>>() -> Path<'p, V> {
    Path {
        parent: None,
        segment: Segment::Root,
    }
}

/// The outcome of a budgeted validation.
#[derive(Debug)]
pub enum Outcome<E> {
    Valid,
    Invalid(E),
    OverBudget,
}

/// Validates arguments (already known to be a map) against a compiled
/// schema; the first failure in the contract's order.
pub fn validate<'a, V: Value<'a>>(schema: &CompiledSchema, arguments: V) -> Result<(), ArgumentError<V>> {
    match validate_within(schema, arguments, &walk_budget(schema)) {
        Outcome::Valid => Ok(()),
        Outcome::Invalid(error) => Err(error),
        Outcome::OverBudget => Err(work_limit()),
    }
}

/// [`validate`] within a work budget.
pub fn validate_within<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<ArgumentError<V>> {
    match optimistic(schema, arguments, budget) {
        Some(outcome) => outcome,
        None => in_order(schema, arguments, budget),
    }
}

/// [`validate`] by the ordered walk alone, without the optimistic walk
/// that answers valid arguments first: the reference that walk is tested
/// against.
#[doc(hidden)]
pub fn validate_in_order<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
) -> Result<(), ArgumentError<V>> {
    match in_order(schema, arguments, &walk_budget(schema)) {
        Outcome::Valid => Ok(()),
        Outcome::Invalid(error) => Err(error),
        Outcome::OverBudget => Err(work_limit()),
    }
}

fn in_order<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<ArgumentError<V>> {
    let root = root_path();
    let walk = Walk::new(Mode::First, budget, schema);
    match walk.check_root(schema, arguments, &root) {
        Ok(()) => Outcome::Valid,
        Err(Failure::Error(error)) => Outcome::Invalid(*error),
        Err(Failure::OverBudget) => Outcome::OverBudget,
        // A first-error walk reports every failure as an error; should that
        // ever not hold, refuse the arguments rather than accept them.
        Err(Failure::Mismatch | Failure::Full) => {
            Outcome::Invalid(ArgumentError::NoAnyOfMatch { path: root.render() })
        }
    }
}

/// Validates arguments and collects every failure, in document order, up to
/// [`MAX_ERRORS`]. The first is the one [`validate`] returns. An aborting
/// failure ends the walk and is the last one listed; so does the work
/// limit, after the failures listed before the walk ran out of work.
pub fn validate_all<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
) -> Result<(), Vec<ArgumentError<V>>> {
    match collect_within(schema, arguments, &walk_budget(schema)) {
        Collected::Decided(Outcome::Valid) => Ok(()),
        Collected::Decided(Outcome::Invalid(errors)) => Err(errors),
        Collected::Decided(Outcome::OverBudget) => Err(vec![work_limit()]),
        Collected::Cut(mut errors) => {
            // Fewer than the cap (a full list ends the walk before the
            // budget can): with the work limit, at most the cap.
            errors.push(work_limit());
            Err(errors)
        }
    }
}

/// [`validate_all`] within a work budget: `OverBudget` as soon as it runs
/// out, whatever was listed by then, so that a call given more work (the
/// dirty scheduler's) decides it as [`validate_all`] does.
pub fn validate_all_within<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<Vec<ArgumentError<V>>> {
    match collect_within(schema, arguments, budget) {
        Collected::Decided(outcome) => outcome,
        Collected::Cut(_) => Outcome::OverBudget,
    }
}

/// What the all-errors walk found within a budget.
enum Collected<V> {
    Decided(Outcome<Vec<ArgumentError<V>>>),
    /// The budget ran out after these failures (perhaps none).
    Cut(Vec<ArgumentError<V>>),
}

fn collect_within<'a, V: Value<'a>>(schema: &CompiledSchema, arguments: V, budget: &Budget) -> Collected<V> {
    let root = root_path();
    if let Some(outcome) = optimistic(schema, arguments, budget) {
        return Collected::Decided(outcome);
    }
    let collector = RefCell::new(Vec::new());
    let walk = Walk::new(Mode::Collect(&collector), budget, schema);
    let outcome = walk.check_root(schema, arguments, &root);
    let mut errors = collector.into_inner();
    match outcome {
        Ok(()) | Err(Failure::Full) => {}
        Err(Failure::OverBudget) => return Collected::Cut(errors),
        Err(Failure::Error(error)) => errors.push(*error),
        Err(Failure::Mismatch) => errors.push(ArgumentError::NoAnyOfMatch { path: root.render() }),
    }
    Collected::Decided(if errors.is_empty() {
        Outcome::Valid
    } else {
        Outcome::Invalid(errors)
    })
}

/// The walk for valid arguments, which most are: `Valid` or `OverBudget`
/// when it decides, `None` when the arguments fail somewhere and the
/// contract's order must pick the error. At most doubles a failing call's work.
fn optimistic<'a, V: Value<'a>, E>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Option<Outcome<E>> {
    let walk = Walk::new(Mode::Optimistic, budget, schema);
    match walk.check_root(schema, arguments, &root_path()) {
        Ok(()) => Some(Outcome::Valid),
        Err(Failure::OverBudget) => Some(Outcome::OverBudget),
        Err(Failure::Mismatch | Failure::Error(_) | Failure::Full) => None,
    }
}

/// What a walk does with a `:validation` failure.
pub(crate) enum Mode<'c, V> {
    /// Stop without building anything, and without having kept the
    /// contract's order: objects are checked in one pass in argument order.
    /// A success is final; on any failure the caller walks again in order.
    Optimistic,
    /// `Optimistic`, for a composition branch met by an `Optimistic` walk.
    /// The branches it meets in turn are probed in order only, so a failing
    /// call costs a bounded multiple of one ordered walk, at any nesting.
    OptimisticBranch,
    /// Build it and stop (`validate`).
    First,
    /// Stop without building anything (composition branches).
    Probe,
    /// Build it, keep it, and go on (`validate_all`).
    Collect(&'c RefCell<Vec<ArgumentError<V>>>),
}

impl<V> Clone for Mode<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Mode<'_, V> {}

/// One walk over the arguments.
#[derive(Clone, Copy)]
pub(crate) struct Walk<'c, V> {
    pub(crate) mode: Mode<'c, V>,
    pub(crate) budget: &'c Budget,
    /// The schema's arena.
    pub(crate) nodes: &'c [Box<Node>],
}

/// A walk's `depth` counts two things: the argument levels descended (the
/// low byte, against [`MAX_ARGUMENT_DEPTH`]) and, in multiples of `HOP`,
/// the frames stacked by steps that stay on the same value (a composition
/// branch, an `allOf` entry, a `$ref`), which with the levels must stay
/// under [`MAX_WALK_FRAMES`]. One word, so the walk's hot path carries
/// nothing more than it did before references.
const HOP: usize = 1 << 8;

/// The walk checks the stack every this many frames (`check_id`).
const STACK_STRIDE: usize = 4;

/// The argument levels of a walk's `depth`.
#[inline(always)]
pub(crate) fn levels(depth: usize) -> usize {
    depth & (HOP - 1)
}

/// The JSON types a value has, as `TypeSet` bits.
pub(crate) fn type_of(kind: Kind) -> TypeSet {
    match kind {
        Kind::Map => TypeSet::OBJECT,
        Kind::List => TypeSet::ARRAY,
        Kind::Binary => TypeSet::STRING,
        Kind::Float => TypeSet::NUMBER,
        Kind::Integer => TypeSet::INTEGER.union(TypeSet::NUMBER),
        Kind::Bool => TypeSet::BOOLEAN,
        Kind::Nil => TypeSet::NULL,
        Kind::Atom | Kind::Other => TypeSet::EMPTY,
    }
}

pub(crate) fn number_datum(n: &Number) -> Datum {
    Datum::Number(n.clone())
}

impl<'c, 'a, V: Value<'a>> Walk<'c, V> {
    fn new(mode: Mode<'c, V>, budget: &'c Budget, schema: &'c CompiledSchema) -> Walk<'c, V> {
        Walk {
            mode,
            budget,
            nodes: schema.nodes(),
        }
    }

    /// The same walk in another mode.
    pub(crate) fn with_mode(self, mode: Mode<'c, V>) -> Walk<'c, V> {
        Walk { mode, ..self }
    }

    #[inline(always)]
    fn check_root(self, schema: &CompiledSchema, value: V, path: &Path<'_, V>) -> Check<V> {
        self.check_id(schema.root(), value, path, 0)
    }

    /// A node of the arena; one that is not there (never, by construction)
    /// refuses the value.
    #[inline(always)]
    pub(crate) fn node(self, id: NodeId, path: &Path<'_, V>) -> Result<&'c Node, Failure<V>> {
        match self.nodes.get(id.index()) {
            Some(node) => Ok(&**node),
            None => Err(Self::missing_node(path)),
        }
    }

    #[cold]
    #[inline(never)]
    fn missing_node(path: &Path<'_, V>) -> Failure<V> {
        Self::abort(ArgumentError::NoAnyOfMatch { path: path.render() })
    }

    /// One frame of the walk, on the node `id` names.
    #[inline(always)]
    pub(crate) fn check_id(self, id: NodeId, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        let node = self.node(id, path)?;
        self.check_frame(node, value, path, depth)
    }

    /// One frame of the walk. Every frame comes through here, one frame
    /// count (levels and hops) deeper than the frame that called it, so
    /// every fourth nested frame checks the stack first (`stack::deep`): a
    /// frame takes a few KiB at most, so the frames between two checks stay
    /// far inside the red zone, and the shallow walks of ordinary tool calls
    /// never pay for a check.
    #[inline(always)]
    pub(crate) fn check_frame(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        if (levels(depth) + depth / HOP) % STACK_STRIDE == STACK_STRIDE - 1 {
            return self.check_deep(node, value, path, depth);
        }
        self.check(node, value, path, depth)
    }

    /// `check` behind a stack check: out of line, so that the hot path
    /// inlines `check` once.
    #[cold]
    #[inline(never)]
    fn check_deep(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        crate::stack::deep(|| self.check(node, value, path, depth))
    }

    /// The depth one frame further on the same value; past
    /// [`MAX_WALK_FRAMES`], the depth error.
    #[inline]
    pub(crate) fn hop(path: &Path<'_, V>, depth: usize) -> Result<usize, Failure<V>> {
        if levels(depth) + depth / HOP >= MAX_WALK_FRAMES {
            return Err(Self::too_deep(path));
        }
        Ok(depth + HOP)
    }

    /// A `:validation` failure: ends a first-error walk with the error, ends
    /// a probe with a bare mismatch, and is recorded by an all-errors walk,
    /// which goes on until its cap.
    pub(crate) fn report(self, error: impl FnOnce() -> ArgumentError<V>) -> Check<V> {
        match self.mode {
            Mode::First => Err(Failure::Error(Box::new(error()))),
            Mode::Probe | Mode::Optimistic | Mode::OptimisticBranch => Err(Failure::Mismatch),
            Mode::Collect(errors) => {
                let mut errors = errors.borrow_mut();
                errors.push(error());
                if errors.len() >= MAX_ERRORS {
                    Err(Failure::Full)
                } else {
                    Ok(())
                }
            }
        }
    }

    /// An aborting failure: always built, it ends the whole validation.
    pub(crate) fn abort(error: ArgumentError<V>) -> Failure<V> {
        Failure::Error(Box::new(error))
    }

    /// The type test, then the other keywords unless only `type` applies.
    /// Small, so the callers inline it; the rest lives in `check_keywords`.
    #[inline(always)]
    fn check(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        if levels(depth) > MAX_ARGUMENT_DEPTH {
            return Err(Self::too_deep(path));
        }
        self.budget.charge_one()?;
        let kind = value.kind();
        if let Some(types) = &node.types {
            if !types.set.intersects(type_of(kind)) {
                // The value's other keywords assume the type: nothing more to check here.
                return self.wrong_type(&types.written, path);
            }
        }
        if node.plain {
            return match kind {
                Kind::Binary => self.check_text(value, 1, path).map(|_| ()),
                _ => Ok(()),
            };
        }
        if node.compound {
            return self.check_keywords(node, value, kind, path, depth);
        }
        self.check_step(node, value, kind, path, depth)
    }

    /// The step of the value's own type: number bounds, string length and
    /// pattern, array items, object properties.
    #[inline(always)]
    fn check_step(self, node: &Node, value: V, kind: Kind, path: &Path<'_, V>, depth: usize) -> Check<V> {
        match kind {
            Kind::Integer | Kind::Float if node.checks_numbers => self.check_number(node, value, path),
            Kind::Binary if node.checks_strings => self.check_string(node, value, path),
            Kind::Binary => self.check_text(value, 1, path).map(|_| ()),
            Kind::List if node.checks_arrays => self.check_array(node, value, path, depth),
            Kind::Map if node.checks_objects => self.check_map(node, value, path, depth),
            _ => Ok(()),
        }
    }

    #[inline(never)]
    fn check_map(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        // The one-pass walk refuses every key that is not a binary, and a
        // struct has one (`__struct__`), so a struct never passes it: there
        // the struct check is left to the ordered walk that follows.
        let one_pass = matches!(self.mode, Mode::Optimistic | Mode::OptimisticBranch)
            && node.object.as_ref().is_some_and(|rules| rules.one_pass.is_some());
        if !one_pass && value.is_struct() {
            return Err(Self::abort(ArgumentError::Struct { path: path.render() }));
        }
        match &node.object {
            Some(rules) => self.check_object(rules, value, path, depth),
            None => Ok(()),
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn too_deep(path: &Path<'_, V>) -> Failure<V> {
        Self::abort(ArgumentError::TooDeep { path: path.render() })
    }

    /// Every keyword after `type`, in the contract's order.
    #[inline(never)]
    fn check_keywords(self, node: &Node, value: V, kind: Kind, path: &Path<'_, V>, depth: usize) -> Check<V> {
        if node.never {
            return self.report(|| ArgumentError::FalseSchema { path: path.render() });
        }
        self.check_choices(node, value, path)?;

        self.check_step(node, value, kind, path, depth)?;

        if !node.any_of.is_empty() {
            self.check_any_of(node, value, path, depth)?;
        }
        if !node.one_of.is_empty() {
            self.check_one_of(node, value, path, depth)?;
        }
        if let Some(negated) = node.not {
            self.check_not(negated, value, path, depth)?;
        }
        if !node.all_of.is_empty() || node.reference.is_some() {
            self.check_in_place(node, value, path, depth)?;
        }
        Ok(())
    }
}
