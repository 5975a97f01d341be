//! `uniqueItems`: no two elements equal, with the equality of `enum`
//! (Erlang `==`: `1` equals `1.0`, maps by key set and values). Each element
//! is written as a key whose bytes are equal exactly when the elements are,
//! and the keys are sorted: O(n log n) comparisons, never n².

use num_bigint::BigInt;
use num_traits::FromPrimitive;

use crate::value::{Number, Shape, Value};

/// Why an element has no key: the walk cannot decide, and refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoKey {
    /// A term that is not JSON (a tuple, a pid, an improper list, a map key
    /// that is neither a string, an atom nor a number).
    NotJson,
    /// Nested past the depth limit.
    TooDeep,
}

/// Appends the key of `value` to `out`. Every part is tagged and
/// length-prefixed, so no key is a prefix of another.
pub(crate) fn write_key<'a, V: Value<'a>>(
    value: V,
    depth_left: usize,
    out: &mut Vec<u8>,
) -> Result<(), NoKey> {
    {
        match value.shape() {
            Shape::Nil => out.push(b'n'),
            Shape::Bool(true) => out.push(b't'),
            Shape::Bool(false) => out.push(b'f'),
            Shape::Atom => tagged(out, b'a', value.atom_name().unwrap_or_default().as_bytes()),
            Shape::Number(n) => write_number(&n, out),
            Shape::Binary(bytes) => tagged(out, b's', bytes),
            Shape::List => {
                let depth_left = depth_left.checked_sub(1).ok_or(NoKey::TooDeep)?;
                let len = value.list_len().ok_or(NoKey::NotJson)?;
                out.push(b'l');
                out.extend_from_slice(&(len as u64).to_le_bytes());
                for item in value.list_items() {
                    crate::stack::deep(|| write_key(item, depth_left, out))?;
                }
            }
            Shape::Map => {
                let depth_left = depth_left.checked_sub(1).ok_or(NoKey::TooDeep)?;
                if value.is_struct() {
                    return Err(NoKey::NotJson);
                }
                // Entries in a canonical order: by the key's own bytes.
                let mut entries = Vec::with_capacity(value.map_len());
                for (key, item) in value.map_entries() {
                    let mut entry = Vec::new();
                    write_map_key(key, &mut entry)?;
                    crate::stack::deep(|| write_key(item, depth_left, &mut entry))?;
                    entries.push(entry);
                }
                entries.sort_unstable();
                out.push(b'm');
                out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
                for entry in entries {
                    out.extend_from_slice(&entry);
                }
            }
            Shape::Other => return Err(NoKey::NotJson),
        }
        Ok(())
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
