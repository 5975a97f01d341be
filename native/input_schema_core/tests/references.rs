//! The bounds that keep `$ref` schemas finite and linear: shared nodes
//! (a reference never copies), the walk's frame limit on a dirty
//! scheduler's stack, the work limit of a validation, the same-value
//! expansion limit, and work that grows linearly with a recursive
//! argument and as n log n with a `uniqueItems` list. Work is read from the
//! budget (units), never from a clock.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::error::{ArgumentError, Class};
use input_schema_core::json::JsonRef;
use input_schema_core::schema::{compile, CompiledSchema};
use input_schema_core::validate::{
    validate, validate_all, validate_all_within, validate_within, Budget, Outcome, MAX_WALK_FRAMES,
    REF_WALK_BUDGET,
};
use serde_json::{json, Value};

fn compiled(schema: &Value) -> CompiledSchema {
    compile(JsonRef::from(schema)).unwrap_or_else(|e| panic!("{} at {}", e.error, e.pointer))
}

/// Definitions `d0`..`d{count}`: each of the first `count` is `link` of a
/// reference to the next, the last is `last`.
fn chain_defs(count: usize, link: impl Fn(Value) -> Value, last: Value) -> serde_json::Map<String, Value> {
    let mut defs: serde_json::Map<String, Value> = (0..count)
        .map(|i| {
            (
                format!("d{i}"),
                link(json!({"$ref": format!("#/$defs/d{}", i + 1)})),
            )
        })
        .collect();
    defs.insert(format!("d{count}"), last);
    defs
}

/// Definitions `d0`..`d{levels}`, each an `allOf` referring twice to the next.
fn doubling(levels: usize) -> Value {
    let defs = chain_defs(
        levels,
        |next| json!({"allOf": [next, next]}),
        json!({"type": "integer"}),
    );
    json!({"type": "object", "properties": {"a": {"type": "array", "items": {"$ref": "#/$defs/d0"}}}, "$defs": defs})
}

/// Units a valid call spends.
fn units(schema: &CompiledSchema, arguments: &Value) -> u64 {
    let budget = Budget::new(u64::MAX);
    match validate_within(schema, JsonRef::from(arguments), &budget) {
        Outcome::Valid => u64::MAX - budget.left() as u64,
        outcome => panic!("{outcome:?}"),
    }
}

// The limits of schemas without `$ref` (arguments 64 deep, schemas 96) fit
// under the frame limit, and the work limit leaves room for large calls.
const _: () = assert!(MAX_WALK_FRAMES >= 64 + 96);
const _: () = assert!(REF_WALK_BUDGET >= 1_000_000);

#[test]
fn a_reference_shares_its_target_instead_of_copying_it() {
    // Ten levels that each refer twice to the next: 1,024 paths, one node each.
    let schema = compiled(&doubling(10));
    assert!(schema.nodes().len() < 60, "{} nodes", schema.nodes().len());
    assert!(schema.has_refs);
    let defs = chain_defs(2000, |next| next, json!({"type": "string"}));
    let chain = compiled(&json!({"properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs}));
    // A chain of 2,000 references compiles to about one node per reference.
    assert!(chain.nodes().len() < 2_010);
}

#[test]
fn compile_work_grows_linearly_with_a_reference_chain() {
    let chain = |n: usize| {
        let defs = chain_defs(n, |next| next, json!({"type": "string"}));
        json!({"properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs})
    };
    // The pointers' maps are indexed once: ten times the chain, about ten
    // times the units (not a hundred).
    let small = compiled(&chain(200)).compile_units;
    let large = compiled(&chain(2000)).compile_units;
    let ratio = large as f64 / small as f64;
    assert!(
        (9.0..11.5).contains(&ratio),
        "200: {small}, 2000: {large}, ratio {ratio}"
    );
}

/// `count` definitions, each an `allOf` with a reference to the next, the
/// last an integer: no cycle, but two same-value frames a definition.
fn same_value_chain(count: usize) -> CompiledSchema {
    let defs = chain_defs(count, |next| json!({"allOf": [next]}), json!({"type": "integer"}));
    compiled(&json!({"properties": {"a": {"$ref": "#/$defs/d0"}}, "$defs": defs}))
}

#[test]
fn a_same_value_chain_past_the_frame_limit_stops_with_the_depth_error() {
    let arguments = json!({"a": 1});
    let error = validate(&same_value_chain(300), JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(error.class(), Class::ExecutionFailure);
    assert_eq!(
        error.to_string(),
        "tool argument nesting exceeds the supported depth"
    );
    assert_eq!(error.path(), b"$arguments.a");
    // The limit is exact: the property's level, its reference and two
    // frames a definition make 192 frames with 95 definitions.
    let fits = (MAX_WALK_FRAMES - 2) / 2;
    assert!(validate(&same_value_chain(fits), JsonRef::from(&arguments)).is_ok());
    let past = validate(&same_value_chain(fits + 1), JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(past.to_string(), error.to_string());
    // Failures inside the chain are the value's own.
    let wrong = json!({"a": "x"});
    let wrong_type = validate(&same_value_chain(fits), JsonRef::from(&wrong)).unwrap_err();
    assert_eq!(wrong_type.class(), Class::Validation);
    assert_eq!(wrong_type.path(), b"$arguments.a");
}

/// The most frames the walk can stack, with the heaviest frames on the
/// path (objects, compositions, references), fit a 160 KiB thread, the
/// smallest stack a scheduler can have, in every build: see also
/// `deepest_input_fits_the_smallest_scheduler_stack`, and the margins
/// `stack.rs` measures on every path. Only the library runs on that
/// thread: the arguments are built (each level moved into the next, where
/// `json!` would copy it) and dropped on the test's own, as `serde_json`
/// copies and drops a nested value by recursion, on frames that in an
/// unoptimised build do not fit 160 KiB 200 levels deep.
#[test]
fn the_deepest_reference_walk_fits_the_smallest_scheduler_stack() {
    let mut arguments = json!(null);
    for _ in 0..200 {
        let mut level = serde_json::Map::new();
        level.insert("n".to_string(), arguments);
        level.insert("pad".to_string(), json!(1));
        arguments = Value::Object(level);
    }
    // The smallest scheduler stack the VM allows (`+sss 20`, `+sssdcpu
    // 20`: kilowords), in every build: steps that find less than
    // `stack::RED_ZONE` left go on on a segment from the heap.
    let stack = 20 * 1024 * 8;
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, || {
                let node = json!({
                    "anyOf": [
                        {"type": "null"},
                        {"allOf": [{"not": {"type": "string"}}, {"properties": {"n": {"$ref": "#/$defs/node"}}, "required": ["n"]}]}
                    ]
                });
                let schema = compiled(&json!({"properties": {"n": {"$ref": "#/$defs/node"}}, "$defs": {"node": node}}));
                let outcome = validate(&schema, JsonRef::from(&arguments));
                outcome.err().map(|e| (e.class(), e.to_string()))
            })
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("stack overflow or panic"))
    });
    assert_eq!(
        outcome,
        Some((
            Class::ExecutionFailure,
            "tool argument nesting exceeds the supported depth".to_string()
        ))
    );
}

#[test]
fn a_walk_past_the_reference_work_limit_fails_closed() {
    // 14 doubling levels: about 65,000 visits of each item (under the
    // expansion limit); 400 items pass the 5M units.
    let schema = compiled(&doubling(14));
    let items: Vec<Value> = (0..400).map(|i| json!(i)).collect();
    let arguments = json!({"a": items});
    let error = validate(&schema, JsonRef::from(&arguments)).unwrap_err();
    assert!(matches!(error, ArgumentError::WorkLimit { .. }), "{error:?}");
    assert_eq!(error.class(), Class::ExecutionFailure);
    assert_eq!(
        error.to_string(),
        "tool argument validation exceeds the supported work"
    );
    assert_eq!(error.path(), b"$arguments");
    assert!(error.is_aborting());
    // A few items stay within it.
    assert!(validate(&schema, JsonRef::from(&json!({"a": [1, 2, 3]}))).is_ok());
}

/// Found by the fuzzer (`oracle_schemas`): with every error listed, a walk
/// that fails and then runs out of work lists the failures found before
/// the work limit, which ends the list as an aborting failure does. The
/// first is the first-error walk's, which stops at it within the limit.
#[test]
fn every_error_lists_the_failures_before_the_work_limit() {
    let mut schema = doubling(14);
    schema["properties"]["0"] = json!({"type": "string"});
    let schema = compiled(&schema);
    let items: Vec<Value> = (0..400).map(|i| json!(i)).collect();
    let arguments = json!({"0": 1, "a": items});

    let first = validate(&schema, JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(
        (first.class(), first.to_string(), first.path().to_vec()),
        (
            Class::Validation,
            "tool argument has the wrong type".to_string(),
            b"$arguments.0".to_vec()
        )
    );
    let all = validate_all(&schema, JsonRef::from(&arguments)).unwrap_err();
    let listed: Vec<_> = all
        .iter()
        .map(|e| (e.class(), e.to_string(), e.path().to_vec()))
        .collect();
    assert_eq!(
        listed,
        [
            (
                Class::Validation,
                "tool argument has the wrong type".to_string(),
                b"$arguments.0".to_vec()
            ),
            (
                Class::ExecutionFailure,
                "tool argument validation exceeds the supported work".to_string(),
                b"$arguments".to_vec()
            ),
        ]
    );
    // Within a smaller budget the walk is undecided, not cut short: a call
    // given more work decides it.
    let small = Budget::new(10_000);
    assert!(matches!(
        validate_all_within(&schema, JsonRef::from(&arguments), &small),
        Outcome::OverBudget
    ));
}

fn tree(nodes: usize) -> Value {
    // A complete tree of fan-out 4, built bottom-up in a flat vector.
    let mut built: Vec<Value> = Vec::with_capacity(nodes);
    for i in (0..nodes).rev() {
        let children: Vec<Value> = (1..=4)
            .map(|k| 4 * i + k)
            .filter(|c| *c < nodes)
            .map(|c| built[nodes - 1 - c].clone())
            .collect();
        built.push(json!({"name": format!("n{i}"), "children": children}));
    }
    json!({"root": built.pop().unwrap()})
}

#[test]
fn a_recursive_tree_costs_work_linear_in_its_nodes() {
    let schema = compiled(&json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "required": ["name"]
        }}
    }));
    let small = units(&schema, &tree(1_000));
    let large = units(&schema, &tree(10_000));
    let ratio = large as f64 / small as f64;
    assert!(
        (9.0..11.0).contains(&ratio),
        "1k: {small}, 10k: {large}, ratio {ratio}"
    );
}

#[test]
fn unique_items_costs_n_log_n_and_finds_the_one_duplicate() {
    let schema = compiled(&json!({"properties": {"a": {"uniqueItems": true}}}));
    let list = |n: i64| json!({"a": (0..n).map(|i| json!(i)).collect::<Vec<_>>()});
    let small = units(&schema, &list(10_000));
    let large = units(&schema, &list(100_000));
    // n log n: 10 x the items, about 12.5 x the units (log2 ratio 17/13.3).
    let ratio = large as f64 / small as f64;
    assert!(
        (10.0..15.0).contains(&ratio),
        "10k: {small}, 100k: {large}, ratio {ratio}"
    );
    let mut items: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
    items.push(json!(77_777.0));
    let arguments = json!({"a": items});
    let error = validate(&schema, JsonRef::from(&arguments)).unwrap_err();
    assert_eq!(error.to_string(), "tool argument has duplicate items");
    assert_eq!(error.path(), b"$arguments.a");
}

fn failure(schema: &Value) -> (String, String) {
    match compile(JsonRef::from(schema)) {
        Ok(_) => panic!("{schema} compiled"),
        Err(failure) => (failure.error.to_string(), failure.pointer),
    }
}

fn nest(levels: usize, wrap: impl Fn(Value) -> Value) -> Value {
    (0..levels).fold(json!({}), |inner, _| wrap(inner))
}

#[test]
fn subschema_keywords_count_toward_the_schema_depth() {
    use input_schema_core::schema::MAX_SCHEMA_DEPTH;
    let too_deep = "tool schema nesting exceeds the supported depth".to_string();
    // The root is level 1, its `items` level 2; a tuple entry adds two (the
    // list and the schema).
    let tuple = |levels| json!({"properties": {}, "items": nest(levels, |s| json!({"items": [s]}))});
    let fits = (MAX_SCHEMA_DEPTH - 2) / 2;
    assert!(compile(JsonRef::from(&tuple(fits))).is_ok());
    assert_eq!(failure(&tuple(fits + 1)).0, too_deep);
    // `additionalProperties` and `propertyNames` add one each, like `items`.
    for keyword in ["additionalProperties", "propertyNames"] {
        let nested = |levels| nest(levels, |s| json!({ keyword: s }));
        assert!(
            compile(JsonRef::from(&nested(MAX_SCHEMA_DEPTH - 1))).is_ok(),
            "{keyword}"
        );
        assert_eq!(failure(&nested(MAX_SCHEMA_DEPTH)).0, too_deep, "{keyword}");
    }
    // `additionalItems` adds one, like `items`.
    let additional = |levels| nest(levels, |s| json!({"additionalItems": s}));
    assert!(compile(JsonRef::from(&additional(MAX_SCHEMA_DEPTH - 1))).is_ok());
    assert_eq!(failure(&additional(MAX_SCHEMA_DEPTH)).0, too_deep);
    // `not` adds one.
    let not = |levels| nest(levels, |s| json!({"not": s}));
    assert!(compile(JsonRef::from(&not(MAX_SCHEMA_DEPTH - 1))).is_ok());
    assert_eq!(failure(&not(MAX_SCHEMA_DEPTH)).0, too_deep);
    // A definition adds two (the map of definitions and the schema).
    let defs = |levels| nest(levels, |s| json!({"$defs": {"d": s}}));
    let fits = (MAX_SCHEMA_DEPTH - 1) / 2;
    assert!(compile(JsonRef::from(&defs(fits))).is_ok());
    assert_eq!(failure(&defs(fits + 1)).0, too_deep);
    // A `const` value starts at its schema's level, an `enum` choice one
    // below (inside the list): on the root (level 1), 95 and 94 more levels.
    let list = |levels: usize| (0..levels).fold(json!(1), |inner, _| json!([inner]));
    assert!(compile(JsonRef::from(&json!({"const": list(MAX_SCHEMA_DEPTH - 1)}))).is_ok());
    assert_eq!(failure(&json!({"const": list(MAX_SCHEMA_DEPTH)})).0, too_deep);
    assert!(compile(JsonRef::from(&json!({"enum": [list(MAX_SCHEMA_DEPTH - 2)]}))).is_ok());
    assert_eq!(
        failure(&json!({"enum": [list(MAX_SCHEMA_DEPTH - 1)]})).0,
        too_deep
    );
}

#[test]
fn the_expansion_limit_is_exact() {
    // d0..d14 double: d0 meets 65,533 subschemas, d1 32,765. An allOf of a
    // reference to each plus `extra` true schemas meets 1 + 65,534 + 32,766
    // + extra = 98,301 + extra.
    let with_extra = |extra: usize| {
        let mut schema = doubling(14);
        let mut entries = vec![json!({"$ref": "#/$defs/d0"}), json!({"$ref": "#/$defs/d1"})];
        entries.extend(std::iter::repeat_n(json!(true), extra));
        schema["properties"]["b"] = json!({"allOf": entries});
        schema
    };
    assert!(compile(JsonRef::from(&with_extra(1_699))).is_ok());
    let (message, pointer) = failure(&with_extra(1_700));
    assert_eq!(message, "schema references expand beyond the supported size");
    // Reported where the expansion is: the subschema, not a `$ref`.
    assert_eq!(pointer, "/properties/b");
}

#[test]
fn reference_failures_name_the_ref_on_the_cycle() {
    // Two references; the cycle runs through the second one compiled.
    let schema = json!({
        "properties": {"x": {"$ref": "#/$defs/s"}},
        "$defs": {"s": {"$ref": "#/$defs/s"}}
    });
    assert_eq!(
        failure(&schema),
        (
            "schema $ref cycle does not descend into the arguments".to_string(),
            "/$defs/s/$ref".to_string()
        )
    );
    let schema = json!({
        "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}},
        "properties": {"p": {"$ref": "#/$defs/b"}}
    });
    // A `$ref` on the cycle, not the one that leads to it.
    let (message, pointer) = failure(&schema);
    assert_eq!(message, "schema $ref cycle does not descend into the arguments");
    assert!(
        ["/$defs/a/allOf/0/$ref", "/$defs/b/anyOf/0/$ref"].contains(&pointer.as_str()),
        "{pointer}"
    );
}

/// A key is checked against `propertyNames` one level below its map, like
/// its value: through a chain of references (a frame each), the same count
/// fits for a name as for a property's value, and one more does not. The
/// depth error is reported at the map's path.
#[test]
fn a_property_name_is_checked_one_level_below_its_map() {
    let chain = |count: usize, keyword: &str| {
        let defs = chain_defs(count, |next| next, json!({"maxLength": 3}));
        compiled(&json!({ keyword: {"$ref": "#/$defs/d0"}, "$defs": defs }))
    };
    // The level of the key or value, its reference and one frame a
    // definition: 190 definitions make 192 frames.
    let fits = MAX_WALK_FRAMES - 2;
    for keyword in ["propertyNames", "additionalProperties"] {
        let arguments = json!({"abc": "abc"});
        assert!(
            validate(&chain(fits, keyword), JsonRef::from(&arguments)).is_ok(),
            "{keyword}"
        );
        let past = validate(&chain(fits + 1, keyword), JsonRef::from(&arguments)).unwrap_err();
        assert_eq!(past.class(), Class::ExecutionFailure);
        assert_eq!(
            past.to_string(),
            "tool argument nesting exceeds the supported depth"
        );
        let at = if keyword == "propertyNames" {
            "$arguments"
        } else {
            "$arguments.abc"
        };
        assert_eq!(past.path(), at.as_bytes(), "{keyword}");
    }
    let long = json!({"abcd": 1});
    let refused = validate(&chain(fits, "propertyNames"), JsonRef::from(&long)).unwrap_err();
    assert_eq!(refused.to_string(), "tool argument property name is not allowed");
}

/// Found by the fuzzer (`oracle_schemas`, scripts/fuzz): a small schema whose
/// references multiply (`d0` names `d1` and `d3` several times over, and
/// `d3`'s `items` comes back to `d0`) against a four-level instance. Each
/// level of the instance meets the whole expansion again, so the walk's work
/// grows as its power: the default work limit ends it, with the aborting
/// work-limit error, never an acceptance; with room for the work, the
/// verdict is `jsonschema`'s.
#[test]
fn a_small_instance_can_multiply_references_past_the_work_limit() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../../fixtures/fuzz/work_limit_schema.json")).unwrap();
    let instance = json!({"a": [[null, [true, [null], null], null]]});
    let ours = compiled(&schema);
    let outcome = validate(&ours, JsonRef::from(&instance));
    let error = outcome.err().unwrap();
    assert!(error.is_aborting());
    assert_eq!(
        error.to_string(),
        "tool argument validation exceeds the supported work"
    );

    let theirs = jsonschema::draft202012::new(&schema).unwrap();
    let roomy = input_schema_core::validate::Budget::new(1 << 32);
    let verdict = match input_schema_core::validate::validate_within(&ours, JsonRef::from(&instance), &roomy)
    {
        input_schema_core::validate::Outcome::Valid => true,
        input_schema_core::validate::Outcome::Invalid(error) => {
            assert!(!error.is_aborting(), "{error:?}");
            false
        }
        input_schema_core::validate::Outcome::OverBudget => panic!("2^32 units did not suffice"),
    };
    assert_eq!(verdict, theirs.is_valid(&instance));
}
