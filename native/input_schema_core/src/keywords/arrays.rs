//! Arrays: `prefixItems` and `items` (and before 2020-12, a list `items`
//! with `additionalItems`), `contains` with `minContains`/`maxContains`,
//! `minItems`, `maxItems` and `uniqueItems` (sorted canonical keys: n log n,
//! never n²). An improper list is no array.
//!
//! Both profiles: the standard keywords, and the gateway's array keywords
//! ([`gateway_counts`], [`gateway_items`], `gateway::Walk::check_array`),
//! which share the `uniqueItems` keys (`unique.rs`) and differ in their
//! messages and details.

use serde_json::Value as Json;

use super::gateway_count;
use super::unique::{self, write_key, NoKey, Room};
use super::{count, entry, Compiled, Keyword, NodeId};
use crate::error::{ArgumentError, SchemaError};
use crate::schema::{self as gateway, Compiled as GatewayCompiled, Node as GatewayNode, Slots};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::Limit;
use crate::validate::{self as gateway_walk, levels, Check, ErrorAt, Failure, Segment, MAX_ARGUMENT_DEPTH};
use crate::value::{ListLength, Shape, Value};

/// Deepest item `uniqueItems` compares.
const MAX_KEY_DEPTH: usize = 128;

pub(crate) fn compile_prefix_items<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &'s Json) -> Compiled {
    let nodes = super::applicators::compile_list(c, at, "prefixItems", value)?;
    entry("prefixItems", Keyword::PrefixItems(nodes))
}

pub(crate) fn compile_items<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &'s Json) -> Compiled {
    match value {
        Json::Array(items) if at.scope.dialect <= Dialect::Draft2019_09 => {
            let nodes = (items.iter().enumerate())
                .map(|(i, item)| c.child_at(at, "items", i, item))
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
            self.charge_list_len(n)?;
        }
        Ok(len)
    }

    /// The charge for counting a list of `len` items: a unit per 8 cells.
    #[inline]
    pub(crate) fn charge_list_len(&self, len: usize) -> Result<(), Limit> {
        self.charge(len as u64 / 8)
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
        let Some(len) = self.array_len(instance)? else {
            return Ok(true);
        };
        // One item: the plan could spare the recording walk one visit, or
        // cost it one; more: it spares a visit for each valid item.
        let guided = len > skip.saturating_add(1);
        let recalled = if guided {
            self.recalled(schema, instance)
        } else {
            None
        };
        let mut items = instance.list_items().enumerate().skip(skip);
        // The items the first pass found valid, from the first on, are
        // passed over with their units and nothing else.
        if let Some(passed) = recalled.and_then(|recalled| recalled.passed_from(skip)) {
            self.charge(passed as u64)?;
            if let Some(last) = passed.checked_sub(1) {
                items.nth(last);
            }
        }
        let mut valid = true;
        for (i, item) in items {
            self.charge(1)?;
            let ip = ip.push(Seg::Index(i));
            if guided && self.passes_unrecorded(schema, recalled, i, item, kp, &ip)? {
                continue;
            }
            let passed = self.node(schema, item, kp, &ip, None)?;
            if !passed {
                self.item_failed(schema, instance, skip, item);
            }
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
            return self.fail(at, kp, ip, |m| {
                if min == 1 {
                    m.then("array contains no item valid against the schema of contains")
                } else {
                    m.then("array contains fewer than ")
                        .number(min)
                        .then(" items valid against the schema of contains")
                }
            });
        }
        if let Some(max) = max.filter(|max| matched > *max) {
            return self.fail(at, kp, ip, |m| {
                m.then("array contains more than ")
                    .number(max)
                    .then(" items valid against the schema of contains")
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
        self.fail(at, kp, ip, |m| {
            if minimum {
                m.then("array has fewer than ").number(limit).then(" items")
            } else {
                m.then("array has more than ").number(limit).then(" items")
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
                    return self.fail(at, kp, ip, |m| m.then("array holds a value that is not JSON"))
                }
            }
            self.charge((room - left.bytes) as u64 / 16)?;
            keys.push(key);
        }
        self.charge(len as u64 * (usize::BITS - len.leading_zeros()) as u64 / 4)?;
        keys.sort_unstable();
        if keys.windows(2).any(|pair| pair.first() == pair.get(1)) {
            return self.fail(at, kp, ip, |m| m.then("array items are not unique"));
        }
        Ok(true)
    }
}

/// The gateway's `minItems`, `maxItems` and `uniqueItems`.
#[inline(always)]
pub(crate) fn gateway_counts<'a, V: Value<'a>>(
    slots: &Slots<V>,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    node.min_items = gateway_count(slots, gateway::Keyword::MinItems, path)?;
    node.max_items = gateway_count(slots, gateway::Keyword::MaxItems, path)?;
    if let Some(value) = gateway::get(slots, gateway::Keyword::UniqueItems) {
        let Shape::Bool(unique) = value.shape() else {
            return Err(path
                .keyword(gateway::Keyword::UniqueItems)
                .fail(SchemaError::AnnotationNotBoolean("uniqueItems")));
        };
        node.unique_items = unique;
    }
    Ok(())
}

/// The gateway's array keywords that hold schemas, `prefixItems` (2020-12),
/// `items` as a schema or as a draft-07 list, and `additionalItems`, in that
/// check order. They compile to one form: a schema per leading element
/// (`prefix_items`), then one schema for every element after them (`items`).
/// Returns whether any array keyword applies.
pub(crate) fn gateway_items<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<bool, V> {
    let prefix = gateway::get(slots, gateway::Keyword::PrefixItems);
    if let Some(value) = prefix {
        let at = path.keyword(gateway::Keyword::PrefixItems);
        node.prefix_items =
            super::applicators::gateway_branches(value, depth, &at, SchemaError::MalformedPrefixItems)?;
    }

    // A list `items` is the draft-07 tuple: `additionalItems` then applies
    // to the rest. Beside `prefixItems` it has no meaning: malformed.
    let mut tuple = false;
    if let Some(value) = gateway::get(slots, gateway::Keyword::Items) {
        let at = path.keyword(gateway::Keyword::Items);
        if value.shape() == Shape::List {
            if prefix.is_some() {
                return Err(at.fail(SchemaError::ItemsListBesidePrefixItems));
            }
            if value.list_len().is_none() {
                return Err(at.fail(SchemaError::MalformedItems));
            }
            node.prefix_items = super::applicators::gateway_entries(value, depth, &at)?;
            tuple = true;
        } else {
            node.items = Some(gateway::compile_subschema(
                value,
                depth + 1,
                &at,
                SchemaError::MalformedItems,
            )?);
        }
    }

    // Checked wherever it is written; it applies only after a list `items`.
    if let Some(value) = gateway::get(slots, gateway::Keyword::AdditionalItems) {
        let at = path.keyword(gateway::Keyword::AdditionalItems);
        let rest = gateway::compile_subschema(value, depth + 1, &at, SchemaError::MalformedAdditionalItems)?;
        if tuple {
            node.items = Some(rest);
        }
    }

    Ok(node.min_items.is_some()
        || node.max_items.is_some()
        || node.unique_items
        || !node.prefix_items.is_empty()
        || node.items.is_some())
}

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    #[inline(never)]
    pub(crate) fn check_array(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        // Counting cells is itself work: stop counting when the budget ends.
        let length = match value.list_len_within(self.budget.left()) {
            ListLength::Proper(length) => length,
            ListLength::Improper => {
                return Err(Self::abort(ArgumentError::ImproperList { path: path.render() }));
            }
            ListLength::Longer => return Err(Failure::OverBudget),
        };
        self.budget.charge(length as u64 / 8)?;
        let bounds = (&node.min_items, &node.max_items);
        let errors = (
            (|path, limit| ArgumentError::TooFewItems { path, limit }) as ErrorAt<V>,
            (|path, limit| ArgumentError::TooManyItems { path, limit }) as ErrorAt<V>,
        );
        self.check_count(length as u64, bounds, errors, path)?;
        if node.unique_items {
            self.check_unique(value, length, path, depth)?;
        }
        let prefix = &node.prefix_items;
        if prefix.is_empty() && node.items.is_none() {
            return Ok(());
        }
        for (index, item) in value.list_items().enumerate() {
            let schema = match prefix.get(index) {
                Some(schema) => *schema,
                None => match node.items {
                    Some(schema) => schema,
                    None => break,
                },
            };
            let item_path = path.child(Segment::Index(index));
            self.check_id(schema, item, &item_path, depth + 1)?;
        }
        Ok(())
    }

    /// `uniqueItems: true`: the elements' keys (see `unique`), sorted, hold
    /// no two equal. Elements that have no key (terms that are not JSON)
    /// cannot be compared: the list is refused as if they were equal.
    #[inline(never)]
    pub(crate) fn check_unique(
        self,
        value: V,
        length: usize,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let depth_left = MAX_ARGUMENT_DEPTH.saturating_sub(levels(depth));
        let mut keys = Vec::with_capacity(length);
        let mut comparable = true;
        for (index, item) in value.list_items().enumerate() {
            let mut key = Vec::new();
            // Written only as far as the budget left could pay for: past
            // that, the charge below would refuse it anyway.
            let mut room = unique::Room::within(self.budget, 0);
            match unique::write_key(item, depth_left, &mut key, &mut room) {
                Ok(()) => {}
                Err(unique::NoKey::TooLong) => {
                    // More than the budget has left: it is spent, as the
                    // charge for the whole key would have spent it.
                    let _ = self.budget.charge(u64::MAX);
                    return Err(Failure::OverBudget);
                }
                Err(unique::NoKey::TooDeep) => {
                    return Err(Self::too_deep(&path.child(Segment::Index(index))))
                }
                Err(unique::NoKey::NotJson) => {
                    comparable = false;
                    break;
                }
            }
            self.budget.charge(1 + key.len() as u64 / 16)?;
            keys.push(key);
        }
        // Sorting compares keys about log2(n) times each.
        self.budget.charge(
            (keys.len() as u64).saturating_mul(u64::from(usize::BITS - keys.len().leading_zeros())),
        )?;
        keys.sort_unstable();
        if !comparable || keys.windows(2).any(|pair| pair.first() == pair.get(1)) {
            self.report(|| ArgumentError::DuplicateItems { path: path.render() })?;
        }
        Ok(())
    }
}
