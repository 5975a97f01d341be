//! The standard oracle's generators and one-case checks, shared by
//! `tests/standard_oracle.rs` (seeded loops) and the fuzz target
//! `fuzz/fuzz_targets/standard_schemas.rs` (the fuzzer's bytes drive the
//! same generators through `Rng::Bytes`). Schemas are generated per
//! dialect, with that dialect's keywords only; see
//! `tests/standard_oracle.rs` for the differences kept out of the
//! generated space and why.
//!
//! Used beside `tests/oracle/mod.rs` (its `Rng`), as a sibling module:
//! `#[path = "oracle/standard.rs"] mod standard;`.

#![allow(
    dead_code,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::collections::BTreeMap;

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{CompileError, Dialect, Options, OutputUnit, Validator};
use serde_json::{json, Map, Value};

use crate::oracle::Rng;

/// Definitions of a generated document: `d0`, `d1`, `d2`.
pub const DEFINITIONS: usize = 3;

/// Property names of schemas and instances: short names, names a pattern
/// below matches, a non-ASCII one.
pub const KEYS: &[&str] = &["a", "b", "c", "ab", "name", "kind", "x", "yz", "a1", "_", "é"];

/// Patterns of the portable subset (the gateway's grammar, which
/// ECMAScript and the `jsonschema` crate's translation read alike).
pub const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "ab",
    "^a",
    "b$",
    "[0-9]",
    "^(x|yz)*$",
    "^\\d+$",
    "^\\w*$",
    "^[^_]*$",
    "^.{1,2}$",
    "é",
    "a|b",
    "^[a-c]?[0-9]?$",
    "^(?:na|ki)",
];

/// Strings of instances, `const` and `enum`: lengths 0 to 4 in code
/// points, astral and non-ASCII ones, the names above.
pub const STRINGS: &[&str] = &[
    "", "a", "ab", "abc", "b", "x", "yz", "xyz", "é", "😀", "a😀", "a1", "12", "B", "name", "kind", "_a",
    "a\n",
];

/// Numbers as written: integers, integers written as floats or with an
/// exponent (`1.0` and `1e2` are integers), fractions, decimals that are
/// not exact in binary, and integers past 2^53 and past 64 bits (far from
/// every other number). Every float is an exact double (see the test file).
pub const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-3",
    "4",
    "10",
    "100",
    "1.0",
    "2.0",
    "-2.0",
    "0.0",
    "0.5",
    "1.5",
    "-2.5",
    "0.1",
    "0.3",
    "0.0075",
    "2.25",
    "1e2",
    "2.5e-3",
    "-0.0",
    "1e20",
    "9007199254740993",
    "-9223372036854775809",
    "18446744073709551616",
    "1180591620717411303425",
];

/// Bounds: small integers and half-integers, an integer written as a float,
/// a wide integer.
pub const BOUNDS: &[&str] = &[
    "-2",
    "0",
    "1",
    "2",
    "3",
    "-1.5",
    "0.5",
    "2.5",
    "2.0",
    "18446744073709551616",
];

/// Divisors of `multipleOf`.
pub const DIVISORS: &[&str] = &["1", "2", "3", "0.5", "0.25", "1.5", "0.1", "0.0025", "2.0"];

/// Formats: annotations on both sides (the oracle runs `jsonschema` with
/// format validation off).
pub const FORMATS: &[&str] = &["email", "date", "ipv4", "uri", "regex", "not-a-format"];

pub fn number(text: &str) -> Value {
    Value::Number(text.parse().unwrap())
}

/// The `jsonschema` crate's draft for a dialect.
pub fn their_draft(dialect: Dialect) -> jsonschema::Draft {
    match dialect {
        Dialect::Draft4 => jsonschema::Draft::Draft4,
        Dialect::Draft6 => jsonschema::Draft::Draft6,
        Dialect::Draft7 => jsonschema::Draft::Draft7,
        Dialect::Draft2019_09 => jsonschema::Draft::Draft201909,
        Dialect::Draft2020_12 => jsonschema::Draft::Draft202012,
    }
}

// ---------------------------------------------------------------- instances

/// How instances are generated: from the pools above, and from `hints`
/// (the `enum` and `const` values of the schema at hand, so that they
/// match now and then); `integral_floats: false` writes every integer
/// without a fraction (`1`, never `1.0`).
#[derive(Clone, Copy)]
pub struct Values<'h> {
    pub hints: &'h [Value],
    pub integral_floats: bool,
}

impl Values<'_> {
    /// Values for schemas (`enum`, `const`): the pools alone.
    pub const PLAIN: Values<'static> = Values {
        hints: &[],
        integral_floats: true,
    };

    pub fn scalar(self, rng: &mut Rng) -> Value {
        if !self.hints.is_empty() && rng.chance(4) {
            return self.written(rng.pick(self.hints).clone());
        }
        match rng.below(8) {
            0..=2 => self.written(number(rng.pick::<&str>(NUMBERS))),
            3 | 4 => json!(*rng.pick(STRINGS)),
            5 => json!(rng.chance(2)),
            6 => Value::Null,
            _ => json!(*rng.pick(KEYS)),
        }
    }

    /// A value: nested arrays and objects keyed by `KEYS`; some arrays
    /// hold equal items (`1` and `1.0`, the same object twice).
    pub fn value(self, rng: &mut Rng, depth: usize) -> Value {
        if depth == 0 || rng.chance(2) {
            return self.scalar(rng);
        }
        if rng.chance(2) {
            if rng.chance(4) {
                let item = self.value(rng, depth - 1);
                let twin = self.written(equal_variant(&item));
                let mut items = vec![item, twin];
                if rng.chance(2) {
                    items.insert(rng.below(3), self.value(rng, depth - 1));
                }
                return Value::Array(items);
            }
            Value::Array((0..rng.below(5)).map(|_| self.value(rng, depth - 1)).collect())
        } else {
            self.object(rng, depth)
        }
    }

    pub fn object(self, rng: &mut Rng, depth: usize) -> Value {
        let mut map = Map::new();
        // Now and then many members (lookups past eight names).
        let members = if rng.chance(6) {
            6 + rng.below(6)
        } else {
            rng.below(5)
        };
        for _ in 0..members {
            map.insert(
                rng.pick(KEYS).to_string(),
                self.value(rng, depth.saturating_sub(1)),
            );
        }
        Value::Object(map)
    }

    /// `value`, its integral floats written as integers unless allowed.
    pub fn written(self, value: Value) -> Value {
        if self.integral_floats {
            value
        } else {
            without_integral_floats(value)
        }
    }
}

/// The same value written differently where JSON allows: `1` as `1.0` and
/// back, in items and members too.
pub fn equal_variant(value: &Value) -> Value {
    match value {
        Value::Number(n) => {
            let text = n.to_string();
            if let Some(whole) = text.strip_suffix(".0") {
                number(whole)
            } else if text.parse::<i64>().is_ok_and(|i| i.unsigned_abs() <= 1 << 53) {
                // Past 2^53 a float is no longer exact (see the test file).
                number(&format!("{text}.0"))
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(equal_variant).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), equal_variant(v))).collect()),
        other => other.clone(),
    }
}

/// Every `1.0`-like number written as an integer (`1e2` as `100`).
pub fn without_integral_floats(value: Value) -> Value {
    match value {
        Value::Number(n) if has_integral_float(&Value::Number(n.clone())) => {
            let text = n.to_string();
            match text.strip_suffix(".0") {
                Some(whole) if whole != "-0" => number(whole),
                _ => {
                    // Exact: the pools' floats are exact doubles.
                    let f: f64 = text.parse().unwrap();
                    number(&if f == 0.0 {
                        "0".to_string()
                    } else {
                        format!("{f:.0}")
                    })
                }
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(without_integral_floats).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, without_integral_floats(v)))
                .collect(),
        ),
        other => other,
    }
}

/// The `enum` and `const` values of a schema, anywhere in it.
pub fn hints(schema: &Value) -> Vec<Value> {
    let mut found = Vec::new();
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                for (key, member) in map {
                    match (key.as_str(), member) {
                        ("enum", Value::Array(choices)) => found.extend(choices.iter().cloned()),
                        ("const", c) => found.push(c.clone()),
                        _ => pending.push(member),
                    }
                }
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    found
}

/// Whether a value holds a number written with a fraction or an exponent
/// whose value is an integer (`1.0`): an integer to the standard, not to
/// the gateway.
pub fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            let text = n.to_string();
            text.contains(['.', 'e', 'E']) && text.parse::<f64>().is_ok_and(|f| f.fract() == 0.0)
        }
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

/// A key for JSON equality (`1` equals `1.0`): numbers by their value.
fn canonical(value: &Value) -> String {
    match value {
        Value::Number(n) => {
            let text = n.to_string();
            match text.parse::<f64>() {
                Ok(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
                _ => text,
            }
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        Value::Object(map) => {
            let mut entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", canonical(v)))
                .collect();
            entries.sort();
            format!("{{{}}}", entries.join(","))
        }
        other => other.to_string(),
    }
}

/// Values without two equal ones (`enum`, `type` lists, `required`).
fn distinct(values: Vec<Value>) -> Vec<Value> {
    let mut seen = std::collections::HashSet::new();
    values.into_iter().filter(|v| seen.insert(canonical(v))).collect()
}

// ------------------------------------------------------------------ schemas

/// A schema generator for one dialect.
pub struct Gen<'r, 'b> {
    pub rng: &'r mut Rng<'b>,
    pub dialect: Dialect,
    /// Only what the gateway's subset knows, with its semantics (no `$ref`
    /// beside other keywords before 2019-09, no `multipleOf`,
    /// `patternProperties`, `if`, `contains`, `unevaluated*`, ...).
    pub gateway: bool,
    /// 2019-09: a document has `contains` or `unevaluatedItems`, never
    /// both (`jsonschema` lets 2019-09's `contains` mark items evaluated;
    /// see the test file). Chosen by `document`.
    pub contains_only: Option<bool>,
}

impl Gen<'_, '_> {
    fn since(&self, first: Dialect) -> bool {
        self.dialect >= first
    }

    fn definitions_key(&self) -> &'static str {
        if self.since(Dialect::Draft2019_09) {
            "$defs"
        } else {
            "definitions"
        }
    }

    /// A reference. `same_value`: `None` where the instance is a child of
    /// the one the referring schema applies to (any target, the root
    /// too); `Some(k)` where it is the same value, and only `dk` and later
    /// definitions are allowed, so no chain of references loops on one
    /// value.
    fn reference(&mut self, same_value: Option<usize>) -> Option<Value> {
        let prefix = format!("#/{}/", self.definitions_key());
        match same_value {
            None if self.rng.chance(4) => Some(json!("#")),
            None => Some(json!(format!("{prefix}d{}", self.rng.below(DEFINITIONS)))),
            Some(low) if low < DEFINITIONS => Some(json!(format!(
                "{prefix}d{}",
                low + self.rng.below(DEFINITIONS - low)
            ))),
            Some(_) => None,
        }
    }

    /// A boolean, for a place that takes one in every dialect
    /// (`additionalProperties`, `additionalItems`); `true` more often.
    fn boolean(&mut self) -> Value {
        json!(self.rng.chance(3) || self.rng.chance(2))
    }

    /// A subschema: sometimes a boolean (draft 6 on), sometimes a bare
    /// reference.
    pub fn subschema(&mut self, depth: usize, same_value: Option<usize>) -> Value {
        if self.since(Dialect::Draft6) && self.rng.chance(8) {
            return self.boolean();
        }
        if self.rng.chance(5) {
            if let Some(target) = self.reference(same_value) {
                return json!({ "$ref": target });
            }
        }
        self.schema(depth, same_value)
    }

    /// A subschema for `additionalProperties`/`additionalItems`: a boolean
    /// in every dialect.
    fn additional(&mut self, depth: usize) -> Value {
        if self.rng.chance(2) {
            self.boolean()
        } else {
            self.subschema(depth, None)
        }
    }

    fn list(&mut self, depth: usize, same_value: Option<usize>) -> Value {
        Value::Array(
            (0..self.rng.below(3) + 1)
                .map(|_| self.subschema(depth, same_value))
                .collect(),
        )
    }

    fn names(&mut self, at_least: usize) -> Value {
        let names: Vec<Value> = (0..self.rng.below(3) + at_least)
            .map(|_| json!(*self.rng.pick(KEYS)))
            .collect();
        Value::Array(distinct(names))
    }

    fn count(&mut self, below: usize) -> Value {
        json!(self.rng.below(below))
    }

    /// A schema object: one to three keyword families.
    pub fn schema(&mut self, depth: usize, same_value: Option<usize>) -> Value {
        let mut s = Map::new();
        let deeper = depth.saturating_sub(1);
        let d4 = self.dialect == Dialect::Draft4;
        let gw = self.gateway;
        for _ in 0..self.rng.below(3) + 1 {
            match self.rng.below(25) {
                0 | 1 => {
                    let types = [
                        "object", "array", "string", "integer", "number", "boolean", "null",
                    ];
                    if self.rng.chance(2) {
                        s.insert("type".into(), json!(*self.rng.pick(&types)));
                    } else {
                        let list: Vec<Value> = (0..2).map(|_| json!(*self.rng.pick(&types))).collect();
                        s.insert("type".into(), Value::Array(distinct(list)));
                    }
                }
                2 => {
                    let choices: Vec<Value> = (0..self.rng.below(3) + 1)
                        .map(|_| Values::PLAIN.value(self.rng, 1))
                        .collect();
                    s.insert("enum".into(), Value::Array(distinct(choices)));
                }
                3 if self.since(Dialect::Draft6) => {
                    s.insert("const".into(), Values::PLAIN.value(self.rng, 2));
                }
                4 => {
                    let (key, flag) = if self.rng.chance(2) {
                        ("minimum", "exclusiveMinimum")
                    } else {
                        ("maximum", "exclusiveMaximum")
                    };
                    s.insert(key.into(), number(self.rng.pick::<&str>(BOUNDS)));
                    if d4 && self.rng.chance(2) {
                        s.insert(flag.into(), json!(self.rng.chance(2)));
                    }
                }
                5 => {
                    // Draft 4: a boolean beside its bound (the metaschema
                    // wants the bound); after: a number.
                    let (key, bound) = if self.rng.chance(2) {
                        ("exclusiveMinimum", "minimum")
                    } else {
                        ("exclusiveMaximum", "maximum")
                    };
                    if d4 {
                        s.insert(bound.into(), number(self.rng.pick::<&str>(BOUNDS)));
                        s.insert(key.into(), json!(!self.rng.chance(3)));
                    } else {
                        s.insert(key.into(), number(self.rng.pick::<&str>(BOUNDS)));
                    }
                }
                6 if !gw => {
                    s.insert("multipleOf".into(), number(self.rng.pick::<&str>(DIVISORS)));
                }
                7 => {
                    let key = if self.rng.chance(2) {
                        "minLength"
                    } else {
                        "maxLength"
                    };
                    s.insert(key.into(), self.count(4));
                }
                8 => {
                    s.insert("pattern".into(), json!(*self.rng.pick(PATTERNS)));
                }
                9 if depth > 0 => self.items(&mut s, deeper),
                10 if depth > 0
                    && !gw
                    && self.since(Dialect::Draft6)
                    && self.contains_only != Some(false) =>
                {
                    s.insert("contains".into(), self.subschema(deeper, None));
                    if self.since(Dialect::Draft2019_09) {
                        if self.rng.chance(2) {
                            s.insert("minContains".into(), self.count(3));
                        }
                        if self.rng.chance(2) {
                            s.insert("maxContains".into(), self.count(3));
                        }
                    }
                }
                11 => {
                    if self.rng.chance(2) {
                        let key = if self.rng.chance(2) {
                            "minItems"
                        } else {
                            "maxItems"
                        };
                        s.insert(key.into(), self.count(4));
                    } else {
                        s.insert("uniqueItems".into(), json!(!self.rng.chance(4)));
                    }
                }
                12 if depth > 0 => {
                    let mut properties = Map::new();
                    let count = if self.rng.chance(5) {
                        KEYS.len()
                    } else {
                        self.rng.below(3) + 1
                    };
                    for _ in 0..count {
                        properties.insert(self.rng.pick(KEYS).to_string(), self.subschema(deeper, None));
                    }
                    s.insert("properties".into(), Value::Object(properties));
                    if self.rng.chance(3) {
                        s.insert("additionalProperties".into(), self.additional(deeper));
                    }
                }
                13 if depth > 0 && !gw => {
                    let mut patterns = Map::new();
                    for _ in 0..self.rng.below(2) + 1 {
                        patterns.insert(self.rng.pick(PATTERNS).to_string(), self.subschema(deeper, None));
                    }
                    s.insert("patternProperties".into(), Value::Object(patterns));
                    if self.rng.chance(3) {
                        s.insert("additionalProperties".into(), self.additional(deeper));
                    }
                }
                14 if depth > 0 => {
                    s.insert("additionalProperties".into(), self.additional(deeper));
                }
                15 if self.since(Dialect::Draft6) => {
                    let names = match self.rng.below(5) {
                        0 => self.boolean(),
                        1 => json!({"maxLength": self.rng.below(3) + 1}),
                        2 => json!({"pattern": *self.rng.pick(PATTERNS)}),
                        3 if depth > 0 => self.subschema(deeper, None),
                        _ => json!({"enum": [*self.rng.pick(KEYS), *self.rng.pick(KEYS)]}),
                    };
                    s.insert("propertyNames".into(), names);
                }
                16 => {
                    // Draft 4's metaschema wants at least one name.
                    let names = self.names(usize::from(d4));
                    s.insert("required".into(), names);
                }
                17 => self.dependencies(&mut s, deeper, same_value, depth > 0),
                18 if !gw => {
                    let key = if self.rng.chance(2) {
                        "minProperties"
                    } else {
                        "maxProperties"
                    };
                    s.insert(key.into(), self.count(4));
                }
                19 if depth > 0 => match self.rng.below(4) {
                    0 => {
                        let list = self.list(deeper, same_value);
                        s.insert("allOf".into(), list);
                    }
                    1 => {
                        let list = self.list(deeper, same_value);
                        s.insert("anyOf".into(), list);
                    }
                    2 => {
                        let list = self.list(deeper, same_value);
                        s.insert("oneOf".into(), list);
                    }
                    _ => {
                        s.insert("not".into(), self.subschema(deeper, same_value));
                    }
                },
                20 if depth > 0 && !gw && self.since(Dialect::Draft7) => {
                    s.insert("if".into(), self.subschema(deeper, same_value));
                    if !self.rng.chance(3) {
                        s.insert("then".into(), self.subschema(deeper, same_value));
                    }
                    if self.rng.chance(2) {
                        s.insert("else".into(), self.subschema(deeper, same_value));
                    }
                }
                21 if !gw || self.since(Dialect::Draft2019_09) => {
                    // A reference beside other keywords: ignored siblings
                    // before 2019-09, both applied after.
                    if let Some(target) = self.reference(same_value) {
                        s.insert("$ref".into(), target);
                    }
                }
                22 | 23 if depth > 0 && !gw && self.since(Dialect::Draft2019_09) => {
                    let key = if self.rng.chance(2) || self.contains_only == Some(true) {
                        "unevaluatedProperties"
                    } else {
                        "unevaluatedItems"
                    };
                    let value = if self.rng.chance(2) {
                        self.boolean()
                    } else {
                        self.subschema(deeper, None)
                    };
                    s.insert(key.into(), value);
                }
                _ => {
                    // Annotations: no effect on either side's verdict.
                    let annotations = [
                        ("description", json!("d")),
                        ("title", json!("t")),
                        ("default", json!(3)),
                        ("format", json!(*self.rng.pick(FORMATS))),
                    ];
                    let (key, value) = self.rng.pick(&annotations).clone();
                    s.insert(key.into(), value);
                }
            }
        }
        Value::Object(s)
    }

    /// `items` and its neighbours, in the dialect's form.
    fn items(&mut self, s: &mut Map<String, Value>, depth: usize) {
        if self.since(Dialect::Draft2020_12) {
            if self.rng.chance(2) {
                let prefix: Vec<Value> = (0..self.rng.below(3) + 1)
                    .map(|_| self.subschema(depth, None))
                    .collect();
                s.insert("prefixItems".into(), Value::Array(prefix));
            }
            if self.rng.chance(3) {
                // A draft-07 leftover: no keyword here, no effect.
                s.insert("additionalItems".into(), self.additional(depth));
            } else if self.rng.chance(2) || !s.contains_key("prefixItems") {
                s.insert("items".into(), self.additional(depth));
            }
            return;
        }
        if self.rng.chance(2) {
            s.insert("items".into(), self.subschema(depth, None));
            if self.rng.chance(4) {
                // Beside a schema `items`: no effect.
                s.insert("additionalItems".into(), self.additional(depth));
            }
        } else {
            let tuple: Vec<Value> = (0..self.rng.below(3) + 1)
                .map(|_| self.subschema(depth, None))
                .collect();
            s.insert("items".into(), Value::Array(tuple));
            if self.rng.chance(2) {
                s.insert("additionalItems".into(), self.additional(depth));
            }
        }
    }

    /// `dependencies` (drafts 4 to 7, both forms) or `dependentRequired` and
    /// `dependentSchemas` (2019-09 on, and at times `dependencies` there too).
    fn dependencies(
        &mut self,
        s: &mut Map<String, Value>,
        depth: usize,
        same_value: Option<usize>,
        deep: bool,
    ) {
        let d4 = self.dialect == Dialect::Draft4;
        let mut map = Map::new();
        if self.since(Dialect::Draft2019_09) {
            let schemas = deep && !self.gateway && self.rng.chance(2);
            for _ in 0..self.rng.below(2) + 1 {
                let name = self.rng.pick(KEYS).to_string();
                let value = if schemas {
                    self.subschema(depth, same_value)
                } else {
                    self.names(0)
                };
                map.insert(name, value);
            }
            // Now and then the older `dependencies`, which the later
            // metaschemas keep: lists of names only (its schemas and
            // `unevaluatedProperties`: see the test file).
            let key = if !schemas && !self.gateway && self.rng.chance(4) {
                "dependencies"
            } else if schemas {
                "dependentSchemas"
            } else {
                "dependentRequired"
            };
            s.insert(key.into(), Value::Object(map));
            return;
        }
        if self.gateway {
            // The gateway has no `dependencies`.
            s.insert("required".into(), self.names(1));
            return;
        }
        for _ in 0..self.rng.below(2) + 1 {
            let name = self.rng.pick(KEYS).to_string();
            let value = if deep && self.rng.chance(2) {
                self.subschema(depth, same_value)
            } else {
                self.names(usize::from(d4))
            };
            map.insert(name, value);
        }
        s.insert("dependencies".into(), Value::Object(map));
    }

    /// A whole document: a root schema and its definitions, which the
    /// references point at. `object_root`: the root is `type: object`
    /// (the gateway's tool schemas).
    pub fn document(&mut self, object_root: bool) -> Value {
        self.contains_only = (self.dialect == Dialect::Draft2019_09).then(|| self.rng.chance(2));
        let depth = 2 + usize::from(self.rng.chance(3));
        let mut root = match self.schema(depth, Some(0)) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        // No reference at the root: before 2019-09 it would hide the
        // definitions beside it.
        root.remove("$ref");
        if object_root {
            root.insert("type".into(), json!("object"));
            if !root.contains_key("properties") && self.rng.chance(2) {
                let mut properties = Map::new();
                for _ in 0..self.rng.below(3) + 1 {
                    properties.insert(self.rng.pick(KEYS).to_string(), self.subschema(2, None));
                }
                root.insert("properties".into(), Value::Object(properties));
            }
        }
        let mut definitions = Map::new();
        for k in 0..DEFINITIONS {
            definitions.insert(format!("d{k}"), self.subschema(2, Some(k + 1)));
        }
        root.insert(self.definitions_key().into(), Value::Object(definitions));
        Value::Object(root)
    }
}

// ------------------------------------------------------------------ checks

/// What the generated schemas gave.
#[derive(Default, Debug, Clone)]
pub struct Tally {
    /// Instances whose verdicts were compared.
    pub compared: usize,
    /// Of those, valid ones.
    pub valid: usize,
    /// Schemas both refused (metaschema, malformed keyword).
    pub refused_by_both: usize,
    /// Instances not compared: a validation over its work or depth limit.
    pub over_limit: usize,
    /// Why the schemas both refused were refused here, by reason.
    pub refusals: BTreeMap<String, usize>,
    /// The keywords of the output units of invalid instances, with how
    /// many units each: what the comparisons exercised.
    pub failing_keywords: BTreeMap<&'static str, usize>,
}

impl Tally {
    /// The failing keywords, most frequent first.
    pub fn failing(&self) -> String {
        let mut counts: Vec<_> = self.failing_keywords.iter().collect();
        counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        counts
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub fn refused(&self) -> String {
        self.refusals
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The three ways of asking agree: `is_valid`, `validate` (empty exactly
/// when valid), and `validate` again (the same units). `None` when a
/// validation stopped over a limit (then both stop... or not: the
/// early-stopping `is_valid` may answer within a budget `validate`
/// exceeds; neither is a verdict to compare).
pub fn standard_verdict(ours: &Validator, schema: &Value, instance: &Value) -> Option<bool> {
    standard_units(ours, schema, instance).map(|units| units.is_empty())
}

/// [`standard_verdict`], with `validate`'s units.
pub fn standard_units(ours: &Validator, schema: &Value, instance: &Value) -> Option<Vec<OutputUnit>> {
    let quick = ours.is_valid(JsonRef::from(instance));
    let units = ours.validate(JsonRef::from(instance));
    let again = ours.validate(JsonRef::from(instance));
    assert_eq!(
        units, again,
        "validate is not deterministic\nschema {schema}\ninstance {instance}"
    );
    match (quick, units) {
        (Ok(valid), Ok(units)) => {
            assert_eq!(
                valid,
                units.is_empty(),
                "is_valid says {valid}, validate gives {} units: {}\nschema {schema}\ninstance {instance}",
                units.len(),
                show_units(&units)
            );
            Some(units)
        }
        _ => None,
    }
}

fn show_units(units: &[OutputUnit]) -> String {
    units
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

pub fn compile_ours(schema: &Value, dialect: Dialect) -> Result<Validator, CompileError> {
    let options = Options {
        dialect,
        ..Options::default()
    };
    Validator::compile(schema, &options)
}

/// A refusal's kind and where: `metaschema dependencies at exclusiveMinimum`.
fn refusal(error: &CompileError) -> String {
    let last = |pointer: &str| pointer.rsplit('/').next().unwrap_or("").to_string();
    match error {
        CompileError::Metaschema { failures, .. } => match failures.first() {
            Some(f) => format!("metaschema {} at {}", f.keyword, last(&f.pointer)),
            None => "metaschema".to_string(),
        },
        other => format!("{} at {}", other.reason(), last(other.pointer().unwrap_or(""))),
    }
}

pub fn compile_theirs(schema: &Value, dialect: Dialect) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .with_draft(their_draft(dialect))
        .should_validate_formats(false)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// A disagreement, ready to print.
#[derive(Debug, Clone)]
pub struct Disagreement {
    pub dialect: Dialect,
    pub what: String,
    pub schema: Value,
    pub instance: Option<Value>,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "[{}] {}", self.dialect.name(), self.what)?;
        writeln!(f, "  schema   {}", self.schema)?;
        if let Some(instance) = &self.instance {
            writeln!(f, "  instance {instance}")?;
        }
        Ok(())
    }
}

/// One generated document of `dialect` against `jsonschema`'s same draft,
/// on `instances` generated instances, counted in `tally`. Disagreements are
/// pushed to `found`.
pub fn standard_case(
    tally: &mut Tally,
    rng: &mut Rng,
    dialect: Dialect,
    instances: usize,
    found: &mut Vec<Disagreement>,
) {
    let schema = Gen {
        rng,
        dialect,
        gateway: false,
        contains_only: None,
    }
    .document(false);
    let ours = compile_ours(&schema, dialect);
    let theirs = compile_theirs(&schema, dialect);
    let (ours, theirs) = match (ours, theirs) {
        (Ok(ours), Ok(theirs)) => (ours, theirs),
        (Err(e), Err(_)) => {
            tally.refused_by_both += 1;
            *tally.refusals.entry(refusal(&e)).or_default() += 1;
            return;
        }
        (Ok(_), Err(e)) => {
            found.push(Disagreement {
                dialect,
                what: format!("compiles here, jsonschema refuses it: {e}"),
                schema,
                instance: None,
            });
            return;
        }
        (Err(e), Ok(_)) => {
            found.push(Disagreement {
                dialect,
                what: format!("jsonschema compiles it, refused here: {e}"),
                schema,
                instance: None,
            });
            return;
        }
    };
    let hints = hints(&schema);
    // Draft 4: `1.0` is no integer to `jsonschema` (see the test file).
    let values = Values {
        hints: &hints,
        integral_floats: dialect != Dialect::Draft4,
    };
    for _ in 0..instances {
        let instance = values.value(rng, 4);
        let Some(units) = standard_units(&ours, &schema, &instance) else {
            tally.over_limit += 1;
            continue;
        };
        for unit in &units {
            *tally.failing_keywords.entry(unit.keyword).or_default() += 1;
        }
        let verdict = units.is_empty();
        let expected = theirs.is_valid(&instance);
        tally.compared += 1;
        tally.valid += usize::from(verdict);
        if verdict != expected {
            found.push(Disagreement {
                dialect,
                what: format!("valid here: {verdict}, jsonschema: {expected}"),
                schema: schema.clone(),
                instance: Some(instance),
            });
        }
    }
}

/// What the gateway-subset schemas gave.
#[derive(Default, Debug, Clone)]
pub struct GatewayTally {
    /// Instances compared.
    pub compared: usize,
    /// Of those, valid ones.
    pub valid: usize,
    /// Schemas one side refuses (outside the gateway's subset, or the
    /// dialect's metaschema refuses a gateway form): not compared.
    pub schemas_skipped: usize,
    /// Instances with a `1.0`-like number, or over a limit: not compared.
    pub instances_skipped: usize,
    /// Why schemas were skipped: which side refused, and its reason.
    pub refusals: BTreeMap<String, usize>,
}

impl GatewayTally {
    pub fn refused(&self) -> String {
        self.refusals
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One generated gateway-subset document (object root, object
/// instances) in `dialect`: the gateway's verdict equals the standard one.
pub fn gateway_case(
    tally: &mut GatewayTally,
    rng: &mut Rng,
    dialect: Dialect,
    instances: usize,
    found: &mut Vec<Disagreement>,
) {
    use input_schema_core::schema::compile;
    use input_schema_core::validate::validate;

    let schema = Gen {
        rng,
        dialect,
        gateway: true,
        contains_only: None,
    }
    .document(true);
    let (gateway, ours) = match (compile(JsonRef::from(&schema)), compile_ours(&schema, dialect)) {
        (Ok(gateway), Ok(ours)) => (gateway, ours),
        (gateway, ours) => {
            tally.schemas_skipped += 1;
            let mut why = Vec::new();
            if let Err(e) = gateway {
                why.push(format!("gateway: {}", e.error));
            }
            if let Err(e) = ours {
                why.push(format!("standard: {}", refusal(&e)));
            }
            *tally.refusals.entry(why.join(" / ")).or_default() += 1;
            return;
        }
    };
    let hints = hints(&schema);
    // `1.0` is no integer to the gateway.
    let values = Values {
        hints: &hints,
        integral_floats: false,
    };
    for _ in 0..instances {
        let instance = values.object(rng, 4);
        let Some(verdict) = standard_verdict(&ours, &schema, &instance) else {
            tally.instances_skipped += 1;
            continue;
        };
        if has_integral_float(&instance) {
            tally.instances_skipped += 1;
            continue;
        }
        let gate = validate(&gateway, JsonRef::from(&instance));
        if let Err(error) = &gate {
            if error.is_aborting() {
                tally.instances_skipped += 1;
                continue;
            }
        }
        tally.compared += 1;
        tally.valid += usize::from(verdict);
        if gate.is_ok() != verdict {
            found.push(Disagreement {
                dialect,
                what: format!("standard: {verdict}, gateway: {gate:?}"),
                schema: schema.clone(),
                instance: Some(instance),
            });
        }
    }
}
