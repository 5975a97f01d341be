//! Standard JSON Schema documents the standard oracle's generators make from
//! the fuzzer's bytes, in each of the five dialects (the first byte picks
//! the dialect, and whether the document is of the gateway's subset):
//! compiling and validating never panic, `is_valid` and `validate` agree
//! (and `validate` repeats), and where both compile the schema the verdict
//! is the `jsonschema` crate's for the same draft, or, for the gateway's
//! subset, the gateway's. The differences kept out of the generated space
//! are listed in `tests/standard_oracle.rs`.
#![no_main]

#[path = "../../tests/oracle/mod.rs"]
mod oracle;
#[path = "../../tests/oracle/standard.rs"]
mod standard;

use input_schema_core::standard::Dialect;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let dialect = Dialect::ALL[usize::from(which) % Dialect::ALL.len()];
    let mut rng = oracle::Rng::Bytes(rest);
    let mut found = Vec::new();
    if which / 5 % 4 == 3 {
        let mut tally = standard::GatewayTally::default();
        standard::gateway_case(&mut tally, &mut rng, dialect, 4, &mut found);
    } else {
        let mut tally = standard::Tally::default();
        standard::standard_case(&mut tally, &mut rng, dialect, 4, &mut found);
    }
    // A schema only one side compiles is not a verdict: the seeded test
    // (`tests/standard_oracle.rs`) counts those; here verdicts alone.
    if let Some(d) = found.iter().find(|d| d.instance.is_some()) {
        panic!("{d}");
    }
});
