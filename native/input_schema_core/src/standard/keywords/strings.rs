//! `minLength`, `maxLength` (code points), `pattern` (ECMAScript, searched
//! in linear time; a pattern that needs backtracking is refused at compile)
//! and `format` (an annotation unless asserted).

use std::sync::Arc;

use serde_json::Value as Json;

use super::{count, entry, Compiled, Keyword};
use crate::format::Format;
use crate::pattern::{Pattern, PatternError};
use crate::standard::compiler::{At, Compiler};
use crate::standard::vocabulary::Vocabularies;
use crate::standard::walk::{At as Checked, Path, Step, Walk};
use crate::standard::{CompileError, FormatMode};
use crate::value::Value;

pub(crate) fn compile_length(_c: &mut Compiler<'_>, at: &At<'_, '_>, key: &str, value: &Json) -> Compiled {
    let n = count(at, key, value)?;
    if key == "minLength" {
        entry("minLength", Keyword::MinLength(n))
    } else {
        entry("maxLength", Keyword::MaxLength(n))
    }
}

/// A pattern for the standard entry point, with the reason it is refused.
pub(crate) fn pattern(
    c: &mut Compiler<'_>,
    pointer: String,
    source: &str,
) -> Result<Arc<Pattern>, CompileError> {
    let refused = |reason: &'static str| CompileError::Pattern {
        pointer: pointer.clone(),
        pattern: source.to_string(),
        reason,
    };
    if c.inline {
        // Building an automaton is not bounded by the inline budget (it is
        // charged after): on a normal scheduler only a built one is used.
        let pattern = Pattern::find_standard_shared(source.as_bytes()).ok_or(CompileError::CompileBudget)?;
        let units = match c.deferred {
            // Found built, it costs the look-up (hashing and comparing its
            // source); its build counts toward the compile budget
            // (`Validator::compile_inline`).
            Some(deferred) => {
                deferred.set(deferred.get().saturating_add(pattern.build_units()));
                1 + source.len() as u64 / 16
            }
            None => pattern.build_units(),
        };
        c.budget.charge(units).map_err(|_| CompileError::CompileBudget)?;
        return Ok(pattern);
    }
    let pattern = Pattern::compile_standard_shared(source.as_bytes()).map_err(|e| match e {
        PatternError::TooLarge => refused("it exceeds the pattern size limits"),
        PatternError::NeedsBacktracking => refused(
            "it needs backtracking (a backreference or lookaround), which linear-time matching cannot run",
        ),
        _ => refused("it is not a valid ECMAScript regular expression"),
    })?;
    c.budget
        .charge(pattern.build_units())
        .map_err(|_| CompileError::CompileBudget)?;
    Ok(pattern)
}

pub(crate) fn compile_pattern<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Some(source) = value.as_str() else {
        return Err(at.invalid("pattern", "a string"));
    };
    let compiled = pattern(c, at.pointer("pattern"), source)?;
    entry(
        "pattern",
        Keyword::Pattern {
            pattern: compiled,
            source: Box::from(source),
        },
    )
}

/// `format` is an annotation unless asserted (`formats: :assert`, or a
/// metaschema that turns on the format-assertion vocabulary). A format the
/// dialect does not define stays an annotation, as the specification says.
pub(crate) fn compile_format<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Some(name) = value.as_str() else {
        return Err(at.invalid("format", "a string"));
    };
    if c.formats != FormatMode::Assert && !at.scope.vocabularies.has(Vocabularies::FORMAT_ASSERTION) {
        return Ok(None);
    }
    match Format::lookup(name, at.scope.dialect) {
        Some(format) => entry("format", Keyword::Format(format)),
        None => Ok(None),
    }
}

impl Walk<'_> {
    /// The text of a string instance; `None` for any other value. A binary
    /// that is not UTF-8 is no string.
    ///
    /// Checking the UTF-8 reads every byte: a unit per 16 bytes is charged
    /// before it, so a long string leaves the calling scheduler unread.
    pub(crate) fn text<'a, V: Value<'a>>(&self, instance: V) -> Result<Option<&'a str>, super::super::Limit> {
        let Some(bytes) = instance.bytes() else {
            return Ok(None);
        };
        self.charge(bytes.len() as u64 / 16)?;
        Ok(instance.text_of(bytes))
    }

    /// The length of `text` in characters (code points), charged a unit
    /// per 16 bytes.
    pub(crate) fn length(&self, text: &str) -> Result<u64, super::super::Limit> {
        self.charge(text.len() as u64 / 16)?;
        Ok(if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        } as u64)
    }

    pub(crate) fn check_length<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        limit: u64,
        minimum: bool,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(text) = self.text(instance)? else {
            return Ok(true);
        };
        if super::count_holds(self.length(text)?, limit, minimum) {
            return Ok(true);
        }
        self.fail(at, kp, ip, || {
            if minimum {
                format!("string is shorter than {limit} characters")
            } else {
                format!("string is longer than {limit} characters")
            }
        })
    }

    pub(crate) fn check_pattern<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        pattern: &Pattern,
        source: &str,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(text) = self.text(instance)? else {
            return Ok(true);
        };
        self.charge(1 + text.len() as u64 / 16)?;
        if pattern.search(text).map_err(|_| super::super::Limit::Work)? {
            return Ok(true);
        }
        self.fail(at, kp, ip, || {
            format!("string does not match the pattern {source:?}")
        })
    }

    pub(crate) fn check_format<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        format: Format,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(text) = self.text(instance)? else {
            return Ok(true);
        };
        self.charge(format.units(text))?;
        if format.check(text) {
            return Ok(true);
        }
        self.fail(at, kp, ip, || format!("string is not a valid {}", format.name()))
    }
}
