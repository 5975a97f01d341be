//! What a profile reads of the standard engine's answers besides their
//! texts: each failure's constraint as data (`Validator::constraint`), a
//! metaschema failure's, and the compile that goes on past a reference that
//! resolves nowhere (`Validator::compile_past_dangling`).

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::budget::Budget;
use input_schema_core::json::JsonRef;
use input_schema_core::standard::{CompileError, Constraint, Options, Validator};
use input_schema_core::value::Number;
use serde_json::{json, Value};

fn constraints(schema: Value, instance: Value) -> Vec<(&'static str, Option<Constraint>)> {
    let validator = Validator::compile(&schema, &Options::default()).unwrap();
    let report = validator
        .report_limited(JsonRef::from(&instance), 1_000_000)
        .unwrap();
    report
        .spans()
        .iter()
        .map(|unit| (unit.keyword, validator.constraint(unit)))
        .collect()
}

#[test]
fn each_failure_names_what_its_keyword_demanded() {
    let schema = json!({
        "properties": {
            "a": {"minimum": 1, "maximum": 2.5},
            "b": {"exclusiveMinimum": 0, "exclusiveMaximum": 10},
            "c": {"type": ["string", "null"]},
            "d": {"type": "integer"},
            "e": {"type": ["object"]},
            "f": {"minLength": 3}
        },
        "required": ["x", "y"]
    });
    let instance = json!({"a": 3, "b": 10, "c": 1, "d": "x", "e": 1, "f": "ab"});
    let bound = |n: Number| Some(Constraint::Bound(n));
    let types = |names: &[&'static str], listed| {
        Some(Constraint::Types {
            names: names.to_vec(),
            listed,
        })
    };
    assert_eq!(
        constraints(schema, instance),
        vec![
            ("maximum", bound(Number::Float(2.5))),
            ("exclusiveMaximum", bound(Number::Int(10))),
            ("type", types(&["string", "null"], true)),
            ("type", types(&["integer"], false)),
            ("type", types(&["object"], true)),
            ("minLength", None),
            ("required", Some(Constraint::Property("x".to_string()))),
            ("required", Some(Constraint::Property("y".to_string()))),
        ]
    );
    let low = constraints(json!({"minimum": 5, "exclusiveMinimum": 7}), json!(1));
    assert_eq!(
        low,
        vec![
            ("exclusiveMinimum", bound(Number::Int(7))),
            ("minimum", bound(Number::Int(5)))
        ]
    );
}

#[test]
fn a_metaschema_failure_names_the_metaschema_keyword_s_constraint() {
    let error = Validator::check_metaschema(
        &json!({"minLength": -1, "type": 1}),
        &Options::default(),
        &Budget::unlimited(),
        false,
    )
    .unwrap_err();
    let CompileError::Metaschema { failures, .. } = error else {
        panic!("{error:?}");
    };
    let found: Vec<_> = failures
        .iter()
        .map(|f| (f.pointer.as_str(), f.keyword, f.constraint.clone()))
        .collect();
    assert!(found.contains(&("/minLength", "minimum", Some(Constraint::Bound(Number::Int(0))))));
    assert!(found
        .iter()
        .any(|(pointer, keyword, _)| *pointer == "/type" && *keyword == "anyOf"));
}

#[test]
fn the_compile_goes_on_past_a_dangling_reference_to_a_later_error() {
    let options = Options::default();
    let budget = Budget::unlimited();
    // The dangling reference comes first: the pattern after it is still
    // compiled, and refused.
    let both = json!({"properties": {"a": {"$ref": "#/$defs/none"}, "b": {"pattern": "(a)\\1"}}});
    let error = Validator::compile_past_dangling(&both, &options, &budget, false).unwrap_err();
    assert!(matches!(error, CompileError::Pattern { .. }), "{error:?}");
    // Alone, it comes back beside the validator.
    let dangling = json!({"properties": {"a": {"$ref": "#/$defs/none"}}});
    let (_, first) = Validator::compile_past_dangling(&dangling, &options, &budget, false).unwrap();
    assert_eq!(
        first,
        Some(CompileError::UnresolvedReference {
            pointer: "/properties/a/$ref".to_string(),
            uri: "json-schema:///#/$defs/none".to_string()
        })
    );
    // The strict compile refuses it.
    assert!(matches!(
        Validator::compile(&dangling, &options),
        Err(CompileError::UnresolvedReference { .. })
    ));
    let fine = json!({"$defs": {"a": true}, "properties": {"a": {"$ref": "#/$defs/a"}}});
    let (_, first) = Validator::compile_past_dangling(&fine, &options, &budget, false).unwrap();
    assert_eq!(first, None);
}
