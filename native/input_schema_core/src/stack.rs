//! Recursion on a stack of bounded size.
//!
//! Compiling a schema, validating arguments, comparing and keying values,
//! and the term and JSON conversions of the NIF recurse once per level of
//! nesting, and the limits allow about a hundred levels. Their frames are
//! large (the compiler's reaches 2 KiB, the pattern compiler's 4 KiB), and a
//! NIF runs on a scheduler's stack, which the VM lets a host shrink to 160
//! KiB (`+sss 20`, `+sssdcpu 20`). So every recursive step goes through
//! [`deep`]: when less than [`RED_ZONE`] is left on the current stack, the
//! step continues on a new segment of [`SEGMENT`] bytes from the heap
//! (`stacker::maybe_grow`), given back when the step returns. No input and
//! no valid VM setting can overflow a stack, and a result never depends on
//! the stack's size.

/// What a recursive step needs left before it goes on: more than the
/// deepest chain of frames between two steps (measured: under 16 KiB; the
/// pattern compiler, which recurses inside regex-automata, has its own zone).
pub const RED_ZONE: usize = 64 * 1024;

/// The size of each new segment.
pub const SEGMENT: usize = 1024 * 1024;

/// What a call into a library that recurses on its own needs left:
/// regex-syntax and regex-automata over a pattern's nesting (at most 64
/// levels, frames of up to 4 KiB), serde_json over JSON text (at most 128
/// levels) when the NIF decodes or encodes it.
pub const LIBRARY_RED_ZONE: usize = 256 * 1024;

/// Runs one recursive step, on a new segment when the stack runs low.
#[inline]
pub fn deep<R>(step: impl FnOnce() -> R) -> R {
    within(RED_ZONE, step)
}

/// Runs `step`, on a new segment when less than `red_zone` bytes are left.
#[inline]
pub fn within<R>(red_zone: usize, step: impl FnOnce() -> R) -> R {
    if probe::growing() {
        stacker::maybe_grow(red_zone, SEGMENT, step)
    } else {
        step()
    }
}

/// Measures stack use (test builds: feature `stack-probe`).
/// [`probe::measure`] paints the free part of the calling thread's stack
/// below the call with a pattern, runs the call, and finds the deepest byte
/// that is no longer the pattern: the high-water mark of every frame the
/// call pushed, the libraries' and the leaves' included. Segments from the
/// heap are not the thread's stack and are not counted.
pub mod probe {
    #[cfg(feature = "stack-probe")]
    use std::cell::Cell;

    #[cfg(feature = "stack-probe")]
    thread_local! {
        static GROW: Cell<bool> = const { Cell::new(true) };
    }

    /// Whether steps may move to a new segment (always, but in a probe that
    /// measures the whole depth).
    #[inline]
    pub fn growing() -> bool {
        #[cfg(feature = "stack-probe")]
        return GROW.get();
        #[cfg(not(feature = "stack-probe"))]
        true
    }

    #[cfg(feature = "stack-probe")]
    const PAINT: u8 = 0xA5;

    /// Kept clear of the thread's lowest addresses (the guard page, and
    /// whatever the runtime keeps there).
    #[cfg(feature = "stack-probe")]
    const MARGIN: usize = 16 * 1024;

    #[cfg(feature = "stack-probe")]
    #[inline(never)]
    fn here() -> usize {
        let marker = 0u8;
        std::hint::black_box(&marker) as *const u8 as usize
    }

    /// Writes the pattern over `[low, high)`, below this function's frame.
    #[cfg(feature = "stack-probe")]
    #[inline(never)]
    fn paint(low: usize, high: usize) {
        for address in low..high {
            // SAFETY: the range lies inside this thread's stack, below the
            // current frame (the caller leaves a gap under its own), where no
            // live frame is.
            unsafe { std::ptr::write_volatile(address as *mut u8, PAINT) };
        }
    }

    #[cfg(feature = "stack-probe")]
    #[inline(never)]
    fn lowest_touched(low: usize, high: usize) -> usize {
        (low..high)
            // SAFETY: the same range `paint` wrote, inside this thread's stack.
            .find(|&address| unsafe { std::ptr::read_volatile(address as *const u8) } != PAINT)
            .unwrap_or(high)
    }

    /// Runs `f` and answers `(result, bytes, available)`: how far below this
    /// call the deepest frame reached on this thread's stack, and how much
    /// stack was free there. With `grow` false, no step moves to a segment,
    /// so the figure is the whole depth of the call (the caller must run it
    /// on a stack that has room for it).
    #[cfg(feature = "stack-probe")]
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
}
