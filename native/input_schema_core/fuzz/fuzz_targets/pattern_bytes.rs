//! Any bytes as a pattern, and any text to search: the parser, the size
//! checks and the automata must answer without a panic, and a search must
//! end within its work limit. Input: pattern, a 0xFF byte, text.
#![no_main]

use input_schema_core::pattern::Pattern;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (pattern, text) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    if let Ok(compiled) = Pattern::compile(pattern) {
        let text = String::from_utf8_lossy(text);
        let _ = compiled.search(&text);
        // The same answer again: searches share no state.
        assert_eq!(compiled.search(&text), compiled.search(&text));
    }
});
