//! `uniqueItems`: no two elements equal, with the equality of `enum`
//! (Erlang `==`: `1` equals `1.0`, maps by key set and values). Each element
//! is written as a key whose bytes are equal exactly when the elements are,
//! and the keys are sorted: O(n log n) comparisons, never n².

use num_bigint::BigInt;
use num_traits::FromPrimitive;

use crate::budget::Budget;
use crate::value::{Number, Shape, Value};

/// Why an element has no key: the walk cannot decide, and refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoKey {
    /// A term that is not JSON (a tuple, a pid, an improper list, a map key
    /// that is neither a string, an atom nor a number).
    NotJson,
    /// Nested past the depth limit.
    TooDeep,
    /// Longer than the room it was given: the caller's work budget would
    /// refuse it (a key costs a unit per 16 bytes), so it is not written
    /// any further.
    TooLong,
}

/// What writing a key may take: `bytes` of room, of which each value
/// written takes its bytes and `per_value` more (what visiting it costs,
/// in the caller's measure).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Room {
    pub bytes: usize,
    pub per_value: usize,
}

impl Room {
    /// The room `budget` could pay for at a unit per 16 bytes: a key longer
    /// than this would be refused by the charge that follows it.
    pub fn within(budget: &Budget, per_value: usize) -> Room {
        Room {
            bytes: budget.left().saturating_mul(16).saturating_add(15),
            per_value,
        }
    }
}

/// Takes `bytes` from `room`.
fn spend(room: &mut Room, bytes: usize) -> Result<(), NoKey> {
    room.bytes = room.bytes.checked_sub(bytes).ok_or(NoKey::TooLong)?;
    Ok(())
}

/// Appends the key of `value` to `out`. Every part is tagged and
/// length-prefixed, so no key is a prefix of another. Writes at most `room`
/// bytes (taken from it as they are written), so that a huge element costs
/// no more than the budget its caller has left: past that, `TooLong`.
pub(crate) fn write_key<'a, V: Value<'a>>(
    value: V,
    depth_left: usize,
    out: &mut Vec<u8>,
    room: &mut Room,
) -> Result<(), NoKey> {
    {
        spend(room, room.per_value)?;
        let start = out.len();
        match value.shape() {
            Shape::Nil => out.push(b'n'),
            Shape::Bool(true) => out.push(b't'),
            Shape::Bool(false) => out.push(b'f'),
            Shape::Atom => tagged(out, b'a', value.atom_name().unwrap_or_default().as_bytes()),
            Shape::Number(n) => write_number(&n, out),
            Shape::Binary(bytes) => {
                // Taken before the copy, however long the string.
                spend(room, 9 + bytes.len())?;
                tagged(out, b's', bytes);
                return Ok(());
            }
            Shape::List => {
                let depth_left = depth_left.checked_sub(1).ok_or(NoKey::TooDeep)?;
                let len = value.list_len().ok_or(NoKey::NotJson)?;
                out.push(b'l');
                out.extend_from_slice(&(len as u64).to_le_bytes());
                spend(room, out.len() - start)?;
                for item in value.list_items() {
                    crate::stack::deep(|| write_key(item, depth_left, out, room))?;
                }
                return Ok(());
            }
            Shape::Map => {
                let depth_left = depth_left.checked_sub(1).ok_or(NoKey::TooDeep)?;
                if value.is_struct() {
                    return Err(NoKey::NotJson);
                }
                // Entries in a canonical order: by the key's own bytes.
                let mut entries = Vec::with_capacity(value.map_len().min(room.bytes / 10));
                for (key, item) in value.map_entries() {
                    let mut entry = Vec::new();
                    write_map_key(key, &mut entry)?;
                    spend(room, entry.len())?;
                    crate::stack::deep(|| write_key(item, depth_left, &mut entry, room))?;
                    entries.push(entry);
                }
                entries.sort_unstable();
                out.push(b'm');
                out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
                spend(room, 9)?;
                for entry in entries {
                    out.extend_from_slice(&entry);
                }
                return Ok(());
            }
            Shape::Other => return Err(NoKey::NotJson),
        }
        spend(room, out.len() - start)
    }
}

/// A map key matches exactly (Erlang map keys are compared with `=:=`):
/// `1` and `1.0` are different keys.
fn write_map_key<'a, V: Value<'a>>(key: V, out: &mut Vec<u8>) -> Result<(), NoKey> {
    match key.shape() {
        Shape::Binary(bytes) => tagged(out, b's', bytes),
        Shape::Atom | Shape::Nil | Shape::Bool(_) => {
            tagged(out, b'a', key.atom_name().unwrap_or_default().as_bytes())
        }
        Shape::Number(Number::Float(f)) => {
            out.push(b'd');
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Shape::Number(n) => write_number(&n, out),
        _ => return Err(NoKey::NotJson),
    }
    Ok(())
}

/// Numbers by value: an integral float has the key of the integer it
/// equals (exactly, also past 2^53); any other float its bits.
fn write_number(n: &Number, out: &mut Vec<u8>) {
    match n {
        Number::Int(i) => tagged(out, b'i', i.to_string().as_bytes()),
        Number::Big(b) => tagged(out, b'i', b.to_string().as_bytes()),
        Number::Float(f) => match BigInt::from_f64(*f).filter(|_| f.fract() == 0.0) {
            Some(integral) => tagged(out, b'i', integral.to_string().as_bytes()),
            None => {
                out.push(b'd');
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        },
    }
}

fn tagged(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    out.push(tag);
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}
