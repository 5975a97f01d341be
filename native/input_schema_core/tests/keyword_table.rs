//! Which keywords a schema has: each keyword applies in the dialects that
//! define it and in no other (elsewhere it is an unknown keyword, which
//! asserts nothing), and only while its vocabulary is on (`$vocabulary` of a
//! custom metaschema, 2019-09 and 2020-12). Every row pairs a keyword with
//! a schema that fails the row's instance wherever the keyword applies;
//! the dialects come from the specifications (draft 4 to 2020-12), not from
//! the keyword table they check. The official suite shows the keywords
//! applying; these show them not applying.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{Options, Validator};
use serde_json::{json, Value};

const DRAFT4: &str = "http://json-schema.org/draft-04/schema#";
const DRAFT6: &str = "http://json-schema.org/draft-06/schema#";
const DRAFT7: &str = "http://json-schema.org/draft-07/schema#";
const DRAFT2019: &str = "https://json-schema.org/draft/2019-09/schema";
const DRAFT2020: &str = "https://json-schema.org/draft/2020-12/schema";
const DIALECTS: [&str; 5] = [DRAFT4, DRAFT6, DRAFT7, DRAFT2019, DRAFT2020];

/// Whether `instance` is valid against `schema` under the metaschema
/// `meta`, with `resources`; the schema must compile.
fn valid_under(meta: &str, schema: &Value, instance: &Value, resources: &[(String, Value)]) -> bool {
    let mut schema = schema.clone();
    schema["$schema"] = json!(meta);
    let options = Options {
        resources: resources.to_vec(),
        ..Options::default()
    };
    let validator =
        Validator::compile(&schema, &options).unwrap_or_else(|e| panic!("{schema} does not compile: {e}"));
    let valid = validator.is_valid(JsonRef::from(instance)).unwrap();
    // The recording walk agrees with the fast one.
    let units = validator.validate(JsonRef::from(instance)).unwrap();
    assert_eq!(units.is_empty(), valid, "{schema} on {instance}: {units:?}");
    valid
}

/// A schema no instance is valid against, in every dialect (draft 4 has no
/// boolean schemas).
fn never() -> Value {
    json!({"not": {}})
}

/// (keyword, schema, instance the schema fails where the keyword applies,
/// the dialects that define the keyword), with `n` as the subschema that
/// fails every instance.
fn rows(n: Value) -> Vec<(&'static str, Value, Value, Vec<&'static str>)> {
    let all = DIALECTS.to_vec();
    let from6 = vec![DRAFT6, DRAFT7, DRAFT2019, DRAFT2020];
    let from7 = vec![DRAFT7, DRAFT2019, DRAFT2020];
    let from2019 = vec![DRAFT2019, DRAFT2020];
    vec![
        // `false` under `$defs`: no other keyword's vocabulary involved
        // (draft 4's metaschema reads neither `$defs` nor the reference).
        (
            "$dynamicRef",
            json!({"$defs": {"no": false}, "$dynamicRef": "#/$defs/no"}),
            json!(1),
            vec![DRAFT2020],
        ),
        (
            "$recursiveRef",
            json!({"$defs": {"no": false}, "$recursiveRef": "#/$defs/no"}),
            json!(1),
            vec![DRAFT2019],
        ),
        ("allOf", json!({"allOf": [n]}), json!(1), all.clone()),
        ("anyOf", json!({"anyOf": [n]}), json!(1), all.clone()),
        ("oneOf", json!({"oneOf": [n]}), json!(1), all.clone()),
        ("not", json!({"not": {}}), json!(1), all.clone()),
        ("if", json!({"if": {}, "then": n}), json!(1), from7.clone()),
        (
            "dependentSchemas",
            json!({"dependentSchemas": {"a": n}}),
            json!({"a": 1}),
            from2019.clone(),
        ),
        // Split in 2019-09, but kept (deprecated, the same shape) by its
        // and 2020-12's metaschemas, and by the suite's optional
        // `dependencies-compatibility` tests.
        (
            "dependencies",
            json!({"dependencies": {"a": ["b"]}}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "properties",
            json!({"properties": {"a": n}}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "patternProperties",
            json!({"patternProperties": {"^a": n}}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "additionalProperties",
            json!({"additionalProperties": n}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "propertyNames",
            json!({"propertyNames": n}),
            json!({"a": 1}),
            from6.clone(),
        ),
        (
            "prefixItems",
            json!({"prefixItems": [n]}),
            json!([1]),
            vec![DRAFT2020],
        ),
        ("items", json!({"items": n}), json!([1]), all.clone()),
        ("contains", json!({"contains": n}), json!([1]), from6.clone()),
        (
            "unevaluatedProperties",
            json!({"unevaluatedProperties": n}),
            json!({"a": 1}),
            from2019.clone(),
        ),
        (
            "unevaluatedItems",
            json!({"unevaluatedItems": n}),
            json!([1]),
            from2019.clone(),
        ),
        ("type", json!({"type": "string"}), json!(1), all.clone()),
        ("enum", json!({"enum": [2]}), json!(1), all.clone()),
        ("const", json!({"const": 2}), json!(1), from6.clone()),
        ("multipleOf", json!({"multipleOf": 2}), json!(1), all.clone()),
        ("minimum", json!({"minimum": 2}), json!(1), all.clone()),
        ("maximum", json!({"maximum": 0}), json!(1), all.clone()),
        ("minLength", json!({"minLength": 2}), json!("a"), all.clone()),
        ("maxLength", json!({"maxLength": 0}), json!("a"), all.clone()),
        ("pattern", json!({"pattern": "^b"}), json!("a"), all.clone()),
        ("minItems", json!({"minItems": 2}), json!([1]), all.clone()),
        ("maxItems", json!({"maxItems": 0}), json!([1]), all.clone()),
        (
            "uniqueItems",
            json!({"uniqueItems": true}),
            json!([1, 1]),
            all.clone(),
        ),
        (
            "minProperties",
            json!({"minProperties": 2}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "maxProperties",
            json!({"maxProperties": 0}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "required",
            json!({"required": ["b"]}),
            json!({"a": 1}),
            all.clone(),
        ),
        (
            "dependentRequired",
            json!({"dependentRequired": {"a": ["b"]}}),
            json!({"a": 1}),
            from2019.clone(),
        ),
    ]
}

/// The numeric bounds: draft 4's metaschema takes only its boolean form,
/// so the rows of drafts 6 on and draft 4 differ.
fn bound_rows() -> Vec<(&'static str, &'static str, Value, Value, bool)> {
    vec![
        (
            "exclusiveMinimum",
            DRAFT4,
            json!({"minimum": 1, "exclusiveMinimum": true}),
            json!(1),
            false,
        ),
        (
            "exclusiveMaximum",
            DRAFT4,
            json!({"maximum": 1, "exclusiveMaximum": true}),
            json!(1),
            false,
        ),
        (
            "exclusiveMinimum",
            DRAFT6,
            json!({"exclusiveMinimum": 1}),
            json!(1),
            false,
        ),
        (
            "exclusiveMaximum",
            DRAFT6,
            json!({"exclusiveMaximum": 1}),
            json!(1),
            false,
        ),
        (
            "exclusiveMinimum",
            DRAFT2020,
            json!({"exclusiveMinimum": 1}),
            json!(1),
            false,
        ),
        (
            "exclusiveMaximum",
            DRAFT2020,
            json!({"exclusiveMaximum": 1}),
            json!(1),
            false,
        ),
    ]
}

#[test]
fn each_keyword_applies_in_its_dialects_and_nowhere_else() {
    for (keyword, schema, instance, dialects) in rows(never()) {
        for dialect in DIALECTS {
            let applies = dialects.contains(&dialect);
            assert_eq!(
                valid_under(dialect, &schema, &instance, &[]),
                !applies,
                "{keyword} under {dialect}: {schema} on {instance}"
            );
        }
    }
    for (keyword, dialect, schema, instance, valid) in bound_rows() {
        assert_eq!(
            valid_under(dialect, &schema, &instance, &[]),
            valid,
            "{keyword} under {dialect}"
        );
    }
}

#[test]
fn additional_items_is_a_keyword_until_2019_09() {
    // With a list `items` (drafts 4 to 2019-09), `additionalItems` checks
    // the items past it; 2020-12 has no list `items`, and ignores
    // `additionalItems` beside `prefixItems`.
    let with_list = json!({"items": [{}], "additionalItems": never()});
    for dialect in [DRAFT4, DRAFT6, DRAFT7, DRAFT2019] {
        assert!(
            !valid_under(dialect, &with_list, &json!([1, 2]), &[]),
            "{dialect}"
        );
        assert!(valid_under(dialect, &with_list, &json!([1]), &[]), "{dialect}");
    }
    let with_prefix = json!({"prefixItems": [{}], "additionalItems": never()});
    assert!(valid_under(DRAFT2020, &with_prefix, &json!([1, 2]), &[]));
    // Without the applicator vocabulary (2019-09), neither applies.
    let (meta, document) = custom_metaschema("2019-09", &["core", "validation"]);
    let with_false = json!({"items": [{}], "additionalItems": false});
    assert!(valid_under(
        &meta,
        &with_false,
        &json!([1, 2]),
        &[(meta.clone(), document)]
    ));
}

/// A custom metaschema of `dialect` ("2019-09" or "2020-12") that turns on
/// the vocabularies `on` (names of the dialect's vocabularies) and
/// describes schemas with the matching parts of the dialect's metaschema.
fn custom_metaschema(dialect: &str, on: &[&str]) -> (String, Value) {
    let uri = format!("https://example.com/meta/{dialect}/{}", on.join("-"));
    let base = format!("https://json-schema.org/draft/{dialect}");
    let vocabulary: serde_json::Map<String, Value> = on
        .iter()
        .map(|name| (format!("{base}/vocab/{name}"), json!(true)))
        .collect();
    let parts: Vec<Value> = on
        .iter()
        .map(|name| json!({"$ref": format!("{base}/meta/{name}")}))
        .collect();
    let mut meta = json!({
        "$schema": format!("{base}/schema"),
        "$id": uri,
        "$vocabulary": vocabulary,
        "allOf": parts,
    });
    if dialect == "2020-12" {
        meta["$dynamicAnchor"] = json!("meta");
    } else {
        meta["$recursiveAnchor"] = json!(true);
    }
    (uri, meta)
}

/// The rows of keywords of 2019-09 and 2020-12 by vocabulary.
fn vocabulary_of(keyword: &str) -> &'static str {
    match keyword {
        "$dynamicRef" | "$recursiveRef" => "core",
        "type" | "enum" | "const" | "multipleOf" | "minimum" | "maximum" | "minLength" | "maxLength"
        | "pattern" | "minItems" | "maxItems" | "uniqueItems" | "minProperties" | "maxProperties"
        | "required" | "dependentRequired" => "validation",
        "unevaluatedProperties" | "unevaluatedItems" => "unevaluated",
        _ => "applicator",
    }
}

#[test]
fn a_keyword_applies_only_while_its_vocabulary_is_on() {
    for dialect in ["2019-09", "2020-12"] {
        let uri = format!("https://json-schema.org/draft/{dialect}/schema");
        // 2019-09 has no vocabulary of its own for `unevaluated*`: they
        // belong to its applicator vocabulary.
        let families: &[(&[&str], &[&str])] = if dialect == "2020-12" {
            &[
                (&["core", "validation"], &["core", "validation"]),
                (
                    &["core", "applicator", "unevaluated"],
                    &["core", "applicator", "unevaluated"],
                ),
                (&["core", "applicator"], &["core", "applicator"]),
            ]
        } else {
            &[
                (&["core", "validation"], &["core", "validation"]),
                (&["core", "applicator"], &["core", "applicator", "unevaluated"]),
            ]
        };
        for (on, families_on) in families {
            let (meta, document) = custom_metaschema(dialect, on);
            let resources = [(meta.clone(), document)];
            // `false` fails every instance whatever the vocabularies
            // (`{"not": {}}` needs the applicator vocabulary).
            for (keyword, schema, instance, dialects) in rows(json!(false)) {
                if !dialects.contains(&uri.as_str()) {
                    continue;
                }
                let applies = families_on.contains(&vocabulary_of(keyword));
                assert_eq!(
                    valid_under(&meta, &schema, &instance, &resources),
                    !applies,
                    "{keyword} under {meta}"
                );
            }
        }
    }
}

/// A custom metaschema may turn a vocabulary on without describing its
/// keywords (nothing checks their values before the compiler does): the
/// compiler still refuses a malformed value.
#[test]
fn a_count_keyword_the_metaschema_does_not_describe_is_still_checked() {
    let meta = "https://example.com/meta/bare-validation";
    let document = json!({
        "$schema": DRAFT2020,
        "$id": meta,
        "$vocabulary": {
            "https://json-schema.org/draft/2020-12/vocab/core": true,
            "https://json-schema.org/draft/2020-12/vocab/validation": true
        }
    });
    let options = Options {
        resources: vec![(meta.to_string(), document)],
        ..Options::default()
    };
    for bad in [json!(1.5), json!(-1.0), json!(-1), json!("2")] {
        let schema = json!({"$schema": meta, "minLength": bad});
        let error = Validator::compile(&schema, &options).err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some(
                "schema keyword minLength at \"/minLength\" is malformed: a non-negative integer".to_string()
            ),
            "minLength {bad}"
        );
    }
    // A float with no fraction counts (draft 6 on).
    let schema = json!({"$schema": meta, "minLength": 2.0});
    let validator = Validator::compile(&schema, &options).unwrap();
    assert_eq!(validator.is_valid(JsonRef::from(&json!("a"))), Ok(false));
    assert_eq!(validator.is_valid(JsonRef::from(&json!("ab"))), Ok(true));
}

/// Reading a list's length visits its cells, and is charged for them even
/// where the keyword reads nothing else (`maxItems`).
#[test]
fn counting_a_list_is_charged_by_its_length() {
    use input_schema_core::budget::Budget;
    use input_schema_core::standard::Limit;
    let validator = Validator::compile(&json!({"maxItems": 1_000_000}), &Options::default()).unwrap();
    let long = Value::Array(vec![json!(1); 80_000]);
    let short = json!([1, 2, 3]);
    let budget = || Budget::new(1_000);
    assert_eq!(
        validator.is_valid_within(JsonRef::from(&short), &budget()),
        Ok(true)
    );
    assert_eq!(
        validator.is_valid_within(JsonRef::from(&long), &budget()),
        Err(Limit::Work)
    );
    assert_eq!(validator.is_valid(JsonRef::from(&long)), Ok(true));
}

/// In 2019-09 and 2020-12, `dependencies`' schemas apply in place as
/// `dependentSchemas` do, so what they evaluate counts for
/// `unevaluatedProperties` (the `jsonschema` crate reads only
/// `dependentSchemas` there: see `tests/standard_oracle.rs`).
#[test]
fn dependencies_schemas_evaluate_properties_for_unevaluated_properties() {
    for meta in [DRAFT2019, DRAFT2020] {
        for keyword in ["dependencies", "dependentSchemas"] {
            let schema = json!({
                keyword: {"a": {"additionalProperties": true}},
                "unevaluatedProperties": false
            });
            assert!(
                valid_under(meta, &schema, &json!({"a": 1, "b": 2}), &[]),
                "{keyword} in {meta}"
            );
            assert!(
                !valid_under(meta, &schema, &json!({"b": 2}), &[]),
                "{keyword} in {meta}"
            );
        }
    }
}
