//! `multipleOf`, `minimum`, `maximum`, `exclusiveMinimum` and
//! `exclusiveMaximum` (a number from draft 6, a boolean beside
//! `minimum`/`maximum` in draft 4). Comparisons are exact across integers
//! of any size and floats; `multipleOf` is exact in decimal, as the numbers
//! are written (`0.0075` is a multiple of `0.0001`).
//!
//! Both profiles: the standard keywords ([`compile_minimum`], ...,
//! `Walk::check_bound`) and the gateway's bounds ([`gateway_bounds`],
//! `gateway::Walk::check_number`), which share [`Bound::holds`] and differ in
//! their messages and details.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use serde_json::Value as Json;

use super::{entry, Compiled, Keyword};
use crate::error::{ArgumentError, SchemaError};
use crate::schema::{self as gateway, Compiled as GatewayCompiled, Node as GatewayNode, Slots};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::walk::{At as Checked, Path, Step, Walk};
use crate::standard::CompileError;
use crate::validate::{self as gateway_walk, number_datum, Check, ErrorAt};
use crate::value::{Number, Shape, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
}

impl Bound {
    /// The bound `keyword` sets, with its limit.
    pub fn of(keyword: &Keyword) -> Option<(Bound, &Number)> {
        Some(match keyword {
            Keyword::Minimum(n) => (Bound::Minimum, n),
            Keyword::Maximum(n) => (Bound::Maximum, n),
            Keyword::ExclusiveMinimum(n) => (Bound::ExclusiveMinimum, n),
            Keyword::ExclusiveMaximum(n) => (Bound::ExclusiveMaximum, n),
            _ => return None,
        })
    }

    /// Whether a number in `order` to the limit keeps the bound.
    pub fn holds(self, order: Ordering) -> bool {
        match self {
            Bound::Minimum => order != Ordering::Less,
            Bound::Maximum => order != Ordering::Greater,
            Bound::ExclusiveMinimum => order == Ordering::Greater,
            Bound::ExclusiveMaximum => order == Ordering::Less,
        }
    }
}

fn number(at: &At<'_, '_>, key: &str, value: &Json) -> Result<Number, CompileError> {
    match value {
        Json::Number(n) => crate::json::number(n).ok_or_else(|| at.invalid(key, "a finite number")),
        _ => Err(at.invalid(key, "a number")),
    }
}

pub(crate) fn compile_multiple_of(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    let n = number(at, "multipleOf", value)?;
    if n.compare(&Number::Int(0)) != Ordering::Greater {
        return Err(at.invalid("multipleOf", "a number above zero"));
    }
    entry("multipleOf", Keyword::MultipleOf(n))
}

/// Draft 4: `"exclusiveMinimum": true` makes `minimum` exclusive.
fn draft4_exclusive(at: &At<'_, '_>, flag: &str) -> Result<bool, CompileError> {
    if at.scope.dialect != Dialect::Draft4 {
        return Ok(false);
    }
    match at.sibling(flag) {
        None => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(_) => Err(at.invalid(flag, "a boolean")),
    }
}

pub(crate) fn compile_minimum(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    let n = number(at, "minimum", value)?;
    if draft4_exclusive(at, "exclusiveMinimum")? {
        return entry("minimum", Keyword::ExclusiveMinimum(n));
    }
    entry("minimum", Keyword::Minimum(n))
}

pub(crate) fn compile_maximum(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    let n = number(at, "maximum", value)?;
    if draft4_exclusive(at, "exclusiveMaximum")? {
        return entry("maximum", Keyword::ExclusiveMaximum(n));
    }
    entry("maximum", Keyword::Maximum(n))
}

pub(crate) fn compile_exclusive(_c: &mut Compiler<'_>, at: &At<'_, '_>, key: &str, value: &Json) -> Compiled {
    let n = number(at, key, value)?;
    if key == "exclusiveMinimum" {
        entry("exclusiveMinimum", Keyword::ExclusiveMinimum(n))
    } else {
        entry("exclusiveMaximum", Keyword::ExclusiveMaximum(n))
    }
}

/// Units an exact `multipleOf` check costs beyond its keyword's: nothing
/// for two integers of a machine word (one remainder); otherwise the
/// decimal expansion of each number and a big-number remainder, measured at
/// about 340 ns for numbers of a few digits and up to 1.3 µs where the
/// exponents lie 600 apart (the scaling's digits), so 16 units and one per
/// 12 digits of the gap between the two numbers' magnitudes.
fn multiple_units(value: &Number, divisor: &Number) -> u64 {
    if let (Number::Int(_), Number::Int(_)) = (value, divisor) {
        return 0;
    }
    // A float's last digit lies up to 16 places below its magnitude.
    let gap = magnitude(value).abs_diff(magnitude(divisor)) + 17;
    16 + gap / 12
}

/// The power of ten of a number's leading digit, roughly.
fn magnitude(n: &Number) -> i64 {
    match n {
        Number::Int(i) => i64::from(i.unsigned_abs().checked_ilog10().unwrap_or(0)),
        Number::Big(b) => i64::try_from(b.bits() * 3 / 10).unwrap_or(i64::MAX / 2),
        Number::Float(f) if f.is_finite() && *f != 0.0 => f.abs().log10().floor() as i64,
        Number::Float(_) => 0,
    }
}

/// An exact decimal: `digits * 10^exponent`.
fn decimal(n: &Number) -> Option<(BigInt, i64)> {
    match n {
        Number::Int(i) => Some((BigInt::from(*i), 0)),
        Number::Big(b) => Some((b.clone(), 0)),
        Number::Float(f) => {
            if !f.is_finite() {
                return None;
            }
            // The shortest decimal that reads back as this float: what the
            // JSON text said, for any number written with at most 17 digits.
            let text = format!("{f:e}");
            let (mantissa, exponent) = text.split_once('e')?;
            let exponent: i64 = exponent.parse().ok()?;
            let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let digits: BigInt = format!("{whole}{fraction}").parse().ok()?;
            Some((digits, exponent - fraction.len() as i64))
        }
    }
}

/// Whether `value` is an integer multiple of `divisor` (> 0), exactly.
pub(crate) fn is_multiple(value: &Number, divisor: &Number) -> bool {
    if let (Number::Int(v), Number::Int(d)) = (value, divisor) {
        return *d != 0 && v % d == 0;
    }
    let (Some((v, ve)), Some((d, de))) = (decimal(value), decimal(divisor)) else {
        return false;
    };
    if v.is_zero() {
        return true;
    }
    // Scale both to the smaller exponent; bounded: float exponents lie
    // within about ±330, so at most about 660 digits.
    let common = ve.min(de);
    let scale = |digits: BigInt, exponent: i64| -> BigInt {
        let shift = u32::try_from(exponent - common).unwrap_or(0);
        digits * BigInt::from(10u8).pow(shift)
    };
    let v = scale(v.abs(), ve);
    let d = scale(d.abs(), de);
    !d.is_zero() && (v % d).is_zero()
}

impl Walk<'_> {
    pub(crate) fn check_multiple_of<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        divisor: &Number,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(value) = instance.number() else {
            return Ok(true);
        };
        self.charge(multiple_units(&value, divisor))?;
        if is_multiple(&value, divisor) {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            m.then("instance is not a multiple of ").shown(divisor)
        })
    }

    pub(crate) fn check_bound<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        limit: &Number,
        bound: Bound,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(value) = instance.number() else {
            return Ok(true);
        };
        if bound.holds(value.compare(limit)) {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            let relation = match bound {
                Bound::Minimum => "less than the minimum",
                Bound::Maximum => "greater than the maximum",
                Bound::ExclusiveMinimum => "not greater than the exclusive minimum",
                Bound::ExclusiveMaximum => "not less than the exclusive maximum",
            };
            m.then("instance is ").then(relation).then(" ").shown(limit)
        })
    }
}

/// The gateway's bounds, in its check order: `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`. `exclusive*` may also be draft
/// 4's boolean: `true` moves the inclusive bound to the exclusive one;
/// `false`, or `true` without the bound, changes nothing.
#[inline(always)]
pub(crate) fn gateway_bounds<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    node.minimum = gateway_number(slots, gateway::Keyword::Minimum, path)?;
    node.maximum = gateway_number(slots, gateway::Keyword::Maximum, path)?;
    node.exclusive_minimum =
        gateway_exclusive(slots, gateway::Keyword::ExclusiveMinimum, path, &mut node.minimum)?;
    node.exclusive_maximum =
        gateway_exclusive(slots, gateway::Keyword::ExclusiveMaximum, path, &mut node.maximum)?;
    Ok(())
}

#[inline(always)]
fn gateway_number<'a, V: Value<'a>>(
    slots: &Slots<V>,
    keyword: gateway::Keyword,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<Option<Number>, V> {
    match gateway::get(slots, keyword).map(|v| v.shape()) {
        None => Ok(None),
        Some(Shape::Number(n)) => Ok(Some(n)),
        Some(_) => Err(path.keyword(keyword).fail(SchemaError::NotNumber(keyword.name()))),
    }
}

#[inline(always)]
fn gateway_exclusive<'a, V: Value<'a>>(
    slots: &Slots<V>,
    keyword: gateway::Keyword,
    path: &gateway::SchemaPath<'_, V>,
    inclusive: &mut Option<Number>,
) -> GatewayCompiled<Option<Number>, V> {
    match gateway::get(slots, keyword).map(|v| v.shape()) {
        None | Some(Shape::Bool(false)) => Ok(None),
        Some(Shape::Bool(true)) => Ok(inclusive.take()),
        Some(Shape::Number(n)) => Ok(Some(n)),
        Some(_) => Err(path.keyword(keyword).fail(SchemaError::NotNumber(keyword.name()))),
    }
}

/// A gateway bound, the comparisons of a value with it that violate it,
/// and its error.
type ViolatedBound<'n, V> = (&'n Option<Number>, fn(Ordering) -> bool, ErrorAt<V>);

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    /// The gateway's bounds, in its check order, each reported with its
    /// limit as written.
    #[inline(never)]
    pub(crate) fn check_number(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
    ) -> Check<V> {
        let Some(n) = value.number() else {
            // `kind` said number and `shape` agrees by contract; should they
            // not, refuse.
            return Err(Self::abort(ArgumentError::NoAnyOfMatch { path: path.render() }));
        };
        // Each bound with the comparisons that violate it (the negation of
        // `Bound::holds`, written as `Ordering`'s own tests, which compile to
        // less here), in the gateway's check order.
        let bounds: [ViolatedBound<'_, V>; 4] = [
            (&node.minimum, Ordering::is_lt, |path, limit| {
                ArgumentError::BelowMinimum { path, limit }
            }),
            (&node.maximum, Ordering::is_gt, |path, limit| {
                ArgumentError::AboveMaximum { path, limit }
            }),
            (&node.exclusive_minimum, Ordering::is_le, |path, limit| {
                ArgumentError::NotAboveExclusiveMinimum { path, limit }
            }),
            (&node.exclusive_maximum, Ordering::is_ge, |path, limit| {
                ArgumentError::NotBelowExclusiveMaximum { path, limit }
            }),
        ];
        for (limit, violated, error) in bounds {
            if let Some(limit) = limit {
                if violated(n.compare(limit)) {
                    self.report(|| error(path.render(), number_datum(limit)))?;
                }
            }
        }
        Ok(())
    }
}
