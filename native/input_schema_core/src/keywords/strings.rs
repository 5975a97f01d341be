//! `minLength`, `maxLength` (code points), `pattern` (ECMAScript, searched
//! in linear time; a pattern that needs backtracking is refused at compile)
//! and `format` (an annotation unless asserted).
//!
//! Both profiles: the standard keywords, and the gateway's string checks
//! ([`gateway_lengths`], [`gateway_pattern`], [`gateway_format`],
//! `gateway::Walk::check_string`), which share the pattern engine and the
//! format checks and differ in their messages and details.

use std::sync::Arc;

use serde_json::Value as Json;

use super::{count, entry, gateway_count, Compiled, Keyword};
use crate::error::{ArgumentError, BudgetReason, SchemaError};
use crate::format::Format;
use crate::pattern::{Pattern, PatternError};
use crate::schema::{self as gateway, Compiled as GatewayCompiled, Node as GatewayNode, Slots, Stop};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::vocabulary::Vocabularies;
use crate::standard::walk::{At as Checked, Path, Step, Walk};
use crate::standard::{CompileError, FormatMode};
use crate::validate::{self as gateway_walk, Check, ErrorAt, Failure};
use crate::value::{Shape, Value};

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
    pointer: impl Fn() -> String,
    source: &str,
) -> Result<Arc<Pattern>, CompileError> {
    // The pointer is built only for an error.
    let refused = |reason: &'static str| CompileError::Pattern {
        pointer: pointer(),
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
        _ => refused(crate::standard::output::PATTERN_INVALID),
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
    let compiled = pattern(c, || at.pointer("pattern"), source)?;
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
    pub(crate) fn text<'a, V: Value<'a>>(
        &self,
        instance: V,
    ) -> Result<Option<&'a str>, crate::standard::Limit> {
        let Some(bytes) = instance.bytes() else {
            return Ok(None);
        };
        self.charge(bytes.len() as u64 / 16)?;
        Ok(instance.text_of(bytes))
    }

    /// The length of `text` in characters (code points), charged a unit
    /// per 16 bytes.
    pub(crate) fn length(&self, text: &str) -> Result<u64, crate::standard::Limit> {
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
        self.fail(at, kp, ip, |m| {
            if minimum {
                m.then("string is shorter than ")
                    .number(limit)
                    .then(" characters")
            } else {
                m.then("string is longer than ").number(limit).then(" characters")
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
        if pattern.search(text).map_err(|_| crate::standard::Limit::Work)? {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            m.then("string does not match the pattern ").quoted(source)
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
        self.fail(at, kp, ip, |m| {
            m.then("string is not a valid ").then(format.name())
        })
    }
}

/// The gateway's `minLength` and `maxLength`.
#[inline(always)]
pub(crate) fn gateway_lengths<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    node.min_length = gateway_count(slots, gateway::Keyword::MinLength, path)?;
    node.max_length = gateway_count(slots, gateway::Keyword::MaxLength, path)?;
    Ok(())
}

/// The gateway's `pattern`: the portable subset (no backtracking), shared
/// with every schema that writes the same source; charged what building it
/// costs, whether it was built now or before.
#[inline(always)]
pub(crate) fn gateway_pattern<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    let Some(value) = gateway::get(slots, gateway::Keyword::Pattern) else {
        return Ok(());
    };
    let at = path.keyword(gateway::Keyword::Pattern);
    let Shape::Binary(source) = value.shape() else {
        return Err(at.fail(SchemaError::PatternNotString));
    };
    let pattern = if path.cx.cached_patterns_only {
        Pattern::find_shared(source).ok_or(Stop::OverBudget)?
    } else {
        Pattern::compile_shared(source).map_err(|e| {
            at.fail(match e {
                PatternError::TooLarge => SchemaError::PatternTooLarge,
                // `NeedsBacktracking` comes from the standard grammar only.
                PatternError::Unsupported | PatternError::NeedsBacktracking => {
                    SchemaError::PatternUnsupported
                }
                PatternError::Invalid => SchemaError::PatternInvalid,
            })
        })?
    };
    at.spend(pattern.build_units(), BudgetReason::Patterns)?;
    node.pattern = Some(pattern);
    Ok(())
}

/// The gateway's `format`, asserted only with [`FormatMode::Assert`] and
/// only for a name 2020-12 defines (any other stays an annotation). The
/// annotation check has made sure it is a string.
#[inline(always)]
pub(crate) fn gateway_format<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) {
    if path.cx.formats != FormatMode::Assert {
        return;
    }
    if let Some(Shape::Binary(name)) =
        gateway::get(slots, gateway::Keyword::Format).map(|value| value.shape())
    {
        node.format = std::str::from_utf8(name)
            .ok()
            .and_then(|name| Format::lookup(name, Dialect::Draft2020_12));
    }
}

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    /// Every binary is checked for UTF-8, whatever the schema: the old module
    /// counted the code points of every binary it met.
    #[inline(never)]
    pub(crate) fn check_string(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
    ) -> Check<V> {
        // One pass for UTF-8, one to count code points, one for the pattern
        // (an asserted format is charged what its check costs, below).
        let passes = 1 + u64::from(node.checks_lengths) + u64::from(node.pattern.is_some());
        let text = self.check_text(value, passes, path)?;
        if node.checks_lengths {
            let length = text.chars().count() as u64;
            let bounds = (&node.min_length, &node.max_length);
            let errors = (
                (|path, limit| ArgumentError::TooShort { path, limit }) as ErrorAt<V>,
                (|path, limit| ArgumentError::TooLong { path, limit }) as ErrorAt<V>,
            );
            self.check_count(length, bounds, errors, path)?;
        }
        if let Some(pattern) = &node.pattern {
            match pattern.search(text) {
                Ok(true) => {}
                Ok(false) => {
                    self.report(|| ArgumentError::PatternMismatch { path: path.render() })?;
                }
                Err(_) => return Err(Self::abort(ArgumentError::PatternLimit { path: path.render() })),
            }
        }
        if let Some(format) = node.format {
            self.budget.charge(format.units(text))?;
            if !format.check(text) {
                self.report(|| ArgumentError::FormatMismatch {
                    path: path.render(),
                    format: format.name(),
                })?;
            }
        }
        Ok(())
    }

    /// The text of a binary, charged `passes` scans of its bytes; an
    /// aborting failure when it is not UTF-8.
    #[inline]
    pub(crate) fn check_text(
        self,
        value: V,
        passes: u64,
        path: &gateway_walk::Path<'_, V>,
    ) -> Result<&'a str, Failure<V>> {
        // The bytes are read once: finding them can be a call into the runtime.
        let bytes = value.bytes();
        let size = bytes.map_or(0, <[u8]>::len);
        self.budget.charge(passes * (size as u64 / 16))?;
        bytes
            .and_then(|bytes| value.text_of(bytes))
            .ok_or_else(|| Self::abort(ArgumentError::InvalidUtf8 { path: path.render() }))
    }
}
