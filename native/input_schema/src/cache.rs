//! The transparent schema cache behind `validate(schema_map, arguments)`.
//!
//! A schema term is found again only when it is exactly the same term
//! (`enif_is_identical`, Erlang `=:=`): `1` and `1.0`, atom and string keys
//! are different schemas. Entries hold a private copy of the schema term (in
//! an `OwnedEnv`) beside its compiled form. The cache is bounded by entry
//! count and by approximate bytes; when either bound would be passed, the
//! oldest entries are dropped (first in, first out), so a stream of distinct
//! schemas keeps it at its bound. One mutex guards it; it is held for a hash
//! lookup and an identity comparison, never for compilation.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use rustler::env::{OwnedEnv, SavedTerm};
use rustler::types::map::MapIterator;
use rustler::Term;

use input_schema_core::schema::CompiledSchema;

/// Default bounds: 1,024 schemas, 64 MiB. A runtime publishes tens to a few
/// hundred tools; each compiled schema with its term copy takes a few KiB
/// (patterns add their automata).
pub const DEFAULT_MAX_ENTRIES: usize = 1024;
pub const DEFAULT_MAX_BYTES: usize = 64 << 20;

struct Entry {
    id: u64,
    hash: u64,
    /// The runtime's hash of the whole term, for crowded buckets.
    full_hash: u64,
    env: OwnedEnv,
    term: SavedTerm,
    schema: Arc<CompiledSchema>,
    bytes: usize,
}

struct Cache {
    enabled: bool,
    max_entries: usize,
    max_bytes: usize,
    by_hash: HashMap<u64, Vec<Entry>>,
    /// (hash, id) in insertion order, for eviction.
    order: VecDeque<(u64, u64)>,
    entries: usize,
    bytes: usize,
    next_id: u64,
    hits: u64,
    misses: u64,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

fn cache() -> MutexGuard<'static, Option<Cache>> {
    // A panic while the lock was held cannot leave an entry half-inserted
    // (insertion completes before any call that could panic), so a
    // poisoned lock is still consistent.
    CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn with_cache<R>(f: impl FnOnce(&mut Cache) -> R) -> R {
    let mut guard = cache();
    let cache = guard.get_or_insert_with(|| Cache {
        enabled: true,
        max_entries: DEFAULT_MAX_ENTRIES,
        max_bytes: DEFAULT_MAX_BYTES,
        by_hash: HashMap::new(),
        order: VecDeque::new(),
        entries: 0,
        bytes: 0,
        next_id: 0,
        hits: 0,
        misses: 0,
    });
    f(cache)
}

mod atoms {
    rustler::atoms! { properties }
}

/// Salt for the runtime's internal term hash.
const HASH_SALT: u64 = 0x9E37_79B9_7F4A_7C15;

/// The hash a schema term is filed under: its size and the names of its
/// `properties`, hashed by the runtime. Hashing the whole term would read
/// every description; this reads a few small terms, and the identity
/// comparison that follows decides.
pub fn hash(schema: Term<'_>) -> u64 {
    let Ok(size) = schema.map_size() else {
        return schema.hash_internal(HASH_SALT);
    };
    let mut hash = (size as u64).wrapping_mul(HASH_SALT);
    let properties = schema
        .map_get("properties")
        .or_else(|_| schema.map_get(atoms::properties()));
    if let Some(names) = properties.ok().and_then(MapIterator::new) {
        for (name, _) in names {
            hash = mix(hash, name.hash_internal(HASH_SALT));
        }
    }
    hash
}

/// Buckets up to this size are searched by identity comparison alone.
const CROWDED_BUCKET: usize = 4;

fn full_hash(schema: Term<'_>) -> u64 {
    schema.hash_internal(HASH_SALT)
}

fn mix(hash: u64, value: u64) -> u64 {
    (hash.rotate_left(5) ^ value).wrapping_mul(0x0100_0000_01B3)
}

/// What a lookup found.
pub enum Found {
    Hit(Arc<CompiledSchema>),
    /// Not cached; the hash it would be filed under.
    Miss(u64),
    Disabled,
}

/// A lookup under one lock. A miss is counted when the schema compiled for
/// it is filed (`insert`).
pub fn find(schema: Term<'_>) -> Found {
    let hash = hash(schema);
    with_cache(|c| {
        if !c.enabled {
            return Found::Disabled;
        }
        match c.get(schema, hash) {
            Some(compiled) => {
                c.hits += 1;
                Found::Hit(compiled)
            }
            None => Found::Miss(hash),
        }
    })
}

/// Files a compiled schema under its term. `term_bytes` approximates the
/// term copy's size.
pub fn insert(schema: Term<'_>, hash: u64, compiled: Arc<CompiledSchema>, term_bytes: usize) {
    let bytes = term_bytes + compiled.approximate_bytes();
    with_cache(|c| {
        if !c.enabled {
            return;
        }
        // A miss: a schema compiled for the cache.
        c.misses += 1;
        if bytes > c.max_bytes || c.max_entries == 0 {
            return;
        }
        // Another process may have filed the same term meanwhile.
        if c.get(schema, hash).is_some() {
            return;
        }
        while c.entries >= c.max_entries || c.bytes + bytes > c.max_bytes {
            if !c.evict_oldest() {
                break;
            }
        }
        let env = OwnedEnv::new();
        let term = env.save(schema);
        let id = c.next_id;
        c.next_id += 1;
        c.by_hash.entry(hash).or_default().push(Entry {
            id,
            hash,
            full_hash: full_hash(schema),
            env,
            term,
            schema: compiled,
            bytes,
        });
        c.order.push_back((hash, id));
        c.entries += 1;
        c.bytes += bytes;
    })
}

impl Cache {
    /// Schemas that differ only in values share a bucket (the bucket hash
    /// reads keys only). Past [`CROWDED_BUCKET`] entries, the whole term is
    /// hashed once and only entries with the same full hash are compared, so
    /// a lookup never compares more than a few terms.
    fn get(&self, schema: Term<'_>, hash: u64) -> Option<Arc<CompiledSchema>> {
        let bucket = self.by_hash.get(&hash)?;
        let full_hash = (bucket.len() > CROWDED_BUCKET).then(|| full_hash(schema));
        bucket
            .iter()
            .filter(|entry| full_hash.is_none_or(|h| h == entry.full_hash))
            .find(|entry| entry.env.run(|env| entry.term.load(env) == schema))
            .map(|entry| Arc::clone(&entry.schema))
    }

    fn evict_oldest(&mut self) -> bool {
        let Some((hash, id)) = self.order.pop_front() else {
            return false;
        };
        if let Some(bucket) = self.by_hash.get_mut(&hash) {
            if let Some(at) = bucket.iter().position(|e| e.id == id) {
                let entry = bucket.swap_remove(at);
                self.entries -= 1;
                self.bytes -= entry.bytes;
                debug_assert_eq!(entry.hash, hash);
            }
            if bucket.is_empty() {
                self.by_hash.remove(&hash);
            }
        }
        true
    }

    fn clear(&mut self) {
        self.by_hash.clear();
        self.order.clear();
        self.entries = 0;
        self.bytes = 0;
    }
}

/// Sets the policy; shrinking the bounds or disabling evicts at once.
pub fn configure(enabled: bool, max_entries: usize, max_bytes: usize) {
    with_cache(|c| {
        c.enabled = enabled;
        c.max_entries = max_entries;
        c.max_bytes = max_bytes;
        if !enabled {
            c.clear();
        }
        while c.entries > c.max_entries || c.bytes > c.max_bytes {
            if !c.evict_oldest() {
                break;
            }
        }
    })
}

/// Drops every entry and resets the counters.
pub fn clear() {
    with_cache(|c| {
        c.clear();
        c.hits = 0;
        c.misses = 0;
    })
}

/// (enabled, entries, bytes, max_entries, max_bytes, hits, misses)
pub fn stats() -> (bool, usize, usize, usize, usize, u64, u64) {
    with_cache(|c| {
        (
            c.enabled,
            c.entries,
            c.bytes,
            c.max_entries,
            c.max_bytes,
            c.hits,
            c.misses,
        )
    })
}
