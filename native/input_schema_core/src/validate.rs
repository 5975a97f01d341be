//! Compiled schema + arguments -> accepted, or the first failure. Walks the
//! argument value in place (through `Value`) in the contract's check order.
//! Paths and error details are built only when a check fails, and
//! composition branches are asked "does it match?" without building errors.

pub(crate) mod unique;

use std::cell::RefCell;
use std::cmp::Ordering;

pub use crate::budget::{Budget, OverBudget};
use crate::error::{ArgumentError, PathBytes};
use crate::schema::{Additional, CompiledSchema, Count, Node, NodeId, ObjectRules, OnePass, TypeSet};
use crate::value::{equals, Datum, Kind, ListLength, Number, Shape, Text, Value};

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
enum Segment<'p, V> {
    Root,
    Property(&'p [u8]),
    Index(usize),
    /// A key of the argument map (binary, atom or integer).
    Key(V),
}

#[derive(Clone, Copy)]
struct Path<'p, V> {
    parent: Option<&'p Path<'p, V>>,
    segment: Segment<'p, V>,
}

impl<'p, 'a, V: Value<'a>> Path<'p, V> {
    fn child(&'p self, segment: Segment<'p, V>) -> Path<'p, V> {
        Path {
            parent: Some(self),
            segment,
        }
    }

    /// `$arguments.items[2].name`.
    fn render(&self) -> Vec<u8> {
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
enum Failure<V> {
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

type Check<V> = Result<(), Failure<V>>;

/// Builds the error of a violated bound from its path and limit.
type Bound<V> = fn(PathBytes, Datum) -> ArgumentError<V>;

/// A numeric bound, the comparisons of a value with it that violate it,
/// and its error.
type NumberBound<'n, V> = (&'n Option<Number>, fn(Ordering) -> bool, Bound<V>);

/// Most failures an all-errors walk collects: enough for an agent to repair
/// a call in one round trip, bounded so a huge argument cannot make the
/// report (and the BEAM term built from it) huge.
pub const MAX_ERRORS: usize = 64;

fn root_path<'p, 'a, V: Value<'a>>() -> Path<'p, V> {
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
/// failure ends the walk and is the last one listed.
pub fn validate_all<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
) -> Result<(), Vec<ArgumentError<V>>> {
    match validate_all_within(schema, arguments, &walk_budget(schema)) {
        Outcome::Valid => Ok(()),
        Outcome::Invalid(errors) => Err(errors),
        Outcome::OverBudget => Err(vec![work_limit()]),
    }
}

/// [`validate_all`] within a work budget.
pub fn validate_all_within<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<Vec<ArgumentError<V>>> {
    let root = root_path();
    if let Some(outcome) = optimistic(schema, arguments, budget) {
        return outcome;
    }
    let collector = RefCell::new(Vec::new());
    let walk = Walk::new(Mode::Collect(&collector), budget, schema);
    let outcome = walk.check_root(schema, arguments, &root);
    let mut errors = collector.into_inner();
    match outcome {
        Ok(()) | Err(Failure::Full) => {}
        Err(Failure::OverBudget) => return Outcome::OverBudget,
        Err(Failure::Error(error)) => errors.push(*error),
        Err(Failure::Mismatch) => errors.push(ArgumentError::NoAnyOfMatch { path: root.render() }),
    }
    if errors.is_empty() {
        Outcome::Valid
    } else {
        Outcome::Invalid(errors)
    }
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
enum Mode<'c, V> {
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
struct Walk<'c, V> {
    mode: Mode<'c, V>,
    budget: &'c Budget,
    /// The schema's arena.
    nodes: &'c [Box<Node>],
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
fn levels(depth: usize) -> usize {
    depth & (HOP - 1)
}

/// The JSON types a value has, as `TypeSet` bits.
fn type_of(kind: Kind) -> TypeSet {
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

fn number_datum(n: &Number) -> Datum {
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
    fn with_mode(self, mode: Mode<'c, V>) -> Walk<'c, V> {
        Walk { mode, ..self }
    }

    #[inline(always)]
    fn check_root(self, schema: &CompiledSchema, value: V, path: &Path<'_, V>) -> Check<V> {
        self.check_id(schema.root(), value, path, 0)
    }

    /// A node of the arena; one that is not there (never, by construction)
    /// refuses the value.
    #[inline(always)]
    fn node(self, id: NodeId, path: &Path<'_, V>) -> Result<&'c Node, Failure<V>> {
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
    fn check_id(self, id: NodeId, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
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
    fn check_frame(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
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
    fn hop(path: &Path<'_, V>, depth: usize) -> Result<usize, Failure<V>> {
        if levels(depth) + depth / HOP >= MAX_WALK_FRAMES {
            return Err(Self::too_deep(path));
        }
        Ok(depth + HOP)
    }

    /// A `:validation` failure: ends a first-error walk with the error, ends
    /// a probe with a bare mismatch, and is recorded by an all-errors walk,
    /// which goes on until its cap.
    fn report(self, error: impl FnOnce() -> ArgumentError<V>) -> Check<V> {
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
    fn abort(error: ArgumentError<V>) -> Failure<V> {
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
    fn too_deep(path: &Path<'_, V>) -> Failure<V> {
        Self::abort(ArgumentError::TooDeep { path: path.render() })
    }

    #[cold]
    #[inline(never)]
    fn wrong_type(self, expected: &Datum, path: &Path<'_, V>) -> Check<V> {
        self.report(|| ArgumentError::WrongType {
            path: path.render(),
            expected: expected.clone(),
        })
    }

    /// Every keyword after `type`, in the contract's order.
    #[inline(never)]
    fn check_keywords(self, node: &Node, value: V, kind: Kind, path: &Path<'_, V>, depth: usize) -> Check<V> {
        if node.never {
            return self.report(|| ArgumentError::FalseSchema { path: path.render() });
        }
        if let Some(choices) = &node.choices {
            self.budget.charge(choices.all.len() as u64)?;
            if !choices.contain(value) {
                self.report(|| ArgumentError::NotInEnum { path: path.render() })?;
            }
        }
        if let Some(constant) = &node.constant {
            if !equals(value, constant) {
                self.report(|| ArgumentError::NotConst { path: path.render() })?;
            }
        }

        self.check_step(node, value, kind, path, depth)?;

        if !node.any_of.is_empty() {
            let mut matched = false;
            for branch in &node.any_of {
                if self.probe_branch(*branch, value, path, depth)? {
                    matched = true;
                    break;
                }
            }
            if !matched {
                self.report(|| ArgumentError::NoAnyOfMatch { path: path.render() })?;
            }
        }
        if !node.one_of.is_empty() {
            let mut matches = 0;
            for branch in &node.one_of {
                if self.probe_branch(*branch, value, path, depth)? {
                    matches += 1;
                    if matches > 1 {
                        break;
                    }
                }
            }
            if matches != 1 {
                self.report(|| ArgumentError::NotExactlyOneOf { path: path.render() })?;
            }
        }
        if let Some(negated) = node.not {
            if self.probe_branch(negated, value, path, depth)? {
                self.report(|| ArgumentError::MatchesNot { path: path.render() })?;
            }
        }
        if !node.all_of.is_empty() || node.reference.is_some() {
            self.check_in_place(node, value, path, depth)?;
        }
        Ok(())
    }

    /// `allOf` entries, then the `$ref` target: they apply in place, so
    /// their own failures are the value's.
    #[inline(never)]
    fn check_in_place(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        let depth = Self::hop(path, depth)?;
        for entry in node.all_of.iter().chain(&node.reference) {
            self.check_id(*entry, value, path, depth)?;
        }
        Ok(())
    }

    /// Whether a branch accepts the value. Aborting errors propagate as they
    /// are; only a `:validation` failure is a mismatch.
    fn probe_branch(
        self,
        branch: NodeId,
        value: V,
        path: &Path<'_, V>,
        depth: usize,
    ) -> Result<bool, Failure<V>> {
        let branch = self.node(branch, path)?;
        let depth = Self::hop(path, depth)?;
        // A branch whose `type` excludes the value fails at its first check,
        // in any walk (the depth was checked with the composition's value).
        if let Some(types) = &branch.types {
            if !types.set.intersects(type_of(value.kind())) {
                return Ok(false);
            }
        }
        if let Mode::Optimistic = self.mode {
            let attempt = self.with_mode(Mode::OptimisticBranch);
            // A success is final; a failure may be a mismatch or an aborting
            // error, which only the ordered probe below tells apart.
            match attempt.check_frame(branch, value, path, depth) {
                Ok(()) => return Ok(true),
                Err(Failure::OverBudget) => return Err(Failure::OverBudget),
                Err(Failure::Mismatch | Failure::Error(_) | Failure::Full) => {}
            }
        }
        let probe = self.with_mode(Mode::Probe);
        match probe.check_frame(branch, value, path, depth) {
            Ok(()) => Ok(true),
            Err(Failure::Mismatch) => Ok(false),
            Err(Failure::Error(error)) if !error.is_aborting() => Ok(false),
            Err(failure) => Err(failure),
        }
    }

    #[inline(never)]
    fn check_number(self, node: &Node, value: V, path: &Path<'_, V>) -> Check<V> {
        let Some(n) = value.number() else {
            // `kind` said number and `shape` agrees by contract; should they
            // not, refuse.
            return Err(Self::abort(ArgumentError::NoAnyOfMatch { path: path.render() }));
        };
        // Each bound with the comparisons that violate it, in the contract's order.
        let bounds: [NumberBound<'_, V>; 4] = [
            (&node.minimum, Ordering::is_lt, |path, limit| {
                ArgumentError::BelowMinimum { path, limit }
            }),
            (&node.maximum, Ordering::is_gt, |path, limit| {
                ArgumentError::AboveMaximum { path, limit }
            }),
            (&node.exclusive_minimum, Ordering::is_le, |path, limit| {
                ArgumentError::NotAboveExclusiveMinimum { path, limit }
            }),
            (&node.exclusive_maximum, Ordering::is_ge, |path, limit| {
                ArgumentError::NotBelowExclusiveMaximum { path, limit }
            }),
        ];
        for (bound, violated, error) in bounds {
            if let Some(bound) = bound {
                if violated(n.compare(bound)) {
                    self.report(|| error(path.render(), number_datum(bound)))?;
                }
            }
        }
        Ok(())
    }

    /// Every binary is checked for UTF-8, whatever the schema: the old module
    /// counted the code points of every binary it met.
    #[inline(never)]
    fn check_string(self, node: &Node, value: V, path: &Path<'_, V>) -> Check<V> {
        // One pass for UTF-8, one to count code points, one for the pattern
        // (an asserted format is charged what its check costs, below).
        let passes = 1 + u64::from(node.checks_lengths) + u64::from(node.pattern.is_some());
        let text = self.check_text(value, passes, path)?;
        if node.checks_lengths {
            let length = text.chars().count() as u64;
            let bounds = (&node.min_length, &node.max_length);
            let errors = (
                (|path, limit| ArgumentError::TooShort { path, limit }) as Bound<V>,
                (|path, limit| ArgumentError::TooLong { path, limit }) as Bound<V>,
            );
            self.check_count(length, bounds, errors, path)?;
        }
        if let Some(pattern) = &node.pattern {
            match pattern.search(text) {
                Ok(true) => {}
                Ok(false) => {
                    self.report(|| ArgumentError::PatternMismatch { path: path.render() })?;
                }
                Err(_) => return Err(Self::abort(ArgumentError::PatternLimit { path: path.render() })),
            }
        }
        if let Some(format) = node.format {
            self.budget.charge(format.units(text))?;
            if !format.check(text) {
                self.report(|| ArgumentError::FormatMismatch {
                    path: path.render(),
                    format: format.name(),
                })?;
            }
        }
        Ok(())
    }

    /// The text of a binary, charged `passes` scans of its bytes; an
    /// aborting failure when it is not UTF-8.
    #[inline]
    fn check_text(self, value: V, passes: u64, path: &Path<'_, V>) -> Result<&'a str, Failure<V>> {
        // The bytes are read once: finding them can be a call into the runtime.
        let bytes = value.bytes();
        let size = bytes.map_or(0, <[u8]>::len);
        self.budget.charge(passes * (size as u64 / 16))?;
        bytes
            .and_then(|bytes| value.text_of(bytes))
            .ok_or_else(|| Self::abort(ArgumentError::InvalidUtf8 { path: path.render() }))
    }

    /// A count against its inclusive bounds (`minLength`/`maxLength`,
    /// `minItems`/`maxItems`), the lower bound first.
    fn check_count(
        self,
        count: u64,
        (min, max): (&Option<Count>, &Option<Count>),
        (too_few, too_many): (Bound<V>, Bound<V>),
        path: &Path<'_, V>,
    ) -> Check<V> {
        if let Some(min) = min {
            if count < min.value {
                self.report(|| too_few(path.render(), number_datum(&min.written)))?;
            }
        }
        if let Some(max) = max {
            if count > max.value {
                self.report(|| too_many(path.render(), number_datum(&max.written)))?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn check_array(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        // Counting cells is itself work: stop counting when the budget ends.
        let length = match value.list_len_within(self.budget.left()) {
            ListLength::Proper(length) => length,
            ListLength::Improper => {
                return Err(Self::abort(ArgumentError::ImproperList { path: path.render() }));
            }
            ListLength::Longer => return Err(Failure::OverBudget),
        };
        self.budget.charge(length as u64 / 8)?;
        let bounds = (&node.min_items, &node.max_items);
        let errors = (
            (|path, limit| ArgumentError::TooFewItems { path, limit }) as Bound<V>,
            (|path, limit| ArgumentError::TooManyItems { path, limit }) as Bound<V>,
        );
        self.check_count(length as u64, bounds, errors, path)?;
        if node.unique_items {
            self.check_unique(value, length, path, depth)?;
        }
        let prefix = &node.prefix_items;
        if prefix.is_empty() && node.items.is_none() {
            return Ok(());
        }
        for (index, item) in value.list_items().enumerate() {
            let schema = match prefix.get(index) {
                Some(schema) => *schema,
                None => match node.items {
                    Some(schema) => schema,
                    None => break,
                },
            };
            let item_path = path.child(Segment::Index(index));
            self.check_id(schema, item, &item_path, depth + 1)?;
        }
        Ok(())
    }

    /// `uniqueItems: true`: the elements' keys (see `unique`), sorted, hold
    /// no two equal. Elements that have no key (terms that are not JSON)
    /// cannot be compared: the list is refused as if they were equal.
    #[inline(never)]
    fn check_unique(self, value: V, length: usize, path: &Path<'_, V>, depth: usize) -> Check<V> {
        let depth_left = MAX_ARGUMENT_DEPTH.saturating_sub(levels(depth));
        let mut keys = Vec::with_capacity(length);
        let mut comparable = true;
        for (index, item) in value.list_items().enumerate() {
            let mut key = Vec::new();
            // Written only as far as the budget left could pay for: past
            // that, the charge below would refuse it anyway.
            let mut room = unique::Room::within(self.budget, 0);
            match unique::write_key(item, depth_left, &mut key, &mut room) {
                Ok(()) => {}
                Err(unique::NoKey::TooLong) => {
                    // More than the budget has left: it is spent, as the
                    // charge for the whole key would have spent it.
                    let _ = self.budget.charge(u64::MAX);
                    return Err(Failure::OverBudget);
                }
                Err(unique::NoKey::TooDeep) => {
                    return Err(Self::too_deep(&path.child(Segment::Index(index))))
                }
                Err(unique::NoKey::NotJson) => {
                    comparable = false;
                    break;
                }
            }
            self.budget.charge(1 + key.len() as u64 / 16)?;
            keys.push(key);
        }
        // Sorting compares keys about log2(n) times each.
        self.budget.charge(
            (keys.len() as u64).saturating_mul(u64::from(usize::BITS - keys.len().leading_zeros())),
        )?;
        keys.sort_unstable();
        if !comparable || keys.windows(2).any(|pair| pair.first() == pair.get(1)) {
            self.report(|| ArgumentError::DuplicateItems { path: path.render() })?;
        }
        Ok(())
    }

    /// `required` (list order), then `properties` (schema order), then the
    /// additional keys (argument order).
    fn check_object(self, rules: &ObjectRules, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        self.budget.charge(value.map_len() as u64)?;
        match (&self.mode, &rules.one_pass) {
            (Mode::Optimistic | Mode::OptimisticBranch, Some(one_pass)) => {
                self.check_object_once(rules, one_pass, value, path, depth)
            }
            _ => self.check_object_walked(rules, value, path, depth),
        }
    }

    /// Every key in argument order, each checked as it comes; `required`
    /// last, as a set. Any failure is a bare mismatch, and so is a key that
    /// is not a binary (the ordered walk reads those).
    fn check_object_once(
        self,
        rules: &ObjectRules,
        one_pass: &OnePass,
        value: V,
        path: &Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let mut seen = 0u64;
        for (key, item) in value.map_entries() {
            let name = key.bytes().ok_or(Failure::Mismatch)?;
            if let Some(entry) = rules.find(name) {
                seen |= entry.bit;
                if let Some(property) = entry.property.and_then(|index| rules.properties.get(index)) {
                    let item_path = path.child(Segment::Property(&property.name));
                    self.check_id(property.schema, item, &item_path, depth + 1)?;
                    continue;
                }
            }
            match &rules.additional {
                Additional::Allow => {}
                Additional::Deny => return Err(Failure::Mismatch),
                Additional::Schema(schema) => {
                    let item_path = path.child(Segment::Key(key));
                    self.check_id(*schema, item, &item_path, depth + 1)?;
                }
            }
        }
        if seen & one_pass.required != one_pass.required {
            return Err(Failure::Mismatch);
        }
        Ok(())
    }

    /// For maps read by a walk: one pass over the entries fills a slot per
    /// distinct name, then the slots are read.
    fn check_object_walked(
        self,
        rules: &ObjectRules,
        value: V,
        path: &Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        const INLINE: usize = 16;
        let slot_count = rules.slot_count();
        let needed = slot_count + rules.properties.len();
        let mut inline: [Option<V>; INLINE] = [None; INLINE];
        let mut heap: Vec<Option<V>>;
        let buffer: &mut [Option<V>] = if needed <= INLINE {
            inline.get_mut(..needed).unwrap_or_default()
        } else {
            heap = vec![None; needed];
            &mut heap
        };
        let (by_name, by_atom) = buffer.split_at_mut(slot_count);

        let mut has_extra = false;
        for (key, item) in value.map_entries() {
            has_extra |= !Self::note_key(rules, key, item, by_name, by_atom);
        }

        for required in &rules.required {
            if by_name.get(required.slot).copied().flatten().is_none() {
                self.report(|| ArgumentError::MissingRequired {
                    path: path.render(),
                    property: required.name.clone(),
                })?;
            }
        }
        if !rules.dependent.is_empty() {
            self.check_dependent(rules, by_name, path)?;
        }

        for (index, property) in rules.properties.iter().enumerate() {
            let by_own_atom = match property.atom {
                Some(_) => by_atom.get(index).copied().flatten(),
                None => None,
            };
            let found = by_own_atom.or_else(|| by_name.get(property.slot).copied().flatten());
            if let Some(item) = found {
                let item_path = path.child(Segment::Property(&property.name));
                self.check_id(property.schema, item, &item_path, depth + 1)?;
            }
        }

        if has_extra {
            self.check_additional(rules, value, path, depth)?;
        }
        if let Some(names) = rules.property_names {
            self.check_property_names(names, value, path, depth)?;
        }
        Ok(())
    }

    /// `dependentRequired`: for each name present (as a binary key), the
    /// names it requires, in list order.
    #[inline(never)]
    fn check_dependent(self, rules: &ObjectRules, by_name: &[Option<V>], path: &Path<'_, V>) -> Check<V> {
        for dependent in &rules.dependent {
            if by_name.get(dependent.slot).copied().flatten().is_none() {
                continue;
            }
            for required in &dependent.required {
                if by_name.get(required.slot).copied().flatten().is_none() {
                    self.report(|| ArgumentError::MissingRequired {
                        path: path.render(),
                        property: required.name.clone(),
                    })?;
                }
            }
        }
        Ok(())
    }

    /// `propertyNames`: each key of the map (in its order), as a string,
    /// against the schema. A key that fails is reported as written; an
    /// aborting failure inside (a pattern's work limit) ends the walk at
    /// the map's path.
    #[inline(never)]
    fn check_property_names(self, names: NodeId, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        let schema = self.node(names, path)?;
        for (key, _) in value.map_entries() {
            let owned;
            let name: &[u8] = match key.shape() {
                Shape::Binary(bytes) => bytes,
                Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                    owned = key.atom_name().unwrap_or_default();
                    owned.as_bytes()
                }
                Shape::Number(Number::Int(n)) => {
                    owned = n.to_string();
                    owned.as_bytes()
                }
                Shape::Number(Number::Big(n)) => {
                    owned = n.to_string();
                    owned.as_bytes()
                }
                _ => return Err(Self::abort(ArgumentError::KeyNotString { path: path.render() })),
            };
            let probe: Walk<'_, Text<'_>> = Walk {
                mode: Mode::Probe,
                budget: self.budget,
                nodes: self.nodes,
            };
            let key_path = root_path();
            match probe.check_frame(schema, Text(name), &key_path, depth + 1) {
                Ok(()) => {}
                Err(Failure::OverBudget) => return Err(Failure::OverBudget),
                Err(Failure::Error(error)) if error.is_aborting() => {
                    return Err(Self::abort(error.at(path.render())));
                }
                Err(_) => self.report(|| ArgumentError::PropertyNameNotAllowed {
                    path: path.render(),
                    key,
                })?,
            }
        }
        Ok(())
    }

    /// The keys no property names, in argument order, against
    /// `additionalProperties`.
    fn check_additional(self, rules: &ObjectRules, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        let extras = value
            .map_entries()
            .filter(|(key, _)| !Self::is_named(rules, *key));
        match &rules.additional {
            Additional::Allow => Ok(()),
            Additional::Deny => {
                // A first-error walk stops at the first; an all-errors walk
                // lists them all.
                for (key, _) in extras {
                    self.report(|| ArgumentError::AdditionalNotAllowed {
                        path: path.render(),
                        key,
                    })?;
                }
                Ok(())
            }
            Additional::Schema(schema) => {
                for (key, item) in extras {
                    match key.shape() {
                        Shape::Binary(_)
                        | Shape::Atom
                        | Shape::Nil
                        | Shape::Bool(_)
                        | Shape::Number(Number::Int(_) | Number::Big(_)) => {}
                        _ => return Err(Self::abort(ArgumentError::KeyNotString { path: path.render() })),
                    }
                    let item_path = path.child(Segment::Key(key));
                    self.check_id(*schema, item, &item_path, depth + 1)?;
                }
                Ok(())
            }
        }
    }

    /// Records a key's value in its slot; returns whether the key is named
    /// by `properties` (so is not additional).
    fn note_key(
        rules: &ObjectRules,
        key: V,
        item: V,
        by_name: &mut [Option<V>],
        by_atom: &mut [Option<V>],
    ) -> bool {
        match key.shape() {
            Shape::Binary(name) => match rules.find(name) {
                Some(entry) => {
                    if let Some(cell) = by_name.get_mut(entry.slot) {
                        *cell = Some(item);
                    }
                    entry.property.is_some()
                }
                None => false,
            },
            Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                if let Some(index) = key.atom_id().and_then(|id| rules.find_atom(id)) {
                    if let Some(cell) = by_atom.get_mut(index) {
                        *cell = Some(item);
                    }
                    return true;
                }
                Self::atom_names_property(rules, key)
            }
            _ => false,
        }
    }

    fn is_named(rules: &ObjectRules, key: V) -> bool {
        match key.shape() {
            Shape::Binary(name) => rules.find(name).is_some_and(|entry| entry.property.is_some()),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                key.atom_id().and_then(|id| rules.find_atom(id)).is_some()
                    || Self::atom_names_property(rules, key)
            }
            _ => false,
        }
    }

    /// An atom key whose name is a property's string form (the slow path:
    /// the atom was not written in the schema).
    fn atom_names_property(rules: &ObjectRules, key: V) -> bool {
        key.atom_name()
            .and_then(|name| rules.find(name.as_bytes()).map(|entry| entry.property.is_some()))
            .unwrap_or(false)
    }
}
