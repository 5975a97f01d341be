//! Patterns: the portable subset (`parse.rs`) compiled to a finite automaton
//! and searched in time linear in the input. This module owns the limits on
//! pattern size, automaton size and matching work; the schema compiler only
//! sees `Pattern::compile` and `Pattern::search`.
//!
//! Standard JSON Schema reads patterns in ECMAScript's whole Unicode-mode
//! grammar instead, with escapes of ASCII punctuation or a space as the
//! character, as the mode without the `u` flag reads them
//! ([`Pattern::compile_standard`], [`Syntax::Standard`]):
//! the same meanings, limits and engines, refusing only what no automaton
//! runs (backreferences, lookaround) as [`PatternError::NeedsBacktracking`].
//! [`is_valid_ecmascript`] checks that grammar's syntax alone (the `regex`
//! format).
//!
//! Engine choice: a fully built DFA when it fits [`DENSE_DFA_LIMIT`] (every
//! ordinary pattern: no per-call state, one table lookup per input byte), and
//! otherwise a lazy DFA whose cache is fresh for every search, so a result
//! never depends on earlier calls.

mod parse;
mod property;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::hybrid;
use regex_automata::nfa::thompson;
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::{Anchored, Input};

pub use parse::{Syntax, SyntaxError, MAX_REPEAT, NEST_LIMIT};

/// Longest accepted pattern source, in UTF-8 bytes (the contract's 1,024).
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Heap the Thompson NFA may use. `[a-z]{1,10000}` needs about 1 MiB; the
/// cap stops a 1 KiB pattern from expanding to hundreds of megabytes
/// (`(((a{100}){100}){100})`).
pub const NFA_SIZE_LIMIT: usize = 4 << 20;

/// Largest fully built DFA kept per pattern. Ordinary tool-schema patterns
/// (identifiers, dates, UUIDs, e-mail-like shapes, `{1,255}` bounds on a
/// class) take 1-20 KiB. Larger DFAs come from long counted repetitions of
/// `.` or of negated classes (`^.{1,255}$`: 320 KiB, 5 ms to build), which
/// the lazy DFA searches nearly as fast from a fraction of the build; the
/// limit also keeps a build that gives up short (about 2 ms).
pub const DENSE_DFA_LIMIT: usize = 64 << 10;

/// Working memory the dense DFA build may use before it gives up and the
/// pattern falls back to the lazy DFA.
pub const DETERMINIZE_LIMIT: usize = 256 << 10;

/// The lazy DFA's state cache for one search.
pub const LAZY_CACHE_BYTES: usize = 2 << 20;

/// The fixed work limit: a lazy search gives up once its cache has been
/// cleared this many times while producing fewer than
/// [`LAZY_MIN_BYTES_PER_STATE`] input bytes per new state, i.e. when the
/// automaton is being rebuilt instead of reused. Ordinary input against a
/// pattern reuses states and never gets there.
pub const LAZY_CACHE_CLEARS: usize = 3;
pub const LAZY_MIN_BYTES_PER_STATE: usize = 10;

/// Thompson NFAs with more states than this skip the fully built DFA and go
/// straight to the lazy one: a DFA from them would pass
/// [`DENSE_DFA_LIMIT`] (every state costs at least a few dozen bytes), and
/// finding that out by trying costs milliseconds of determinising.
pub const DENSE_NFA_STATES: usize = 2_048;

/// Work units (the [`crate::budget::Budget`] scale, about 50 ns each)
/// charged for building one pattern, as measured on this project's machine
/// class (`bench/hostile.exs` prints what hostile shapes cost): parsing and
/// the NFA about a unit per 5 bytes of NFA (Unicode classes such as
/// `[\s\S]{1,4000}` are the dearest per byte), a fully built DFA about a unit
/// per 2 bytes of table plus a fixed 300 for its start states and loop sets,
/// and a determinisation that gives up (the pattern then uses the lazy DFA)
/// about 1.5 ms, whatever the pattern's size.
const NFA_BYTES_PER_UNIT: usize = 5;
const DFA_BYTES_PER_UNIT: usize = 2;
const DENSE_FIXED_UNITS: u64 = 300;
pub const FAILED_DENSE_UNITS: u64 = 30_000;

/// Compiled patterns kept for reuse, by source: a catalog repeats the same
/// few patterns (`^[A-Za-z0-9-]+$` for every repository owner), and
/// determinising a DFA costs tens of microseconds. Bounded by count and by
/// automaton bytes, oldest out first. Gateway patterns are kept under their
/// source, standard ones under [`with_standard_key`]'s, so that neither grammar
/// ever finds the other's decision.
pub const PATTERN_CACHE_ENTRIES: usize = 1024;
pub const PATTERN_CACHE_BYTES: usize = 32 << 20;

struct PatternCache {
    by_source: HashMap<Box<[u8]>, Arc<Pattern>>,
    order: VecDeque<Box<[u8]>>,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
}

impl PatternCache {
    fn new(max_entries: usize, max_bytes: usize) -> PatternCache {
        PatternCache {
            by_source: HashMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            max_entries,
            max_bytes,
        }
    }

    /// What a kept pattern counts against the byte bound.
    fn cost(source: &[u8], pattern: &Pattern) -> usize {
        pattern.memory_usage() + source.len()
    }

    /// Keeps `pattern` for `source`, oldest out first, unless the source is
    /// kept already or the pattern alone passes the byte bound. Returns the
    /// evicted patterns, for the caller to free once the lock is released
    /// (freeing takes time that grows with their size).
    fn insert(&mut self, source: &[u8], pattern: &Arc<Pattern>) -> Vec<Arc<Pattern>> {
        let mut evicted = Vec::new();
        let bytes = Self::cost(source, pattern);
        if bytes > self.max_bytes || self.by_source.contains_key(source) {
            return evicted;
        }
        while self.by_source.len() >= self.max_entries || self.bytes + bytes > self.max_bytes {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            if let Some(old) = self.by_source.remove(&oldest) {
                self.bytes = self.bytes.saturating_sub(Self::cost(&oldest, &old));
                evicted.push(old);
            }
        }
        self.by_source.insert(source.into(), Arc::clone(pattern));
        self.order.push_back(source.into());
        self.bytes += bytes;
        evicted
    }
}

static PATTERN_CACHE: Mutex<Option<PatternCache>> = Mutex::new(None);

/// The longest standard key written on the stack (`with_standard_key`):
/// most patterns are shorter, and their look-up allocates nothing.
const SHORT_KEY: usize = 128;

/// Runs `f` on the cache key of a standard pattern: its source after a 0xFF
/// byte. No gateway key holds that byte (only valid UTF-8, which never
/// does, compiles and is kept).
fn with_standard_key<R>(source: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    let mut short = [0u8; SHORT_KEY];
    if let Some((first, rest)) = short
        .get_mut(..=source.len())
        .and_then(|key| key.split_first_mut())
    {
        *first = 0xFF;
        rest.copy_from_slice(source);
        return f(short.get(..=source.len()).unwrap_or_default());
    }
    let mut key = Vec::with_capacity(source.len() + 1);
    key.push(0xFF);
    key.extend_from_slice(source);
    f(&key)
}

fn with_pattern_cache<R>(f: impl FnOnce(&mut PatternCache) -> R) -> R {
    // Every update completes before anything that could panic: a poisoned
    // lock still guards a consistent cache.
    let mut guard = PATTERN_CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(guard.get_or_insert_with(|| PatternCache::new(PATTERN_CACHE_ENTRIES, PATTERN_CACHE_BYTES)))
}

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternError {
    TooLarge,
    /// Gateway: outside the portable subset. Standard: a valid property
    /// escape this build has no Unicode table for (only
    /// `\p{Changes_When_NFKC_Casefolded}`, alias `CWKCF`).
    Unsupported,
    Invalid,
    /// Standard only: valid ECMAScript that needs a backtracking engine (a
    /// backreference or lookaround).
    NeedsBacktracking,
}

/// Whether `source` is a valid ECMAScript regular expression in Unicode
/// mode, backreferences and lookaround included (valid syntax, though
/// [`Pattern::compile_standard`] cannot run them): the `regex` format. No
/// automaton is built and no size limit applies; time and memory are linear
/// in the source.
pub fn is_valid_ecmascript(source: &str) -> bool {
    parse::is_valid_ecmascript(source)
}

/// The search ran out of its work limit before it could decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternLimit;

#[derive(Debug)]
enum Engine {
    Dense(Box<DenseEngine>),
    Lazy(Box<hybrid::dfa::DFA>),
}

/// A fully built DFA and, for its states that loop on many bytes (the `[…]+`
/// of `^[A-Za-z0-9_.-]+$`), the set of those bytes. A DFA walk costs one
/// dependent table load per byte; inside such a state the search instead
/// scans ahead for the first byte that leaves it, a loop with independent
/// loads that runs about three times faster on long strings.
#[derive(Debug)]
struct DenseEngine {
    dfa: dense::DFA<Vec<u32>>,
    /// Per state index (`id >> stride2`): 0, or 1 + index into `loops`.
    loop_of: Vec<u16>,
    loops: Vec<ByteSet>,
}

/// A set of bytes.
#[derive(Debug, Clone, Copy, Default)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert(&mut self, byte: u8) {
        if let Some(word) = self.0.get_mut(usize::from(byte >> 6)) {
            *word |= 1 << (byte & 63);
        }
    }

    fn contains(&self, byte: u8) -> bool {
        self.0
            .get(usize::from(byte >> 6))
            .is_some_and(|word| word & (1 << (byte & 63)) != 0)
    }

    fn len(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
}

/// States explored for loop sets; a larger DFA is searched without them.
/// A backstop: a DFA within [`DENSE_DFA_LIMIT`] has fewer states (two byte
/// classes at least, plus end of input, make a stride of four transitions:
/// 16 table bytes a state), but the scan stays bounded if that limit is ever
/// raised.
const LOOP_SCAN_STATES: usize = 4096;

/// A state whose loop keeps at least this many bytes gets a loop set.
const LOOP_MIN_BYTES: u32 = 16;

impl DenseEngine {
    fn new(dfa: dense::DFA<Vec<u32>>) -> DenseEngine {
        let (loop_of, loops) = Self::loop_sets(&dfa).unwrap_or_default();
        DenseEngine { dfa, loop_of, loops }
    }

    /// Walks the states reachable from every start state and records the
    /// bytes on which each state stays put. `None` past `LOOP_SCAN_STATES`.
    fn loop_sets(dfa: &dense::DFA<Vec<u32>>) -> Option<(Vec<u16>, Vec<ByteSet>)> {
        let stride2 = dfa.stride2();
        let mut seen = HashSet::new();
        let mut queue = Vec::new();
        let visit = |sid: StateID, seen: &mut HashSet<StateID>, queue: &mut Vec<StateID>| {
            if seen.insert(sid) {
                queue.push(sid);
            }
        };
        for anchored in [Anchored::No, Anchored::Yes] {
            for look_behind in [None, Some(b'\n'), Some(b'\r'), Some(b'a'), Some(b' '), Some(0xC3)] {
                let config = start::Config::new().anchored(anchored).look_behind(look_behind);
                if let Ok(sid) = dfa.start_state(&config) {
                    visit(sid, &mut seen, &mut queue);
                }
            }
        }
        // Bytes of one equivalence class move every state alike: one
        // transition per class tells where the whole class goes.
        let mut classes: Vec<Vec<u8>> = vec![Vec::new(); 256];
        for byte in 0..=255u8 {
            if let Some(class) = classes.get_mut(usize::from(dfa.byte_classes().get(byte))) {
                class.push(byte);
            }
        }
        let mut loop_of = Vec::new();
        let mut loops = Vec::new();
        let mut explored = 0;
        while let Some(sid) = queue.pop() {
            explored += 1;
            if explored > LOOP_SCAN_STATES {
                return None;
            }
            let mut set = ByteSet::default();
            for bytes in &classes {
                let Some(&representative) = bytes.first() else {
                    continue;
                };
                let next = dfa.next_state(sid, representative);
                if next == sid {
                    bytes.iter().for_each(|&byte| set.insert(byte));
                } else {
                    visit(next, &mut seen, &mut queue);
                }
            }
            if set.len() >= LOOP_MIN_BYTES && !dfa.is_special_state(sid) {
                let index = sid.as_usize() >> stride2;
                if loop_of.len() <= index {
                    loop_of.resize(index + 1, 0);
                }
                let number = u16::try_from(loops.len() + 1).ok()?;
                if let Some(slot) = loop_of.get_mut(index) {
                    *slot = number;
                }
                loops.push(set);
            }
        }
        Some((loop_of, loops))
    }

    fn loop_set(&self, sid: StateID) -> Option<&ByteSet> {
        let number = *self.loop_of.get(sid.as_usize() >> self.dfa.stride2())?;
        self.loops.get(usize::from(number).checked_sub(1)?)
    }

    /// Whether the DFA matches anywhere in `haystack`: a forward walk that
    /// stops at the first match state or the dead state.
    fn is_match(&self, haystack: &[u8]) -> Result<bool, PatternLimit> {
        let dfa = &self.dfa;
        let input = Input::new(haystack);
        let mut sid = dfa.start_state_forward(&input).map_err(|_| PatternLimit)?;
        if dfa.is_dead_state(sid) {
            return Ok(false);
        }
        let mut at = 0;
        while let Some(&byte) = haystack.get(at) {
            let next = dfa.next_state(sid, byte);
            at += 1;
            if next == sid {
                if let Some(set) = self.loop_set(sid) {
                    let rest = haystack.get(at..).unwrap_or_default();
                    at += rest.iter().position(|&b| !set.contains(b)).unwrap_or(rest.len());
                }
                continue;
            }
            sid = next;
            if dfa.is_special_state(sid) {
                if dfa.is_match_state(sid) {
                    return Ok(true);
                }
                if dfa.is_dead_state(sid) {
                    return Ok(false);
                }
                if dfa.is_quit_state(sid) {
                    return Err(PatternLimit);
                }
            }
        }
        Ok(dfa.is_match_state(dfa.next_eoi_state(sid)))
    }
}

/// A compiled pattern.
#[derive(Debug)]
pub struct Pattern {
    engine: Engine,
    /// The pattern is a plain literal (`abc`) or one anchored at the start
    /// (`^abc`): searched as text, without the automaton (which is still
    /// built, so that the pattern costs the same to build either way).
    literal: Option<Literal>,
    /// What building it cost, in work units: a function of the source
    /// alone, so a schema's compile budget does not depend on which
    /// patterns another call built before.
    build_units: u64,
}

/// A pattern made of letters, digits and `_` only, after an optional `^`.
#[derive(Debug)]
struct Literal {
    text: Box<str>,
    anchored: bool,
}

impl Literal {
    /// The literal `source` is, if it is one. Only characters that stand
    /// for themselves in both grammars, outside and inside any construct,
    /// qualify (no escape, no class, no quantifier, no `$`).
    fn of(source: &str) -> Option<Literal> {
        let (anchored, text) = match source.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, source),
        };
        let plain = !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        plain.then(|| Literal {
            text: Box::from(text),
            anchored,
        })
    }

    fn search(&self, haystack: &str) -> bool {
        if self.anchored {
            starts_with(haystack.as_bytes(), self.text.as_bytes())
        } else {
            haystack.contains(&*self.text)
        }
    }
}

/// Whether `text` begins with `prefix`, compared a byte at a time: the
/// prefixes of patterns are short (`^str_`), where a call to `memcmp`
/// costs more than the comparison itself.
#[inline]
fn starts_with(text: &[u8], prefix: &[u8]) -> bool {
    text.len() >= prefix.len() && text.iter().zip(prefix).all(|(a, b)| a == b)
}

impl Pattern {
    /// [`Pattern::compile`], reusing the automaton of an identical source
    /// compiled before. The result is the same either way.
    pub fn compile_shared(source: &[u8]) -> Result<Arc<Pattern>, PatternError> {
        Pattern::shared(source, || Pattern::compile(source))
    }

    /// The pattern the cache holds under `key`, or `compile`'s, then kept
    /// there (its evictions freed outside the lock).
    fn shared(
        key: &[u8],
        compile: impl FnOnce() -> Result<Pattern, PatternError>,
    ) -> Result<Arc<Pattern>, PatternError> {
        if let Some(found) = with_pattern_cache(|c| c.by_source.get(key).cloned()) {
            return Ok(found);
        }
        let pattern = Arc::new(compile()?);
        let evicted = with_pattern_cache(|c| c.insert(key, &pattern));
        drop(evicted);
        Ok(pattern)
    }

    /// The pattern of an identical source compiled before, without waiting:
    /// `None` when there is none, or when another thread holds the cache
    /// (for callers on a normal scheduler, which must not wait on a lock a
    /// dirty scheduler holds).
    pub fn find_shared(source: &[u8]) -> Option<Arc<Pattern>> {
        let guard = match PATTERN_CACHE.try_lock() {
            Ok(guard) => guard,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        guard.as_ref()?.by_source.get(source).cloned()
    }

    /// [`Pattern::compile_standard`], reusing the automaton of an identical
    /// source compiled before in standard mode (never one compiled for the
    /// gateway). The result is the same either way.
    pub fn compile_standard_shared(source: &[u8]) -> Result<Arc<Pattern>, PatternError> {
        if source.len() > MAX_PATTERN_BYTES {
            // Before copying a source of any size into a key.
            return Err(PatternError::TooLarge);
        }
        with_standard_key(source, |key| {
            Pattern::shared(key, || Pattern::compile_standard(source))
        })
    }

    /// The standard-mode pattern of an identical source compiled before,
    /// without waiting (as [`Pattern::find_shared`], for normal schedulers).
    pub fn find_standard_shared(source: &[u8]) -> Option<Arc<Pattern>> {
        with_standard_key(source, Pattern::find_shared)
    }

    /// Checks and compiles pattern source, in the contract's order: size,
    /// then unsupported syntax, then validity, then automaton size.
    pub fn compile(source: &[u8]) -> Result<Pattern, PatternError> {
        Pattern::compile_in(source, Syntax::Gateway)
    }

    /// Checks and compiles pattern source in standard JSON Schema's grammar,
    /// ECMAScript's Unicode mode (with escapes of ASCII punctuation or a
    /// space as literals): size, then validity (including UTF-8),
    /// then constructs that need backtracking, then nesting, counts and
    /// automaton size, with the gateway's limits. Same meanings and engines
    /// as [`Pattern::compile`].
    pub fn compile_standard(source: &[u8]) -> Result<Pattern, PatternError> {
        Pattern::compile_in(source, Syntax::Standard)
    }

    fn compile_in(source: &[u8], syntax: Syntax) -> Result<Pattern, PatternError> {
        crate::stack::within(crate::stack::LIBRARY_RED_ZONE, || {
            if source.len() > MAX_PATTERN_BYTES {
                return Err(PatternError::TooLarge);
            }
            let source = std::str::from_utf8(source).map_err(|_| PatternError::Invalid)?;
            let hir = parse::parse(source, syntax).map_err(|e| match e {
                SyntaxError::Unsupported => PatternError::Unsupported,
                SyntaxError::Invalid => PatternError::Invalid,
                SyntaxError::TooDeep | SyntaxError::CountTooLarge => PatternError::TooLarge,
                SyntaxError::NeedsBacktracking => PatternError::NeedsBacktracking,
            })?;
            let nfa = thompson::Compiler::new()
                .configure(
                    thompson::Config::new()
                        .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                        .which_captures(thompson::WhichCaptures::None)
                        // Code points are the expression's own business (its
                        // classes are UTF-8 sequences, and `parse` makes every
                        // match end where a code point starts): in UTF-8 mode
                        // the lazy search also dropped empty matches before a
                        // multi-byte character, answering `^` with "no match".
                        .utf8(false)
                        .shrink(false),
                )
                .build_from_hir(&hir)
                .map_err(|_| PatternError::TooLarge)?;
            let mut build_units = (source.len() + nfa.memory_usage() / NFA_BYTES_PER_UNIT) as u64;
            if nfa.states().len() <= DENSE_NFA_STATES {
                let dense = dense::Builder::new()
                    .configure(
                        dense::Config::new()
                            .start_kind(StartKind::Unanchored)
                            .dfa_size_limit(Some(DENSE_DFA_LIMIT))
                            .determinize_size_limit(Some(DETERMINIZE_LIMIT)),
                    )
                    .build_from_nfa(&nfa);
                if let Ok(dfa) = dense {
                    build_units += DENSE_FIXED_UNITS + (dfa.memory_usage() / DFA_BYTES_PER_UNIT) as u64;
                    return Ok(Pattern {
                        engine: Engine::Dense(Box::new(DenseEngine::new(dfa))),
                        literal: Literal::of(source),
                        build_units,
                    });
                }
                build_units += FAILED_DENSE_UNITS;
            }
            let lazy = hybrid::dfa::Builder::new()
                .configure(
                    hybrid::dfa::Config::new()
                        .cache_capacity(LAZY_CACHE_BYTES)
                        .minimum_cache_clear_count(Some(LAZY_CACHE_CLEARS))
                        .minimum_bytes_per_state(Some(LAZY_MIN_BYTES_PER_STATE)),
                )
                .build_from_nfa(nfa)
                .map_err(|_| PatternError::TooLarge)?;
            Ok(Pattern {
                engine: Engine::Lazy(Box::new(lazy)),
                literal: Literal::of(source),
                build_units,
            })
        })
    }

    /// Whether the pattern matches anywhere in `haystack` (search semantics).
    #[inline]
    pub fn search(&self, haystack: &str) -> Result<bool, PatternLimit> {
        // An anchored literal (`^str_`, the commonest `patternProperties`
        // key) is compared in the caller; anything else costs a call.
        match &self.literal {
            Some(literal) if literal.anchored => {
                Ok(starts_with(haystack.as_bytes(), literal.text.as_bytes()))
            }
            _ => self.search_called(haystack),
        }
    }

    #[inline(never)]
    fn search_called(&self, haystack: &str) -> Result<bool, PatternLimit> {
        if let Some(literal) = &self.literal {
            return Ok(literal.search(haystack));
        }
        let input = Input::new(haystack).earliest(true);
        match &self.engine {
            Engine::Dense(dense) => dense.is_match(haystack.as_bytes()),
            Engine::Lazy(dfa) => {
                let mut cache = dfa.create_cache();
                dfa.try_search_fwd(&mut cache, &input)
                    .map(|m| m.is_some())
                    .map_err(|_| PatternLimit)
            }
        }
    }

    /// Heap bytes held by the automaton.
    pub fn memory_usage(&self) -> usize {
        match &self.engine {
            Engine::Dense(dense) => {
                dense.dfa.memory_usage() + 2 * dense.loop_of.len() + 32 * dense.loops.len()
            }
            // The lazy DFA owns its NFA, by far the larger part.
            Engine::Lazy(dfa) => dfa.memory_usage() + dfa.get_nfa().memory_usage(),
        }
    }

    /// Work units building this pattern cost (see [`FAILED_DENSE_UNITS`]).
    pub fn build_units(&self) -> u64 {
        self.build_units
    }

    /// Whether the pattern uses the fully built DFA (for tests and benches).
    pub fn is_dense(&self) -> bool {
        matches!(self.engine, Engine::Dense(_))
    }
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
pub(crate) mod tests;

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod standard_tests;
