//! `type`, `enum` and `const`. JSON Schema's types, not Erlang's: `1.0` is
//! an integer, a non-UTF-8 binary is no string, a struct is no object, and
//! equality is mathematical for numbers (`1 == 1.0`).
//!
//! The gateway's `type`, `enum` and `const` ([`gateway_type`],
//! [`gateway_choices`], `gateway::Walk::check_choices`) are here too, with
//! its own semantics (the contract's): Erlang's `==` for `enum` and `const`,
//! and type names written as atoms or strings.

use std::cmp::Ordering;

use serde_json::Value as Json;

use super::type_bits::{ARRAY, BOOLEAN, INTEGER, NULL, NUMBER, OBJECT, STRING};
use super::{entry, Compiled, Keyword};
use crate::error::{ArgumentError, SchemaError};
use crate::json::JsonRef;
use crate::schema::{
    self as gateway, Compiled as GatewayCompiled, NameKey, Node as GatewayNode, Slots, Step as GatewayStep,
};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::walk::{At as Checked, Path, Step, Walk};
use crate::standard::{CompileError, Limit};
use crate::validate::{self as gateway_walk, Check};
use crate::value::{equals, Datum, DatumError, Kind, ListLength, Number, Shape, Value};

/// Deepest `enum`/`const` value read from a schema.
const MAX_DATUM_DEPTH: usize = 128;

/// The JSON types a schema's `type` can name, as bits of a set: one
/// table for both profiles (the standard reads the bits, `type_bits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeSet(u8);

impl TypeSet {
    pub const OBJECT: TypeSet = TypeSet(1);
    pub const ARRAY: TypeSet = TypeSet(2);
    pub const STRING: TypeSet = TypeSet(4);
    pub const INTEGER: TypeSet = TypeSet(8);
    pub const NUMBER: TypeSet = TypeSet(16);
    pub const BOOLEAN: TypeSet = TypeSet(32);
    pub const NULL: TypeSet = TypeSet(64);
    pub const EMPTY: TypeSet = TypeSet(0);

    pub fn from_name(name: &[u8]) -> Option<TypeSet> {
        Some(match name {
            b"object" => TypeSet::OBJECT,
            b"array" => TypeSet::ARRAY,
            b"string" => TypeSet::STRING,
            b"integer" => TypeSet::INTEGER,
            b"number" => TypeSet::NUMBER,
            b"boolean" => TypeSet::BOOLEAN,
            b"null" => TypeSet::NULL,
            _ => return None,
        })
    }

    /// The set's bits.
    pub const fn bits(self) -> u8 {
        self.0
    }

    pub fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    pub fn intersects(self, other: TypeSet) -> bool {
        self.0 & other.0 != 0
    }
}

fn type_bit(name: &str) -> Option<u8> {
    TypeSet::from_name(name.as_bytes()).map(TypeSet::bits)
}

/// Draft 4: an integer is a number written without a fraction or exponent,
/// so a float is never one (`1.0` is not an integer); from draft 6 on, a
/// number with a zero fraction is.
pub(crate) const FLOATS_ARE_NEVER_INTEGERS: u8 = 128;

pub(crate) fn compile_type(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    let malformed = || at.invalid("type", "a type name or a list of type names");
    let (bits, written) = match value {
        Json::String(name) => {
            let bit = type_bit(name).ok_or_else(malformed)?;
            (bit, Written::ONE.then(bit))
        }
        Json::Array(names) => {
            let mut bits = 0;
            let mut written = Written::LIST;
            for name in names {
                let bit = name.as_str().and_then(type_bit).ok_or_else(malformed)?;
                bits |= bit;
                written = written.then(bit);
            }
            (bits, written)
        }
        _ => return Err(malformed()),
    };
    let strict = if at.scope.dialect == Dialect::Draft4 {
        FLOATS_ARE_NEVER_INTEGERS
    } else {
        0
    };
    entry("type", Keyword::Type(bits | strict, written))
}

/// The names a `type` keyword was written with, in their order, and
/// whether as a list: what a caller that reports the expected types as
/// data gets back (`Validator::constraint`). Seven three-bit codes (a
/// type's bit position plus one; the metaschemas require the names to be
/// unique, so seven is every name) and the list flag, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Written(u32);

impl Written {
    const ONE: Written = Written(0);
    const LIST: Written = Written(1 << 31);
    const CODES: u32 = 7;

    /// This order with the type of `bit` after the names so far (past
    /// seven names, unchanged).
    fn then(self, bit: u8) -> Written {
        let code = bit.trailing_zeros() + 1;
        match (0..Self::CODES).find(|i| (self.0 >> (3 * i)) & 7 == 0) {
            Some(i) => Written(self.0 | (code << (3 * i))),
            None => self,
        }
    }

    /// The names, in the order written, and whether they were a list.
    pub fn names(self) -> (Vec<&'static str>, bool) {
        let names = (0..Self::CODES)
            .map(|i| (self.0 >> (3 * i)) & 7)
            .take_while(|&code| code != 0)
            .filter_map(|code| type_name(1 << (code - 1)))
            .collect();
        (names, self.0 & Self::LIST.0 != 0)
    }
}

/// The name of the type of one bit.
fn type_name(bit: u8) -> Option<&'static str> {
    TYPE_NAMES.iter().find(|(b, _)| *b == bit).map(|(_, name)| *name)
}

/// Every type's bit and name, in the order messages list them.
const TYPE_NAMES: [(u8, &str); 7] = [
    (NULL, "null"),
    (BOOLEAN, "boolean"),
    (INTEGER, "integer"),
    (NUMBER, "number"),
    (STRING, "string"),
    (ARRAY, "array"),
    (OBJECT, "object"),
];

/// Units per value of a `const` or `enum` choice copied (each value is an
/// allocation or two: 110 ns a value for a few hundred, 220 ns for
/// 600,000, with their cache misses), beside a unit per 16 bytes of each
/// string and property name.
const DATUM_VALUE_UNITS: u64 = 3;

/// `value` copied for comparisons, charged before it is copied:
/// [`DATUM_VALUE_UNITS`] per value in it and a unit per 16 bytes of each
/// string and name, so that a large `const` or `enum` is work in
/// proportion to its size.
pub(crate) fn datum(
    c: &Compiler<'_>,
    at: &At<'_, '_>,
    key: &str,
    value: &Json,
) -> Result<Datum, CompileError> {
    // Each value is charged before it is queued, so that a long list stops
    // at the budget, not after queueing all of its items.
    let charge = |value: &Json, name: &str| {
        let text = match value {
            Json::String(text) => text.len(),
            _ => 0,
        };
        let units = DATUM_VALUE_UNITS + (text / 16 + name.len() / 16) as u64;
        c.budget.charge(units).map_err(|_| CompileError::CompileBudget)
    };
    charge(value, "")?;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Json::Array(items) => {
                for item in items {
                    charge(item, "")?;
                    pending.push(item);
                }
            }
            Json::Object(map) => {
                for (name, item) in map {
                    charge(item, name)?;
                    pending.push(item);
                }
            }
            _ => {}
        }
    }
    Datum::from_json_value(JsonRef::from(value), MAX_DATUM_DEPTH).map_err(|_| at.invalid(key, "a JSON value"))
}

pub(crate) fn compile_enum<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Json::Array(choices) = value else {
        return Err(at.invalid("enum", "a list"));
    };
    let choices = choices
        .iter()
        .map(|choice| datum(c, at, "enum", choice))
        .collect::<Result<Vec<_>, _>>()?;
    c.bytes += choices.iter().map(Datum::approximate_bytes).sum::<usize>();
    entry("enum", Keyword::Enum(choices.into_boxed_slice()))
}

pub(crate) fn compile_const<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let value = datum(c, at, "const", value)?;
    c.bytes += value.approximate_bytes();
    entry("const", Keyword::Const(value))
}

/// Whether an instance whose kind is read already is of one of the types
/// of a `type` keyword's bits.
#[inline]
pub(crate) fn type_holds<'a, V: Value<'a>>(types: u8, kind: Kind, instance: V) -> bool {
    instance_type_of(kind, instance, floats_decide(types)) & types & !FLOATS_ARE_NEVER_INTEGERS != 0
}

/// The types two `type` keywords both allow (one reading of integers):
/// their sets' intersection, where `number` holds every integer, so that
/// `number` and `integer` meet at `integer`, not at nothing.
pub(crate) fn meet(a: u8, b: u8) -> u8 {
    let widen = |bits: u8| if bits & NUMBER != 0 { bits | INTEGER } else { bits };
    widen(a) & widen(b)
}

/// Whether a float's value may decide a `type` keyword of these bits: only
/// when a whole float counts as an integer (not in draft 4) and the bits
/// do not allow `number` (which every float is). Otherwise
/// `instance_type_of` need not read it.
#[inline]
pub(crate) fn floats_decide(types: u8) -> bool {
    types & FLOATS_ARE_NEVER_INTEGERS == 0 && types & NUMBER == 0
}

/// The JSON type bits of an instance whose kind is read already
/// (`integer` also has `number`).
pub(crate) fn instance_type_of<'a, V: Value<'a>>(kind: Kind, instance: V, floats_are_integers: bool) -> u8 {
    match kind {
        Kind::Nil => NULL,
        Kind::Bool => BOOLEAN,
        Kind::Integer => INTEGER | NUMBER,
        // A float is read only where a whole one counts as an integer.
        Kind::Float if floats_are_integers => match instance.number() {
            Some(Number::Float(f)) if f.fract() == 0.0 => INTEGER | NUMBER,
            _ => NUMBER,
        },
        Kind::Float => NUMBER,
        Kind::Binary => match instance.bytes() {
            Some(bytes) if instance.text_of(bytes).is_some() => STRING,
            _ => 0,
        },
        Kind::List => match instance.list_len() {
            Some(_) => ARRAY,
            None => 0,
        },
        Kind::Map if !instance.is_struct() => OBJECT,
        _ => 0,
    }
}

/// Appends the names of the types in `bits`, comma-separated.
fn push_type_names(out: &mut String, bits: u8) {
    let mut first = true;
    for (_, name) in TYPE_NAMES.iter().filter(|(bit, _)| bits & bit != 0) {
        if !first {
            out.push_str(", ");
        }
        out.push_str(name);
        first = false;
    }
}

impl Walk<'_> {
    pub(crate) fn check_type<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        types: u8,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if type_holds(types, instance.kind(), instance) {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            m.then("instance is not of type ")
                .with(|out| push_type_names(out, types))
        })
    }

    pub(crate) fn check_enum<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        choices: &[Datum],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if self.enum_holds(choices, instance)? {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            m.then("instance is not one of the values of enum")
        })
    }

    /// Whether `instance` is one of `choices` (`enum`), without recording.
    pub(crate) fn enum_holds<'a, V: Value<'a>>(&self, choices: &[Datum], instance: V) -> Step {
        self.enum_holds_read(choices, &Read::of(instance))
    }

    /// [`Walk::enum_holds`] of an instance already read.
    pub(crate) fn enum_holds_read<'a, V: Value<'a>>(&self, choices: &[Datum], read: &Read<'a, V>) -> Step {
        match read {
            Read::Compound(instance) => {
                for choice in choices {
                    self.charge(1)?;
                    if self.equals_charged(*instance, choice)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            // A scalar: each choice compared with its shape.
            Read::Scalar { instance, shape } => {
                self.charge(choices.len() as u64)?;
                Ok(choices.iter().any(|choice| scalar_equals(shape, choice)) && same_kinds(*instance, shape))
            }
        }
    }

    pub(crate) fn check_const<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        value: &Datum,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if self.const_holds(value, instance)? {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| m.then("instance is not the value of const"))
    }

    /// Whether `instance` is `value` (`const`), without recording.
    pub(crate) fn const_holds<'a, V: Value<'a>>(&self, value: &Datum, instance: V) -> Step {
        self.const_holds_read(value, &Read::of(instance))
    }

    /// [`Walk::const_holds`] of an instance already read.
    pub(crate) fn const_holds_read<'a, V: Value<'a>>(&self, value: &Datum, read: &Read<'a, V>) -> Step {
        match read {
            Read::Compound(instance) => self.equals_charged(*instance, value),
            Read::Scalar { instance, shape } => {
                Ok(scalar_equals(shape, value) && same_kinds(*instance, shape))
            }
        }
    }

    /// [`equals`], with the list cells counted and every item and entry
    /// compared charged to the work limit: an `enum` of long lists, or a
    /// `const` under a wide `anyOf`, compares as much of the instance as
    /// matches, each time.
    fn equals_charged<'a, V: Value<'a>>(&self, instance: V, datum: &Datum) -> Result<bool, Limit> {
        match (instance.shape(), datum) {
            (Shape::List, Datum::List(choices)) => {
                let len = choices.len();
                self.charge(len as u64 / 8)?;
                if !matches!(instance.list_len_within(len), ListLength::Proper(n) if n == len) {
                    return Ok(false);
                }
                for (item, choice) in instance.list_items().zip(choices.iter()) {
                    self.charge(1)?;
                    if !crate::stack::deep(|| self.equals_charged(item, choice))? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (Shape::Map, Datum::Map(choices)) => {
                if instance.map_len() != choices.len() {
                    return Ok(false);
                }
                for (key, item) in instance.map_entries() {
                    self.charge(1)?;
                    let Shape::Binary(key) = key.shape() else {
                        return Ok(false);
                    };
                    let choice = choices
                        .binary_search_by(|(name, _)| (**name).cmp(key))
                        .ok()
                        .and_then(|at| choices.get(at));
                    match choice {
                        Some((_, choice)) if crate::stack::deep(|| self.equals_charged(item, choice))? => {}
                        _ => return Ok(false),
                    }
                }
                Ok(true)
            }
            _ => Ok(equals(instance, datum)),
        }
    }
}

/// An instance read for `enum` and `const`: a scalar's shape, read once
/// however many constants it is compared with (a tag's value, against
/// each branch's), or a list or a map, compared item by item.
pub(crate) enum Read<'a, V> {
    Scalar { instance: V, shape: Shape<'a> },
    Compound(V),
}

impl<'a, V: Value<'a>> Read<'a, V> {
    pub(crate) fn of(instance: V) -> Read<'a, V> {
        match instance.shape() {
            Shape::List | Shape::Map => Read::Compound(instance),
            shape => Read::Scalar { instance, shape },
        }
    }
}

/// Erlang's `==` already matches JSON equality for numbers, strings,
/// lists and maps; a string instance (a binary equal to a string choice)
/// must also be text.
fn same_kinds<'a, V: Value<'a>>(instance: V, shape: &Shape<'a>) -> bool {
    match shape {
        Shape::Binary(bytes) => instance.text_of(bytes).is_some(),
        _ => true,
    }
}

/// [`equals`] for an instance that is no list and no map, by its shape.
fn scalar_equals(shape: &Shape<'_>, datum: &Datum) -> bool {
    match (shape, datum) {
        (Shape::Nil, Datum::Nil) => true,
        (Shape::Bool(a), Datum::Bool(b)) => a == b,
        (Shape::Number(a), Datum::Number(b)) => a.compare(b) == Ordering::Equal,
        (Shape::Binary(a), Datum::Binary(b)) => *a == &b[..],
        _ => false,
    }
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
    pub(crate) fn new(all: Vec<Datum>) -> Choices {
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
    #[inline(always)]
    fn contain_binary(&self, bytes: &[u8]) -> bool {
        let key = NameKey::of(bytes);
        self.binaries.iter().any(|(k, index)| {
            *k == key
                && matches!(self.all.get(*index), Some(Datum::Binary(b)) if NameKey::same_rest(key, b, bytes))
        })
    }
}

/// The gateway's `type`: a name or a non-empty list of distinct names,
/// each an atom or a string, kept as written for the error's details.
#[inline(always)]
pub(crate) fn gateway_type<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    if let Some(value) = gateway::get(slots, gateway::Keyword::Type) {
        node.types =
            Some(gateway_type_value(value).map_err(|e| path.keyword(gateway::Keyword::Type).fail(e))?);
    }
    Ok(())
}

/// The gateway's `enum` (a proper list) and `const`: JSON values, copied
/// out of the schema and charged by their size.
#[inline(always)]
pub(crate) fn gateway_choices<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    if let Some(value) = gateway::get(slots, gateway::Keyword::Enum) {
        let at = path.keyword(gateway::Keyword::Enum);
        if value.shape() != Shape::List || value.list_len().is_none() {
            return Err(at.fail(SchemaError::MalformedEnum));
        }
        path.charge(value.list_len().unwrap_or(0) as u64)?;
        let mut choices = Vec::new();
        for (index, choice) in value.list_items().enumerate() {
            gateway_datum_fits(choice, depth + 1, path)?;
            let datum = gateway_datum(choice, depth + 1, SchemaError::MalformedEnum)
                .map_err(|e| at.child(GatewayStep::Index(index)).fail(e))?;
            path.charge(datum_units(&datum))?;
            choices.push(datum);
        }
        node.choices = Some(Choices::new(choices));
    }
    if let Some(value) = gateway::get(slots, gateway::Keyword::Const) {
        gateway_datum_fits(value, depth, path)?;
        let datum = gateway_datum(value, depth, SchemaError::MalformedConst)
            .map_err(|e| path.keyword(gateway::Keyword::Const).fail(e))?;
        path.charge(datum_units(&datum))?;
        node.constant = Some(datum);
    }
    Ok(())
}

/// Fails as the charge for `value`'s copy ([`datum_units`]) would, before
/// the copy is made, when the budget left cannot pay for it: each value
/// copied costs at least a `Datum`'s size, so more values than the units
/// left can pay for at that size are refused after counting that many.
/// A term that shares its subterms is small in memory and as large as its
/// flat expansion copied: a `const` of a few KiB on the heap can stand for
/// hundreds of millions of values, which the copy would allocate before
/// the charge after it could refuse them. The count walks the value as
/// the copy does ([`gateway_datum`] at `depth`) and leaves to the copy
/// whatever it would refuse first (too deep, not JSON).
fn gateway_datum_fits<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<(), V> {
    let left = path.units_left();
    // `datum_units` of n values is at least n * size / 16 - 1 (rounded down).
    let size = std::mem::size_of::<Datum>() as u64;
    let most = left.saturating_add(1).saturating_mul(16) / size.max(1) + 1;
    let mut counted = 1u64;
    let depth_left = gateway::MAX_SCHEMA_DEPTH.saturating_sub(depth);
    match count_values(value, depth_left, &mut counted, most) {
        Counted::Over => path.charge(left.saturating_add(1)),
        Counted::Fits | Counted::CopyFails => Ok(()),
    }
}

enum Counted {
    Fits,
    /// More than the most: the copy must not be made.
    Over,
    /// The copy stops here with an error of its own, before the most.
    CopyFails,
}

/// Counts `value`'s values into `counted`, in the order and with the checks
/// of `Datum::from_json_value`, up to `most`.
fn count_values<'a, V: Value<'a>>(value: V, depth_left: usize, counted: &mut u64, most: u64) -> Counted {
    crate::stack::deep(|| {
        let children: Box<dyn Iterator<Item = Option<V>>> = match value.shape() {
            Shape::List => {
                if value.list_len().is_none() {
                    return Counted::CopyFails;
                }
                Box::new(value.list_items().map(Some))
            }
            Shape::Map if !value.is_struct() => Box::new(
                value
                    .map_entries()
                    .map(|(key, item)| matches!(key.shape(), Shape::Binary(_)).then_some(item)),
            ),
            Shape::Map | Shape::Atom | Shape::Other => return Counted::CopyFails,
            _ => return Counted::Fits,
        };
        let Some(depth_left) = depth_left.checked_sub(1) else {
            return Counted::CopyFails;
        };
        for child in children {
            let Some(child) = child else {
                return Counted::CopyFails;
            };
            *counted += 1;
            if *counted > most {
                return Counted::Over;
            }
            match count_values(child, depth_left, counted, most) {
                Counted::Fits => {}
                stop => return stop,
            }
        }
        Counted::Fits
    })
}

/// Work units for an `enum` choice or `const` value: reading it and
/// building its copy cost about a unit per 16 bytes of the copy.
pub(crate) fn datum_units(datum: &Datum) -> u64 {
    (datum.approximate_bytes() / 16) as u64
}

pub(crate) fn gateway_datum<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    malformed: SchemaError<V>,
) -> Result<Datum, SchemaError<V>> {
    let depth_left = gateway::MAX_SCHEMA_DEPTH.saturating_sub(depth);
    Datum::from_json_value(value, depth_left).map_err(|e| match e {
        DatumError::NotJson => malformed,
        DatumError::TooDeep => SchemaError::SchemaTooDeep,
    })
}

fn gateway_type_value<'a, V: Value<'a>>(value: V) -> Result<gateway::Types, SchemaError<V>> {
    match value.shape() {
        Shape::Binary(_) | Shape::Atom | Shape::Nil | Shape::Bool(_) => {
            let name = gateway::type_name(value).unwrap_or_default();
            let set = TypeSet::from_name(&name).ok_or(SchemaError::UnsupportedType(value))?;
            Ok(gateway::Types {
                set,
                written: written_name(value, name),
            })
        }
        Shape::List if gateway::non_empty_list(value) => {
            let mut set = TypeSet::EMPTY;
            let mut written = Vec::new();
            for item in value.list_items() {
                let name = match item.shape() {
                    Shape::Binary(_) | Shape::Atom | Shape::Nil | Shape::Bool(_) => gateway::type_name(item),
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
            Ok(gateway::Types {
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

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    #[cold]
    #[inline(never)]
    pub(crate) fn wrong_type(self, expected: &Datum, path: &gateway_walk::Path<'_, V>) -> Check<V> {
        self.report(|| ArgumentError::WrongType {
            path: path.render(),
            expected: expected.clone(),
        })
    }

    /// `enum` (Erlang `==` against each choice), then `const`.
    #[inline(always)]
    pub(crate) fn check_choices(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
    ) -> Check<V> {
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::{instance_type_of, type_holds, FLOATS_ARE_NEVER_INTEGERS, INTEGER, NUMBER};
    use crate::json::JsonRef;
    use crate::value::Value;

    #[test]
    fn a_whole_float_is_an_integer_unless_the_dialect_says_not() {
        // (value, its bits where a whole float is an integer, where not)
        let both = INTEGER | NUMBER;
        let cases = [
            (json!(1.0), both, NUMBER),
            (json!(-0.0), both, NUMBER),
            (json!(1e300), both, NUMBER),
            (json!(2.5), NUMBER, NUMBER),
            (json!(-0.5), NUMBER, NUMBER),
            (json!(7), both, both),
            (json!(-3), both, both),
        ];
        for (value, reading, not_reading) in cases {
            let at = JsonRef::from(&value);
            assert_eq!(instance_type_of(at.kind(), at, true), reading, "{value}");
            assert_eq!(instance_type_of(at.kind(), at, false), not_reading, "{value}");
            // `integer` alone, in 2020-12 and in draft 4; `number` in both.
            assert_eq!(
                type_holds(INTEGER, at.kind(), at),
                reading & INTEGER != 0,
                "{value}"
            );
            let draft4 = INTEGER | FLOATS_ARE_NEVER_INTEGERS;
            assert_eq!(
                type_holds(draft4, at.kind(), at),
                not_reading & INTEGER != 0,
                "{value}"
            );
            assert!(type_holds(NUMBER, at.kind(), at), "{value}");
            assert!(
                type_holds(NUMBER | FLOATS_ARE_NEVER_INTEGERS, at.kind(), at),
                "{value}"
            );
        }
    }

    #[test]
    fn a_float_is_read_only_where_its_value_decides_the_type() {
        // Every set of type bits, with and without draft 4's flag, against
        // numbers of each kind: the verdict is the one that reads every
        // float (a whole float is an integer unless the flag says not).
        let values = [
            json!(1.0),
            json!(2.5),
            json!(-0.0),
            json!(1e300),
            json!(7),
            json!(-3),
        ];
        let mut compared = 0;
        for types in 0..=u8::MAX {
            for value in &values {
                let at = JsonRef::from(value);
                let reading = types & FLOATS_ARE_NEVER_INTEGERS == 0;
                let expected =
                    instance_type_of(at.kind(), at, reading) & types & !FLOATS_ARE_NEVER_INTEGERS != 0;
                assert_eq!(
                    type_holds(types, at.kind(), at),
                    expected,
                    "{types:#010b} {value}"
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 256 * values.len());
    }
}
