//! The transparent schema cache behind `validate(schema_map, arguments)`,
//! the gateway's, and behind `Backplane.JSONSchema`'s `validate/3` and
//! `valid?/2` given a schema map: one cache, one policy, one set of
//! bounds for both entry points.
//!
//! A schema term is found again only when it is exactly the same term
//! (`enif_is_identical`, Erlang `=:=`): `1` and `1.0`, atom and string keys
//! are different schemas. It is found only as what it was compiled as: the
//! gateway's compile with its format mode, or the standard entry point's
//! with its dialect and format mode ([`StandardKey`]); the same term
//! compiled otherwise is another entry, in another bucket. Entries hold a
//! private copy of the schema term (in an `OwnedEnv`) beside its compiled
//! form. The cache is bounded by entry
//! count and by approximate bytes; when either bound would be passed, the
//! oldest entries are dropped (first in, first out), so a stream of distinct
//! schemas keeps it at its bound.
//!
//! Locking: one read-write lock guards the index. Nothing whose cost grows
//! with a schema happens under it: a lookup takes the read lock to clone
//! the few entries of one bucket and compares terms after releasing it; an
//! insertion copies and hashes the term before taking the write lock, and
//! frees evicted entries after releasing it. Readers do not wait for each
//! other. The calling (normal) scheduler never waits at all: the inline half
//! only tries the lock, and hands the call over (or compiles without
//! filing) when a writer holds it. `docs/performance.md` ("The schema
//! cache under many cores") has the analysis.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};

use rustler::env::{OwnedEnv, SavedTerm};
use rustler::types::map::MapIterator;
use rustler::{Term, TermType};

use input_schema_core::schema::{CompiledSchema, FormatMode};
use input_schema_core::standard::{Dialect, FormatMode as StandardFormats, Validator};

/// Default bounds: 1,024 schemas, 64 MiB. A runtime publishes tens to a few
/// hundred tools; each compiled schema with its term copy takes a few KiB
/// (patterns add their automata).
pub const DEFAULT_MAX_ENTRIES: usize = 1024;
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

/// The largest cached term the inline half compares, and the largest term
/// it files, in bytes of the term's flat size. Comparing or copying 32 KiB
/// takes about 10-30 µs, well inside the inline budget's 100 µs; the largest
/// real tool schemas (about 50 KB of JSON) go to the dirty half.
pub const INLINE_TERM_BYTES: usize = 32 << 10;

/// The largest schema, in bytes of its flat size (shared subterms counted
/// each time they are met), whose `%Compiled{}` carries a source.
pub const MAX_SOURCE_BYTES: usize = 16 << 20;

/// The largest `properties` map whose names the inline half hashes.
const INLINE_HASHED_NAMES: usize = 256;

/// A schema term copied out of the caller's heap.
struct SavedSchema {
    env: OwnedEnv,
    /// Keeps the copy's generation; `raw` is what comparisons read.
    _term: SavedTerm,
    /// The copy itself, valid for as long as `env`, which is never cleared.
    /// (`SavedTerm::load` would upgrade a weak reference, a write to a count
    /// every thread shares, on every comparison.)
    raw: rustler::sys::ErlNifTerm,
}

// SAFETY: the environment is written once, when the term is saved, and
// never cleared or sent from; afterwards threads only load the saved term
// (a read of an immutable term in a process-independent environment, and
// an atomic reference count) to compare it. `OwnedEnv` is `Send` but not
// `Sync` only because `clear` and `send_and_clear` take `&mut self`, which
// nothing here calls.
unsafe impl Sync for SavedSchema {}

impl SavedSchema {
    fn new(term: Term<'_>) -> SavedSchema {
        let env = OwnedEnv::new();
        let saved = env.save(term);
        let raw = env.run(|env| saved.load(env).as_c_arg());
        SavedSchema {
            env,
            _term: saved,
            raw,
        }
    }

    fn is(&self, term: Term<'_>) -> bool {
        // SAFETY: `raw` is a term of `self.env`, which lives as long as
        // `self` and is never cleared.
        self.env.run(|env| unsafe { Term::new(env, self.raw) } == term)
    }
}

/// The options a standard schema map is compiled with, besides the schema:
/// part of what its entry is found by. (A call with `resources:` is not
/// cached at all: the caller compiles it each time.)
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct StandardKey {
    pub dialect: Dialect,
    pub formats: StandardFormats,
    /// Whether content keywords are asserted.
    pub content: bool,
    /// Compiled by the gateway's Draft 2020-12 contract rather than by the
    /// standard entry point.
    pub contract: bool,
}

impl StandardKey {
    /// What the hash of a schema filed under this key is mixed with:
    /// apart from the gateway's 0 (formats annotated) and 1 (asserted).
    fn salt(self) -> u64 {
        let dialect = Dialect::ALL.iter().position(|d| *d == self.dialect).unwrap_or(0) as u64;
        let asserted = u64::from(self.formats == StandardFormats::Assert);
        2 + 2 * dialect + asserted + 16 * u64::from(self.content) + 32 * u64::from(self.contract)
    }
}

/// A compiled schema as the cache holds it.
enum Cached {
    Gateway(Arc<CompiledSchema>),
    Standard(Arc<Validator>, StandardKey),
}

impl Cached {
    fn approximate_bytes(&self) -> usize {
        match self {
            Cached::Gateway(schema) => schema.approximate_bytes(),
            Cached::Standard(validator, _) => validator.approximate_bytes(),
        }
    }

    /// Whether `self` and `other` were compiled the same way (of the same
    /// entry point, with the same options).
    fn same_kind(&self, other: &Cached) -> bool {
        match (self, other) {
            (Cached::Gateway(a), Cached::Gateway(b)) => a.formats == b.formats,
            (Cached::Standard(_, a), Cached::Standard(_, b)) => a == b,
            _ => false,
        }
    }

    fn gateway(&self, formats: FormatMode) -> Option<&Arc<CompiledSchema>> {
        match self {
            Cached::Gateway(schema) if schema.formats == formats => Some(schema),
            _ => None,
        }
    }

    fn standard(&self, key: StandardKey) -> Option<&Arc<Validator>> {
        match self {
            Cached::Standard(validator, filed) if *filed == key => Some(validator),
            _ => None,
        }
    }
}

struct Entry {
    id: u64,
    hash: u64,
    /// What a thread's front compares before the term (`front_key`).
    front_key: (usize, usize),
    /// The runtime's hash of the whole term, for crowded buckets.
    full_hash: u64,
    /// The term's flat size, in bytes.
    term_bytes: usize,
    saved: SavedSchema,
    compiled: Cached,
    bytes: usize,
}

struct Index {
    enabled: bool,
    max_entries: usize,
    max_bytes: usize,
    by_hash: HashMap<u64, Vec<Arc<Entry>>>,
    /// (hash, id) in insertion order, for eviction.
    order: VecDeque<(u64, u64)>,
    entries: usize,
    bytes: usize,
    next_id: u64,
}

static INDEX: RwLock<Option<Index>> = RwLock::new(None);
static HITS: AtomicU64 = AtomicU64::new(0);
static MISSES: AtomicU64 = AtomicU64::new(0);

// ---------------------------------------------------------------- fronts
//
// Each thread (a scheduler, normal or dirty) keeps its own few most recent
// hits, its front, and looks there before the shared index. A hit found in
// the front writes nothing another thread reads: no lock, no reference
// count, a hit counter of the thread's own. It is exact all the same: the
// term is compared with the entry's saved term, as in the index. Whenever
// the index drops entries (eviction, clearing, a new policy) it bumps
// `GENERATION`, and a front that sees a new generation empties itself
// before its next lookup; until then an idle thread's front keeps its
// entries alive (at most `FRONT_ENTRIES` of at most `INLINE_TERM_BYTES`
// each, per thread).

/// Most entries a thread's front holds.
const FRONT_ENTRIES: usize = 16;

static GENERATION: AtomicU64 = AtomicU64::new(0);
static ENABLED: AtomicBool = AtomicBool::new(true);
/// Every thread's front hit counter, for `stats`; and their sum when the
/// counters were last cleared.
static FRONT_COUNTERS: Mutex<Vec<Arc<AtomicU64>>> = Mutex::new(Vec::new());
static FRONT_HITS_CLEARED: AtomicU64 = AtomicU64::new(0);

struct Front {
    generation: u64,
    /// Most recent last.
    entries: Vec<Arc<Entry>>,
    hits: Arc<AtomicU64>,
}

thread_local! {
    static FRONT: RefCell<Option<Front>> = const { RefCell::new(None) };
}

/// What the front compares before a term: a map's size and its
/// `properties` map's size, or a binary's length (a source).
fn front_key(term: Term<'_>) -> Option<(usize, usize)> {
    match term.map_size() {
        Ok(size) => {
            let properties = term
                .map_get("properties")
                .or_else(|_| term.map_get(atoms::properties()))
                .ok()
                .and_then(|p| p.map_size().ok())
                .unwrap_or(0);
            Some((size, properties))
        }
        Err(_) => match term.get_type() {
            TermType::Binary => rustler::Binary::from_term(term)
                .ok()
                .map(|b| (usize::MAX, b.len())),
            _ => None,
        },
    }
}

fn with_front<R>(body: impl FnOnce(&mut Front) -> R) -> Option<R> {
    FRONT
        .try_with(|front| {
            let mut front = front.try_borrow_mut().ok()?;
            let generation = GENERATION.load(Ordering::Acquire);
            let front = front.get_or_insert_with(|| {
                let hits = Arc::new(AtomicU64::new(0));
                if let Ok(mut counters) = FRONT_COUNTERS.lock() {
                    counters.push(Arc::clone(&hits));
                }
                Front {
                    generation,
                    entries: Vec::with_capacity(FRONT_ENTRIES),
                    hits,
                }
            });
            if front.generation != generation {
                for entry in front.entries.drain(..) {
                    let_go_one(entry);
                }
                front.generation = generation;
            }
            Some(body(front))
        })
        .ok()
        .flatten()
}

/// Runs `body` on the compiled form of `schema` when this thread's front
/// holds it; `None` otherwise (the caller goes to the index). Inline, only
/// entries whose term the inline half may compare are looked at.
pub fn front_hit<R>(
    schema: Term<'_>,
    formats: FormatMode,
    caller: Caller,
    body: impl FnOnce(&CompiledSchema) -> R,
) -> Option<R> {
    front_hit_as(schema, caller, |c| c.gateway(formats), |compiled| body(compiled))
}

/// [`front_hit`] for the standard entry point: `body` runs on the
/// validator compiled with `key`'s options.
pub fn front_hit_standard<R>(
    schema: Term<'_>,
    key: StandardKey,
    caller: Caller,
    body: impl FnOnce(&Arc<Validator>) -> R,
) -> Option<R> {
    front_hit_as(schema, caller, |c| c.standard(key), body)
}

/// A front lookup of what `pick` takes from an entry (`None`: compiled
/// otherwise).
#[inline(always)]
fn front_hit_as<T, R>(
    schema: Term<'_>,
    caller: Caller,
    pick: impl Fn(&Cached) -> Option<&T>,
    body: impl FnOnce(&T) -> R,
) -> Option<R> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    let key = front_key(schema)?;
    // `body` runs on the front's own reference: no reference count moves.
    // (It never comes back to the cache; if it did, the front would be
    // borrowed and the lookup would go to the index.)
    with_front(|front| {
        let compiled = front.entries.iter().rev().find_map(|entry| {
            let compiled = pick(&entry.compiled)?;
            (entry.front_key == key
                && (caller == Caller::Dirty || entry.term_bytes <= INLINE_TERM_BYTES)
                && entry.saved.is(schema))
            .then_some(compiled)
        })?;
        front
            .hits
            .store(front.hits.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        Some(body(compiled))
    })?
}

/// Whether the cache is on: a call that would only look and file skips
/// both when it is off.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Keeps an entry the index just answered in this thread's front.
fn remember(entry: &Arc<Entry>) {
    with_front(|front| {
        if front.entries.len() >= FRONT_ENTRIES {
            let_go_one(front.entries.remove(0));
        }
        front.entries.push(Arc::clone(entry));
    });
}

/// The index dropped entries: every front empties itself.
fn new_generation() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

fn front_hits() -> u64 {
    FRONT_COUNTERS
        .lock()
        .map(|counters| counters.iter().map(|c| c.load(Ordering::Relaxed)).sum())
        .unwrap_or(0)
}

fn new_index() -> Index {
    Index {
        enabled: true,
        max_entries: DEFAULT_MAX_ENTRIES,
        max_bytes: DEFAULT_MAX_BYTES,
        by_hash: HashMap::new(),
        order: VecDeque::new(),
        entries: 0,
        bytes: 0,
        next_id: 0,
    }
}

// A panic while a lock was held cannot leave the index half-updated (every
// update completes before anything that could panic), so a poisoned lock
// still guards a consistent index.
fn read() -> RwLockReadGuard<'static, Option<Index>> {
    INDEX.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn try_read() -> Option<RwLockReadGuard<'static, Option<Index>>> {
    match INDEX.try_read() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

fn write() -> RwLockWriteGuard<'static, Option<Index>> {
    INDEX.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn try_write() -> Option<RwLockWriteGuard<'static, Option<Index>>> {
    match INDEX.try_write() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

mod atoms {
    rustler::atoms! { properties }
}

/// Salt for the runtime's internal term hash.
const HASH_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hash a schema term is filed under: its size and the names of its
/// `properties`, hashed by the runtime, in any order. Hashing the whole term would read
/// every description; this reads a few small terms, and the identity
/// comparison that follows decides. `None` when the schema has more than
/// `max_names` property names.
fn hash(schema: Term<'_>, max_names: usize) -> Option<u64> {
    let Ok(size) = schema.map_size() else {
        // A binary is a compiled schema's source, hashed by its bytes. No
        // other term compiles, and hashing one could read far more than its
        // heap holds (the runtime's hash walks shared subterms each time).
        return Some(match schema.get_type() {
            TermType::Binary => schema.hash_internal(HASH_SALT),
            _ => 0,
        });
    };
    let mut hash = (size as u64).wrapping_mul(HASH_SALT);
    let properties = schema
        .map_get("properties")
        .or_else(|_| schema.map_get(atoms::properties()));
    if let Ok(properties) = properties {
        if properties.map_size().is_ok_and(|n| n > max_names) {
            return None;
        }
        // Added, not chained: equal maps can be walked in different orders
        // (colliding keys of a hash map are kept in insertion order), and
        // must still share a bucket.
        if let Some(names) = MapIterator::new(properties) {
            for (name, _) in names {
                hash = hash.wrapping_add(mix(0, name.hash_internal(HASH_SALT)));
            }
        }
    }
    Some(hash)
}

/// Buckets up to this size are searched by identity comparison alone.
const CROWDED_BUCKET: usize = 4;

fn full_hash(schema: Term<'_>) -> u64 {
    schema.hash_internal(HASH_SALT)
}

fn mix(hash: u64, value: u64) -> u64 {
    (hash.rotate_left(5) ^ value).wrapping_mul(0x0100_0000_01B3)
}

/// The flat size of a term in bytes (words of 8 bytes, binaries by their
/// length), or `None` once it passes `limit`. Walks with a stack of its
/// own, so nesting costs no native stack.
pub fn term_bytes_within(term: Term<'_>, limit: usize) -> Option<usize> {
    let mut walk = FlatSize {
        total: 0,
        limit,
        containers: Vec::new(),
    };
    walk.count(term)?;
    while let Some(term) = walk.containers.pop() {
        match term.get_type() {
            TermType::Map => {
                for (key, value) in MapIterator::new(term).into_iter().flatten() {
                    walk.count(key)?;
                    walk.count(value)?;
                }
            }
            TermType::List => {
                let mut tail = term;
                while let Ok((head, rest)) = tail.list_get_cell() {
                    walk.count(head)?;
                    tail = rest;
                }
                if !tail.is_empty_list() {
                    walk.count(tail)?;
                }
            }
            _ => {
                for element in rustler::types::tuple::get_tuple(term).into_iter().flatten() {
                    walk.count(element)?;
                }
            }
        }
    }
    Some(walk.total)
}

/// A term's bytes are counted when the term is met, before its elements are
/// read: every step checks the one bound, so the walk ends as soon as the
/// total passes it, and reads at most `limit / 8` terms.
struct FlatSize<'a> {
    total: usize,
    limit: usize,
    /// Maps, lists and tuples met but not yet read.
    containers: Vec<Term<'a>>,
}

impl<'a> FlatSize<'a> {
    fn count(&mut self, term: Term<'a>) -> Option<()> {
        let bytes = match term.get_type() {
            TermType::Binary => 8 + rustler::Binary::from_term(term).map_or(0, |b| b.len()),
            TermType::Integer | TermType::Float => 24,
            TermType::Map | TermType::List | TermType::Tuple => {
                self.containers.push(term);
                8
            }
            _ => 8,
        };
        self.total = self.total.saturating_add(bytes);
        (self.total <= self.limit).then_some(())
    }
}

/// Which scheduler a cache call runs on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A normal scheduler: bounded work, never waits on the lock.
    Inline,
    Dirty,
}

/// What a lookup found.
pub enum Found<T = Arc<CompiledSchema>> {
    Hit(T),
    /// Not cached; the hash it would be filed under.
    Miss(u64),
    /// The cache is off, or (inline) a writer holds the lock: compile
    /// without filing.
    Skip,
    /// Inline only: deciding would cost more than the inline half may
    /// spend (a large cached term to compare, a crowded bucket, many
    /// property names to hash).
    TooLarge,
}

/// A lookup. A miss is counted when the schema compiled for it is filed
/// (`insert`).
pub fn find(schema: Term<'_>, formats: FormatMode, caller: Caller) -> Found {
    // A schema compiled with formats asserted is another entry, in another
    // bucket.
    let salt = match formats {
        FormatMode::Annotate => None,
        FormatMode::Assert => Some(1),
    };
    find_as(schema, salt, caller, |c| c.gateway(formats))
}

/// [`find`] for the standard entry point: the validator compiled with
/// `key`'s options.
pub fn find_standard(schema: Term<'_>, key: StandardKey, caller: Caller) -> Found<Arc<Validator>> {
    find_as(schema, Some(key.salt()), caller, |c| c.standard(key))
}

/// A lookup of what `pick` takes from an entry (`None`: compiled
/// otherwise), in the bucket of the schema's hash mixed with `salt`.
fn find_as<T>(
    schema: Term<'_>,
    salt: Option<u64>,
    caller: Caller,
    pick: impl Fn(&Cached) -> Option<&Arc<T>>,
) -> Found<Arc<T>> {
    let inline = caller == Caller::Inline;
    let Some(hash) = hash(schema, if inline { INLINE_HASHED_NAMES } else { usize::MAX }) else {
        return Found::TooLarge;
    };
    let hash = salt.map_or(hash, |salt| mix(hash, salt));
    // Under the read lock, clone the bucket's entries (a crowded bucket:
    // only those whose whole-term hash matches, computed outside the lock).
    let mut full_hash_wanted: Option<u64> = None;
    let bucket: Vec<Arc<Entry>> = loop {
        let guard = if inline { try_read() } else { Some(read()) };
        let Some(guard) = guard else {
            return Found::Skip;
        };
        let entries = match guard.as_ref() {
            Some(index) if !index.enabled => return Found::Skip,
            Some(index) => index.by_hash.get(&hash).map_or(&[][..], Vec::as_slice),
            None => &[][..],
        };
        match full_hash_wanted {
            Some(wanted) => {
                break entries
                    .iter()
                    .filter(|e| e.full_hash == wanted)
                    .cloned()
                    .collect()
            }
            None if entries.len() <= CROWDED_BUCKET => break entries.to_vec(),
            None => {}
        }
        let max_bytes = guard.as_ref().map_or(DEFAULT_MAX_BYTES, |index| index.max_bytes);
        drop(guard);
        // The whole-term hash reads the term as flat as a copy of it would
        // be: only for a term the cache could hold at all.
        let bound = if inline { INLINE_TERM_BYTES } else { max_bytes };
        if term_bytes_within(schema, bound).is_none() {
            return if inline { Found::TooLarge } else { Found::Skip };
        }
        full_hash_wanted = Some(full_hash(schema));
    };
    if inline && bucket.iter().any(|e| e.term_bytes > INLINE_TERM_BYTES) {
        return Found::TooLarge;
    }
    let hit = bucket.iter().find_map(|entry| {
        let compiled = pick(&entry.compiled)?;
        entry.saved.is(schema).then_some((entry, compiled))
    });
    match hit {
        Some((entry, compiled)) => {
            HITS.fetch_add(1, Ordering::Relaxed);
            if entry.term_bytes <= INLINE_TERM_BYTES {
                remember(entry);
            }
            Found::Hit(Arc::clone(compiled))
        }
        None => Found::Miss(hash),
    }
}

/// Files a compiled schema under its term. Inline, a term over
/// [`INLINE_TERM_BYTES`] is not filed (`false`: the dirty half should file
/// it) and a held lock skips filing.
pub fn insert(schema: Term<'_>, hash: u64, compiled: Arc<CompiledSchema>, caller: Caller) -> bool {
    insert_as(schema, hash, Cached::Gateway(compiled), caller)
}

/// [`insert`] for the standard entry point: `validator`, compiled with
/// `key`'s options, under `schema` and the hash [`find_standard`] gave.
pub fn insert_standard(
    schema: Term<'_>,
    hash: u64,
    validator: Arc<Validator>,
    key: StandardKey,
    caller: Caller,
) -> bool {
    insert_as(schema, hash, Cached::Standard(validator, key), caller)
}

fn insert_as(schema: Term<'_>, hash: u64, compiled: Cached, caller: Caller) -> bool {
    // A term is sized before it is hashed or copied, within what the cache
    // may hold: a term whose subterms are shared many times is small on the
    // heap but as large as its flat expansion once copied.
    // Inline, the bound is fixed: the calling scheduler never waits on the
    // lock to read the policy's.
    let limit = match caller {
        Caller::Inline => INLINE_TERM_BYTES,
        Caller::Dirty => read().as_ref().map_or(DEFAULT_MAX_BYTES, |index| index.max_bytes),
    };
    let Some(term_bytes) = term_bytes_within(schema, limit) else {
        // Inline: the dirty half files it, within the byte bound. Dirty:
        // too large to keep, so it is not filed.
        return caller == Caller::Dirty;
    };
    let bytes = term_bytes + compiled.approximate_bytes();
    // The copy and the hash of the whole term, before the lock.
    let full_hash = full_hash(schema);
    let entry = Entry {
        id: 0,
        hash,
        front_key: front_key(schema).unwrap_or((0, 0)),
        full_hash,
        term_bytes,
        saved: SavedSchema::new(schema),
        compiled,
        bytes,
    };
    let mut evicted = Vec::new();
    {
        let guard = match caller {
            Caller::Inline => try_write(),
            Caller::Dirty => Some(write()),
        };
        let Some(mut guard) = guard else {
            return true;
        };
        let index = guard.get_or_insert_with(new_index);
        if index.enabled {
            index.file(entry, &mut evicted);
        }
    }
    // Freeing term copies takes time that grows with them: after the lock,
    // and off a normal scheduler when large.
    let_go(evicted);
    true
}

/// Files `compiled` under `term` from a dirty scheduler, unless the term is
/// filed already: the compiled schema of a `%Compiled{}` whose resource is
/// foreign here, under the struct's source binary.
pub fn file(term: Term<'_>, compiled: Arc<CompiledSchema>) {
    if let Found::Miss(hash) = find(term, compiled.formats, Caller::Dirty) {
        insert(term, hash, compiled, Caller::Dirty);
    }
}

impl Index {
    fn file(&mut self, mut entry: Entry, evicted: &mut Vec<Arc<Entry>>) {
        // A miss: a schema compiled for the cache.
        MISSES.fetch_add(1, Ordering::Relaxed);
        if entry.bytes > self.max_bytes || self.max_entries == 0 {
            return;
        }
        // Another process may have filed the same term meanwhile (same
        // hashes and size; a rare different term passed over here is only
        // a later miss).
        let filed = self.by_hash.get(&entry.hash).is_some_and(|bucket| {
            bucket.iter().any(|e| {
                e.full_hash == entry.full_hash
                    && e.term_bytes == entry.term_bytes
                    && e.compiled.same_kind(&entry.compiled)
            })
        });
        if filed {
            return;
        }
        while self.entries >= self.max_entries || self.bytes + entry.bytes > self.max_bytes {
            match self.evict_oldest() {
                Some(old) => evicted.push(old),
                None => break,
            }
        }
        entry.id = self.next_id;
        self.next_id += 1;
        self.order.push_back((entry.hash, entry.id));
        self.entries += 1;
        self.bytes += entry.bytes;
        self.by_hash.entry(entry.hash).or_default().push(Arc::new(entry));
    }

    fn evict_oldest(&mut self) -> Option<Arc<Entry>> {
        let (hash, id) = self.order.pop_front()?;
        new_generation();
        let bucket = self.by_hash.get_mut(&hash)?;
        let at = bucket.iter().position(|e| e.id == id)?;
        let entry = bucket.swap_remove(at);
        if bucket.is_empty() {
            self.by_hash.remove(&hash);
        }
        self.entries -= 1;
        self.bytes -= entry.bytes;
        Some(entry)
    }

    fn take_all(&mut self) -> HashMap<u64, Vec<Arc<Entry>>> {
        new_generation();
        self.order.clear();
        self.entries = 0;
        self.bytes = 0;
        std::mem::take(&mut self.by_hash)
    }
}

/// Sets the policy; shrinking the bounds or disabling evicts at once.
pub fn configure(enabled: bool, max_entries: usize, max_bytes: usize) {
    let mut evicted = Vec::new();
    let mut dropped = HashMap::new();
    {
        let mut guard = write();
        let index = guard.get_or_insert_with(new_index);
        index.enabled = enabled;
        ENABLED.store(enabled, Ordering::Relaxed);
        new_generation();
        index.max_entries = max_entries;
        index.max_bytes = max_bytes;
        if !enabled {
            dropped = index.take_all();
        }
        while index.entries > index.max_entries || index.bytes > index.max_bytes {
            match index.evict_oldest() {
                Some(old) => evicted.push(old),
                None => break,
            }
        }
    }
    evicted.extend(dropped.into_values().flatten());
    let_go(evicted);
}

/// Drops every entry and resets the counters.
pub fn clear() {
    let dropped = write().as_mut().map(Index::take_all).unwrap_or_default();
    HITS.store(0, Ordering::Relaxed);
    FRONT_HITS_CLEARED.store(front_hits(), Ordering::Relaxed);
    MISSES.store(0, Ordering::Relaxed);
    let_go(dropped.into_values().flatten().collect());
}

/// Lets go of `entries` after the lock: what they alone hold is freed here,
/// or, when large and this is a normal scheduler, by the next dirty call
/// (`deferred`).
fn let_go(entries: Vec<Arc<Entry>>) {
    let bytes = entries
        .iter()
        .filter(|entry| Arc::strong_count(entry) == 1)
        .map(|entry| entry.bytes)
        .sum();
    crate::deferred::release(entries, bytes);
}

/// Lets go of one entry (a thread's front holds a few): what it alone
/// holds is freed here, or, when large and this is a normal scheduler, by
/// the next dirty call.
fn let_go_one(entry: Arc<Entry>) {
    let bytes = entry.bytes;
    crate::deferred::release_schema(entry, bytes);
}

/// (enabled, entries, bytes, max_entries, max_bytes, hits, misses)
pub fn stats() -> (bool, usize, usize, usize, usize, u64, u64) {
    let guard = read();
    let (enabled, entries, bytes, max_entries, max_bytes) = match guard.as_ref() {
        Some(i) => (i.enabled, i.entries, i.bytes, i.max_entries, i.max_bytes),
        None => (true, 0, 0, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_BYTES),
    };
    (
        enabled,
        entries,
        bytes,
        max_entries,
        max_bytes,
        HITS.load(Ordering::Relaxed)
            + front_hits().saturating_sub(FRONT_HITS_CLEARED.load(Ordering::Relaxed)),
        MISSES.load(Ordering::Relaxed),
    )
}
