//! A short way through the metaschema check for the schemas most written:
//! a 2020-12 schema whose every keyword is one of the common ones with a
//! plainly valid value is valid against the 2020-12 metaschema. Evaluating
//! the metaschema itself (its `$dynamicRef` to the root for every
//! subschema, seven vocabulary schemas folded into one plan, a uniqueness
//! check per `required`) costs a compile of such a schema 25-45 % of its
//! instructions; reading the schema once against the same rules costs a
//! fraction of that.
//!
//! The answer is only ever "valid" or "not known": anything this reading
//! does not know for certain (a keyword it does not read, a value of
//! another shape, `$schema` below the root, a vocabulary of the schema's
//! own, a nesting past `MAX_DEPTH`, more than `MAX_VALUES` values) sends
//! the schema through the metaschema, which also says where and why it
//! fails. So the check's verdicts and errors are the metaschema's; only
//! its cost changes. `tests::every_schema_read_as_valid_passes_the_metaschema`
//! holds the rules against the metaschema on the official test suite's
//! schemas and on cases either side of each rule.

use serde_json::Value as Json;

use crate::budget::Budget;
use crate::json::JsonRef;
use crate::value::{Kind, Value};

/// The deepest nesting read; past it, the metaschema decides.
const MAX_DEPTH: usize = 32;

/// The most values read; past them, the metaschema decides.
const MAX_VALUES: usize = 4_096;

/// The types `type` may name (the 2020-12 metaschema's `simpleTypes`).
const SIMPLE_TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// Whether `schema`, a document of the 2020-12 dialect, is certainly valid
/// against the 2020-12 metaschema. Each value read is charged a unit of
/// `budget`; `Err` when it runs out.
pub(crate) fn known_valid(schema: &Json, budget: &Budget) -> Result<bool, ()> {
    Reading { budget, values: 0 }.schema(schema, 0, true)
}

struct Reading<'b> {
    budget: &'b Budget,
    values: usize,
}

impl Reading<'_> {
    fn visit(&mut self) -> Result<bool, ()> {
        self.budget.charge_one().map_err(|_| ())?;
        self.values += 1;
        Ok(self.values <= MAX_VALUES)
    }

    /// A subschema: `true`, `false`, or an object of known-valid keywords.
    fn schema(&mut self, value: &Json, depth: usize, root: bool) -> Result<bool, ()> {
        if !self.visit()? || depth > MAX_DEPTH {
            return Ok(false);
        }
        let map = match value {
            Json::Bool(_) => return Ok(true),
            Json::Object(map) => map,
            _ => return Ok(false),
        };
        for (key, value) in map {
            if !self.visit()? || !self.keyword(key, value, depth, root)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn keyword(&mut self, key: &str, value: &Json, depth: usize, root: bool) -> Result<bool, ()> {
        Ok(match key {
            "additionalProperties"
            | "contains"
            | "else"
            | "if"
            | "items"
            | "not"
            | "propertyNames"
            | "then"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema" => self.schema(value, depth + 1, false)?,
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                Json::Array(items) if !items.is_empty() => self.all(items, depth)?,
                _ => false,
            },
            "properties" | "patternProperties" | "$defs" | "dependentSchemas" => match value {
                Json::Object(map) => self.all(map.values(), depth)?,
                _ => false,
            },
            "type" => match value {
                Json::String(name) => SIMPLE_TYPES.contains(&name.as_str()),
                // More names than there are types repeat one.
                Json::Array(names) => {
                    (1..=SIMPLE_TYPES.len()).contains(&names.len())
                        && names
                            .iter()
                            .all(|name| name.as_str().is_some_and(|name| SIMPLE_TYPES.contains(&name)))
                        && distinct_strings(names)
                }
                _ => false,
            },
            "required" => string_array(value),
            "dependentRequired" => match value {
                Json::Object(map) => map.values().all(string_array),
                _ => false,
            },
            "enum" | "examples" => value.is_array(),
            "const" | "default" => true,
            // A number as the walk reads one: an integer of any size or a
            // finite float (a decimal past a float's range is neither).
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                matches!(JsonRef::from(value).kind(), Kind::Integer | Kind::Float)
            }
            "multipleOf" => match JsonRef::from(value).kind() {
                Kind::Integer => value.as_u64().is_some_and(|n| n > 0),
                Kind::Float => value.as_f64().is_some_and(|f| f > 0.0),
                _ => false,
            },
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties"
            | "minContains" | "maxContains" => value.as_u64().is_some(),
            "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => value.is_boolean(),
            "pattern" | "format" | "title" | "description" | "$comment" | "contentEncoding"
            | "contentMediaType" | "$ref" | "$dynamicRef" => value.is_string(),
            "$anchor" | "$dynamicAnchor" => value.as_str().is_some_and(is_anchor),
            // No fragment but an empty one.
            "$id" => value.as_str().is_some_and(|id| match id.find('#') {
                None => true,
                Some(at) => at + 1 == id.len(),
            }),
            // Read by `known_valid` at the root; below it, it may start a
            // resource of another dialect.
            "$schema" => root && value.is_string(),
            // Keywords of the metaschema this reading leaves to it.
            "$vocabulary" | "$recursiveAnchor" | "$recursiveRef" | "definitions" | "dependencies" => false,
            // No vocabulary of the dialect defines any other keyword: the
            // metaschema allows it with any value.
            _ => true,
        })
    }

    fn all<'j>(&mut self, schemas: impl IntoIterator<Item = &'j Json>, depth: usize) -> Result<bool, ()> {
        for schema in schemas {
            if !self.schema(schema, depth + 1, false)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The metaschema's `stringArray`: a list of distinct strings (read here
/// up to 64 names; a longer list is left to the metaschema).
fn string_array(value: &Json) -> bool {
    match value {
        Json::Array(names) => {
            names.len() <= 64 && names.iter().all(Json::is_string) && distinct_strings(names)
        }
        _ => false,
    }
}

/// Whether the strings of `names` are pairwise distinct.
fn distinct_strings(names: &[Json]) -> bool {
    names
        .iter()
        .enumerate()
        .all(|(i, name)| names.iter().skip(i + 1).all(|other| other != name))
}

/// The metaschema's `anchorString`: `^[A-Za-z_][-A-Za-z0-9._]*$`.
fn is_anchor(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::io::Write as _;
    use std::path::{Path, PathBuf};

    use serde_json::{json, Value as Json};

    use super::known_valid;
    use crate::budget::Budget;
    use crate::json::JsonRef;
    use crate::standard::{metaschema, Dialect};

    /// What the metaschema says of `schema`: valid or not.
    fn metaschema_passes(schema: &Json) -> bool {
        let meta = metaschema(Dialect::Draft2020_12).expect("the 2020-12 metaschema builds");
        meta.validate_within(JsonRef::from(schema), &Budget::unlimited())
            .is_ok_and(|failures| failures.is_empty())
    }

    fn read_as_valid(schema: &Json) -> bool {
        known_valid(schema, &Budget::unlimited()) == Ok(true)
    }

    /// Values put in place of each keyword's own, either side of its rule.
    fn replacements() -> Vec<Json> {
        let huge: Json = serde_json::from_str("1e400").unwrap();
        let big: Json = serde_json::from_str("123456789012345678901234567890").unwrap();
        vec![
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(1),
            json!(-1),
            json!(1.0),
            json!(0.5),
            json!(-0.5),
            huge,
            big,
            json!(""),
            json!("string"),
            json!("a#b"),
            json!("a#"),
            json!("_a-1.b"),
            json!("1a"),
            json!([]),
            json!(["string"]),
            json!(["string", "string"]),
            json!(["a", "b"]),
            json!([1]),
            json!([{}]),
            json!([true, {"type": "integer"}]),
            json!({}),
            json!({"a": {}}),
            json!({"a": 1}),
            json!({"a": ["b"]}),
            json!({"a": ["b", "b"]}),
            json!({"type": "strin"}),
        ]
    }

    /// Every rule, both ways: a schema read as valid passes the
    /// metaschema. Run on a schema and on each of its keywords given each
    /// replacement value, at the root and one level down.
    fn holds_for_every_variant(schema: &Json, checked: &mut usize, known: &mut usize) {
        let mut variants = vec![schema.clone()];
        if let Json::Object(map) = schema {
            for key in map.keys() {
                for replacement in replacements() {
                    let mut variant = map.clone();
                    variant.insert(key.clone(), replacement.clone());
                    variants.push(Json::Object(variant.clone()));
                    variants.push(json!({"properties": {"x": Json::Object(variant)}}));
                }
            }
        }
        for variant in variants {
            *checked += 1;
            if read_as_valid(&variant) {
                *known += 1;
                assert!(
                    metaschema_passes(&variant),
                    "read as valid, fails the metaschema: {variant}"
                );
            }
        }
    }

    #[test]
    fn every_schema_read_as_valid_passes_the_metaschema() {
        let keywords = [
            "type",
            "enum",
            "const",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "maxItems",
            "minItems",
            "uniqueItems",
            "maxContains",
            "minContains",
            "maxProperties",
            "minProperties",
            "required",
            "dependentRequired",
            "properties",
            "patternProperties",
            "additionalProperties",
            "propertyNames",
            "items",
            "prefixItems",
            "contains",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "if",
            "then",
            "else",
            "dependentSchemas",
            "unevaluatedItems",
            "unevaluatedProperties",
            "$id",
            "$anchor",
            "$dynamicAnchor",
            "$ref",
            "$dynamicRef",
            "$defs",
            "$comment",
            "$schema",
            "$vocabulary",
            "title",
            "description",
            "default",
            "deprecated",
            "readOnly",
            "writeOnly",
            "examples",
            "format",
            "contentEncoding",
            "contentMediaType",
            "contentSchema",
            "definitions",
            "dependencies",
            "$recursiveAnchor",
            "$recursiveRef",
            "x-unknown",
        ];
        let (mut checked, mut known) = (0, 0);
        for keyword in keywords {
            holds_for_every_variant(&json!({ keyword: {} }), &mut checked, &mut known);
        }
        // Beside the fixtures' shapes: deep, wide and embedded-dialect cases.
        let shapes: Json = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/standard_shapes.json"),
            )
            .unwrap(),
        )
        .unwrap();
        for shape in shapes.as_array().unwrap() {
            let schema = &shape["schema"];
            assert!(read_as_valid(schema), "a common shape is read as valid: {schema}");
            holds_for_every_variant(schema, &mut checked, &mut known);
        }
        let mut deep = json!({"type": "string"});
        for _ in 0..40 {
            deep = json!({ "items": deep });
        }
        assert!(
            !read_as_valid(&deep),
            "past the depth read, the metaschema decides"
        );
        assert!(!read_as_valid(
            &json!({"$defs": {"a": {"$schema": "http://json-schema.org/draft-07/schema#", "items": []}}})
        ));
        assert!(!read_as_valid(&json!({ "type": vec!["string"; 8] })));

        if let Some(root) = suite() {
            let dir = root.join("tests/draft2020-12");
            let mut files = Vec::new();
            collect(&dir, &mut files);
            assert!(files.len() > 40, "the 2020-12 suite is there: {}", dir.display());
            let (mut suite_schemas, mut suite_known) = (0, 0);
            for file in files {
                let groups: Json = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                for group in groups.as_array().unwrap() {
                    let schema = &group["schema"];
                    suite_schemas += 1;
                    suite_known += usize::from(read_as_valid(schema));
                    holds_for_every_variant(schema, &mut checked, &mut known);
                }
            }
            // The short way serves most of the schemas people write.
            println!("2020-12 suite: {suite_known} of {suite_schemas} schemas read as valid");
            assert!(
                suite_known * 2 > suite_schemas,
                "{suite_known} of {suite_schemas}"
            );
        }
        // Enough variants read as valid that each rule's valid side is held
        // against the metaschema.
        println!("{known} of {checked} variants read as valid, each passing the metaschema");
        assert!(
            known * 20 > checked,
            "{known} of {checked} variants read as valid"
        );
    }

    /// The official suite's `json` directory, or `None` (that part of the
    /// test skipped) when `JSON_SCHEMA_SUITE` is not set. Set, it must
    /// hold the 2020-12 tests: `collect` fails on a wrong directory.
    fn suite() -> Option<PathBuf> {
        match std::env::var_os("JSON_SCHEMA_SUITE") {
            Some(root) => Some(PathBuf::from(root)),
            None => {
                // Past the harness's capture of print!, so that it shows.
                let _ = writeln!(
                    std::io::stderr(),
                    "JSON_SCHEMA_SUITE is not set: the official suite's part skipped \
                     (include it: JSON_SCHEMA_SUITE=\"$(scripts/json_schema_suite)\" cargo test)"
                );
                None
            }
        }
    }

    fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                collect(&path, files);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
}
