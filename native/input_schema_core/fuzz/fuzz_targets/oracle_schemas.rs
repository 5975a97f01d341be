//! Schemas the oracle generators make from the fuzzer's bytes (the subset,
//! section 9 in its 2020-12 and draft-07 forms, draft-04 bounds), against
//! the `jsonschema` crate, with the three walks (first error, ordered,
//! every error) agreeing on each instance.
#![no_main]

#[path = "../../tests/oracle/mod.rs"]
mod oracle;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let mut rng = oracle::Rng::Bytes(rest);
    match which % 4 {
        0 => drop(oracle::schema_case(&mut rng)),
        1 => drop(oracle::section9_case(&mut rng, oracle::Draft::Current)),
        2 => drop(oracle::section9_case(&mut rng, oracle::Draft::Seven)),
        _ => drop(oracle::draft04_case(&mut rng)),
    }
});
