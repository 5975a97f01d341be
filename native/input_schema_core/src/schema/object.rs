//! The gateway's name tables: what its object keywords (`properties`,
//! `required`, `dependentRequired`, `additionalProperties`, `propertyNames`;
//! compiled and checked in `keywords/objects.rs`) compile to, for a lookup
//! of each argument key by its string form (see `ObjectRules`).

use std::collections::HashMap;

use super::NodeId;
use crate::value::AtomId;

/// What happens to keys not named in `properties`.
#[derive(Debug)]
pub enum Additional {
    Allow,
    Deny,
    Schema(NodeId),
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
    pub schema: NodeId,
}

/// A `dependentRequired` entry: when the argument map has `name` (a binary
/// key, as for `required`), it must have every name of `required` too.
#[derive(Debug)]
pub struct Dependent {
    pub name: Box<[u8]>,
    pub slot: usize,
    pub required: Vec<Required>,
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
    pub(super) head: u64,
    pub(super) len: usize,
}

impl NameKey {
    pub(super) const HEAD: usize = 8;

    /// Reads the head in at most three loads and no loop. Overlapping
    /// loads put equal bytes at equal places, so OR-ing them is exact.
    #[inline]
    pub(crate) fn of(name: &[u8]) -> NameKey {
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
    pub(crate) fn same_rest(key: NameKey, a: &[u8], b: &[u8]) -> bool {
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
    /// `dependentRequired`, in the map's order.
    pub dependent: Vec<Dependent>,
    /// `propertyNames`: the schema every key's name must match.
    pub property_names: Option<NodeId>,
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

    pub(crate) fn is_trivial(&self) -> bool {
        self.properties.is_empty()
            && self.required.is_empty()
            && matches!(self.additional, Additional::Allow)
            && self.dependent.is_empty()
            && self.property_names.is_none()
    }

    /// Approximate heap bytes held, for cache accounting (subschemas are
    /// counted as nodes of the schema's arena).
    pub(super) fn approximate_bytes(&self) -> usize {
        let properties: usize = self
            .properties
            .iter()
            .map(|p| p.name.len() + std::mem::size_of::<Property>())
            .sum();
        let names: usize = self
            .names
            .iter()
            .map(|n| n.bytes.len() + std::mem::size_of::<Name>())
            .sum();
        let required: usize = self.required.iter().map(|r| r.name.len() + 32).sum();
        let dependent: usize = self
            .dependent
            .iter()
            .map(|d| d.name.len() + 32 + d.required.iter().map(|r| r.name.len() + 32).sum::<usize>())
            .sum();
        std::mem::size_of::<ObjectRules>() + properties + names + required + dependent
    }
}

/// A `dependentRequired` entry before slots are assigned: the name and the
/// names it requires.
pub(crate) type DependentSource = (Box<[u8]>, Vec<Box<[u8]>>);

/// A property before slots are assigned: string form, atom identity, schema.
pub(crate) type PropertySource = (Box<[u8]>, Option<AtomId>, NodeId);

/// Gives every distinct string form among property and required names a slot.
#[inline(never)]
pub(crate) fn object_rules(
    properties: Vec<PropertySource>,
    required: Vec<Box<[u8]>>,
    dependent: Vec<DependentSource>,
    additional: Additional,
    property_names: Option<NodeId>,
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
    let dependent: Vec<Dependent> = dependent
        .into_iter()
        .map(|(name, names_required)| {
            let slot = slot_of(&name, None, &mut names);
            let required = names_required
                .into_iter()
                .map(|name| {
                    let slot = slot_of(&name, None, &mut names);
                    Required { name, slot }
                })
                .collect();
            Dependent { name, slot, required }
        })
        .collect();
    names.sort_by(|a, b| a.bytes.cmp(&b.bytes));
    // The one-pass check knows `required` and `properties` only.
    let one_pass = match (dependent.is_empty(), property_names) {
        (true, None) => OnePass::of(&properties, &required, &names),
        _ => None,
    };
    ObjectRules {
        properties,
        required,
        names,
        additional,
        dependent,
        property_names,
        one_pass,
    }
}
