//! Recursion on a stack of bounded size.
//!
//! Compiling a schema, validating arguments, comparing and keying values,
//! and the term and JSON conversions of the NIF recurse once per level of
//! nesting, and the limits allow about a hundred levels. Their frames are
//! large (the compiler's reaches 2 KiB, the pattern compiler's 4 KiB, and
//! several times that in an unoptimised build), and a NIF runs on a
//! scheduler's stack, which the VM lets a host shrink to 160 KiB (`+sss 20`,
//! `+sssdcpu 20`). So every recursive step goes through [`deep`]: when less
//! than [`RED_ZONE`] is left on the current stack, the step continues on a
//! new segment of [`SEGMENT`] bytes from the heap (`stacker::maybe_grow`),
//! given back when the step returns. No input and no valid VM setting can
//! overflow a stack, and a result never depends on the stack's size.
//!
//! That holds when the longest chain of frames between two checks (and
//! below the last one) fits in the red zone, and a whole call into a
//! library that recurses on its own fits in [`LIBRARY_RED_ZONE`], with the
//! frames of the build at hand. The tests at the end of this file measure
//! both on every recursive path, at the deepest input the limits allow, in
//! whichever profile they are built, and require that half of each zone
//! stay untouched: `cargo test` checks the bound for the test profile,
//! `cargo test --release` for the release build the NIF ships, `scripts/
//! mutants` for the `mutants` profile (docs/reliability.md, "The stack").

/// What a recursive step needs left before it goes on: more than the
/// deepest chain of frames between two steps (measured: at most 9 KiB in
/// the release build, 23 KiB with the core at opt-level 0). The same in
/// every build.
pub const RED_ZONE: usize = 64 * 1024;

/// What a call into a library that recurses on its own needs left:
/// regex-syntax and regex-automata over a pattern's nesting (at most 64
/// levels; measured: up to 110 KiB in the release build), serde_json over
/// JSON text (at most 128 levels) when the NIF decodes or encodes it: 256
/// KiB. A build with debug assertions (the test and `mutants` profiles) may
/// run those libraries unoptimised, where the same calls take up to 664
/// KiB: there the zone is 2 MiB. The release build is not changed by it.
/// (Both written as plain numbers: a build reads one of them, so the
/// mutants of the other's arithmetic could never be judged.)
pub const LIBRARY_RED_ZONE: usize = if cfg!(debug_assertions) {
    2_097_152
} else {
    262_144
};

/// The size of each new segment: room for a whole library call, and for
/// more than one step. 1 MiB; 4 MiB in a build with debug assertions.
pub const SEGMENT: usize = if cfg!(debug_assertions) {
    4_194_304
} else {
    1_048_576
};

// A segment holds a whole library call, and more than one step.
const _: () = assert!(LIBRARY_RED_ZONE < SEGMENT && 2 * RED_ZONE < SEGMENT);

/// Runs one recursive step, on a new segment when the stack runs low.
#[inline]
pub fn deep<R>(step: impl FnOnce() -> R) -> R {
    within(RED_ZONE, step)
}

/// Runs `step`, on a new segment when less than `red_zone` bytes are left.
#[inline]
pub fn within<R>(red_zone: usize, step: impl FnOnce() -> R) -> R {
    if !probe::growing() {
        return step();
    }
    // This crate's tests may end the stack higher up (`probe::measure_to`).
    #[cfg(test)]
    if let Some(short) = probe::short_of(red_zone) {
        return if short {
            stacker::grow(SEGMENT, step)
        } else {
            step()
        };
    }
    stacker::maybe_grow(red_zone, SEGMENT, step)
}

/// Measures stack use (this crate's own tests, and test builds of the NIF:
/// feature `stack-probe`).
/// [`probe::measure`] paints the free part of the calling thread's stack
/// below the call with a pattern, runs the call, and finds the deepest byte
/// that is no longer the pattern: the high-water mark of every frame the
/// call pushed, the libraries' and the leaves' included. Segments from the
/// heap are not the thread's stack and are not counted.
pub mod probe {
    #[cfg(any(test, feature = "stack-probe"))]
    use std::cell::Cell;

    #[cfg(any(test, feature = "stack-probe"))]
    thread_local! {
        static GROW: Cell<bool> = const { Cell::new(true) };
    }

    // The end `measure_to` puts on this thread's stack, with the real
    // stack's bounds: `(end, lowest, top)`.
    #[cfg(test)]
    thread_local! {
        static END: Cell<Option<(usize, usize, usize)>> = const { Cell::new(None) };
    }

    /// Whether steps may move to a new segment (always, but in a probe that
    /// measures the whole depth).
    #[inline]
    pub fn growing() -> bool {
        #[cfg(any(test, feature = "stack-probe"))]
        return GROW.get();
        #[cfg(not(any(test, feature = "stack-probe")))]
        true
    }

    #[cfg(any(test, feature = "stack-probe"))]
    const PAINT: u8 = 0xA5;

    /// Kept clear of the thread's lowest addresses (the guard page, and
    /// whatever the runtime keeps there): 16 KiB.
    #[cfg(any(test, feature = "stack-probe"))]
    const MARGIN: usize = 16_384;

    #[cfg(any(test, feature = "stack-probe"))]
    #[inline(never)]
    fn here() -> usize {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    }

    /// Writes the pattern over `[low, high)`, below this function's frame.
    #[cfg(any(test, feature = "stack-probe"))]
    #[inline(never)]
    fn paint(low: usize, high: usize) {
        // SAFETY: the range lies inside this thread's stack, below the
        // current frame (the caller leaves a gap under its own), where no
        // live frame is.
        unsafe { std::ptr::write_bytes(low as *mut u8, PAINT, high.saturating_sub(low)) };
    }

    /// The lowest address in `[low, high)` that no longer holds the pattern
    /// (`high` when none), read a word at a time.
    #[cfg(any(test, feature = "stack-probe"))]
    #[inline(never)]
    fn lowest_touched(low: usize, high: usize) -> usize {
        let words = low.next_multiple_of(8)..high - high % 8;
        let painted = u64::from_ne_bytes([PAINT; 8]);
        words
            .step_by(8)
            // SAFETY: aligned words of the range `paint` wrote, inside this
            // thread's stack.
            .find(|&word| unsafe { std::ptr::read_volatile(word as *const u64) } != painted)
            .map_or(high, |word| {
                // SAFETY: as above.
                let bytes = unsafe { std::ptr::read_volatile(word as *const u64) }.to_ne_bytes();
                word + bytes.iter().take_while(|&&byte| byte == PAINT).count()
            })
    }

    /// Runs `f` and answers `(result, bytes, available)`: how far below this
    /// call the deepest frame reached on this thread's stack, and how much
    /// stack was free there. With `grow` false, no step moves to a segment,
    /// so the figure is the whole depth of the call (the caller must run it
    /// on a stack that has room for it).
    #[cfg(any(test, feature = "stack-probe"))]
    #[inline(never)]
    pub fn measure<R>(grow: bool, f: impl FnOnce() -> R) -> (R, usize, usize) {
        let top = here();
        let available = stacker::remaining_stack().unwrap_or(0);
        let low = top.saturating_sub(available).saturating_add(MARGIN);
        // The gap keeps this frame and `paint`'s own clear of the pattern.
        let high = top.saturating_sub(4096);
        paint(low, high);
        GROW.set(grow);
        let result = f();
        GROW.set(true);
        let used = top.saturating_sub(lowest_touched(low, high));
        (result, used, available)
    }

    /// Inside [`measure_to`], on this thread's own stack: whether fewer than
    /// `red_zone` bytes are left above the end it put. Elsewhere (another
    /// thread, a segment) `None`: the real stack's end holds.
    #[cfg(test)]
    #[inline(never)]
    pub(crate) fn short_of(red_zone: usize) -> Option<bool> {
        let (end, lowest, top) = END.get()?;
        let here = here();
        (lowest..=top)
            .contains(&here)
            .then(|| here < end.saturating_add(red_zone))
    }

    /// Runs `f` as if this thread's stack ended `depth` bytes below this
    /// call: a step that finds fewer than its red zone's bytes left above
    /// that end moves to a segment, as it would at the real end. Answers
    /// `(result, bytes)`: how far below this call the deepest frame reached.
    /// Frames past the end land on the real stack below it, where the
    /// measure sees them up to [`super::RED_ZONE`] bytes further. The
    /// thread must have room for `depth` and a red zone more.
    #[cfg(test)]
    #[inline(never)]
    pub(crate) fn measure_to<R>(depth: usize, f: impl FnOnce() -> R) -> (R, usize) {
        let top = here();
        let lowest = top.saturating_sub(stacker::remaining_stack().unwrap_or(0));
        let end = top.saturating_sub(depth);
        let low = end.saturating_sub(super::RED_ZONE);
        assert!(
            low > lowest.saturating_add(MARGIN) && depth > 4096,
            "no room for {depth} B"
        );
        let high = top.saturating_sub(4096);
        paint(low, high);
        END.set(Some((end, lowest, top)));
        let result = f();
        END.set(None);
        let used = top.saturating_sub(lowest_touched(low, high));
        (result, used)
    }
}

/// The bound above, measured in the build at hand, whatever its profile:
/// every recursive path of the core, at the deepest input the limits allow.
/// Each path runs again and again with the thread's stack made to end
/// lower each time (`probe::measure_to`), so that the line where a step
/// finds [`RED_ZONE`] left falls every 4 KiB from its first frame to its
/// deepest: how far frames reach past that line is the longest chain of
/// frames between two checks (or below the last one), and at least half the
/// red zone must stay untouched. A chain that would overflow the real stack
/// fails the test instead (the frames land on the large stack below the
/// end, where the measure sees them). `cargo test -- --nocapture` prints the
/// figures.
#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests {
    use serde_json::{json, Map, Value as Json};

    use super::{probe, LIBRARY_RED_ZONE, RED_ZONE};
    use crate::json::JsonRef;
    use crate::pattern::{Pattern, NEST_LIMIT};
    use crate::schema::{compile, CompiledSchema, MAX_SCHEMA_DEPTH};
    use crate::validate::{validate, validate_all, MAX_ARGUMENT_DEPTH, MAX_WALK_FRAMES};

    /// The red zone's line falls every this many bytes along a path.
    const LINE_STEP: usize = 4 * 1024;

    /// The stack of the thread that measures a path's whole depth, with no
    /// step moving to a segment (the deepest path takes under 1 MiB in an
    /// unoptimised build).
    const LARGE_STACK: usize = 8 << 20;

    /// `{key: value}`, with `value` moved in (`json!` copies a value it is
    /// given, recursively, on the caller's stack).
    fn object(key: &str, value: Json) -> Json {
        let mut map = Map::new();
        map.insert(key.to_string(), value);
        Json::Object(map)
    }

    fn list(value: Json) -> Json {
        Json::Array(vec![value])
    }

    fn nest(levels: usize, leaf: Json, wrap: impl Fn(Json) -> Json) -> Json {
        (0..levels).fold(leaf, |inner, _| wrap(inner))
    }

    fn reference(to: &str) -> Json {
        object("$ref", Json::String(format!("#/$defs/{to}")))
    }

    /// Definitions `d0`..`d{count}`, each of the first `count` is `link` of
    /// a reference to the next, the last is `last`; the root refers to `d0`
    /// from `keyword` (`propertyNames`, or the property `a`).
    fn chain(count: usize, link: impl Fn(Json) -> Json, last: Json, keyword: &str) -> Json {
        let mut defs = Map::new();
        for i in 0..count {
            defs.insert(format!("d{i}"), link(reference(&format!("d{}", i + 1))));
        }
        defs.insert(format!("d{count}"), last);
        let mut schema = match keyword {
            "propertyNames" => object("propertyNames", reference("d0")),
            _ => object("properties", object("a", reference("d0"))),
        };
        schema["$defs"] = Json::Object(defs);
        schema
    }

    fn compiled(schema: &Json) -> CompiledSchema {
        compile(JsonRef::from(schema)).unwrap_or_else(|e| panic!("{} at {}", e.error, e.pointer))
    }

    fn compiles(schema: &Json) -> bool {
        compile(JsonRef::from(schema)).is_ok()
    }

    /// The largest n (from `from` down) for which `ok(n)` holds.
    fn deepest(from: usize, ok: impl Fn(usize) -> bool) -> usize {
        (1..=from)
            .rev()
            .find(|&n| ok(n))
            .unwrap_or_else(|| panic!("none from {from}"))
    }

    /// Runs `f` on a thread with a large stack.
    fn on_large_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(LARGE_STACK)
                .spawn_scoped(scope, f)
                .unwrap()
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    /// Measures `run` (on what `prepare` makes before each measure; what
    /// `run` returns is checked against `expected` after it): its whole
    /// depth with no step moving to a segment, then, with the stack made to
    /// end lower and lower (`probe::measure_to`), so that the line where
    /// [`RED_ZONE`] is left falls every `LINE_STEP` bytes from its first
    /// frame to its deepest, how close its frames came to the end. Fails at
    /// the first run that answers otherwise than `expected` (a result never
    /// depends on where the stack runs low), or that leaves less than half
    /// the red zone untouched above the end.
    fn assert_fits<T, R: PartialEq + std::fmt::Debug + Sync>(
        name: &str,
        prepare: &(dyn Fn() -> T + Sync),
        run: &(dyn Fn(T) -> R + Sync),
        expected: R,
    ) {
        let (whole, runs, past_line) = on_large_stack(|| {
            let input = prepare();
            let (output, whole, _) = probe::measure(false, || run(input));
            assert_eq!(
                output, expected,
                "{name}: the answer with every step on one stack"
            );
            let (mut runs, mut past_line) = (0, 0);
            let mut line = 0;
            while line <= whole {
                let input = prepare();
                let (output, used) = probe::measure_to(line + RED_ZONE, || run(input));
                assert_eq!(
                    output, expected,
                    "{name}: the answer with {RED_ZONE} B left {line} B down"
                );
                let past = used.saturating_sub(line);
                assert!(
                    past <= RED_ZONE / 2,
                    "{name}: with {RED_ZONE} B left {line} B down, frames went {past} B (or more) \
                     past that line: a chain of frames between two checks takes that much"
                );
                runs += 1;
                past_line = past_line.max(past);
                line += LINE_STEP;
            }
            (whole, runs, past_line)
        });
        println!(
            "stack: {name}: {whole} B deep; with the red zone's line at {runs} depths, frames \
             went at most {past_line} B past it"
        );
    }

    /// Every keyword that nests a subschema, nested past the depth limit
    /// (the compiler descends to it, then writes the deepest pointer) and
    /// failing at the deepest level that compiles; the deepest schema, with
    /// compositions and a 64-level pattern at its leaf; `enum` and `const`
    /// values as deep as allowed; a chain of 2,000 `$ref`.
    #[test]
    fn every_compile_path_leaves_half_the_red_zone() {
        type Wrap = fn(Json) -> Json;
        let wraps: [(&str, Wrap); 12] = [
            ("properties", |s| object("properties", object("a", s))),
            ("items", |s| object("items", s)),
            ("tuple items", |s| object("items", list(s))),
            ("prefixItems", |s| object("prefixItems", list(s))),
            ("additionalItems", |s| object("additionalItems", s)),
            ("additionalProperties", |s| object("additionalProperties", s)),
            ("propertyNames", |s| object("propertyNames", s)),
            ("not", |s| object("not", s)),
            ("anyOf", |s| object("anyOf", list(s))),
            ("allOf", |s| object("allOf", list(s))),
            ("oneOf", |s| object("oneOf", list(s))),
            ("$defs", |s| object("$defs", object("d", s))),
        ];
        let outcome = |schema: &Json| {
            compile(JsonRef::from(schema))
                .map(drop)
                .map_err(|e| e.error.to_string())
        };
        let too_deep = || Err("tool schema nesting exceeds the supported depth".to_string());
        for (name, wrap) in wraps {
            let schema = |levels, leaf| object("properties", object("a", nest(levels, leaf, wrap)));
            let past = schema(MAX_SCHEMA_DEPTH, json!({}));
            assert_fits(
                &format!("compile: {name} past the depth limit"),
                &|| (),
                &|()| outcome(&past),
                too_deep(),
            );
            let fits = deepest(MAX_SCHEMA_DEPTH, |n| compiles(&schema(n, json!({}))));
            let failing = schema(fits, json!({"minimum": "1"}));
            assert_fits(
                &format!("compile: {name}, failing {fits} levels down"),
                &|| (),
                &|()| outcome(&failing),
                Err("schema minimum must be a number".to_string()),
            );
        }
        let pattern = json!({"type": "string", "pattern": format!("{}a{}", "(".repeat(NEST_LIMIT), ")".repeat(NEST_LIMIT))});
        let body = nest((MAX_SCHEMA_DEPTH - 6) / 3, pattern, |s| {
            object(
                "anyOf",
                Json::Array(vec![json!({"type": "string"}), object("items", s)]),
            )
        });
        let deepest_schema = object("properties", object("a", object("not", object("not", body))));
        assert_fits(
            "compile: the deepest schema, a 64-level pattern at its leaf",
            &|| (),
            &|()| outcome(&deepest_schema),
            Ok(()),
        );
        let values = |n| nest(n, json!("x"), list);
        let keyword = |keyword, value| object("properties", object("a", object(keyword, value)));
        let n = deepest(MAX_SCHEMA_DEPTH, |n| compiles(&keyword("enum", list(values(n)))));
        let choices = keyword("enum", Json::Array(vec![values(n), values(n)]));
        assert_fits(
            &format!("compile: enum values {n} deep"),
            &|| (),
            &|()| outcome(&choices),
            Ok(()),
        );
        let maps = |n| nest(n, json!(1), |v| object("k", v));
        let n = deepest(MAX_SCHEMA_DEPTH, |n| compiles(&keyword("const", maps(n))));
        let constant = keyword("const", maps(n));
        assert_fits(
            &format!("compile: a const value {n} deep"),
            &|| (),
            &|()| outcome(&constant),
            Ok(()),
        );
        let refs = chain(2_000, |next| next, json!({"type": "string"}), "properties");
        assert_fits(
            "compile: a chain of 2,000 $ref",
            &|| (),
            &|()| outcome(&refs),
            Ok(()),
        );
    }

    /// The walks through every kind of frame at the depth and frame limits:
    /// compositions and references cycling on one argument level, argument
    /// lists and objects as deep as allowed, same-value chains of `$ref`,
    /// property names through `$ref`, `enum`/`const` equality and
    /// `uniqueItems` keys of deep values; the first-error walk and the
    /// all-errors walk.
    #[test]
    fn every_validation_path_leaves_half_the_red_zone() {
        let cycle = |node: Json| {
            let mut schema = object("properties", object("n", reference("node")));
            schema["$defs"] = object("node", node);
            compiled(&schema)
        };
        let any_of = cycle(json!({"anyOf": [
            {"type": "null"},
            {"allOf": [{"not": {"type": "string"}}, {"properties": {"n": {"$ref": "#/$defs/node"}}, "required": ["n"]}]}
        ]}));
        let one_of = cycle(json!({"oneOf": [
            {"type": "null"},
            {"properties": {"n": {"$ref": "#/$defs/node"}}, "required": ["n"]}
        ]}));
        let mut cycling = Json::Null;
        for _ in 0..MAX_WALK_FRAMES {
            let mut level = Map::new();
            level.insert("n".to_string(), cycling);
            level.insert("pad".to_string(), json!(1));
            cycling = Json::Object(level);
        }
        let items = |levels| {
            let chain = nest(levels, json!({"type": "string"}), |s| object("items", s));
            compiled(&object("properties", object("a", chain)))
        };
        let (items_exact, items_long) = (items(MAX_ARGUMENT_DEPTH - 1), items(MAX_SCHEMA_DEPTH - 3));
        // The value at the end of `levels` lists below `a` is
        // `levels + 1` levels down: 63 lists reach the deepest level.
        let lists = |levels, leaf| object("a", nest(levels, leaf, list));
        let deepest_lists = lists(MAX_ARGUMENT_DEPTH - 1, json!("a"));
        let failing_lists = lists(MAX_ARGUMENT_DEPTH - 1, json!(1));
        let past_lists = lists(MAX_ARGUMENT_DEPTH + 1, json!("a"));
        let by_name = compiled(&json!({
            "properties": {"a": {"$ref": "#/$defs/n"}},
            "additionalProperties": {"$ref": "#/$defs/n"},
            "$defs": {"n": {"properties": {"a": {"$ref": "#/$defs/n"}}, "additionalProperties": {"$ref": "#/$defs/n"}}}
        }));
        let objects = |levels, key| nest(levels, json!(1), |v| object(key, v));
        let (deepest_objects, past_objects) = (
            objects(MAX_ARGUMENT_DEPTH, "a"),
            objects(MAX_ARGUMENT_DEPTH + 5, "a"),
        );
        let (deepest_rest, past_rest) = (
            objects(MAX_ARGUMENT_DEPTH, "b"),
            objects(MAX_ARGUMENT_DEPTH + 5, "b"),
        );
        let same_value = compiled(&chain(
            (MAX_WALK_FRAMES - 2) / 2,
            |next| object("allOf", list(next)),
            json!({"type": "integer"}),
            "properties",
        ));
        let (one, text) = (json!({"a": 1}), json!({"a": "x"}));
        let names = compiled(&chain(
            MAX_WALK_FRAMES - 2,
            |next| next,
            json!({"maxLength": 3}),
            "propertyNames",
        ));
        let name = json!({"abc": 1});
        let values = |n, leaf| nest(n, leaf, list);
        let keyword = |keyword, value| object("properties", object("a", object(keyword, value)));
        let n = deepest(MAX_SCHEMA_DEPTH, |n| {
            compiles(&keyword("enum", list(values(n, json!("x")))))
        });
        let choices = compiled(&keyword(
            "enum",
            Json::Array(vec![values(n, json!("y")), values(n, json!("x"))]),
        ));
        let choice = object("a", values(n, json!("x")));
        let maps = |n, leaf| nest(n, leaf, |v| object("k", v));
        let n = deepest(MAX_SCHEMA_DEPTH, |n| {
            compiles(&keyword("const", maps(n, json!(1))))
        });
        let constant = compiled(&keyword("const", maps(n, json!(1))));
        let not_constant = object("a", maps(n, json!(2)));
        let unique = compiled(&keyword("uniqueItems", json!(true)));
        let item = || maps(MAX_ARGUMENT_DEPTH - 2, json!("x"));
        let unique_maps = object("a", Json::Array(vec![item(), object("b", item()), item()]));
        let item = || values(MAX_ARGUMENT_DEPTH - 1, json!(1));
        let unique_lists = object("a", Json::Array(vec![item(), item()]));

        let too_deep = Some("tool argument nesting exceeds the supported depth");
        let wrong_type = Some("tool argument has the wrong type");
        let duplicates = Some("tool argument has duplicate items");
        let cases: [(&str, &CompiledSchema, &Json, Option<&str>); 16] = [
            (
                "anyOf, allOf, not and $ref cycling to the frame limit",
                &any_of,
                &cycling,
                too_deep,
            ),
            (
                "oneOf and $ref cycling to the frame limit",
                &one_of,
                &cycling,
                too_deep,
            ),
            (
                "argument lists as deep as allowed",
                &items_exact,
                &deepest_lists,
                None,
            ),
            (
                "argument lists as deep as allowed, failing at the leaf",
                &items_exact,
                &failing_lists,
                wrong_type,
            ),
            (
                "argument lists past the depth limit",
                &items_long,
                &past_lists,
                too_deep,
            ),
            (
                "objects as deep as allowed through properties and $ref",
                &by_name,
                &deepest_objects,
                None,
            ),
            (
                "objects past the depth limit through properties and $ref",
                &by_name,
                &past_objects,
                too_deep,
            ),
            (
                "objects as deep as allowed through additionalProperties",
                &by_name,
                &deepest_rest,
                None,
            ),
            (
                "objects past the depth limit through additionalProperties",
                &by_name,
                &past_rest,
                too_deep,
            ),
            (
                "a same-value chain of $ref and allOf to the frame limit",
                &same_value,
                &one,
                None,
            ),
            (
                "a same-value chain of $ref and allOf, failing at its end",
                &same_value,
                &text,
                wrong_type,
            ),
            (
                "propertyNames through a chain of $ref to the frame limit",
                &names,
                &name,
                None,
            ),
            (
                "enum equality of values as deep as allowed",
                &choices,
                &choice,
                None,
            ),
            (
                "const equality of maps as deep as allowed",
                &constant,
                &not_constant,
                Some("tool argument is not the allowed constant value"),
            ),
            (
                "uniqueItems keys of maps as deep as allowed",
                &unique,
                &unique_maps,
                duplicates,
            ),
            (
                "uniqueItems keys of lists as deep as allowed",
                &unique,
                &unique_lists,
                duplicates,
            ),
        ];
        for (name, schema, arguments, error) in cases {
            let expected = error.map_or(Ok(()), |message| Err(message.to_string()));
            assert_fits(
                &format!("validate: {name}"),
                &|| (),
                &|()| validate(schema, JsonRef::from(arguments)).map_err(|e| e.to_string()),
                expected.clone(),
            );
            // Every error (each case has one at most).
            assert_fits(
                &format!("validate, every error: {name}"),
                &|| (),
                &|()| {
                    validate_all(schema, JsonRef::from(arguments)).map_err(|errors| {
                        errors
                            .iter()
                            .map(|e| e.to_string())
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                },
                expected,
            );
        }
    }

    /// What recurses outside the walks, on a compiled schema whose `enum`
    /// and `const` values are as deep as allowed: its cache accounting, and
    /// dropping it.
    #[test]
    fn accounting_and_dropping_deep_values_leave_half_the_red_zone() {
        let values = |n| nest(n, json!("x"), list);
        let schema = |n| {
            let mut properties = Map::new();
            properties.insert(
                "a".to_string(),
                object("enum", Json::Array(vec![values(n), values(n)])),
            );
            properties.insert("b".to_string(), object("const", values(n + 1)));
            object("properties", Json::Object(properties))
        };
        let schema = schema(deepest(MAX_SCHEMA_DEPTH, |n| compiles(&schema(n))));
        let bytes = compiled(&schema).approximate_bytes();
        assert_fits(
            "accounting: the bytes a compiled schema holds",
            &|| compiled(&schema),
            &|compiled| compiled.approximate_bytes(),
            bytes,
        );
        assert_fits("drop: a compiled schema", &|| compiled(&schema), &drop, ());
    }

    /// A call into regex-syntax and regex-automata, which recurse on their
    /// own, at the deepest nesting a pattern may have: the whole call fits
    /// in half of [`LIBRARY_RED_ZONE`].
    #[test]
    fn pattern_compiles_fit_half_the_library_red_zone() {
        let nested = |open: &str, inner: &str, close: &str, levels: usize| {
            format!("{}{inner}{}", open.repeat(levels), close.repeat(levels))
        };
        let (groups, quantified) = (NEST_LIMIT, NEST_LIMIT / 2);
        let patterns = [
            nested("(", "a", ")", groups),
            nested("(?:b|", "a", ")", groups),
            nested("(?:", "a", ")*", quantified),
            nested("(?:", "a", ")+", quantified),
            nested("(?:", "a", ")?", quantified),
            nested("(?:", "a", ")*?", quantified),
            nested("(?:", "a", "){2}", quantified),
            nested("(?:", "a", "){0,2}", quantified),
            nested("(?:", "[a-z]", "){1,2}", quantified),
            nested("(?:[^b]|", "a", "){2}", quantified),
            nested("(?:b|", "a", ")*", quantified),
            nested("(?:\\b", "a", "$)*", quantified),
            nested("(?:a{2}", "a", ")+", quantified),
            nested("(?:[\\s\\S]", "a", "){3}", quantified),
        ];
        for pattern in patterns {
            let (outcome, whole, _) = std::thread::Builder::new()
                .stack_size(LARGE_STACK)
                .spawn({
                    let pattern = pattern.clone();
                    move || probe::measure(false, || Pattern::compile(pattern.as_bytes()).map(|_| ()))
                })
                .unwrap()
                .join()
                .unwrap();
            println!("stack: pattern compile of {pattern} ({outcome:?}): {whole} B");
            assert!(whole <= LIBRARY_RED_ZONE / 2, "{pattern}: {whole} B");
        }
    }
}
