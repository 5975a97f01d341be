//! `regex`: an ECMAScript regular expression (ECMA-262, in Unicode mode, as
//! JSON Schema reads patterns), decided by the pattern module's own parser
//! in its standard grammar, so that `format: regex` and the `pattern`
//! keyword of a standard schema agree on what a regular expression is.
//!
//! Valid: everything that grammar accepts, backreferences and lookaround
//! included (they make a pattern unrunnable on the project's automata, not
//! invalid), with no nesting, count or length limit (those bound what a
//! schema may compile, not what is a regular expression). Invalid: what
//! ECMAScript's Unicode mode refuses, e.g. `\a`, a lone `{` or `]`, `(?i)`,
//! an unknown property in `\p{...}`, a backreference to a group that does
//! not exist; and, as the parser's grammar is ECMAScript 2024's, the 2025
//! additions (modifier groups `(?i:...)`, one name on groups in different
//! alternatives).
//!
//! Cost: the parser's, linear but far above a byte scan (it reads the
//! pattern into code points and builds each atom's class): about 150 ns a
//! byte on this project's machine class, against one to two for the other
//! formats, so a caller that budgets by length should weigh `regex` more.

/// `regex`.
pub(super) fn regex(text: &str) -> bool {
    crate::pattern::is_valid_ecmascript(text)
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    #[test]
    fn regular_expressions() {
        for valid in [
            "",
            "([abc])+\\s+$",
            "^[a-z0-9_.-]{1,64}$",
            "(a)\\1",
            "(?<year>\\d{4})-\\k<year>",
            "(?=a)b",
            "(?<!a)b",
            "[]",
            "[^]",
            "\\p{L}\\P{Script=Greek}",
            "a{1,100000}",
            "\\u{1F600}",
            "\\cJ",
            "\\/",
        ] {
            assert!(regex(valid), "{valid}");
        }
        for invalid in [
            "^(abc]",
            "(",
            ")",
            "[a",
            "a**",
            "*a",
            "a{2,1}",
            "\\a",
            "\\Z",
            "(?i)a",
            "\\p{Unknown}",
            "\\1",
            "\\k<missing>(?<x>a)",
            "a{",
            "]",
            "\\",
            "(?<a>x)(?<a>y)",
            "(?<a>x)|(?<a>y)",
            "(?i:a)",
            "[z-a]",
            "(?=a)*",
        ] {
            assert!(!regex(invalid), "{invalid:?}");
        }
    }
}
