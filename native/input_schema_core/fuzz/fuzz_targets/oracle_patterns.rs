//! Patterns the oracle generator makes from the fuzzer's bytes, against
//! `regress` on generated texts: the same check as the seeded oracle test
//! (`tests/oracles.rs`), steered by coverage.
#![no_main]

#[path = "../../tests/oracle/mod.rs"]
mod oracle;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut rng = oracle::Rng::Bytes(data);
    oracle::pattern_case(&mut rng);
});
