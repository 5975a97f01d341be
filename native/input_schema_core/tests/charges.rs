//! The work limit counts what a keyword does with its input, not only the
//! values it visits: a keyword that reads a long string, sorts a long list
//! or tests many keys against many patterns is charged in proportion,
//! however few values it visits. Each test pins a charge between two
//! bounds around the cost its comment states, so that a charge dropped or
//! miscounted shows.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard};

use input_schema_core::budget::Budget;
use input_schema_core::json::JsonRef;
use input_schema_core::pattern::Pattern;
use input_schema_core::standard::{CompileError, Limit, Options, Validator, COMPILE_BUDGET};
use input_schema_core::value::{AtomId, Shape, Value as Read};
use serde_json::{json, Map, Value};

/// The tests of this file run one at a time. A look-up in the shared
/// pattern cache from a normal scheduler does not wait for the cache's lock
/// (`Pattern::find_shared`): another test compiling a pattern (its own, or a
/// metaschema's) at that moment would make a look-up here miss, and an
/// inline compile build a pattern these tests count as found.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn alone() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn compiled(schema: &Value) -> Validator {
    Validator::compile(schema, &Options::default()).unwrap()
}

/// Whether deciding `instance` fits `units` of work.
fn fits(v: &Validator, instance: &Value, units: u64) -> bool {
    match v.is_valid_within(JsonRef::from(instance), &Budget::new(units)) {
        Ok(_) => true,
        Err(Limit::Work) => false,
        Err(other) => panic!("{other:?}"),
    }
}

/// A string's bytes are charged a unit per 16 where they are read, and
/// again where its length is counted (1,600,000 ASCII bytes: 100,000
/// units each).
#[test]
fn a_long_string_is_charged_for_its_text_and_for_its_length() {
    let _alone = alone();
    let v = compiled(&json!({"maxLength": 10_000_000}));
    let text = json!("a".repeat(1_600_000));
    assert!(!fits(&v, &text, 150_000));
    assert!(fits(&v, &text, 250_000));
}

/// `uniqueItems` sorts the items' keys: charged n·log2(n)/4 units
/// (100,000 items: 425,000), beside a unit or so per item.
#[test]
fn unique_items_is_charged_for_its_sort() {
    let _alone = alone();
    let v = compiled(&json!({"uniqueItems": true}));
    let items = Value::Array((0..100_000).map(|i| json!(i)).collect());
    assert!(!fits(&v, &items, 400_000));
    assert!(fits(&v, &items, 1_000_000));
}

/// Each test of a key against a pattern is charged at least a unit, however
/// short the key: 20,000 one-letter keys against 10 patterns are 200,000
/// tests. (`unevaluatedItems` makes the schema collect annotations, so the
/// keyword-by-keyword walk decides, as it does for `validate/3`.)
#[test]
fn pattern_properties_are_charged_per_key_and_pattern() {
    let _alone = alone();
    let patterns: Map<String, Value> = (0..10).map(|i| (format!("^z{i}"), json!(true))).collect();
    for schema in [
        json!({"patternProperties": patterns}),
        json!({"patternProperties": patterns, "unevaluatedItems": true}),
    ] {
        let v = compiled(&schema);
        let keys: Map<String, Value> = (0..20_000)
            .map(|i| (format!("{}", char::from_u32(0x4e00 + i).unwrap()), json!(1)))
            .collect();
        let object = Value::Object(keys);
        assert!(!fits(&v, &object, 150_000), "{schema}");
        assert!(fits(&v, &object, 400_000), "{schema}");
    }
}

/// An exact `multipleOf` check of a decimal expands both numbers and takes
/// a big-number remainder: 16 units (about 340 ns measured), and a unit per
/// 12 digits of the gap between the numbers' magnitudes (1e300 against
/// 1e-300: 600 digits, about 1.3 µs measured). Two machine integers cost
/// only the keyword's own units.
#[test]
fn multiple_of_is_charged_for_its_decimal_arithmetic() {
    let _alone = alone();
    let items = |value: Value| Value::Array(vec![value; 100]);
    let v = compiled(&json!({"items": {"multipleOf": 0.01}}));
    // 100 items: each its node, its keyword and 16 + (0 + 17) / 12 = 17.
    assert!(!fits(&v, &items(json!(3.47)), 1_700));
    assert!(fits(&v, &items(json!(3.47)), 2_200));
    let v = compiled(&json!({"items": {"multipleOf": 1e-300}}));
    // 16 + (600 + 17) / 12 = 67 a check.
    assert!(!fits(&v, &items(json!(1e300)), 6_700));
    assert!(fits(&v, &items(json!(1e300)), 7_200));
    let v = compiled(&json!({"items": {"multipleOf": 7}}));
    assert!(fits(&v, &items(json!(21)), 500));
}

/// What an inline compile (`compile_inline`, on a normal scheduler) spends.
fn inline_spent(schema: &Value, units: u64) -> Result<u64, CompileError> {
    let budget = Budget::new(units);
    Validator::compile_inline(schema, &Options::default(), &budget).map(|_| units - budget.left() as u64)
}

/// On a normal scheduler a pattern found built is charged its look-up, a
/// unit and a unit per 16 bytes of source, not its build: a schema whose
/// pattern took 3,000 units to build compiles within a 1,000-unit inline
/// budget, and a source 32 bytes longer costs 2 units more.
#[test]
fn an_inline_compile_charges_a_built_pattern_its_look_up() {
    let _alone = alone();
    let short = "^inline_look_up_[a-z]{1,100}$";
    let long = format!("^inline_look_up_{}[a-z]{{1,100}}$", "x".repeat(32));
    let schema = |source: &str| json!({"type": "string", "pattern": source});
    // Not built yet: the inline compile hands over to the dirty one.
    assert!(matches!(
        inline_spent(&schema(short), 1_000),
        Err(CompileError::CompileBudget)
    ));
    for source in [short, long.as_str()] {
        compiled(&schema(source));
        let built = Pattern::find_standard_shared(source.as_bytes()).unwrap();
        assert!(built.build_units() > 2_000, "{}", built.build_units());
    }
    let spent_short = inline_spent(&schema(short), 1_000).unwrap();
    let spent_long = inline_spent(&schema(&long), 1_000).unwrap();
    assert!(spent_short < 1_000, "{spent_short}");
    assert_eq!(spent_long - spent_short, 2);
}

/// The look-up does not change the verdict: when the builds an inline
/// compile was spared, with what it spent, pass the compile budget, it
/// hands over and the dirty compile refuses the schema, as it would have
/// anyway. Sixty built patterns of about 40,000 build units each are over
/// the 2,000,000 units however much room the inline budget has for their
/// look-ups.
#[test]
fn an_inline_compile_keeps_the_verdict_of_the_builds_it_was_spared() {
    let _alone = alone();
    let sources: Vec<String> = (0..60).map(|i| format!("[a-z]{{1,1000}}spared_{i}")).collect();
    let mut builds = 0;
    for source in &sources {
        compiled(&json!({"pattern": source}));
        builds += Pattern::find_standard_shared(source.as_bytes())
            .unwrap()
            .build_units();
    }
    assert!(builds > COMPILE_BUDGET, "{builds}");
    let schema = json!({"anyOf": sources.iter().map(|s| json!({"pattern": s})).collect::<Vec<_>>()});
    assert!(matches!(
        Validator::compile(&schema, &Options::default()),
        Err(CompileError::CompileBudget)
    ));
    assert!(matches!(
        inline_spent(&schema, 1_000_000),
        Err(CompileError::CompileBudget)
    ));
    // A tenth of them fits the compile budget, and compiles inline.
    let few = json!({"anyOf": sources[..6].iter().map(|s| json!({"pattern": s})).collect::<Vec<_>>()});
    assert!(inline_spent(&few, 1_000).is_ok());
}

/// A JSON value that counts how often the walks read a value's shape: the
/// work they do, whatever the time.
#[derive(Debug, Clone, Copy)]
struct Counted<'a> {
    inner: JsonRef<'a>,
    reads: &'a Cell<u64>,
}

struct CountedItems<'a> {
    inner: <JsonRef<'a> as Read<'a>>::Items,
    reads: &'a Cell<u64>,
}

impl<'a> Iterator for CountedItems<'a> {
    type Item = Counted<'a>;

    fn next(&mut self) -> Option<Counted<'a>> {
        let reads = self.reads;
        self.inner.next().map(|inner| Counted { inner, reads })
    }
}

struct CountedEntries<'a> {
    inner: <JsonRef<'a> as Read<'a>>::Entries,
    reads: &'a Cell<u64>,
}

impl<'a> Iterator for CountedEntries<'a> {
    type Item = (Counted<'a>, Counted<'a>);

    fn next(&mut self) -> Option<(Counted<'a>, Counted<'a>)> {
        let reads = self.reads;
        self.inner
            .next()
            .map(|(k, v)| (Counted { inner: k, reads }, Counted { inner: v, reads }))
    }
}

impl<'a> Read<'a> for Counted<'a> {
    type Items = CountedItems<'a>;
    type Entries = CountedEntries<'a>;

    fn shape(self) -> Shape<'a> {
        self.reads.set(self.reads.get() + 1);
        self.inner.shape()
    }

    fn list_len(self) -> Option<usize> {
        self.inner.list_len()
    }

    fn list_items(self) -> CountedItems<'a> {
        CountedItems {
            inner: self.inner.list_items(),
            reads: self.reads,
        }
    }

    fn map_entries(self) -> CountedEntries<'a> {
        CountedEntries {
            inner: self.inner.map_entries(),
            reads: self.reads,
        }
    }

    fn map_len(self) -> usize {
        self.inner.map_len()
    }

    fn is_struct(self) -> bool {
        self.inner.is_struct()
    }

    fn identity(self) -> usize {
        self.inner.identity()
    }

    fn atom_name(self) -> Option<String> {
        self.inner.atom_name()
    }

    fn atom_id(self) -> Option<AtomId> {
        self.inner.atom_id()
    }
}

/// `uniqueItems` writes each element's key before it sorts them. A huge
/// element is written only as far as the budget left could pay for its key
/// (a unit per 16 bytes): with 1,000 units, a few hundred of its million
/// values, where it used to write all of them (about 61 ms on the calling
/// scheduler) and only then find the charge over the budget. The same in
/// the gateway's walk, whose charge is unchanged.
#[test]
fn unique_items_stops_writing_a_huge_element_at_the_budget() {
    let _alone = alone();
    let huge = Value::Array((0..1_000_000).map(|i| json!(i)).collect());
    let instance = Value::Array(vec![huge, json!(1)]);
    let reads = Cell::new(0);
    let counted = Counted {
        inner: JsonRef::from(&instance),
        reads: &reads,
    };

    let v = compiled(&json!({"uniqueItems": true}));
    assert_eq!(v.is_valid_within(counted, &Budget::new(1_000)), Err(Limit::Work));
    assert!(reads.get() < 2_000, "{} values read", reads.get());

    reads.set(0);
    let gateway = input_schema_core::schema::compile(JsonRef::from(&json!({
        "type": "object",
        "properties": {"a": {"type": "array", "uniqueItems": true}}
    })))
    .unwrap();
    let arguments = json!({"a": instance});
    let counted = Counted {
        inner: JsonRef::from(&arguments),
        reads: &reads,
    };
    assert!(matches!(
        input_schema_core::validate::validate_within(&gateway, counted, &Budget::new(1_000)),
        input_schema_core::validate::Outcome::OverBudget
    ));
    assert!(reads.get() < 20_000, "{} values read", reads.get());
}

/// A subschema's JSON Pointer is copied and hashed where the compile meets
/// it (the document scan's scopes, the compile's memo and scope look-up),
/// so it is charged by its length: a unit per 64 bytes in the scan and per
/// 32 in the compile. Sixty levels of `properties` under 100-byte names
/// have pointers of 112·k bytes at level k, 204,960 bytes in all, about
/// 9,600 units; under 2-byte names, 25,620 bytes and about 1,200 units:
/// about 8,400 more.
#[test]
fn a_deep_subschema_is_charged_for_its_pointer() {
    let _alone = alone();
    let nested = |width: usize| {
        let mut schema = json!({});
        for level in 0..60 {
            schema = json!({"properties": {format!("{level:0>width$}"): schema}});
        }
        schema
    };
    let spent = |schema: &Value| {
        let budget = Budget::new(COMPILE_BUDGET);
        Validator::compile_within(schema, &Options::default(), &budget).unwrap();
        COMPILE_BUDGET - budget.left() as u64
    };
    let extra = spent(&nested(100)) - spent(&nested(2));
    assert!((8_000..9_000).contains(&extra), "{extra} units more");
}
