//! Compiled schema + arguments -> accepted, or the first failure. Walks the
//! argument value in place (through `Value`) in the contract's check order.
//! Paths and error details are built only when a check fails, and
//! composition branches are asked "does it match?" without building errors.

use std::cell::RefCell;
use std::cmp::Ordering;

pub use crate::budget::{Budget, OverBudget};
use crate::error::{ArgumentError, PathBytes};
use crate::schema::{Additional, CompiledSchema, Count, Node, ObjectRules, TypeSet};
use crate::value::{equals, Datum, ListLength, Number, Shape, Value};

/// Deepest argument value the validator descends to (the root arguments map
/// is level 0). Tool calls nest a handful of levels; the bound keeps the
/// walk's recursion far inside a dirty scheduler's stack.
pub const MAX_ARGUMENT_DEPTH: usize = 64;

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

/// Builds the error of a violated count bound from its path and limit.
type Bound<V> = fn(PathBytes, Datum) -> ArgumentError<V>;

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
    match validate_within(schema, arguments, &Budget::unlimited()) {
        Outcome::Valid => Ok(()),
        Outcome::Invalid(error) => Err(error),
        // An unlimited budget cannot run out; refuse rather than accept.
        Outcome::OverBudget => Err(ArgumentError::NoAnyOfMatch {
            path: b"$arguments".to_vec(),
        }),
    }
}

/// [`validate`] within a work budget.
pub fn validate_within<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<ArgumentError<V>> {
    let root = root_path();
    let walk = Walk {
        mode: Mode::First,
        budget,
    };
    match walk.check(&schema.root, arguments, &root, 0) {
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
    match validate_all_within(schema, arguments, &Budget::unlimited()) {
        Outcome::Valid => Ok(()),
        Outcome::Invalid(errors) => Err(errors),
        Outcome::OverBudget => Err(vec![ArgumentError::NoAnyOfMatch {
            path: b"$arguments".to_vec(),
        }]),
    }
}

/// [`validate_all`] within a work budget.
pub fn validate_all_within<'a, V: Value<'a>>(
    schema: &CompiledSchema,
    arguments: V,
    budget: &Budget,
) -> Outcome<Vec<ArgumentError<V>>> {
    let root = root_path();
    let collector = RefCell::new(Vec::new());
    let walk = Walk {
        mode: Mode::Collect(&collector),
        budget,
    };
    let outcome = walk.check(&schema.root, arguments, &root, 0);
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

/// What a walk does with a `:validation` failure.
enum Mode<'c, V> {
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
}

/// The type of a value, as a `TypeSet` bit.
fn type_of(shape: &Shape<'_>) -> TypeSet {
    match shape {
        Shape::Map => TypeSet::OBJECT,
        Shape::List => TypeSet::ARRAY,
        Shape::Binary(_) => TypeSet::STRING,
        Shape::Number(Number::Float(_)) => TypeSet::NUMBER,
        Shape::Number(_) => TypeSet::INTEGER.union(TypeSet::NUMBER),
        Shape::Bool(_) => TypeSet::BOOLEAN,
        Shape::Nil => TypeSet::NULL,
        Shape::Atom | Shape::Other => TypeSet::EMPTY,
    }
}

fn number_datum(n: &Number) -> Datum {
    Datum::Number(n.clone())
}

impl<'c, 'a, V: Value<'a>> Walk<'c, V> {
    /// A `:validation` failure: ends a first-error walk with the error, ends
    /// a probe with a bare mismatch, and is recorded by an all-errors walk,
    /// which goes on until its cap.
    fn report(self, error: impl FnOnce() -> ArgumentError<V>) -> Check<V> {
        match self.mode {
            Mode::First => Err(Failure::Error(Box::new(error()))),
            Mode::Probe => Err(Failure::Mismatch),
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

    fn check(self, node: &Node, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        if depth > MAX_ARGUMENT_DEPTH {
            return Err(Self::abort(ArgumentError::TooDeep { path: path.render() }));
        }
        self.budget.charge(1)?;
        let shape = value.shape();

        if let Some(types) = &node.types {
            if !types.set.intersects(type_of(&shape)) {
                self.report(|| ArgumentError::WrongType {
                    path: path.render(),
                    expected: types.written.clone(),
                })?;
                // The value's other keywords assume the type: nothing more to check here.
                return Ok(());
            }
        }
        if let Some(choices) = &node.choices {
            self.budget.charge(choices.len() as u64)?;
            if !choices.iter().any(|choice| equals(value, choice)) {
                self.report(|| ArgumentError::NotInEnum { path: path.render() })?;
            }
        }
        if let Some(constant) = &node.constant {
            if !equals(value, constant) {
                self.report(|| ArgumentError::NotConst { path: path.render() })?;
            }
        }

        match shape {
            Shape::Number(n) if node.checks_numbers => self.check_number(node, &n, path)?,
            Shape::Binary(bytes) => self.check_string(node, value, bytes, path)?,
            Shape::List if node.checks_arrays => self.check_array(node, value, path, depth)?,
            Shape::Map if node.checks_objects => {
                if value.is_struct() {
                    return Err(Self::abort(ArgumentError::Struct { path: path.render() }));
                }
                if let Some(rules) = &node.object {
                    self.check_object(rules, value, path, depth)?;
                }
            }
            _ => {}
        }

        if !node.any_of.is_empty() {
            let mut matched = false;
            for branch in &node.any_of {
                if self.probe_branch(branch, value, path, depth)? {
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
                if self.probe_branch(branch, value, path, depth)? {
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
        if let Some(negated) = &node.not {
            if self.probe_branch(negated, value, path, depth)? {
                self.report(|| ArgumentError::MatchesNot { path: path.render() })?;
            }
        }
        Ok(())
    }

    /// Whether a branch accepts the value. Aborting errors propagate as they
    /// are; only a `:validation` failure is a mismatch.
    fn probe_branch(
        self,
        branch: &Node,
        value: V,
        path: &Path<'_, V>,
        depth: usize,
    ) -> Result<bool, Failure<V>> {
        let probe = Walk {
            mode: Mode::Probe,
            budget: self.budget,
        };
        match probe.check(branch, value, path, depth) {
            Ok(()) => Ok(true),
            Err(Failure::Mismatch) => Ok(false),
            Err(Failure::Error(error)) if !error.is_aborting() => Ok(false),
            Err(failure) => Err(failure),
        }
    }

    fn check_number(self, node: &Node, n: &Number, path: &Path<'_, V>) -> Check<V> {
        if let Some(minimum) = &node.minimum {
            if n.compare(minimum) == Ordering::Less {
                self.report(|| ArgumentError::BelowMinimum {
                    path: path.render(),
                    limit: number_datum(minimum),
                })?;
            }
        }
        if let Some(maximum) = &node.maximum {
            if n.compare(maximum) == Ordering::Greater {
                self.report(|| ArgumentError::AboveMaximum {
                    path: path.render(),
                    limit: number_datum(maximum),
                })?;
            }
        }
        if let Some(bound) = &node.exclusive_minimum {
            if n.compare(bound) != Ordering::Greater {
                self.report(|| ArgumentError::NotAboveExclusiveMinimum {
                    path: path.render(),
                    limit: number_datum(bound),
                })?;
            }
        }
        if let Some(bound) = &node.exclusive_maximum {
            if n.compare(bound) != Ordering::Less {
                self.report(|| ArgumentError::NotBelowExclusiveMaximum {
                    path: path.render(),
                    limit: number_datum(bound),
                })?;
            }
        }
        Ok(())
    }

    /// Every binary is checked for UTF-8, whatever the schema: the old module
    /// counted the code points of every binary it met.
    fn check_string(self, node: &Node, value: V, bytes: &[u8], path: &Path<'_, V>) -> Check<V> {
        // One pass for UTF-8, one to count code points, one for the pattern.
        let passes = 1 + u64::from(node.checks_lengths) + u64::from(node.pattern.is_some());
        self.budget.charge(passes * (bytes.len() as u64 / 16))?;
        let Some(text) = value.text() else {
            return Err(Self::abort(ArgumentError::InvalidUtf8 { path: path.render() }));
        };
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
        Ok(())
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
        if let Some(items) = &node.items {
            for (index, item) in value.list_items().enumerate() {
                let item_path = path.child(Segment::Index(index));
                self.check(items, item, &item_path, depth + 1)?;
            }
        }
        Ok(())
    }

    /// One pass over the argument map fills a slot per distinct name; then
    /// `required` (list order), `properties` (schema order) and the
    /// additional keys (argument order) are checked.
    fn check_object(self, rules: &ObjectRules, value: V, path: &Path<'_, V>, depth: usize) -> Check<V> {
        self.budget.charge(value.map_len() as u64)?;
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

        let mut first_extra: Option<V> = None;
        for (key, item) in value.map_entries() {
            if !Self::note_key(rules, key, item, by_name, by_atom) && first_extra.is_none() {
                first_extra = Some(key);
            }
        }

        for required in &rules.required {
            if by_name.get(required.slot).copied().flatten().is_none() {
                self.report(|| ArgumentError::MissingRequired {
                    path: path.render(),
                    property: required.name.clone(),
                })?;
            }
        }

        for (index, property) in rules.properties.iter().enumerate() {
            let by_own_atom = match property.atom {
                Some(_) => by_atom.get(index).copied().flatten(),
                None => None,
            };
            let found = by_own_atom.or_else(|| by_name.get(property.slot).copied().flatten());
            if let Some(item) = found {
                let item_path = path.child(Segment::Property(&property.name));
                self.check(&property.schema, item, &item_path, depth + 1)?;
            }
        }

        let Some(first_extra) = first_extra else {
            return Ok(());
        };
        match &rules.additional {
            Additional::Allow => Ok(()),
            Additional::Deny => {
                self.report(|| ArgumentError::AdditionalNotAllowed {
                    path: path.render(),
                    key: first_extra,
                })?;
                // Only an all-errors walk gets here: it lists the other
                // additional keys too, in argument order.
                let extras = value
                    .map_entries()
                    .filter(|(key, _)| !Self::is_named(rules, *key));
                for (key, _) in extras.skip(1) {
                    self.report(|| ArgumentError::AdditionalNotAllowed {
                        path: path.render(),
                        key,
                    })?;
                }
                Ok(())
            }
            Additional::Schema(schema) => {
                for (key, item) in value.map_entries() {
                    if Self::is_named(rules, key) {
                        continue;
                    }
                    match key.shape() {
                        Shape::Binary(_)
                        | Shape::Atom
                        | Shape::Nil
                        | Shape::Bool(_)
                        | Shape::Number(Number::Int(_) | Number::Big(_)) => {}
                        _ => return Err(Self::abort(ArgumentError::KeyNotString { path: path.render() })),
                    }
                    let item_path = path.child(Segment::Key(key));
                    self.check(schema, item, &item_path, depth + 1)?;
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
                Some((slot, is_property)) => {
                    if let Some(cell) = by_name.get_mut(slot) {
                        *cell = Some(item);
                    }
                    is_property
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
            Shape::Binary(name) => rules.find(name).is_some_and(|(_, is_property)| is_property),
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
            .and_then(|name| rules.find(name.as_bytes()))
            .is_some_and(|(_, is_property)| is_property)
    }
}
