//! Arrays: `prefixItems` and `items` (and before 2020-12, a list `items`
//! with `additionalItems`), `contains` with `minContains`/`maxContains`,
//! `minItems`, `maxItems` and `uniqueItems` (sorted canonical keys: n log n,
//! never n²). An improper list is no array.

use serde_json::Value as Json;

use super::{count, entry, Compiled, Keyword, NodeId};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::Limit;
use crate::validate::unique::{write_key, NoKey, Room};
use crate::value::Value;

/// Deepest item `uniqueItems` compares.
const MAX_KEY_DEPTH: usize = 128;

pub(crate) fn compile_prefix_items<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let nodes = super::applicators::compile_list(c, at, "prefixItems", value)?;
    entry("prefixItems", Keyword::PrefixItems(nodes))
}

pub(crate) fn compile_items<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    match value {
        Json::Array(items) if at.scope.dialect <= Dialect::Draft2019_09 => {
            let nodes = (0..items.len())
                .map(|i| c.child_at(at, "items", i))
                .collect::<Result<Vec<_>, _>>()?;
            entry("items", Keyword::PrefixItems(nodes.into_boxed_slice()))
        }
        Json::Object(_) | Json::Bool(_) => {
            let skip = if at.scope.dialect >= Dialect::Draft2020_12 {
                sibling_len(at, "prefixItems")
            } else {
                0
            };
            let schema = c.child(at, "items")?;
            entry("items", Keyword::Items { schema, skip })
        }
        _ => Err(at.invalid("items", "a schema")),
    }
}

/// `additionalItems` applies only beside a list `items`.
pub(crate) fn compile_additional_items<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, _value: &Json) -> Compiled {
    let Some(Json::Array(items)) = at.sibling("items") else {
        return Ok(None);
    };
    let skip = items.len();
    let schema = c.child(at, "additionalItems")?;
    entry("additionalItems", Keyword::Items { schema, skip })
}

fn sibling_len(at: &At<'_, '_>, key: &str) -> usize {
    match at.sibling(key) {
        Some(Json::Array(items)) => items.len(),
        _ => 0,
    }
}

pub(crate) fn compile_contains<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, _value: &Json) -> Compiled {
    let schema = c.child(at, "contains")?;
    let (mut min, mut max) = (1, None);
    if at.scope.dialect >= Dialect::Draft2019_09 {
        if let Some(v) = at.sibling("minContains") {
            min = count(at, "minContains", v)?;
        }
        if let Some(v) = at.sibling("maxContains") {
            max = Some(count(at, "maxContains", v)?);
        }
    }
    entry(
        "contains",
        Keyword::Contains {
            schema,
            min,
            max,
            annotates: at.scope.dialect >= Dialect::Draft2020_12,
        },
    )
}

pub(crate) fn compile_count(_c: &mut Compiler<'_>, at: &At<'_, '_>, key: &str, value: &Json) -> Compiled {
    let n = count(at, key, value)?;
    if key == "minItems" {
        entry("minItems", Keyword::MinItems(n))
    } else {
        entry("maxItems", Keyword::MaxItems(n))
    }
}

pub(crate) fn compile_unique_items(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    match value {
        Json::Bool(true) => entry("uniqueItems", Keyword::UniqueItems),
        Json::Bool(false) => Ok(None),
        _ => Err(at.invalid("uniqueItems", "a boolean")),
    }
}

impl Walk<'_> {
    /// The length of an array instance; `None` for anything else, an
    /// improper list included. Counting a list is charged as its walk.
    fn array_len<'a, V: Value<'a>>(&self, instance: V) -> Result<Option<usize>, Limit> {
        if instance.kind() != crate::value::Kind::List {
            return Ok(None);
        }
        self.list_len_charged(instance)
    }

    /// The length of a list known to be one (`None`: improper), charged a
    /// unit per 8 cells.
    pub(crate) fn list_len_charged<'a, V: Value<'a>>(&self, instance: V) -> Result<Option<usize>, Limit> {
        let len = instance.list_len();
        if let Some(n) = len {
            self.charge(n as u64 / 8)?;
        }
        Ok(len)
    }

    pub(crate) fn check_prefix_items<'a, V: Value<'a>>(
        &mut self,
        _at: &Checked<'_>,
        nodes: &[NodeId],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        if self.array_len(instance)?.is_none() {
            return Ok(true);
        }
        let mut valid = true;
        let mut seen = 0;
        for (i, (item, &node)) in instance.list_items().zip(nodes.iter()).enumerate() {
            self.charge(1)?;
            let passed = self.node(node, item, &kp.push(Seg::Index(i)), &ip.push(Seg::Index(i)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
            seen = i + 1;
        }
        if let Some(ann) = ann {
            for i in 0..seen {
                ann.mark(i);
            }
        }
        Ok(valid)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_items<'a, V: Value<'a>>(
        &mut self,
        _at: &Checked<'_>,
        schema: NodeId,
        skip: usize,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        if self.array_len(instance)?.is_none() {
            return Ok(true);
        }
        let mut valid = true;
        for (i, item) in instance.list_items().enumerate().skip(skip) {
            self.charge(1)?;
            let passed = self.node(schema, item, kp, &ip.push(Seg::Index(i)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        if let Some(ann) = ann {
            ann.mark_all();
        }
        Ok(valid)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_contains<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        min: u64,
        max: Option<u64>,
        annotates: bool,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        if self.array_len(instance)?.is_none() {
            return Ok(true);
        }
        let mut matched: u64 = 0;
        // Without annotations to give and without `maxContains`, counting
        // stops once `minContains` is reached.
        let exhaustive = max.is_some() || (annotates && ann.is_some());
        for (i, item) in instance.list_items().enumerate() {
            self.charge(1)?;
            if self.probe(schema, item, kp, &ip.push(Seg::Index(i)), None)? {
                matched += 1;
                if annotates {
                    if let Some(ann) = ann.as_deref_mut() {
                        ann.mark(i);
                    }
                }
                if !exhaustive && matched >= min {
                    return Ok(true);
                }
            }
        }
        if matched < min {
            return self.fail(at, kp, ip, || {
                if min == 1 {
                    "array contains no item valid against the schema of contains".to_string()
                } else {
                    format!("array contains fewer than {min} items valid against the schema of contains")
                }
            });
        }
        if let Some(max) = max.filter(|max| matched > *max) {
            return self.fail(at, kp, ip, || {
                format!("array contains more than {max} items valid against the schema of contains")
            });
        }
        Ok(true)
    }

    pub(crate) fn check_item_count<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        limit: u64,
        minimum: bool,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(len) = self.array_len(instance)? else {
            return Ok(true);
        };
        let len = len as u64;
        if super::count_holds(len, limit, minimum) {
            return Ok(true);
        }
        self.fail(at, kp, ip, || {
            if minimum {
                format!("array has fewer than {limit} items")
            } else {
                format!("array has more than {limit} items")
            }
        })
    }

    pub(crate) fn check_unique_items<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(len) = self.array_len(instance)? else {
            return Ok(true);
        };
        if len < 2 {
            return Ok(true);
        }
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(len.min(1 << 16));
        for item in instance.list_items() {
            self.charge(1)?;
            let mut key = Vec::new();
            // A key costs a unit per 16 bytes of room: its bytes, and 32
            // for each value in it (reading it, and an allocation for a
            // number's digits). It is written only as far as the budget
            // left could pay for.
            let mut left = Room::within(self.budget, 32);
            let room = left.bytes;
            match write_key(item, MAX_KEY_DEPTH, &mut key, &mut left) {
                Ok(()) => {}
                Err(NoKey::TooLong) => {
                    // More than the budget has left: it is spent, as the
                    // charge for the whole key would have spent it.
                    let _ = self.charge(u64::MAX);
                    return Err(Limit::Work);
                }
                Err(NoKey::TooDeep) => return Err(Limit::Depth),
                Err(NoKey::NotJson) => {
                    return self.fail(at, kp, ip, || "array holds a value that is not JSON".to_string())
                }
            }
            self.charge((room - left.bytes) as u64 / 16)?;
            keys.push(key);
        }
        self.charge(len as u64 * (usize::BITS - len.leading_zeros()) as u64 / 4)?;
        keys.sort_unstable();
        if keys.windows(2).any(|pair| pair.first() == pair.get(1)) {
            return self.fail(at, kp, ip, || "array items are not unique".to_string());
        }
        Ok(true)
    }
}
