//! Reference probe for the scheduler-health part of `bench/beam.exs`.
//!
//! Wakes every `period_us` microseconds for `duration_ms` milliseconds and
//! prints one line `<intended wake-up, µs since the Unix epoch> <lateness, µs>`
//! for each wake-up at least `threshold_us` late, then `wakeups <n>`.
//!
//! The benchmark runs one per CPU, pinned (`taskset`) and under a real-time
//! policy (`chrt -f`), so no ordinary thread can delay it: what makes it late
//! is the host itself (a hypervisor stall, an interrupt storm), and a BEAM
//! probe wake-up that overlaps such a stall is not the VM's doing.
//!
//!     host_probe <duration_ms> <period_us> <threshold_us>

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn argument(args: &[String], at: usize, default: u64) -> u64 {
    args.get(at).and_then(|text| text.parse().ok()).unwrap_or(default)
}

fn epoch_micros() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_micros())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let duration = Duration::from_millis(argument(&args, 1, 3_000));
    let period = Duration::from_micros(argument(&args, 2, 250).max(1));
    let threshold = u128::from(argument(&args, 3, 200));

    let start = Instant::now();
    let mut target = start;
    let mut wakeups = 0u64;
    let mut stalls = Vec::new();
    while target.duration_since(start) < duration {
        target += period;
        if let Some(wait) = target.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let late = Instant::now().saturating_duration_since(target).as_micros();
        wakeups += 1;
        if late >= threshold {
            stalls.push((epoch_micros().saturating_sub(late), late));
            // A stall longer than the period would otherwise count once per
            // missed wake-up.
            target = Instant::now();
        }
    }
    for (at, late) in stalls {
        println!("{at} {late}");
    }
    println!("wakeups {wakeups}");
}
