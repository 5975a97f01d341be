//! The value model the compiler and the validator read: a small trait that
//! BEAM terms (`term.rs`) and `serde_json` values (`json.rs`) implement, so
//! the core walks either in place. Also owns numbers, the owned `Datum` used
//! for enum choices and error details, and Erlang `==` between the two.

use std::cmp::Ordering;
use std::fmt::Debug;

use num_bigint::BigInt;
use num_traits::{FromPrimitive, ToPrimitive};

/// What a value is, with the payload of scalars.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<'a> {
    Nil,
    Bool(bool),
    /// Any atom other than `nil`, `true` and `false`.
    Atom,
    Number(Number),
    /// A byte-aligned binary, valid UTF-8 or not.
    Binary(&'a [u8]),
    /// A list, proper or not, empty or not.
    List,
    Map,
    /// Tuples, pids, references, funs, ports, bitstrings.
    Other,
}

/// What a value is, without its payload: what the validator's type test
/// and dispatch need, read without decoding numbers. A backend's `kind` and
/// `shape` always agree (`Kind::of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Nil,
    Bool,
    Atom,
    Integer,
    Float,
    Binary,
    List,
    Map,
    Other,
}

impl Kind {
    pub fn of(shape: &Shape<'_>) -> Kind {
        match shape {
            Shape::Nil => Kind::Nil,
            Shape::Bool(_) => Kind::Bool,
            Shape::Atom => Kind::Atom,
            Shape::Number(Number::Float(_)) => Kind::Float,
            Shape::Number(_) => Kind::Integer,
            Shape::Binary(_) => Kind::Binary,
            Shape::List => Kind::List,
            Shape::Map => Kind::Map,
            Shape::Other => Kind::Other,
        }
    }
}

/// A value the validator can read. Implementations are cheap handles
/// (`Copy`) into data that lives for `'a`.
pub trait Value<'a>: Copy + Debug + 'a {
    type Items: Iterator<Item = Self>;
    type Entries: Iterator<Item = (Self, Self)>;

    fn shape(self) -> Shape<'a>;

    /// `Kind::of(&self.shape())`; backends answer it without building the
    /// shape where they can.
    fn kind(self) -> Kind {
        Kind::of(&self.shape())
    }

    /// The number a value holds, if it is one.
    fn number(self) -> Option<Number> {
        match self.shape() {
            Shape::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The bytes of a byte-aligned binary.
    fn bytes(self) -> Option<&'a [u8]> {
        match self.shape() {
            Shape::Binary(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// The length of a proper list; `None` for an improper one or a non-list.
    fn list_len(self) -> Option<usize>;

    /// The length of a list, counting at most `limit` cells.
    fn list_len_within(self, limit: usize) -> ListLength {
        match self.list_len() {
            Some(n) if n > limit => ListLength::Longer,
            Some(n) => ListLength::Proper(n),
            None => ListLength::Improper,
        }
    }

    /// The elements of a list, in order (stops at an improper tail).
    fn list_items(self) -> Self::Items;

    /// The entries of a map in its own key order (`Map.keys/1` order).
    fn map_entries(self) -> Self::Entries;

    fn map_len(self) -> usize;

    /// Whether a map is a struct (has the `:__struct__` key).
    fn is_struct(self) -> bool;

    /// A word that tells this value apart from the other values of the same
    /// instance (its address, or the term itself). Two values may share
    /// one (equal immediates, a key and a value), but two lists share one
    /// only when they are one value: `Walk`'s memo of the first pass's
    /// failures reads a list's items by it.
    fn identity(self) -> usize;

    /// The text of a binary, when it is valid UTF-8. Backends whose strings
    /// are already known to be UTF-8 return them without a check.
    fn text(self) -> Option<&'a str> {
        match self.shape() {
            Shape::Binary(bytes) => std::str::from_utf8(bytes).ok(),
            _ => None,
        }
    }

    /// The text of `bytes`, which are what `bytes()` gave for this value,
    /// when they are valid UTF-8 (one read of the bytes, not two).
    fn text_of(self, bytes: &'a [u8]) -> Option<&'a str> {
        if bytes.is_ascii() {
            // SAFETY: ASCII is UTF-8. Most arguments are ASCII, and this test
            // is cheaper than the full decoder on short text.
            Some(unsafe { std::str::from_utf8_unchecked(bytes) })
        } else {
            std::str::from_utf8(bytes).ok()
        }
    }

    /// The name of an atom (including `nil`, `true`, `false`).
    fn atom_name(self) -> Option<String>;

    /// A cheap identity for an atom, equal for equal atoms.
    fn atom_id(self) -> Option<AtomId>;
}

/// A string that is not a term of the caller: a map key's name, which
/// `propertyNames` validates as a string (an atom key by its name).
#[derive(Debug, Clone, Copy)]
pub struct Text<'t>(pub &'t [u8]);

impl<'t> Value<'t> for Text<'t> {
    type Items = std::iter::Empty<Text<'t>>;
    type Entries = std::iter::Empty<(Text<'t>, Text<'t>)>;

    fn shape(self) -> Shape<'t> {
        Shape::Binary(self.0)
    }

    fn list_len(self) -> Option<usize> {
        None
    }

    fn list_items(self) -> Self::Items {
        std::iter::empty()
    }

    fn map_entries(self) -> Self::Entries {
        std::iter::empty()
    }

    fn map_len(self) -> usize {
        0
    }

    fn is_struct(self) -> bool {
        false
    }

    fn identity(self) -> usize {
        self.0.as_ptr() as usize
    }

    fn atom_name(self) -> Option<String> {
        None
    }

    fn atom_id(self) -> Option<AtomId> {
        None
    }
}

/// A list's length as far as it was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListLength {
    Proper(usize),
    Improper,
    /// More than the cells counted.
    Longer,
}

/// Identity of an atom, stable for the life of the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtomId(pub usize);

/// Integers of any size and floats, compared as Erlang compares numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    Int(i64),
    /// Always outside the `i64` range.
    Big(BigInt),
    Float(f64),
}

impl Number {
    pub fn from_big(value: BigInt) -> Number {
        match value.to_i64() {
            Some(small) => Number::Int(small),
            None => Number::Big(value),
        }
    }

    /// Erlang's arithmetic order: exact, never through a lossy conversion.
    #[inline]
    pub fn compare(&self, other: &Number) -> Ordering {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a.cmp(b),
            _ => self.compare_mixed(other),
        }
    }

    #[inline(never)]
    fn compare_mixed(&self, other: &Number) -> Ordering {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a.cmp(b),
            (Number::Float(a), Number::Float(b)) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            (Number::Int(a), Number::Big(b)) => BigInt::from(*a).cmp(b),
            (Number::Big(a), Number::Int(b)) => a.cmp(&BigInt::from(*b)),
            (Number::Big(a), Number::Big(b)) => a.cmp(b),
            (Number::Int(a), Number::Float(b)) => compare_int_float(&BigInt::from(*a), *b),
            (Number::Big(a), Number::Float(b)) => compare_int_float(a, *b),
            (Number::Float(a), Number::Int(b)) => compare_int_float(&BigInt::from(*b), *a).reverse(),
            (Number::Float(a), Number::Big(b)) => compare_int_float(b, *a).reverse(),
        }
    }

    /// The value as an unsigned count, saturating for huge integers.
    pub fn as_count(&self) -> Option<u64> {
        match self {
            Number::Int(n) if *n >= 0 => u64::try_from(*n).ok(),
            Number::Big(n) if n.sign() != num_bigint::Sign::Minus => Some(u64::MAX),
            _ => None,
        }
    }
}

/// Compares an integer with a finite float exactly: the float's floor is an
/// integer that `BigInt` holds without loss.
fn compare_int_float(int: &BigInt, float: f64) -> Ordering {
    if let Some(small) = int.to_i64() {
        // Fast path: both fit a float exactly.
        if small.unsigned_abs() <= (1u64 << 53) {
            return (small as f64).partial_cmp(&float).unwrap_or(Ordering::Equal);
        }
    }
    let floor = float.floor();
    let Some(floor_int) = BigInt::from_f64(floor) else {
        // Not finite: BEAM floats always are; order infinities sensibly.
        return if float > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    };
    match int.cmp(&floor_int) {
        Ordering::Equal if float > floor => Ordering::Less,
        order => order,
    }
}

/// An owned JSON value (plus atoms, for error details such as `type: :string`).
#[derive(Debug, Clone, PartialEq)]
pub enum Datum {
    Nil,
    Bool(bool),
    Atom(Box<str>),
    Number(Number),
    Binary(Box<[u8]>),
    List(Vec<Datum>),
    /// Binary keys, sorted by bytes, unique.
    Map(Vec<(Box<[u8]>, Datum)>),
}

/// Why a term could not become a JSON `Datum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatumError {
    NotJson,
    TooDeep,
}

impl Datum {
    /// Approximate heap bytes held, for cache accounting.
    pub fn approximate_bytes(&self) -> usize {
        // Only a list or a map recurses, so only they check the stack.
        std::mem::size_of::<Datum>()
            + match self {
                Datum::Atom(name) => name.len(),
                Datum::Binary(bytes) => bytes.len(),
                Datum::List(items) => crate::stack::deep(|| items.iter().map(Datum::approximate_bytes).sum()),
                Datum::Map(entries) => {
                    crate::stack::deep(|| entries.iter().map(|(k, v)| k.len() + v.approximate_bytes()).sum())
                }
                _ => 0,
            }
    }

    /// Reads a JSON value (enum choices, `const`): binaries, numbers, `true`,
    /// `false`, `nil`, proper lists and non-struct maps with binary keys.
    /// `depth_left` bounds recursion.
    pub fn from_json_value<'a, V: Value<'a>>(value: V, depth_left: usize) -> Result<Datum, DatumError> {
        crate::stack::deep(|| {
            Ok(match value.shape() {
                Shape::Nil => Datum::Nil,
                Shape::Bool(b) => Datum::Bool(b),
                Shape::Number(n) => Datum::Number(n),
                Shape::Binary(bytes) => Datum::Binary(bytes.into()),
                Shape::List => {
                    let depth_left = depth_left.checked_sub(1).ok_or(DatumError::TooDeep)?;
                    let Some(len) = value.list_len() else {
                        return Err(DatumError::NotJson);
                    };
                    let mut items = Vec::with_capacity(len.min(1024));
                    for item in value.list_items() {
                        items.push(Datum::from_json_value(item, depth_left)?);
                    }
                    Datum::List(items)
                }
                Shape::Map => {
                    let depth_left = depth_left.checked_sub(1).ok_or(DatumError::TooDeep)?;
                    if value.is_struct() {
                        return Err(DatumError::NotJson);
                    }
                    let mut entries = Vec::with_capacity(value.map_len().min(1024));
                    for (key, item) in value.map_entries() {
                        let Shape::Binary(key) = key.shape() else {
                            return Err(DatumError::NotJson);
                        };
                        entries.push((Box::from(key), Datum::from_json_value(item, depth_left)?));
                    }
                    entries.sort_by(|a: &(Box<[u8]>, Datum), b| a.0.cmp(&b.0));
                    Datum::Map(entries)
                }
                Shape::Atom | Shape::Other => return Err(DatumError::NotJson),
            })
        })
    }
}

/// Erlang `==` between an argument value and a JSON datum: numbers by value
/// (`1 == 1.0`), lists element by element, maps by identical key sets and
/// equal values, binaries byte for byte, `true`/`false`/`nil` only themselves.
/// Each element of a list or a map is compared one step deeper
/// (`stack::deep`); a scalar, the common case, costs no stack check.
pub fn equals<'a, V: Value<'a>>(value: V, datum: &Datum) -> bool {
    {
        match (value.shape(), datum) {
            (Shape::Nil, Datum::Nil) => true,
            (Shape::Bool(a), Datum::Bool(b)) => a == *b,
            (Shape::Number(a), Datum::Number(b)) => a.compare(b) == Ordering::Equal,
            (Shape::Binary(a), Datum::Binary(b)) => a == &b[..],
            (Shape::List, Datum::List(choices)) => {
                // An improper list never equals a JSON list.
                value.list_len() == Some(choices.len())
                    && value
                        .list_items()
                        .zip(choices.iter())
                        .all(|(item, choice)| crate::stack::deep(|| equals(item, choice)))
            }
            (Shape::Map, Datum::Map(choices)) => {
                value.map_len() == choices.len()
                    && value.map_entries().all(|(key, item)| match key.shape() {
                        Shape::Binary(key) => choices
                            .binary_search_by(|(name, _)| (**name).cmp(key))
                            .ok()
                            .and_then(|at| choices.get(at))
                            .is_some_and(|(_, choice)| crate::stack::deep(|| equals(item, choice))),
                        _ => false,
                    })
            }
            _ => false,
        }
    }
}

/// Appends `/token` to a JSON Pointer (RFC 6901), `~` written `~0` and `/`
/// written `~1`; a token with neither is copied whole. Both entry points
/// render schema and instance locations with it.
pub(crate) fn push_pointer_token(out: &mut String, token: &str) {
    out.push('/');
    if !needs_escape(token.as_bytes()) {
        out.push_str(token);
        return;
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Whether `bytes` hold a `~` or a `/`, read eight at a time: a compile
/// writes a pointer for every subschema, and most of its tokens are
/// keywords and property names longer than eight bytes.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether some byte of `word` is `byte`: a byte of `word ^ byte * ONES`
    // is zero, which the borrow of the subtraction shows in its high bit
    // (the answer is exact; only which byte it flags may be wrong).
    let holds = |word: u64, byte: u8| {
        let x = word ^ ONES.wrapping_mul(u64::from(byte));
        x.wrapping_sub(ONES) & !x & HIGHS != 0
    };
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_ne_bytes(word);
        if holds(word, b'~') || holds(word, b'/') {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| b == b'~' || b == b'/')
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::{needs_escape, push_pointer_token};

    #[test]
    fn the_escape_test_finds_a_tilde_or_a_slash_at_every_place_and_nothing_else() {
        // Every byte value at every place of every length up to three
        // words, over fillers that sit next to `~` (0x7E) and `/` (0x2F),
        // the high bit and zero: the word-at-a-time answer is the bytes'.
        let mut checked = 0;
        for filler in [b'a', 0x7D, 0x7F, 0x2E, 0x30, 0xFE, 0xAF, 0x80, 0x00, 0xFF] {
            for len in 0..=24 {
                for at in 0..len {
                    for byte in 0..=255u8 {
                        let mut bytes = vec![filler; len];
                        bytes[at] = byte;
                        let expected = bytes.iter().any(|&b| b == b'~' || b == b'/');
                        assert_eq!(needs_escape(&bytes), expected, "{bytes:?}");
                        checked += 1;
                    }
                }
                assert!(!needs_escape(&vec![filler; len]));
            }
        }
        assert_eq!(checked, 10 * 300 * 256);
    }

    #[test]
    fn a_token_is_escaped_as_rfc_6901_says() {
        let cases = [
            ("", "/"),
            ("properties", "/properties"),
            ("a/b", "/a~1b"),
            ("m~n", "/m~0n"),
            ("~1/~0", "/~01~1~00"),
            ("additionalProperties/", "/additionalProperties~1"),
            ("é~ü/ñ and more than eight", "/é~0ü~1ñ and more than eight"),
        ];
        for (token, written) in cases {
            let mut out = String::new();
            push_pointer_token(&mut out, token);
            assert_eq!(out, written);
        }
    }
}
