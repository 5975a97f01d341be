//! Compiler and validator tests on `serde_json` values: no BEAM involved.
//! BEAM-only cases (atom keys, improper lists, structs, invalid UTF-8) live
//! in the ExUnit suite.

use serde_json::{json, Value as Json};

use super::*;
use crate::error::{ArgumentError, Class};
use crate::json::JsonRef;
use crate::validate::{validate, MAX_ARGUMENT_DEPTH};

fn compile_json(schema: &Json) -> Result<CompiledSchema, (Class, String)> {
    compile(JsonRef::from(schema)).map_err(|e| (e.error.class(), e.error.to_string()))
}

fn schema_error(schema: Json) -> (Class, String) {
    match compile_json(&schema) {
        Ok(_) => panic!("{schema} compiled"),
        Err(e) => e,
    }
}

/// (class, message, path) of the first failure, or None when accepted.
fn check(schema: Json, arguments: Json) -> Option<(Class, String, String)> {
    let compiled = compile_json(&schema).unwrap_or_else(|e| panic!("{schema}: {e:?}"));
    validate(&compiled, JsonRef::from(&arguments)).err().map(|e| {
        (
            e.class(),
            e.to_string(),
            String::from_utf8_lossy(e.path()).into_owned(),
        )
    })
}

fn rejected(schema: Json, arguments: Json) -> (String, String) {
    match check(schema.clone(), arguments.clone()) {
        Some((Class::Validation, message, path)) => (message, path),
        other => panic!("{schema} / {arguments}: {other:?}"),
    }
}

#[test]
fn preflight_order_and_messages() {
    let v = Class::Validation;
    let u = Class::UnsupportedCapability;
    let cases: Vec<(Json, Class, &str)> = vec![
        (
            json!({"type": "string"}),
            u,
            "only object tool schemas are supported",
        ),
        (
            json!({"type": ["object", "null"]}),
            u,
            "only object tool schemas are supported",
        ),
        // The root's type comes before every other check.
        (
            json!({"type": "integer", "patternProperties": "x"}),
            u,
            "only object tool schemas are supported",
        ),
        (
            json!({"type": ["object", "null"], "$ref": 1}),
            u,
            "only object tool schemas are supported",
        ),
        (
            json!({"type": "array", "description": 1}),
            u,
            "only object tool schemas are supported",
        ),
        (
            json!({"type": "object", "patternProperties": "x"}),
            u,
            "schema keyword is unsupported",
        ),
        (
            json!({"$ref": "#/a", "description": 1}),
            u,
            "schema keyword is unsupported",
        ),
        (
            json!({"description": 1}),
            v,
            "schema description must be a string",
        ),
        (json!({"title": 1}), v, "schema title must be a string"),
        (json!({"$schema": 1}), v, "schema $schema must be a string"),
        (
            json!({"x-mcp-header": []}),
            v,
            "schema x-mcp-header must be a string",
        ),
        (
            json!({"properties": {"a": {"type": "date"}}}),
            u,
            "property schema type is unsupported",
        ),
        (
            json!({"properties": {"a": {"type": ["date"]}}}),
            v,
            "schema type must be a supported type or non-empty unique list",
        ),
        (
            json!({"properties": {"a": {"type": []}}}),
            v,
            "schema type must be a supported type or non-empty unique list",
        ),
        (
            json!({"properties": {"a": {"type": ["string", "string"]}}}),
            v,
            "schema type must be a supported type or non-empty unique list",
        ),
        (
            json!({"properties": {"a": {"type": 1}}}),
            v,
            "schema type must be a supported type or non-empty unique list",
        ),
        (json!({"enum": 1}), v, "schema enum must be a list of JSON values"),
        (json!({"minimum": "1"}), v, "schema minimum must be a number"),
        (
            json!({"exclusiveMinimum": "1"}),
            v,
            "schema exclusiveMinimum must be a number",
        ),
        (
            json!({"properties": {"a": {"minLength": -1}}}),
            v,
            "schema minLength must be a non-negative integer",
        ),
        (
            json!({"properties": {"a": {"maxLength": 1.0}}}),
            v,
            "schema maxLength must be a non-negative integer",
        ),
        (
            json!({"properties": {"a": {"pattern": 1}}}),
            v,
            "schema pattern must be a string",
        ),
        (
            json!({"properties": {"a": {"pattern": "(?=x)"}}}),
            v,
            "schema pattern uses unsupported syntax",
        ),
        (
            json!({"properties": {"a": {"pattern": "["}}}),
            v,
            "schema pattern must be a valid regular expression",
        ),
        (json!({"properties": []}), v, "schema properties must be a map"),
        (
            json!({"properties": {"a": 1}}),
            v,
            "property schema must be a map",
        ),
        (
            json!({"required": "a"}),
            v,
            "schema required must be a list of property names",
        ),
        (
            json!({"required": [1]}),
            v,
            "schema required must be a list of property names",
        ),
        (
            json!({"additionalProperties": 1}),
            v,
            "schema additionalProperties must be a boolean or schema",
        ),
        (
            json!({"additional_properties": 1}),
            v,
            "schema additionalProperties must be a boolean or schema",
        ),
        (json!({"items": 1}), v, "schema items must be a schema map"),
        (json!({"not": []}), v, "schema not must be a schema map"),
        (json!({"oneOf": []}), v, "schema oneOf must be a non-empty list"),
        (json!({"anyOf": {}}), v, "schema anyOf must be a non-empty list"),
        (json!({"oneOf": [1]}), v, "property schema must be a map"),
        (
            json!({"oneOf": [{}], "anyOf": [{}]}),
            u,
            "combining schema compositions is unsupported",
        ),
        // The whole schema is checked: unused branches, absent properties.
        (
            json!({"oneOf": [{}, {"if": {}}]}),
            u,
            "schema keyword is unsupported",
        ),
        (
            json!({"properties": {"never": {"not": {"const": 1, "if": {}}}}}),
            u,
            "schema keyword is unsupported",
        ),
        (
            json!({"additionalProperties": {"items": {"unevaluatedItems": false}}}),
            u,
            "schema keyword is unsupported",
        ),
    ];
    for (schema, class, message) in cases {
        assert_eq!(
            schema_error(schema.clone()),
            (class, message.to_string()),
            "{schema}"
        );
    }
}

#[test]
fn argument_checks_in_order() {
    let schema = json!({
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"},
            "size": {"type": "integer", "minimum": 1, "maximum": 10, "exclusiveMaximum": 10},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"enum": ["a", "b"]}},
            "mode": {"const": "fast"}
        },
        "additionalProperties": false
    });
    let cases: Vec<(Json, &str, &str)> = vec![
        (json!({}), "required tool argument is missing", "$arguments"),
        (
            json!({"name": 1}),
            "tool argument has the wrong type",
            "$arguments.name",
        ),
        (
            json!({"name": "a"}),
            "tool argument is shorter than the minimum length",
            "$arguments.name",
        ),
        (
            json!({"name": "abcde"}),
            "tool argument is longer than the maximum length",
            "$arguments.name",
        ),
        (
            json!({"name": "AB"}),
            "tool argument does not match the pattern",
            "$arguments.name",
        ),
        (
            json!({"name": "ab", "size": 1.5}),
            "tool argument has the wrong type",
            "$arguments.size",
        ),
        (
            json!({"name": "ab", "size": 0}),
            "tool argument is below the minimum",
            "$arguments.size",
        ),
        (
            json!({"name": "ab", "size": 11}),
            "tool argument is above the maximum",
            "$arguments.size",
        ),
        (
            json!({"name": "ab", "size": 10}),
            "tool argument is not below the exclusive maximum",
            "$arguments.size",
        ),
        (
            json!({"name": "ab", "tags": []}),
            "tool argument has too few items",
            "$arguments.tags",
        ),
        (
            json!({"name": "ab", "tags": ["a", "a", "a"]}),
            "tool argument has too many items",
            "$arguments.tags",
        ),
        (
            json!({"name": "ab", "tags": ["a", "c"]}),
            "tool argument is not an allowed enum value",
            "$arguments.tags[1]",
        ),
        (
            json!({"name": "ab", "mode": "slow"}),
            "tool argument is not the allowed constant value",
            "$arguments.mode",
        ),
        (
            json!({"name": "ab", "zzz": 1}),
            "additional tool argument is not allowed",
            "$arguments",
        ),
    ];
    for (arguments, message, path) in cases {
        assert_eq!(
            rejected(schema.clone(), arguments.clone()),
            (message.to_string(), path.to_string()),
            "{arguments}"
        );
    }
    assert_eq!(
        check(
            schema,
            json!({"name": "abc", "size": 9, "tags": ["b"], "mode": "fast"})
        ),
        None
    );
}

#[test]
fn compositions_with_object_siblings() {
    let schema = json!({
        "properties": {"kind": {"type": "string"}},
        "required": ["kind"],
        "oneOf": [
            {"properties": {"kind": {"enum": ["file"]}}, "required": ["path"]},
            {"properties": {"kind": {"enum": ["url"]}}, "required": ["url"]}
        ]
    });
    assert_eq!(check(schema.clone(), json!({"kind": "file", "path": "/a"})), None);
    assert_eq!(
        rejected(schema.clone(), json!({"kind": "file", "url": "x"})),
        (
            "tool argument must match exactly one oneOf branch".into(),
            "$arguments".into()
        )
    );
    assert_eq!(
        rejected(schema, json!({"kind": 1})),
        (
            "tool argument has the wrong type".into(),
            "$arguments.kind".into()
        )
    );

    let any =
        json!({"properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 5}]}}});
    assert_eq!(check(any.clone(), json!({"v": "x"})), None);
    assert_eq!(check(any.clone(), json!({"v": 7})), None);
    assert_eq!(
        rejected(any, json!({"v": 1})),
        (
            "tool argument must match at least one anyOf branch".into(),
            "$arguments.v".into()
        )
    );

    let not = json!({"properties": {"v": {"not": {"type": "null"}}}});
    assert_eq!(
        rejected(not.clone(), json!({"v": null})),
        (
            "tool argument must not match the negated schema".into(),
            "$arguments.v".into()
        )
    );
    assert_eq!(check(not, json!({"v": 0})), None);

    // A required-only branch lets scalars through without making them objects.
    let scalar = json!({"properties": {"v": {"oneOf": [{"required": ["a"]}, {"type": "object"}]}}});
    assert_eq!(check(scalar.clone(), json!({"v": 3})), None);
    assert_eq!(check(scalar.clone(), json!({"v": {}})), None);
    assert_eq!(
        rejected(scalar, json!({"v": {"a": 1}})),
        (
            "tool argument must match exactly one oneOf branch".into(),
            "$arguments.v".into()
        )
    );
}

#[test]
fn numbers_compare_exactly() {
    let schema = json!({"properties": {"n": {"minimum": 1, "maximum": 9007199254740993u64}}});
    assert_eq!(check(schema.clone(), json!({"n": 1.0})), None);
    assert_eq!(check(schema.clone(), json!({"n": 9007199254740993u64})), None);
    assert_eq!(
        rejected(schema.clone(), json!({"n": 9007199254740994u64})).0,
        "tool argument is above the maximum"
    );
    assert_eq!(
        rejected(schema, json!({"n": 0.999})).0,
        "tool argument is below the minimum"
    );
    let big = json!({"properties": {"n": {"exclusiveMinimum": 18446744073709551615u64}}});
    assert_eq!(
        rejected(big.clone(), json!({"n": 18446744073709551615u64})).0,
        "tool argument is not above the exclusive minimum"
    );
    assert_eq!(check(big, json!({"n": 1.9e19})), None);
    let choices = json!({"properties": {"n": {"enum": [1, [2.0], {"a": 3}]}}});
    for accepted in [json!(1.0), json!([2]), json!({"a": 3.0})] {
        assert_eq!(check(choices.clone(), json!({"n": accepted})), None);
    }
    for refused in [json!(true), json!("1"), json!({"a": 3, "b": 1}), json!([2, 2])] {
        assert_eq!(
            rejected(choices.clone(), json!({"n": refused})).0,
            "tool argument is not an allowed enum value"
        );
    }
}

#[test]
fn lengths_count_code_points() {
    let schema = json!({"properties": {"s": {"minLength": 2, "maxLength": 2}}});
    assert_eq!(check(schema.clone(), json!({"s": "e\u{301}"})), None);
    assert_eq!(
        rejected(schema.clone(), json!({"s": "😀"})).0,
        "tool argument is shorter than the minimum length"
    );
    assert_eq!(check(schema, json!({"s": "😀😀"})), None);
}

fn nested(depth: usize, leaf: Json, wrap: impl Fn(Json) -> Json) -> Json {
    (0..depth).fold(leaf, |inner, _| wrap(inner))
}

#[test]
fn schema_depth_limit() {
    // The root is level 1 and each `items` adds one.
    let ok = json!({"properties": {"a": nested(MAX_SCHEMA_DEPTH - 3, json!({}), |s| json!({"items": s}))}});
    assert!(compile_json(&ok).is_ok());
    let deep = json!({"properties": {"a": nested(MAX_SCHEMA_DEPTH - 2, json!({}), |s| json!({"items": s}))}});
    assert_eq!(
        schema_error(deep),
        (
            Class::Validation,
            "tool schema nesting exceeds the supported depth".into()
        )
    );
    let deep_enum = json!({"enum": [nested(MAX_SCHEMA_DEPTH, json!(1), |v| json!([v]))]});
    assert_eq!(
        schema_error(deep_enum),
        (
            Class::Validation,
            "tool schema nesting exceeds the supported depth".into()
        )
    );
}

#[test]
fn argument_depth_limit() {
    let items = nested(MAX_SCHEMA_DEPTH - 3, json!({}), |s| json!({"items": s}));
    let schema = json!({"properties": {"a": items}});
    let fits = json!({"a": nested(MAX_ARGUMENT_DEPTH - 1, json!(1), |v| json!([v]))});
    assert_eq!(check(schema.clone(), fits), None);
    let deep = json!({"a": nested(MAX_ARGUMENT_DEPTH + 5, json!(1), |v| json!([v]))});
    let (class, message, path) = check(schema, deep).unwrap_or_else(|| panic!("accepted"));
    assert_eq!(class, Class::ExecutionFailure);
    assert_eq!(message, "tool argument nesting exceeds the supported depth");
    assert_eq!(path, format!("$arguments.a{}", "[0]".repeat(MAX_ARGUMENT_DEPTH)));

    // Objects count the same, through `properties` and through
    // `additionalProperties`, in the walk that answers valid calls in one
    // pass as in the ordered one.
    let by_name = json!({
        "properties": {"a": {"$ref": "#/$defs/n"}},
        "$defs": {"n": {"properties": {"a": {"$ref": "#/$defs/n"}}}}
    });
    let by_rest = nested(
        MAX_SCHEMA_DEPTH - 3,
        json!({}),
        |s| json!({"additionalProperties": s}),
    );
    for schema in [by_name, by_rest] {
        // A value 64 property steps below the arguments fits; one 65 steps
        // down is past the limit.
        let fits = nested(MAX_ARGUMENT_DEPTH, json!(1), |v| json!({"a": v}));
        assert_eq!(check(schema.clone(), fits), None, "{schema}");
        let deep = nested(MAX_ARGUMENT_DEPTH + 5, json!(1), |v| json!({"a": v}));
        let (class, message, path) =
            check(schema.clone(), deep).unwrap_or_else(|| panic!("{schema}: accepted"));
        assert_eq!(class, Class::ExecutionFailure);
        assert_eq!(message, "tool argument nesting exceeds the supported depth");
        assert_eq!(path, format!("$arguments{}", ".a".repeat(MAX_ARGUMENT_DEPTH + 1)));
    }
}

/// The deepest schema and arguments the limits allow, with compositions and
/// patterns at every level, compile and validate on a 160 KiB thread, the
/// smallest stack a scheduler can have, in every build: the recursion moves
/// to heap segments when the stack runs low (`stack.rs`). The stack use on
/// BEAM terms is measured by the ExUnit `stack_test.exs`.
#[test]
fn deepest_input_fits_the_smallest_scheduler_stack() {
    // The smallest scheduler stack the VM allows (`+sss 20`, `+sssdcpu
    // 20`: kilowords), in every build: steps that find less than
    // `stack::RED_ZONE` left go on on a segment from the heap.
    let stack = 20 * 1024 * 8;
    let handle = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(|| {
            let leaf = json!({"type": "string", "pattern": format!("{}a{}", "(".repeat(60), ")".repeat(60))});
            let schema_body = nested(
                (MAX_SCHEMA_DEPTH - 6) / 3,
                leaf,
                |s| json!({"anyOf": [{"type": "string"}, {"type": "array", "items": s}]}),
            );
            let schema = json!({"properties": {"a": {"not": {"not": schema_body}}}});
            let compiled = compile_json(&schema).unwrap_or_else(|e| panic!("{e:?}"));
            let arguments = json!({"a": nested(MAX_ARGUMENT_DEPTH + 1, json!("a"), |v| json!([v]))});
            validate(&compiled, JsonRef::from(&arguments))
                .err()
                .map(|e| e.to_string())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let outcome = handle
        .join()
        .unwrap_or_else(|_| panic!("stack overflow or panic"));
    assert!(outcome.is_some());
}

#[test]
fn errors_report_terms_as_written() {
    let schema = json!({"properties": {"a": {"type": ["string", "null"]}, "n": {"minimum": 1.5}}});
    let compiled = compile_json(&schema).unwrap_or_else(|e| panic!("{e:?}"));
    let arguments = json!({"a": 1});
    match validate(&compiled, JsonRef::from(&arguments)) {
        Err(ArgumentError::WrongType { expected, .. }) => assert_eq!(
            expected,
            crate::value::Datum::List(vec![
                crate::value::Datum::Binary(Box::from(&b"string"[..])),
                crate::value::Datum::Binary(Box::from(&b"null"[..]))
            ])
        ),
        other => panic!("{other:?}"),
    }
    let arguments = json!({"n": 1});
    match validate(&compiled, JsonRef::from(&arguments)) {
        Err(ArgumentError::BelowMinimum { limit, .. }) => {
            assert_eq!(
                limit,
                crate::value::Datum::Number(crate::value::Number::Float(1.5))
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn name_keys_are_the_zero_padded_head() {
    // Every name of up to ten bytes over three letters: the key is the
    // length and the first eight bytes, little-endian, zero-padded.
    let mut names: Vec<Vec<u8>> = vec![vec![]];
    for length in 1..=10 {
        let previous: Vec<Vec<u8>> = names.iter().filter(|n| n.len() == length - 1).cloned().collect();
        for name in previous {
            for byte in [b'a', b'b', 0xff] {
                let mut longer = name.clone();
                longer.push(byte);
                names.push(longer);
            }
        }
    }
    for name in &names {
        let mut head = [0u8; 8];
        for (to, from) in head.iter_mut().zip(name) {
            *to = *from;
        }
        let expected = NameKey {
            head: u64::from_le_bytes(head),
            len: name.len(),
        };
        assert_eq!(NameKey::of(name), expected, "{name:?}");
    }
}

#[test]
fn names_differing_past_the_key_are_told_apart() {
    let schema = json!({
        "type": "object",
        "properties": {"lengthy_a": {"type": "string"}, "lengthy_b": {"type": "integer"}},
        "required": ["lengthy_b"],
        "additionalProperties": false
    });
    assert_eq!(
        check(schema.clone(), json!({"lengthy_a": "x", "lengthy_b": 1})),
        None
    );
    let (_, _, path) = check(schema.clone(), json!({"lengthy_a": 1, "lengthy_b": 1})).unwrap();
    assert_eq!(path, "$arguments.lengthy_a");
    let (_, message, _) = check(schema, json!({"lengthy_a": "x", "lengthy_c": 1})).unwrap();
    assert_eq!(message, "required tool argument is missing");
}

#[test]
fn names_and_enum_strings_differing_at_any_byte_are_told_apart() {
    // Lengths on both sides of the one-word (8) and two-word (16) compares,
    // changed at every byte past the key.
    for len in 9..=20 {
        let base = "n".repeat(len);
        for at in NameKey::HEAD..len {
            let mut bytes = base.clone().into_bytes();
            if let Some(byte) = bytes.get_mut(at) {
                *byte = b'm';
            }
            let variant = String::from_utf8(bytes).unwrap();
            let schema = json!({
                "type": "object",
                "properties": {
                    &base: {"type": "string", "enum": [&base]},
                    &variant: {"type": "integer"}
                },
                "additionalProperties": false
            });
            assert_eq!(check(schema.clone(), json!({&base: base, &variant: 1})), None);
            let (_, _, path) = check(schema.clone(), json!({&variant: "x"})).unwrap();
            assert_eq!(path, format!("$arguments.{variant}"));
            let (_, message, path) = check(schema, json!({&base: variant})).unwrap();
            assert_eq!(message, "tool argument is not an allowed enum value");
            assert_eq!(path, format!("$arguments.{base}"));
        }
    }
}

/// A schema whose properties `p0000`.. each have a schema from `property`
/// (zero-padded names keep the map's order the numeric order).
fn wide_schema(count: usize, property: impl Fn(usize) -> Json) -> Json {
    let properties: serde_json::Map<String, Json> =
        (0..count).map(|i| (format!("p{i:05}"), property(i))).collect();
    json!({"type": "object", "properties": properties})
}

fn budget_failure(schema: &Json) -> (SchemaError<JsonRef<'_>>, String) {
    match compile(JsonRef::from(schema)) {
        Ok(compiled) => panic!("compiled within {} units", compiled.compile_units),
        Err(failure) => (failure.error, failure.pointer),
    }
}

#[test]
fn the_compile_budget_rejects_many_large_patterns_where_it_runs_out() {
    // Each `^[a-z0-9]{1,N}$` near N = 20,000 builds a 1.3 MB NFA (about
    // 256,000 units): the fourth passes the budget.
    let schema = wide_schema(
        400,
        |i| json!({"type": "string", "pattern": format!("^[a-z0-9]{{1,{}}}$", 20_000 - i)}),
    );
    let (error, pointer) = budget_failure(&schema);
    assert!(
        matches!(error, SchemaError::CompileBudget(BudgetReason::Patterns)),
        "{error:?}"
    );
    assert_eq!(error.class(), Class::Validation);
    assert_eq!(
        error.to_string(),
        "tool schema exceeds the supported compile budget"
    );
    assert_eq!(pointer, "/properties/p00003/pattern");
    // Built now or found built: the same verdict at the same place.
    let (again, again_at) = budget_failure(&schema);
    assert!(matches!(
        again,
        SchemaError::CompileBudget(BudgetReason::Patterns)
    ));
    assert_eq!(again_at, pointer);
    // Three of them fit.
    let three = wide_schema(
        3,
        |i| json!({"type": "string", "pattern": format!("^[a-z0-9]{{1,{}}}$", 20_000 - i)}),
    );
    let compiled = compile_json(&three).unwrap();
    assert!(compiled.compile_units <= COMPILE_BUDGET);
}

#[test]
fn the_compile_budget_rejects_many_small_distinct_patterns() {
    let schema = wide_schema(
        10_000,
        |i| json!({"type": "string", "pattern": format!("^item{i}[0-9]{{3}}-abc$")}),
    );
    let (error, pointer) = budget_failure(&schema);
    assert!(
        matches!(error, SchemaError::CompileBudget(BudgetReason::Patterns)),
        "{error:?}"
    );
    assert!(
        pointer.starts_with("/properties/p0") && pointer.ends_with("/pattern"),
        "{pointer}"
    );
}

#[test]
fn the_compile_budget_rejects_a_schema_too_large_to_compile() {
    // 100,000 properties: keywords, not patterns, use the budget up.
    let schema = wide_schema(100_000, |_| json!({"type": "string", "description": "d"}));
    let (error, pointer) = budget_failure(&schema);
    assert!(
        matches!(error, SchemaError::CompileBudget(BudgetReason::Work)),
        "{error:?}"
    );
    assert!(pointer.starts_with("/properties/p"), "{pointer}");
    // A keyword error met before the budget runs out is reported as usual.
    let mut early = schema.clone();
    early["properties"]["p00000"]["minimum"] = json!("x");
    assert_eq!(
        budget_failure(&early).0.to_string(),
        "schema minimum must be a number"
    );
}

#[test]
fn large_but_legitimate_schemas_stay_within_the_compile_budget() {
    let cases = [
        wide_schema(10_000, |_| json!({"type": "integer", "minimum": 0})),
        json!({"properties": {"a": {"enum": (0..100_000).map(|i| format!("choice{i}")).collect::<Vec<_>>()}}}),
        json!({"properties": {"a": {"const": (0..100_000).collect::<Vec<_>>()}}}),
        wide_schema(
            50,
            |i| json!({"type": "string", "pattern": format!("^[A-Za-z0-9_.-]{{1,{}}}$", 64 + i)}),
        ),
    ];
    for schema in &cases {
        let compiled = compile_json(schema).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(compiled.compile_units <= COMPILE_BUDGET);
    }
}

#[test]
fn the_fixture_catalogs_use_under_one_percent_of_the_compile_budget() {
    for name in ["coding_tools.json", "mcp_catalog.json", "extended_catalog.json"] {
        let path = format!("{}/../../fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        let catalog: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let tools = catalog
            .get("tools")
            .unwrap_or(&catalog)
            .as_array()
            .unwrap()
            .clone();
        assert!(!tools.is_empty());
        for tool in tools {
            let compiled = compile_json(&tool["inputSchema"]).unwrap();
            assert!(
                compiled.compile_units * 100 < COMPILE_BUDGET,
                "{name} {}: {} units",
                tool["name"],
                compiled.compile_units
            );
        }
    }
}

/// The walks charge what they read: a budget that a small call fits in
/// decides it; a long string, a long list or a wide map runs it out
/// (the NIF then hands the call to a dirty scheduler), and nothing is
/// decided in that case.
#[test]
fn validation_within_a_budget_charges_what_it_reads() {
    use crate::validate::{validate_all_within, validate_within, Outcome};

    let schema = compile_json(&json!({
        "type": "object",
        "properties": {"s": {"type": "string", "minLength": 1}, "l": {"items": {"type": "integer"}}},
        "additionalProperties": {"type": "integer"}
    }))
    .unwrap();
    let decided = |arguments: &Json, units: u64| {
        let within = validate_within(&schema, JsonRef::from(arguments), &Budget::new(units));
        let all = validate_all_within(&schema, JsonRef::from(arguments), &Budget::new(units));
        match (within, all) {
            (Outcome::OverBudget, Outcome::OverBudget) => None,
            (Outcome::Valid, Outcome::Valid) => Some(true),
            (Outcome::Invalid(_), Outcome::Invalid(_)) => Some(false),
            _ => panic!("the two walks disagree on {arguments}"),
        }
    };
    let small = json!({"s": "abc", "l": [1, 2]});
    assert_eq!(decided(&small, 1_000), Some(true));
    assert_eq!(decided(&json!({"s": ""}), 1_000), Some(false));
    // A string costs a unit per 16 bytes a pass, and `minLength` reads it
    // twice (UTF-8, then code points): 16 KiB is 2,048 units, 7 KiB 896.
    assert_eq!(decided(&json!({"s": "a".repeat(16 * 1024)}), 1_000), None);
    assert_eq!(decided(&json!({"s": "a".repeat(7 * 1024)}), 1_000), Some(true));
    assert_eq!(decided(&json!({"l": vec![1; 2_000]}), 1_000), None);
    let wide: serde_json::Map<String, Json> = (0..2_000).map(|i| (format!("k{i}"), json!(i))).collect();
    assert_eq!(decided(&Json::Object(wide), 1_000), None);
    // A budget that runs out is not a verdict: the same calls decide with more.
    assert_eq!(decided(&json!({"s": "a".repeat(16 * 1024)}), 100_000), Some(true));
    assert_eq!(decided(&json!({"l": vec![1; 2_000]}), 100_000), Some(true));
}

#[test]
fn compiling_within_a_budget_stops_without_a_verdict() {
    let schema = wide_schema(200, |_| json!({"type": "string"}));
    assert!(matches!(
        compile_within(
            JsonRef::from(&schema),
            &Budget::new(1_000),
            false,
            FormatMode::Annotate
        ),
        Err(CompileStop::OverBudget)
    ));
    assert!(compile_within(
        JsonRef::from(&schema),
        &Budget::new(100_000),
        false,
        FormatMode::Annotate
    )
    .is_ok());
    // With only patterns built before, a new pattern stops it too.
    let fresh = json!({"properties": {"p": {"pattern": format!("^fresh-{}$", std::process::id())}}});
    assert!(matches!(
        compile_within(
            JsonRef::from(&fresh),
            &Budget::new(1_000_000),
            true,
            FormatMode::Annotate
        ),
        Err(CompileStop::OverBudget)
    ));
    assert!(compile_within(
        JsonRef::from(&fresh),
        &Budget::new(1_000_000),
        false,
        FormatMode::Annotate
    )
    .is_ok());
    assert!(compile_within(
        JsonRef::from(&fresh),
        &Budget::new(1_000_000),
        true,
        FormatMode::Annotate
    )
    .is_ok());
}

/// The work limit's error, which the shared contract rows cannot carry
/// (its input is 300 KB): class, message and details, as the NIF renders
/// them.
#[test]
fn the_match_limit_error_has_its_reason() {
    use crate::error::Detail;

    let schema = compile_json(&json!({"properties": {"s": {"pattern": "a[ab]{20}c"}}})).unwrap();
    let arguments = json!({ "s": crate::pattern::tests::match_limit_input() });
    let error = validate(&schema, JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(error.class(), Class::ExecutionFailure);
    assert_eq!(error.to_string(), "schema pattern evaluation failed");
    let details = error.details();
    assert_eq!(details.len(), 2);
    assert!(matches!(details[0], ("path", Detail::Text(b"$arguments.s"))));
    assert!(matches!(details[1], ("reason", Detail::Reason("match_limit"))));
    // Aborting: inside `not`, `anyOf` or `oneOf` it ends the validation
    // instead of counting as a mismatch; an ordinary failure does not.
    assert!(error.is_aborting());
    let negated = compile_json(&json!({"properties": {"s": {"not": {"pattern": "a[ab]{20}c"}}}})).unwrap();
    let through_not = validate(&negated, JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(through_not.to_string(), "schema pattern evaluation failed");
    let number = json!({"s": 1});
    assert!(validate(&schema, JsonRef::from(&number)).is_ok());
    let short = compile_json(&json!({"properties": {"s": {"minLength": 2}}})).unwrap();
    let one = json!({"s": "a"});
    let failure = validate(&short, JsonRef::from(&one)).unwrap_err();
    assert!(!failure.is_aborting());
}

/// A value whose schema is a bare `type` is still read when it is a string
/// (UTF-8 and the budget): a long one runs a small budget out.
#[test]
fn a_bare_type_still_charges_for_a_string() {
    use crate::validate::{validate_within, Outcome};

    let schema = compile_json(&json!({"properties": {"s": {"type": "string"}}})).unwrap();
    let long = json!({"s": "a".repeat(32 * 1024)});
    assert!(matches!(
        validate_within(&schema, JsonRef::from(&long), &Budget::new(1_000)),
        Outcome::OverBudget
    ));
    let short = json!({"s": "abc"});
    assert!(matches!(
        validate_within(&schema, JsonRef::from(&short), &Budget::new(1_000)),
        Outcome::Valid
    ));
    // And under keywords that do not apply to strings.
    let numeric = compile_json(&json!({"properties": {"s": {"minimum": 1, "items": {}}}})).unwrap();
    assert!(matches!(
        validate_within(&numeric, JsonRef::from(&long), &Budget::new(1_000)),
        Outcome::OverBudget
    ));
    assert!(matches!(
        validate_within(&numeric, JsonRef::from(&short), &Budget::new(1_000)),
        Outcome::Valid
    ));
}

/// All errors: every failure in document order, up to the cap of 64.
#[test]
fn all_errors_lists_every_failure_up_to_the_cap() {
    use crate::validate::{validate_all, MAX_ERRORS};

    let schema = compile_json(&json!({
        "type": "object",
        "required": ["a", "b"],
        "properties": {"n": {"type": "integer", "minimum": 5}, "s": {"maxLength": 1}},
        "additionalProperties": false
    }))
    .unwrap();
    let arguments = json!({"n": 1, "s": "xyz", "x": true});
    let errors = validate_all(&schema, JsonRef::from(&arguments)).unwrap_err();
    let listed: Vec<(String, String)> = errors
        .iter()
        .map(|e| (e.to_string(), String::from_utf8_lossy(e.path()).into_owned()))
        .collect();
    assert_eq!(
        listed,
        [
            ("required tool argument is missing", "$arguments"),
            ("required tool argument is missing", "$arguments"),
            ("tool argument is below the minimum", "$arguments.n"),
            ("tool argument is longer than the maximum length", "$arguments.s"),
            ("additional tool argument is not allowed", "$arguments"),
        ]
        .map(|(m, p)| (m.to_string(), p.to_string()))
    );

    let closed = compile_json(&json!({"additionalProperties": false})).unwrap();
    let many = Json::Object((0..100).map(|i| (format!("k{i:03}"), json!(i))).collect());
    let errors = validate_all(&closed, JsonRef::from(&many)).unwrap_err();
    assert_eq!(errors.len(), MAX_ERRORS);
    assert_eq!(MAX_ERRORS, 64);
}

/// A map from each of `names` to `value`.
fn each_name(names: &[String], value: Json) -> serde_json::Map<String, Json> {
    names.iter().map(|n| (n.clone(), value.clone())).collect()
}

#[test]
fn a_required_name_past_the_sixty_fourth_slot_is_checked_in_either_walk() {
    // Seventy required properties: names past the 64th slot have no bit in
    // the one-pass walk's set, so that walk must not be the one to answer.
    let names: Vec<String> = (0..70).map(|i| format!("p{i:02}")).collect();
    let properties = each_name(&names, json!({"type": "integer"}));
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let mut arguments = each_name(&names, json!(1));
    assert_eq!(check(schema.clone(), Json::Object(arguments.clone())), None);
    arguments.remove("p69");
    let (_, message, path) = check(schema, Json::Object(arguments)).unwrap_or_else(|| panic!("accepted"));
    assert_eq!(message, "required tool argument is missing");
    assert_eq!(path, "$arguments");
}

#[test]
fn objects_of_more_than_sixteen_names_find_every_name() {
    // Past sixteen names a lookup is a binary search, not a scan.
    let names: Vec<String> = (0..20).map(|i| format!("name{i:02}")).collect();
    let properties = each_name(&names, json!({"type": "integer"}));
    let schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    let all = each_name(&names, json!(1));
    assert_eq!(check(schema.clone(), Json::Object(all)), None);
    let (_, message, path) = check(schema, json!({"name19": "x"})).unwrap_or_else(|| panic!("accepted"));
    assert_eq!(message, "tool argument has the wrong type");
    assert_eq!(path, "$arguments.name19");
}

#[test]
fn the_cache_accounts_for_what_a_schema_holds() {
    // Cache accounting: longer names, more required and dependent names,
    // more nodes all count.
    let bytes = |schema: Json| {
        compile_json(&schema)
            .unwrap_or_else(|e| panic!("{e:?}"))
            .approximate_bytes()
    };
    let object = |name_len: usize, required: bool| {
        let names: Vec<String> = (0..50)
            .map(|i| format!("{i:0>width$}", width = name_len))
            .collect();
        let properties: serde_json::Map<String, Json> =
            names.iter().map(|n| (n.clone(), json!({}))).collect();
        let mut schema = json!({"properties": properties});
        if required {
            schema["required"] = json!(names);
            schema["dependentRequired"] = json!({"00": names});
        }
        schema
    };
    let short = bytes(object(2, false));
    let long = bytes(object(200, false));
    // Each of the 50 names is held twice (the property and its slot): 198
    // more bytes each, and not much besides.
    let named = 2 * 50 * 198;
    assert!(
        (named..2 * named).contains(&(long - short)),
        "short {short}, long {long}"
    );
    // 50 required names and one dependentRequired entry ("00", a new name
    // slot) listing the 50: each name with a word's worth of bookkeeping.
    let listed = bytes(object(200, true)) - long;
    let expected = 50 * (200 + 32) + (2 + 32 + 50 * (200 + 32)) + (2 + std::mem::size_of::<Name>());
    assert_eq!(listed, expected, "required and dependent names");
    let empty = bytes(json!({}));
    assert!(short > empty + 50 * std::mem::size_of::<Node>(), "50 nodes");
}

/// Each part of a node counts once: the bytes of a schema with every part
/// are the empty schema's plus what each part adds alone, and each part adds
/// at least what it holds.
#[test]
fn every_part_of_a_node_counts_once_in_the_cache_accounting() {
    // The parts go in a property's schema: the root must be an object one.
    let bytes = |schema: &Json| {
        let root = json!({"properties": {"p": schema}});
        compile_json(&root)
            .unwrap_or_else(|e| panic!("{root}: {e:?}"))
            .approximate_bytes()
    };
    let long = "x".repeat(300);
    let choices: Vec<String> = (0..40).map(|i| format!("{i:0>100}")).collect();
    let parts = [
        ("type", json!(["string", "array", "object"])),
        ("enum", json!(choices)),
        ("const", json!(long)),
        ("pattern", json!("^[a-z]{1,40}$")),
        ("prefixItems", json!([{}, {}, {}])),
        ("anyOf", json!([{}, {}, {}, {}])),
        ("oneOf", json!([{}, {}, {}, {}, {}])),
        ("allOf", json!([{}, {}, {}, {}, {}, {}])),
        ("properties", json!({"name": {}})),
    ];
    let empty = bytes(&json!({}));
    let alone = |keyword: &str, value: &Json| {
        let alone = bytes(&json!({ keyword: value })) - empty;
        let held = match keyword {
            "enum" => 40 * 100,
            "const" => 300,
            "type" => "stringarrayobject".len(),
            "pattern" => 1_000,
            // The subschemas' nodes and an id each.
            "prefixItems" | "anyOf" | "oneOf" | "allOf" => {
                let count = value.as_array().map_or(0, Vec::len);
                count * (std::mem::size_of::<Node>() + std::mem::size_of::<NodeId>())
            }
            _ => std::mem::size_of::<Node>() + 4,
        };
        assert!(alone >= held, "{keyword} adds {alone}, holds {held}");
        if ["prefixItems", "anyOf", "oneOf", "allOf"].contains(&keyword) {
            // Empty subschemas hold nothing else.
            assert_eq!(alone, held, "{keyword}");
        }
        alone
    };
    // One composition at a time: they do not combine.
    for composition in ["anyOf", "oneOf", "allOf"] {
        let mut all = serde_json::Map::new();
        let mut added = 0;
        let chosen = parts
            .iter()
            .filter(|(keyword, _)| !["anyOf", "oneOf", "allOf"].contains(keyword) || *keyword == composition);
        for (keyword, value) in chosen {
            added += alone(keyword, value);
            all.insert((*keyword).to_owned(), value.clone());
        }
        assert_eq!(bytes(&Json::Object(all)) - empty, added, "with {composition}");
    }
}

fn units(schema: &Json) -> u64 {
    compile_json(schema)
        .unwrap_or_else(|e| panic!("{schema}: {e:?}"))
        .compile_units
}

/// The compile budget's boundary is exact: a schema that spends exactly the
/// limit compiles, and with one unit less it is refused, whether it takes
/// one pass or two (`$ref`).
#[test]
fn the_compile_budget_boundary_is_exact() {
    for schema in [
        json!({"properties": {"a": {"type": "string", "pattern": "^[a-z]+$"}}}),
        json!({"$defs": {"d": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/d"}}}),
    ] {
        let value = JsonRef::from(&schema);
        let spent = units(&schema);
        let within = compile_limited(value, &Budget::unlimited(), false, FormatMode::Annotate, spent);
        assert!(within.is_ok_and(|c| c.compile_units == spent), "{schema}");
        match compile_limited(
            value,
            &Budget::unlimited(),
            false,
            FormatMode::Annotate,
            spent - 1,
        ) {
            Err(CompileStop::Failure(failure)) => {
                assert!(matches!(failure.error, SchemaError::CompileBudget(_)), "{schema}")
            }
            other => panic!("{schema}: {other:?}"),
        }
    }
}

/// Nested properties of `width`-byte names, `depth` deep, beside a `$ref`:
/// every subschema's location is recorded, and the pointers grow with the
/// depth.
fn deep_names(width: usize, depth: usize, reference: bool) -> Json {
    let mut schema = json!({"type": "string"});
    for level in 0..depth {
        let name = format!("{level:0>width$}");
        schema = json!({"properties": {name: schema}});
    }
    if reference {
        schema["$defs"] = json!({"d": {}});
        schema["properties"]["r"] = json!({"$ref": "#/$defs/d"});
    }
    schema
}

/// A recorded location is charged by its pointer's length (a unit per 16
/// bytes, beside a fixed charge): long names nested deep beside a `$ref`
/// record pointers quadratic in the schema's size, and the budget refuses
/// them before they take the memory.
#[test]
fn recorded_locations_are_charged_by_their_length() {
    // 40 levels of 1,000-byte names: under 1 MB of pointers, accepted with
    // or without the reference, and the reference's pass pays for them.
    let plain = units(&deep_names(1_000, 40, false));
    let located = units(&deep_names(1_000, 40, true));
    let pointer_bytes: u64 = (1..=40u64).map(|level| level * (1_000 + 12)).sum();
    assert!(located >= plain + pointer_bytes / 16, "{plain} -> {located}");
    // And not much more: the first pass (at most the plain compile) and a
    // fixed 10 units for each of the 40-odd locations.
    assert!(
        located <= 2 * plain + pointer_bytes / 16 + 1_000,
        "{plain} -> {located}"
    );
    // 40 levels of 20,000-byte names: 16 MB of pointers, refused.
    assert!(units(&deep_names(20_000, 40, false)) < COMPILE_BUDGET / 2);
    let huge = deep_names(20_000, 40, true);
    let refused = compile(JsonRef::from(&huge));
    assert!(matches!(
        refused.map_err(|f| f.error),
        Err(SchemaError::CompileBudget(BudgetReason::Work))
    ));
}

/// Every keyword of a subschema is charged, annotations included.
#[test]
fn every_keyword_is_charged() {
    let bare = units(&json!({"properties": {"p": {}}}));
    let annotated = units(&json!({"properties": {"p": {
        "title": "t", "description": "d", "$comment": "c", "examples": [],
        "deprecated": false, "readOnly": false, "writeOnly": false
    }}}));
    assert!(annotated >= bare + 7 * KEYWORD_UNITS, "{bare} -> {annotated}");
    // `enum` choices and a `const` value by their size: a unit per 16 bytes.
    let long = "x".repeat(16_000);
    let constant = units(&json!({"properties": {"p": {"const": long}}}));
    assert!(constant >= bare + 1_000, "{bare} -> {constant}");
    let choices: Vec<String> = (0..100).map(|i| format!("{i:0>160}")).collect();
    let listed = units(&json!({"properties": {"p": {"enum": choices}}}));
    assert!(listed >= bare + 1_000, "{bare} -> {listed}");
}

/// The root's `type` must be `object`, alone: a one-element list of another
/// type, or `object` listed twice, is not an object root.
#[test]
fn a_root_type_list_holds_object_alone() {
    let refused = (
        Class::UnsupportedCapability,
        "only object tool schemas are supported".to_owned(),
    );
    assert_eq!(schema_error(json!({"type": ["string"]})), refused);
    assert_eq!(schema_error(json!({"type": ["object", "string"]})), refused);
    assert!(compile_json(&json!({"type": ["object"]})).is_ok());
}

/// The first pass stops at the first `$ref` it meets: a schema whose
/// reference comes first pays for little more than one pass.
#[test]
fn the_first_pass_stops_at_the_first_reference() {
    let heavy: Vec<String> = (0..200).map(|i| format!("choice-{i}")).collect();
    let mut properties = serde_json::Map::new();
    for name in ["b", "c", "d", "e", "f", "g", "h", "i"] {
        properties.insert(name.to_owned(), json!({"enum": heavy}));
    }
    let mut plain = json!({"$defs": {"d": {}}, "properties": properties});
    plain["properties"]["a"] = json!({});
    let mut referring = plain.clone();
    referring["properties"]["a"] = json!({"$ref": "#/$defs/d"});
    let (plain, referring) = (units(&plain), units(&referring));
    assert!(referring < plain + plain / 4, "{plain} -> {referring}");
}

/// `anyOf` stops at the first branch that accepts, `oneOf` at the second:
/// a later branch whose pattern would exceed its work limit is never run.
#[test]
fn compositions_stop_at_their_answer() {
    let limit = "a[ab]{20}c";
    let arguments = json!({ "s": crate::pattern::tests::match_limit_input() });
    let run = |schema: Json| {
        let compiled = compile_json(&schema).unwrap_or_else(|e| panic!("{e:?}"));
        validate(&compiled, JsonRef::from(&arguments)).map_err(|e| (e.class(), e.to_string()))
    };
    let any = json!({"properties": {"s": {"anyOf": [{"type": "string"}, {"pattern": limit}]}}});
    assert_eq!(run(any), Ok(()));
    let one =
        json!({"properties": {"s": {"oneOf": [{"type": "string"}, {"minLength": 1}, {"pattern": limit}]}}});
    assert_eq!(
        run(one),
        Err((
            Class::Validation,
            "tool argument must match exactly one oneOf branch".to_owned()
        ))
    );
    // Run, the limit ends the validation.
    let one_first = json!({"properties": {"s": {"oneOf": [{"pattern": limit}, {"type": "string"}]}}});
    assert_eq!(
        run(one_first),
        Err((
            Class::ExecutionFailure,
            "schema pattern evaluation failed".to_owned()
        ))
    );
}

/// A string is charged a unit per 16 bytes for each pass over it: one for
/// UTF-8, one more to count code points, one more for a pattern.
#[test]
fn a_string_is_charged_for_each_pass() {
    use crate::validate::{validate_within, Outcome};

    let text = json!({"s": "a".repeat(16 * 1024)});
    let decides = |property: Json, units: u64| {
        let schema = compile_json(&json!({"properties": {"s": property}})).unwrap();
        !matches!(
            validate_within(&schema, JsonRef::from(&text), &Budget::new(units)),
            Outcome::OverBudget
        )
    };
    // 16 KiB: 1,024 units a pass.
    for (property, passes) in [
        (json!({"type": "string"}), 1),
        (json!({"minLength": 1}), 2),
        (json!({"maxLength": 1_000_000, "pattern": "a"}), 3),
        (json!({"pattern": "a"}), 2),
    ] {
        assert!(decides(property.clone(), passes * 1_100), "{property}");
        assert!(!decides(property.clone(), passes * 1_024 - 1), "{property}");
    }
}

/// A list is charged a unit per 8 elements for its length; `uniqueItems`
/// a unit per element and per 16 bytes of its key, and the sort about
/// log2(n) units per element.
#[test]
fn lists_are_charged_for_their_length_and_their_keys() {
    use crate::validate::{validate_within, Outcome};

    // What a decided validation spent.
    let spent = |schema: &Json, arguments: &Json| {
        let compiled = compile_json(&json!({"properties": {"l": schema}})).unwrap();
        let budget = Budget::new(10_000_000);
        let outcome = validate_within(&compiled, JsonRef::from(arguments), &budget);
        assert!(matches!(outcome, Outcome::Valid), "{schema}");
        10_000_000 - budget.left()
    };
    let ones = json!({"l": vec![1; 8_000]});
    let counted = spent(&json!({"maxItems": 100_000}), &ones);
    assert!((1_000..1_010).contains(&counted), "{counted}");

    // 8,192 distinct short strings (keys under 16 bytes): 8,192 units for
    // the keys, 8,192 * 14 for the sort, 1,024 for the length.
    let short: Vec<String> = (0..8_192).map(|i| format!("{i}")).collect();
    let unique = spent(&json!({"uniqueItems": true}), &json!({ "l": short }));
    let expected = 8_192 + 8_192 * 14 + 1_024;
    assert!((expected..expected + 10).contains(&unique), "{unique}");
    // Keys of about 100 bytes: 6 more units each.
    let long: Vec<String> = (0..8_192).map(|i| format!("{i:0>100}")).collect();
    let unique_long = spent(&json!({"uniqueItems": true}), &json!({ "l": long }));
    assert!(
        (expected + 8_192 * 6..expected + 8_192 * 6 + 10).contains(&unique_long),
        "{unique_long}"
    );
}

/// A `propertyNames` pattern over its work limit is the pattern's error at
/// the map's path, not a name that is not allowed.
#[test]
fn a_property_name_over_the_match_limit_ends_the_validation() {
    use crate::error::Detail;

    let schema =
        compile_json(&json!({"properties": {"m": {"propertyNames": {"pattern": "a[ab]{20}c"}}}})).unwrap();
    let mut map = serde_json::Map::new();
    map.insert(crate::pattern::tests::match_limit_input(), json!(1));
    let arguments = json!({ "m": map });
    let error = validate(&schema, JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(error.class(), Class::ExecutionFailure);
    assert_eq!(error.to_string(), "schema pattern evaluation failed");
    let details = error.details();
    assert!(matches!(details[0], ("path", Detail::Text(b"$arguments.m"))));
    assert!(matches!(details[1], ("reason", Detail::Reason("match_limit"))));
}

/// `format` asserted (`FormatMode::Assert`): the format row comes after the
/// other string checks, names the format as written, and leaves non-strings
/// and names 2020-12 does not define alone; annotated (the default), it
/// checks nothing.
#[test]
fn asserted_formats_are_the_last_string_check() {
    let schema = json!({"properties": {"d": {
        "type": "string", "minLength": 3, "maxLength": 12, "pattern": "^[0-9-]+$", "format": "date"
    }}});
    let asserting = compile_with(JsonRef::from(&schema), FormatMode::Assert).unwrap();
    let annotating = compile(JsonRef::from(&schema)).unwrap();
    assert_eq!(asserting.formats, FormatMode::Assert);
    assert_eq!(annotating.formats, FormatMode::Annotate);
    let first = |compiled: &CompiledSchema, value: &str| {
        let arguments = json!({ "d": value });
        validate(compiled, JsonRef::from(&arguments)).err().map(|e| {
            let details: Vec<String> = e.details().iter().map(|(key, _)| (*key).to_string()).collect();
            (
                e.to_string(),
                String::from_utf8_lossy(e.path()).into_owned(),
                details,
            )
        })
    };
    let row = |message: &str, details: &[&str]| {
        Some((
            message.to_string(),
            "$arguments.d".to_string(),
            details.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        ))
    };
    assert_eq!(first(&asserting, "2024-02-29"), None);
    assert_eq!(
        first(&asserting, "2023-02-29"),
        row("tool argument does not match the format", &["path", "format"])
    );
    assert_eq!(first(&annotating, "2023-02-29"), None);
    // Each earlier string check wins over the format.
    assert_eq!(
        first(&asserting, "1-"),
        row(
            "tool argument is shorter than the minimum length",
            &["path", "minLength"]
        )
    );
    assert_eq!(
        first(&asserting, "2024-01-01-01"),
        row(
            "tool argument is longer than the maximum length",
            &["path", "maxLength"]
        )
    );
    assert_eq!(
        first(&asserting, "2024/01/01"),
        row("tool argument does not match the pattern", &["path"])
    );
    // The format's name, as the schema writes it.
    let arguments = json!({"d": "2023-02-29"});
    let error = validate(&asserting, JsonRef::from(&arguments)).unwrap_err();
    assert!(
        matches!(
            &error,
            crate::error::ArgumentError::FormatMismatch { format: "date", .. }
        ),
        "{error:?}"
    );
    // Every failure, in order, with all errors.
    let arguments = json!({"d": "2024/13/01/0000"});
    let all = crate::validate::validate_all(&asserting, JsonRef::from(&arguments)).unwrap_err();
    let messages: Vec<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "tool argument is longer than the maximum length",
            "tool argument does not match the pattern",
            "tool argument does not match the format"
        ]
    );
    // Not a string, or a name 2020-12 does not define: nothing to assert.
    let loose = json!({"properties": {"n": {"format": "date"}, "c": {"format": "color"}}});
    let loose = compile_with(JsonRef::from(&loose), FormatMode::Assert).unwrap();
    let arguments = json!({"n": 12, "c": "not a colour"});
    assert!(validate(&loose, JsonRef::from(&arguments)).is_ok());
    let arguments = json!({"n": "12"});
    assert!(validate(&loose, JsonRef::from(&arguments)).is_err());
}
