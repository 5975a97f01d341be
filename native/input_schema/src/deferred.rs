//! Freeing large compiled schemas off the normal schedulers.
//!
//! A compiled schema is freed when the last term that holds it is
//! collected: its resource's destructor runs inside a garbage collection or
//! a process exit, on whichever scheduler does that, most often a normal
//! one. Freeing is one deallocation per node, name and `enum` or `const`
//! value: a schema at the compile limit (an `enum` of 300,000 strings) takes
//! about 3.5 ms, far past what a normal scheduler may be held. So a
//! destructor on a normal scheduler that would free a large schema hands it
//! here instead, and the next call of this library on a dirty scheduler
//! frees it (`drain`, first thing in every dirty call). The schema cache
//! hands over what it evicts or clears on a normal scheduler the same way.
//!
//! The lock is held only to push one schema or to take the list, never
//! while anything is freed, so no caller waits on a lock for longer than a
//! pointer's copy (the list holds at most `MAX_HELD / FROM_BYTES` schemas).
//! What the list holds is bounded: past `MAX_HELD` bytes a destructor frees
//! its schema where it runs, as it did before this list existed.

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustler::sys::{enif_thread_type, ERL_NIF_THR_NORMAL_SCHEDULER};

/// Schemas of at least this many bytes (approximately: their nodes, names
/// and values) are not freed on a normal scheduler. Freeing costs about
/// 0.25-0.35 ms a MiB, so 256 KiB is under 100 µs.
pub const FROM_BYTES: usize = 256 * 1024;

/// The most bytes the list holds; a schema past it is freed where its
/// destructor runs.
pub const MAX_HELD: usize = 256 * 1024 * 1024;

/// What one dirty call frees at most, so that the call it follows is not
/// delayed by much more than a large schema's own freeing.
const DRAIN_BYTES: usize = 16 * 1024 * 1024;

struct Held {
    _value: Box<dyn Any + Send>,
    bytes: usize,
}

static LIST: Mutex<Vec<Held>> = Mutex::new(Vec::new());
static HELD_BYTES: AtomicUsize = AtomicUsize::new(0);
static HELD_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Gives back a destructor's reference to `schema`, which holds about
/// `bytes`: `release` when it is the last reference, else dropped here
/// (which frees nothing).
pub fn release_schema<T: Send + Sync + 'static>(schema: Arc<T>, bytes: usize) {
    if Arc::strong_count(&schema) == 1 {
        release(schema, bytes);
    }
}

/// Frees `value`, which holds about `bytes`, here, unless this is a normal
/// scheduler, it is large and the list has room: then the next dirty call
/// frees it.
pub fn release<T: Send + 'static>(value: T, bytes: usize) {
    let defer = bytes >= FROM_BYTES
        && on_normal_scheduler()
        && HELD_BYTES.load(Ordering::Relaxed).saturating_add(bytes) <= MAX_HELD;
    if !defer {
        drop(value);
        return;
    }
    let mut list = LIST.lock().unwrap_or_else(PoisonError::into_inner);
    list.push(Held {
        _value: Box::new(value),
        bytes,
    });
    HELD_BYTES.fetch_add(bytes, Ordering::Relaxed);
    HELD_COUNT.fetch_add(1, Ordering::Release);
}

/// Frees what the list holds, up to `DRAIN_BYTES` (at least one schema);
/// for the end of a call on a dirty scheduler. Costs one atomic read when
/// the list is empty.
pub fn drain() {
    if HELD_COUNT.load(Ordering::Acquire) == 0 {
        return;
    }
    let taken = {
        let mut list = LIST.lock().unwrap_or_else(PoisonError::into_inner);
        let mut bytes = 0;
        let mut keep = list.len();
        // Oldest first: the list's front.
        for (at, held) in list.iter().enumerate() {
            if at > 0 && bytes + held.bytes > DRAIN_BYTES {
                keep = at;
                break;
            }
            bytes += held.bytes;
        }
        let rest = list.split_off(keep);
        let taken = std::mem::replace(&mut *list, rest);
        HELD_BYTES.fetch_sub(bytes, Ordering::Relaxed);
        HELD_COUNT.fetch_sub(taken.len(), Ordering::Release);
        taken
    };
    drop(taken);
}

/// How many schemas, and about how many bytes, wait to be freed.
pub fn held() -> (usize, usize) {
    (
        HELD_COUNT.load(Ordering::Acquire),
        HELD_BYTES.load(Ordering::Relaxed),
    )
}

fn on_normal_scheduler() -> bool {
    // SAFETY: `enif_thread_type` only reads the calling thread's kind; it
    // may be called from any thread.
    unsafe { enif_thread_type() == ERL_NIF_THR_NORMAL_SCHEDULER }
}
