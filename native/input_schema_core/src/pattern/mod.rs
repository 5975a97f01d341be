//! Patterns: the portable subset (`parse.rs`) compiled to a finite automaton
//! and searched in time linear in the input. This module owns the limits on
//! pattern size, automaton size and matching work; the schema compiler only
//! sees `Pattern::compile` and `Pattern::search`.
//!
//! Engine choice: a fully built DFA when it fits [`DENSE_DFA_LIMIT`] (every
//! ordinary pattern: no per-call state, one table lookup per input byte), and
//! otherwise a lazy DFA whose cache is fresh for every search, so a result
//! never depends on earlier calls.

mod parse;

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::hybrid;
use regex_automata::nfa::thompson;
use regex_automata::Input;

pub use parse::{SyntaxError, MAX_REPEAT, NEST_LIMIT};

/// Longest accepted pattern source, in UTF-8 bytes (the contract's 1,024).
pub const MAX_PATTERN_BYTES: usize = 1024;

/// Heap the Thompson NFA may use. `[a-z]{1,10000}` needs about 1 MiB; the
/// cap stops a 1 KiB pattern from expanding to hundreds of megabytes
/// (`(((a{100}){100}){100})`).
pub const NFA_SIZE_LIMIT: usize = 4 << 20;

/// Largest fully built DFA kept per pattern. Ordinary tool-schema patterns
/// (identifiers, dates, e-mail-like shapes) take a few KiB.
pub const DENSE_DFA_LIMIT: usize = 512 << 10;

/// Working memory the dense DFA build may use before it gives up and the
/// pattern falls back to the lazy DFA.
pub const DETERMINIZE_LIMIT: usize = 2 << 20;

/// The lazy DFA's state cache for one search.
pub const LAZY_CACHE_BYTES: usize = 2 << 20;

/// The fixed work limit: a lazy search gives up once its cache has been
/// cleared this many times while producing fewer than
/// [`LAZY_MIN_BYTES_PER_STATE`] input bytes per new state, i.e. when the
/// automaton is being rebuilt instead of reused. Ordinary input against a
/// pattern reuses states and never gets there.
pub const LAZY_CACHE_CLEARS: usize = 3;
pub const LAZY_MIN_BYTES_PER_STATE: usize = 10;

/// Why a pattern could not be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternError {
    TooLarge,
    Unsupported,
    Invalid,
}

/// The search ran out of its work limit before it could decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatternLimit;

#[derive(Debug)]
enum Engine {
    Dense(dense::DFA<Vec<u32>>),
    Lazy(hybrid::dfa::DFA),
}

/// A compiled pattern.
#[derive(Debug)]
pub struct Pattern {
    engine: Engine,
}

impl Pattern {
    /// Checks and compiles pattern source, in the contract's order: size,
    /// then unsupported syntax, then validity, then automaton size.
    pub fn compile(source: &[u8]) -> Result<Pattern, PatternError> {
        if source.len() > MAX_PATTERN_BYTES {
            return Err(PatternError::TooLarge);
        }
        let source = std::str::from_utf8(source).map_err(|_| PatternError::Invalid)?;
        let hir = parse::parse(source).map_err(|e| match e {
            SyntaxError::Unsupported => PatternError::Unsupported,
            SyntaxError::Invalid => PatternError::Invalid,
            SyntaxError::TooDeep => PatternError::TooLarge,
        })?;
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                    .which_captures(thompson::WhichCaptures::None)
                    .shrink(false),
            )
            .build_from_hir(&hir)
            .map_err(|_| PatternError::TooLarge)?;
        let dense = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .start_kind(StartKind::Unanchored)
                    .dfa_size_limit(Some(DENSE_DFA_LIMIT))
                    .determinize_size_limit(Some(DETERMINIZE_LIMIT)),
            )
            .build_from_nfa(&nfa);
        if let Ok(dfa) = dense {
            return Ok(Pattern {
                engine: Engine::Dense(dfa),
            });
        }
        let lazy = hybrid::dfa::Builder::new()
            .configure(
                hybrid::dfa::Config::new()
                    .cache_capacity(LAZY_CACHE_BYTES)
                    .minimum_cache_clear_count(Some(LAZY_CACHE_CLEARS))
                    .minimum_bytes_per_state(Some(LAZY_MIN_BYTES_PER_STATE)),
            )
            .build_from_nfa(nfa)
            .map_err(|_| PatternError::TooLarge)?;
        Ok(Pattern {
            engine: Engine::Lazy(lazy),
        })
    }

    /// Whether the pattern matches anywhere in `haystack` (search semantics).
    pub fn search(&self, haystack: &str) -> Result<bool, PatternLimit> {
        let input = Input::new(haystack).earliest(true);
        match &self.engine {
            Engine::Dense(dfa) => dfa
                .try_search_fwd(&input)
                .map(|m| m.is_some())
                .map_err(|_| PatternLimit),
            Engine::Lazy(dfa) => {
                let mut cache = dfa.create_cache();
                dfa.try_search_fwd(&mut cache, &input)
                    .map(|m| m.is_some())
                    .map_err(|_| PatternLimit)
            }
        }
    }

    /// Heap bytes held by the automaton.
    pub fn memory_usage(&self) -> usize {
        match &self.engine {
            Engine::Dense(dfa) => dfa.memory_usage(),
            Engine::Lazy(dfa) => dfa.memory_usage(),
        }
    }

    /// Whether the pattern uses the fully built DFA (for tests and benches).
    pub fn is_dense(&self) -> bool {
        matches!(self.engine, Engine::Dense(_))
    }
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests;
