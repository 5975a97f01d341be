//! What the benchmarks share: medians and high percentiles of timed
//! samples, and how a time is printed.

/// (median, p99) of per-call nanoseconds.
pub type Figures = (f64, f64);

/// The median and the 99th percentile of `samples`.
pub fn figures(mut samples: Vec<f64>) -> Figures {
    samples.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.99))
}

/// A time in nanoseconds, in the unit that reads best.
pub fn human(ns: f64) -> String {
    if ns >= 1_000_000.0 {
        format!("{:.2} ms", ns / 1_000_000.0)
    } else if ns >= 1_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{ns:.0} ns")
    }
}
