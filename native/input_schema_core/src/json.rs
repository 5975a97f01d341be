//! `serde_json::Value` as a `Value`: the backend the Rust tests and
//! benchmarks use, so the core runs without a BEAM. Object keys are strings,
//! there are no atoms, improper lists or structs.

use num_bigint::BigInt;
use serde_json::Value as Json;

use crate::value::{AtomId, Kind, Number, Shape, Value};

/// A handle to a JSON value, or to an object key (a string).
#[derive(Debug, Clone, Copy)]
pub enum JsonRef<'a> {
    Value(&'a Json),
    Key(&'a str),
}

impl<'a> From<&'a Json> for JsonRef<'a> {
    fn from(value: &'a Json) -> Self {
        JsonRef::Value(value)
    }
}

/// A JSON number as the BEAM would hold it: integers of any size stay
/// integers, anything with a fraction or exponent is a float. `None` for a
/// float outside the `f64` range.
#[inline]
pub fn number(n: &serde_json::Number) -> Option<Number> {
    match short_integer(n.as_str()) {
        Some(i) => Some(Number::Int(i)),
        None => any_number(n),
    }
}

#[inline(never)]
fn any_number(n: &serde_json::Number) -> Option<Number> {
    if let Some(i) = n.as_i64() {
        return Some(Number::Int(i));
    }
    if is_integer(n) {
        return n.as_str().parse::<BigInt>().ok().map(Number::from_big);
    }
    finite_float(n).map(Number::Float)
}

/// An integer of at most 18 digits (so no `i64` overflow is possible),
/// read without the general parser; `None` for anything else.
#[inline]
fn short_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        all => (false, all),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value: i64 = 0;
    for byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    Some(if negative { -value } else { value })
}

/// Written without a fraction or an exponent (the text `serde_json` keeps
/// is valid JSON, so such a number is an integer of some size).
fn is_integer(n: &serde_json::Number) -> bool {
    !n.as_str().bytes().any(|b| matches!(b, b'.' | b'e' | b'E'))
}

fn finite_float(n: &serde_json::Number) -> Option<f64> {
    n.as_f64().filter(|f| f.is_finite())
}

/// The longest whole part a decimal fraction without an exponent may have
/// to be known finite without parsing it: below 10^300, well inside the
/// `f64` range.
const SURELY_FINITE_DIGITS: usize = 300;

/// A number's kind: an integer (no fraction, no exponent), a float within
/// the `f64` range, or `Other` past it. A plain decimal fraction with a
/// short whole part is a float without a parse (the commonest float in a
/// document); only an exponent or a long whole part needs the parser.
#[inline]
fn number_kind(n: &serde_json::Number) -> Kind {
    let bytes = n.as_str().as_bytes();
    let Some(at) = bytes.iter().position(|&b| matches!(b, b'.' | b'e' | b'E')) else {
        return Kind::Integer;
    };
    // No exponent from the first mark on: that mark is a decimal point.
    let plain = at <= SURELY_FINITE_DIGITS
        && !bytes
            .get(at..)
            .unwrap_or_default()
            .iter()
            .any(|&b| matches!(b, b'e' | b'E'));
    if plain || finite_float(n).is_some() {
        Kind::Float
    } else {
        Kind::Other
    }
}

pub struct Items<'a>(std::slice::Iter<'a, Json>);

impl<'a> Iterator for Items<'a> {
    type Item = JsonRef<'a>;
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(JsonRef::Value)
    }
}

pub struct Entries<'a>(Option<serde_json::map::Iter<'a>>);

impl<'a> Iterator for Entries<'a> {
    type Item = (JsonRef<'a>, JsonRef<'a>);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .as_mut()?
            .next()
            .map(|(k, v)| (JsonRef::Key(k.as_str()), JsonRef::Value(v)))
    }
}

impl<'a> Value<'a> for JsonRef<'a> {
    type Items = Items<'a>;
    type Entries = Entries<'a>;

    fn shape(self) -> Shape<'a> {
        match self {
            JsonRef::Key(k) => Shape::Binary(k.as_bytes()),
            JsonRef::Value(v) => match v {
                Json::Null => Shape::Nil,
                Json::Bool(b) => Shape::Bool(*b),
                Json::Number(n) => number(n).map_or(Shape::Other, Shape::Number),
                Json::String(s) => Shape::Binary(s.as_bytes()),
                Json::Array(_) => Shape::List,
                Json::Object(_) => Shape::Map,
            },
        }
    }

    #[inline]
    fn kind(self) -> Kind {
        match self {
            JsonRef::Key(_) => Kind::Binary,
            JsonRef::Value(v) => match v {
                Json::Null => Kind::Nil,
                Json::Bool(_) => Kind::Bool,
                Json::Number(n) => number_kind(n),
                Json::String(_) => Kind::Binary,
                Json::Array(_) => Kind::List,
                Json::Object(_) => Kind::Map,
            },
        }
    }

    fn bytes(self) -> Option<&'a [u8]> {
        self.text().map(str::as_bytes)
    }

    #[inline]
    fn number(self) -> Option<Number> {
        match self {
            JsonRef::Value(Json::Number(n)) => number(n),
            _ => None,
        }
    }

    fn list_len(self) -> Option<usize> {
        match self {
            JsonRef::Value(Json::Array(a)) => Some(a.len()),
            _ => None,
        }
    }

    fn list_items(self) -> Items<'a> {
        match self {
            JsonRef::Value(Json::Array(a)) => Items(a.iter()),
            _ => Items([].iter()),
        }
    }

    #[inline]
    fn map_entries(self) -> Entries<'a> {
        match self {
            JsonRef::Value(Json::Object(o)) => Entries(Some(o.iter())),
            _ => Entries(None),
        }
    }

    fn map_len(self) -> usize {
        match self {
            JsonRef::Value(Json::Object(o)) => o.len(),
            _ => 0,
        }
    }

    fn is_struct(self) -> bool {
        false
    }

    fn identity(self) -> usize {
        match self {
            JsonRef::Key(k) => k.as_ptr() as usize,
            JsonRef::Value(v) => std::ptr::from_ref(v) as usize,
        }
    }

    fn text_of(self, _bytes: &'a [u8]) -> Option<&'a str> {
        self.text()
    }

    fn text(self) -> Option<&'a str> {
        match self {
            JsonRef::Key(k) => Some(k),
            JsonRef::Value(Json::String(s)) => Some(s),
            JsonRef::Value(_) => None,
        }
    }

    fn atom_name(self) -> Option<String> {
        None
    }

    fn atom_id(self) -> Option<AtomId> {
        None
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Number> {
        number(&text.parse::<serde_json::Number>().unwrap())
    }

    /// The short-integer reader and the general one agree on every form a
    /// JSON number takes, including those made of nines and signs only.
    #[test]
    fn numbers_read_as_the_general_parser_reads_them() {
        let cases = [
            "0",
            "-0",
            "7",
            "-7",
            "9",
            "99",
            "-99",
            "999999999999999999",
            "-999999999999999999",
            "1000000000000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "123456789012345678901234567890",
        ];
        for text in cases {
            let n: serde_json::Number = text.parse().unwrap();
            let got = format!("{:?}", number(&n));
            assert_eq!(got, format!("{:?}", any_number(&n)), "{text}");
            assert!(
                matches!(number(&n), Some(Number::Int(_) | Number::Big(_))),
                "{text}"
            );
        }
        for (text, float) in [
            ("9.9", 9.9),
            ("-9.99", -9.99),
            ("99e9", 99e9),
            ("9E-9", 9e-9),
            ("1.5", 1.5),
            ("-0.0", -0.0),
        ] {
            assert!(
                matches!(read(text), Some(Number::Float(f)) if f == float),
                "{text}"
            );
        }
        assert_eq!(format!("{:?}", read("9")), "Some(Int(9))");
        assert_eq!(
            format!("{:?}", read("-999999999999999999")),
            "Some(Int(-999999999999999999))"
        );
    }

    /// A number's kind without a parse agrees with the kind the parser
    /// gives: integers, floats, and numbers past the `f64` range, on both
    /// sides of the whole part that is known finite unparsed.
    #[test]
    fn a_number_kind_read_without_a_parse_is_the_parsers() {
        let long = |digits: usize, tail: &str| format!("{}{tail}", "9".repeat(digits));
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "7",
            "1.0",
            "-2.5",
            "0.000001",
            "1e2",
            "1E400",
            "-1e400",
            "1e-400",
            "2.5e3",
            "1.5E+308",
            "1.8e308",
            "123456789012345678901234567890",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for digits in [1, 299, 300, 301, 308, 309, 310, 400] {
            cases.push(long(digits, ".5"));
            cases.push(format!("-{}", long(digits, ".0")));
            cases.push(long(digits, ".5e1"));
        }
        for text in &cases {
            let n: serde_json::Number = text.parse().unwrap();
            let parsed = if is_integer(&n) {
                Kind::Integer
            } else {
                finite_float(&n).map_or(Kind::Other, |_| Kind::Float)
            };
            assert_eq!(number_kind(&n), parsed, "{text}");
        }
        // Both sides occur: past the range, and within it.
        assert_eq!(number_kind(&long(400, ".5").parse().unwrap()), Kind::Other);
        assert_eq!(number_kind(&long(300, ".5").parse().unwrap()), Kind::Float);
    }
}
