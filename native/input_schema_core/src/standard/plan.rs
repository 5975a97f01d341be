//! The fast path of "is it valid?": a node's commonest keywords folded
//! into one plan. The instance's type is read once per node; a string's
//! bytes once for `type`, `minLength` and `maxLength`; a number once for
//! its bounds; an object in one pass over its entries for `properties`,
//! `patternProperties`, `required` and `additionalProperties` (each key
//! read once and tested once against each pattern, each property's schema
//! found by one lookup, `required` as a bit mask) rather than once per
//! keyword; an array's items once for `items`. A property or `items`
//! schema that holds `type` alone is checked by the plan itself.
//!
//! The plan decides exactly what the keywords it folds decide: it is only a
//! different order of the same conjunctive checks, so it serves every walk
//! that records no failure and collects no annotation (`valid?/2`, the
//! branches of `anyOf`/`oneOf`/`not`/`if`, and `validate/3`'s first pass,
//! which answers `:ok` for a valid instance without building anything).
//! The keywords it does not fold run one by one, as in the recording walk.

use std::borrow::Cow;
use std::sync::Arc;

use super::walk::{Passed, Path, Step, Walk};
use super::Limit;
use crate::keywords::numbers::Bound;
use crate::keywords::objects::key_name;
use crate::keywords::type_bits::{ARRAY, OBJECT, STRING};
use crate::keywords::types::{floats_decide, instance_type_of, meet, FLOATS_ARE_NEVER_INTEGERS};
use crate::keywords::{Body, Entry, Keyword, Node, NodeId};
use crate::pattern::Pattern;
use crate::value::{Kind, Number, Value};

/// The most `required` names a plan folds (one bit each).
const MAX_REQUIRED: usize = 64;

/// What one node's fast path checks, and which of its entries it leaves to
/// the keyword-by-keyword walk.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The `type` keyword's bits, when the node has one.
    types: Option<u8>,
    /// `minLength` and `maxLength`.
    min_length: Option<u64>,
    max_length: Option<u64>,
    /// `minimum`, `maximum` and the exclusive bounds.
    bounds: Box<[(Bound, Number)]>,
    object: Option<ObjectPlan>,
    /// `items` over every item (2020-12, or a single schema before it).
    items: Option<NodeId>,
    /// How the plan visits the `items` schema (`inline_subschemas`).
    items_visit: Visit,
    /// Indexes of the entries the plan does not fold, in the node's order.
    rest: Box<[u16]>,
    /// The nested evaluations that the `allOf` and `$ref` folded into the
    /// plan (`fold_all_of`) would make past the node before their last
    /// depth check: the plan fails with the depth limit where they would
    /// have (`None`: nothing folded).
    fold_depth: Option<u32>,
}

/// `properties`, `patternProperties`, `required` and
/// `additionalProperties` as one table.
#[derive(Debug)]
struct ObjectPlan {
    /// Every name `properties` or `required` lists, in `name_order`.
    names: Box<[Name]>,
    /// `patternProperties`: each pattern, its schema, and how the plan
    /// visits that schema (`inline_subschemas`).
    patterns: Box<[(Arc<Pattern>, NodeId, Visit)]>,
    /// The bits of every required name.
    required: u64,
    additional: Additional,
    /// Whether the pass over the entries checks all of the node's own
    /// `properties`, `patternProperties` and `additionalProperties` (each
    /// that it has): a key the pass passes passes each of them, which the
    /// first pass of `validate` notes for the recording walk
    /// (`Walk::keys_failed`).
    covers_siblings: bool,
}

#[derive(Debug)]
struct Name {
    name: Arc<str>,
    /// The schema `properties` gives the name (`None`: not a property, so
    /// an additional one).
    property: Option<NodeId>,
    /// How the plan visits that schema (`inline_subschemas`).
    visit: Visit,
    /// Its bit in `ObjectPlan::required` (0 when not required).
    bit: u64,
    /// The schemas of the same name in the `properties` of the `allOf`
    /// branches folded into the plan (`fold_all_of`), each with the nested
    /// evaluations the walk would have made on the way to it from the
    /// node: the branch's `$ref`s alone and its node.
    also: Box<[(NodeId, u32)]>,
}

/// How a plan visits a property or `items` schema (`inline_subschemas`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Visit {
    /// Through the schema's node.
    Node,
    /// The schema holds `type` alone, with these bits: the plan checks
    /// the value itself (`Walk::type_leaf`).
    Type(u8),
    /// The schema is a `$ref` alone: a chain of `hops` `$ref`s alone
    /// leads to `target`, a schema that is not one. The plan goes there
    /// straight away (`Walk::hopped`).
    Hops { target: NodeId, hops: u32 },
}

#[derive(Debug, Clone, Copy)]
enum Additional {
    /// No `additionalProperties` folded: any other key passes.
    Any,
    Schema(NodeId),
    /// `unevaluatedProperties` where what the node evaluates is known from
    /// the schema (`fold_unevaluated`): its schema checks the keys that no
    /// property, folded `allOf` branch's property or pattern names.
    Unevaluated(NodeId),
}

/// The order of a plan's names: by bytes, the order in which both
/// backends give a map's text keys (a BEAM map of up to 32 keys, a
/// `serde_json` map), so that the walk meets the names in turn
/// (`ObjectPlan::find_from`).
///
/// Compared a byte at a time, as `same_bytes` compares: names mostly differ
/// in their first bytes, where a call to `memcmp` at each step of a binary
/// search costs more than the comparison.
#[inline]
fn name_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

impl Plan {
    /// A plan that folds nothing and leaves each of `count` entries to the
    /// keyword-by-keyword walk (those past `u16::MAX` are not named).
    fn leaving(count: usize) -> Box<Plan> {
        Box::new(Plan {
            types: None,
            min_length: None,
            max_length: None,
            bounds: Box::default(),
            object: None,
            items: None,
            items_visit: Visit::Node,
            rest: (0..count).filter_map(|i| u16::try_from(i).ok()).collect(),
            fold_depth: None,
        })
    }

    /// Whether the plan checks the value alone: no subschema to walk and
    /// no keyword left to the keyword-by-keyword walk.
    #[inline]
    pub(crate) fn is_leaf(&self) -> bool {
        self.object.is_none() && self.items.is_none() && self.rest.is_empty()
    }

    /// Whether the plan holds only for objects: its `type` allows no other
    /// type, and it reads the object's entries.
    pub(crate) fn holds_only_for_objects(&self) -> bool {
        self.types
            .is_some_and(|types| types & !FLOATS_ARE_NEVER_INTEGERS == OBJECT)
            && self.object.is_some()
    }

    /// The names the plan requires that `properties` gives a schema, in
    /// the plan's name order.
    pub(crate) fn required_properties(&self) -> impl Iterator<Item = &str> {
        self.object
            .iter()
            .flat_map(|object| object.names.iter())
            .filter(|name| name.bit != 0 && name.property.is_some())
            .map(|name| &*name.name)
    }

    /// The schema `properties` gives `name`, when the plan requires it.
    pub(crate) fn required_property(&self, name: &str) -> Option<NodeId> {
        let found = self.object.as_ref()?.find(name.as_bytes())?;
        if found.bit == 0 {
            return None;
        }
        found.property
    }
}

impl ObjectPlan {
    fn empty() -> ObjectPlan {
        ObjectPlan {
            names: Box::default(),
            patterns: Box::default(),
            required: 0,
            additional: Additional::Any,
            covers_siblings: false,
        }
    }

    fn find(&self, key: &[u8]) -> Option<&Name> {
        self.position(key).and_then(|at| self.names.get(at))
    }

    /// [`ObjectPlan::find`] for the keys of one map in turn, where `next`
    /// (0 for the map's first key) is the place after the last name found.
    /// A map whose keys come in name order finds each name at that place,
    /// with one comparison, or at the next one where the map lacks a name
    /// (an optional property left out); any other key is looked up in full.
    #[inline]
    fn find_from(&self, key: &[u8], next: &mut usize) -> Option<&Name> {
        if self.names.is_empty() {
            return None;
        }
        if let Some(name) = self.names.get(*next) {
            if same_bytes(name.name.as_bytes(), key) {
                *next += 1;
                return Some(name);
            }
        }
        if let Some(name) = self.names.get(*next + 1) {
            if same_bytes(name.name.as_bytes(), key) {
                *next += 2;
                return Some(name);
            }
        }
        let at = self.position(key)?;
        *next = at + 1;
        self.names.get(at)
    }

    fn position(&self, key: &[u8]) -> Option<usize> {
        if self.names.len() <= 8 {
            self.names.iter().position(|n| same_bytes(n.name.as_bytes(), key))
        } else {
            self.names
                .binary_search_by(|n| name_order(n.name.as_bytes(), key))
                .ok()
        }
    }
}

/// Whether two names are the same, compared a byte at a time: names are
/// short, and most differ in length, where a call to `memcmp` costs more
/// than the comparison itself.
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The plan of a node with `entries`, when it folds anything.
pub(crate) fn plan(entries: &[Entry]) -> Option<Box<Plan>> {
    if entries.len() > usize::from(u16::MAX) {
        return None;
    }
    let properties = entries.iter().find_map(|e| match &e.keyword {
        Keyword::Properties(properties) => Some(properties),
        _ => None,
    });
    let pattern_properties = entries.iter().find_map(|e| match &e.keyword {
        Keyword::PatternProperties(patterns) => Some(patterns),
        _ => None,
    });
    let mut types = None;
    let mut folded_patterns = None;
    let (mut min_length, mut max_length) = (None, None);
    let mut bounds = Vec::new();
    let mut items = None;
    let mut folded_properties = None;
    let mut required: Option<&[Box<str>]> = None;
    let mut additional = Additional::Any;
    let mut rest = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if let Some((bound, limit)) = Bound::of(&entry.keyword) {
            bounds.push((bound, limit.clone()));
            continue;
        }
        let folded = match &entry.keyword {
            Keyword::Type(bits, _) if types.is_none() => {
                types = Some(*bits);
                true
            }
            Keyword::MinLength(n) if min_length.is_none() => {
                min_length = Some(*n);
                true
            }
            Keyword::MaxLength(n) if max_length.is_none() => {
                max_length = Some(*n);
                true
            }
            Keyword::Items { schema, skip: 0 } if items.is_none() => {
                items = Some(*schema);
                true
            }
            Keyword::Properties(p) if folded_properties.is_none() => {
                folded_properties = Some(p);
                true
            }
            Keyword::Required(names) if required.is_none() && names.len() <= MAX_REQUIRED => {
                required = Some(names);
                true
            }
            Keyword::PatternProperties(p) if folded_patterns.is_none() => {
                folded_patterns = Some(p);
                true
            }
            // Folded only when the names and patterns it skips are the
            // sibling `properties`' and `patternProperties`' (which the
            // plan folds too).
            Keyword::AdditionalProperties {
                schema,
                names,
                patterns,
            } if patterns.len() == pattern_properties.map_or(0, |p| p.len())
                && matches!(additional, Additional::Any)
                && same_names(names, properties.map(|p| &p[..])) =>
            {
                additional = Additional::Schema(*schema);
                true
            }
            _ => false,
        };
        if !folded {
            rest.push(i as u16);
        }
    }
    let folds_object = folded_properties.is_some()
        || folded_patterns.is_some()
        || required.is_some()
        || matches!(additional, Additional::Schema(_));
    if rest.len() == entries.len() {
        return None;
    }
    // `properties` and `patternProperties` are folded whenever present
    // (a node holds each keyword once); `additionalProperties` may not be.
    let additional_left = entries
        .iter()
        .any(|e| matches!(e.keyword, Keyword::AdditionalProperties { .. }))
        && !matches!(additional, Additional::Schema(_));
    let object = folds_object.then(|| {
        let mut plan = object_plan(folded_properties.map(|p| &p[..]), required, additional);
        plan.covers_siblings = !additional_left;
        plan.patterns = folded_patterns
            .into_iter()
            .flatten()
            .map(|(_, pattern, node)| (Arc::clone(pattern), *node, Visit::Node))
            .collect();
        plan
    });
    Some(Box::new(Plan {
        types,
        min_length,
        max_length,
        bounds: bounds.into_boxed_slice(),
        object,
        items,
        items_visit: Visit::Node,
        rest: rest.into_boxed_slice(),
        fold_depth: None,
    }))
}

/// The most names an `allOf` fold adds to one plan: the metaschemas'
/// vocabularies have some 60 between them; the bound keeps the copying
/// linear in the schema's size, whatever its references.
const MAX_FOLDED_NAMES: usize = 256;

/// The most names the folds add to the plans of one schema, all nodes
/// together. Each `$ref` or `allOf` to a schema of many properties would
/// otherwise copy them again (thousands of references to a schema of 256
/// properties: millions of names, where the compile budget charges each
/// reference once); past this, nodes are left unfolded, which changes
/// no verdict.
const MAX_FOLDED_NAMES_IN_ALL: usize = 16_384;

/// The most `$ref`-only nodes followed from an `allOf` branch to the
/// schema it folds.
const MAX_REF_HOPS: usize = 4;

/// What folding a node's `allOf` adds to its plan.
struct Fold {
    /// The `allOf` (or `$ref`) entry's index.
    entry: usize,
    types: Option<u8>,
    /// Each branch's `properties`, name by name, with the nested
    /// evaluations on the way to each (`Name::also`).
    names: Vec<(Arc<str>, NodeId, u32)>,
    /// `Plan::fold_depth` for these branches.
    depth: Option<u32>,
}

/// Folds into each node's plan the `allOf` whose every branch is (itself,
/// or through `$ref`-only nodes) a schema of `type` and `properties` alone,
/// as the 2019-09 and 2020-12 metaschemas' vocabularies are: one pass over
/// an object's entries then checks each entry against every branch's
/// property schema, instead of one pass per branch. The verdict is the
/// same conjunction. Under a dynamic scope, a branch is folded only where
/// skipping its node leaves the scope of every property schema as it was
/// (`folding`).
///
/// A `$ref` is folded the same way, as an `allOf` of its one target: a
/// base schema's `properties` read in the node's pass, as
/// `unevaluatedProperties` beside it needs (`fold_unevaluated`). (A
/// tagged union's branch behind a `$ref` keeps its hop: its target has
/// `required`, which no fold takes.)
pub(crate) fn fold_all_of(nodes: &mut [Node], dynamic: bool) {
    let mut allowance = MAX_FOLDED_NAMES_IN_ALL;
    for at in 0..nodes.len() {
        let Some(Body::Keywords(entries, _)) = nodes.get(at).map(|node| &node.body) else {
            continue;
        };
        // The entries to fold, found in one reading of the node's.
        let (mut all_of, mut reference) = (None, None);
        for (i, entry) in entries.iter().enumerate() {
            match entry.keyword {
                Keyword::AllOf(_) => all_of = Some(i),
                Keyword::Ref(_) => reference = Some(i),
                _ => {}
            }
        }
        for entry in [all_of, reference].into_iter().flatten() {
            let cap = allowance.min(MAX_FOLDED_NAMES);
            let Some(fold) = folding(nodes, at, entry, dynamic, cap) else {
                continue;
            };
            allowance -= fold.names.len();
            if let Some(node) = nodes.get_mut(at) {
                apply(node, fold);
            }
        }
    }
}

/// The fold of node `at`'s `allOf` or `$ref` (its entry `entry`), when
/// every branch folds and they add at most `cap` names.
fn folding(nodes: &[Node], at: usize, entry: usize, dynamic: bool, cap: usize) -> Option<Fold> {
    let node = nodes.get(at)?;
    let Body::Keywords(entries, own) = &node.body else {
        return None;
    };
    // A plan names its entries by `u16` index (as `plan` requires).
    if entries.len() > usize::from(u16::MAX) {
        return None;
    }
    let branches = match &entries.get(entry)?.keyword {
        Keyword::AllOf(branches) => &branches[..],
        Keyword::Ref(target) => std::slice::from_ref(target),
        _ => return None,
    };
    let mut fold = Fold {
        entry,
        types: None,
        names: Vec::new(),
        depth: None,
    };
    // Type bits meet only under one reading of integers.
    let own_types = own.as_ref().and_then(|plan| plan.types);
    for &branch in branches.iter() {
        let (target, hops) = through_refs(nodes, branch, node.resource, dynamic)?;
        if target == at {
            return None;
        }
        let branch = nodes.get(target)?;
        let Body::Keywords(_, Some(plan)) = &branch.body else {
            return None;
        };
        // The walk would check the depth at the branch's target, after its
        // `$ref`s alone, then inside it at the target's own folds (one
        // evaluation further: the target's node).
        let depth = plan
            .fold_depth
            .map_or(hops, |inner| hops.saturating_add(1).saturating_add(inner));
        fold.depth = Some(fold.depth.map_or(depth, |known| known.max(depth)));
        let only_types_and_properties = plan.rest.is_empty()
            && plan.min_length.is_none()
            && plan.max_length.is_none()
            && plan.bounds.is_empty()
            && plan.items.is_none();
        if !only_types_and_properties {
            return None;
        }
        if let Some(bits) = plan.types {
            fold.types = Some(match fold.types {
                None => bits,
                Some(known) if known & FLOATS_ARE_NEVER_INTEGERS == bits & FLOATS_ARE_NEVER_INTEGERS => {
                    meet(known, bits)
                }
                Some(_) => return None,
            });
        }
        let Some(object) = &plan.object else {
            continue;
        };
        if object.required != 0
            || !object.patterns.is_empty()
            || !matches!(object.additional, Additional::Any)
        {
            return None;
        }
        for name in object.names.iter() {
            let own = name.property.map(|schema| (schema, 0));
            for (schema, lift) in own.into_iter().chain(name.also.iter().copied()) {
                // Evaluated from the branch, a property schema outside the
                // branch's resource would have the branch's resource in its
                // scope; evaluated from here, it would not.
                let resource = nodes.get(schema as usize)?.resource;
                if dynamic && branch.resource != node.resource && resource != branch.resource {
                    return None;
                }
                if fold.names.len() >= cap {
                    return None;
                }
                // Met past the branch's `$ref`s alone and its target's
                // node (which has properties, so it counts).
                fold.names.push((
                    name.name.clone(),
                    schema,
                    hops.saturating_add(1).saturating_add(lift),
                ));
            }
        }
    }
    match (own_types, fold.types) {
        (Some(own), Some(bits)) if own & FLOATS_ARE_NEVER_INTEGERS != bits & FLOATS_ARE_NEVER_INTEGERS => {
            None
        }
        _ => Some(fold),
    }
}

/// The node `id` leads to through nodes that hold only a `$ref` (each in
/// `resource` when the scope is dynamic, so that skipping them changes no
/// scope), and how many of those it went through (each one a nested
/// evaluation of the walk).
fn through_refs(nodes: &[Node], mut id: NodeId, resource: u32, dynamic: bool) -> Option<(usize, u32)> {
    for hops in 0..MAX_REF_HOPS as u32 {
        let node = nodes.get(id as usize)?;
        match (&node.body, node.reference_alone()) {
            (_, Some(target)) if !dynamic || node.resource == resource => id = target,
            (Body::Keywords(_, Some(_)), _) => return Some((id as usize, hops)),
            _ => return None,
        }
    }
    None
}

/// Adds `fold` to `node`'s plan and takes its `allOf` out of the entries
/// the plan leaves to the walk.
fn apply(node: &mut Node, fold: Fold) {
    let Body::Keywords(entries, plan) = &mut node.body else {
        return;
    };
    // `folding` took only nodes whose entries a `u16` indexes.
    let plan = plan.get_or_insert_with(|| Plan::leaving(entries.len()));
    plan.rest = plan
        .rest
        .iter()
        .copied()
        .filter(|&i| usize::from(i) != fold.entry)
        .collect();
    if let Some(bits) = fold.types {
        plan.types = Some(match plan.types {
            None => bits,
            Some(known) => meet(known, bits),
        });
    }
    if let Some(depth) = fold.depth {
        plan.fold_depth = Some(plan.fold_depth.map_or(depth, |known| known.max(depth)));
    }
    if fold.names.is_empty() {
        return;
    }
    let object = plan.object.get_or_insert_with(ObjectPlan::empty);
    let mut added = fold.names;
    added.sort_by(|a, b| name_order(a.0.as_bytes(), b.0.as_bytes()));
    // Both lists in `name_order`: merged in one pass, each name's schemas
    // from the branches kept with it.
    let mut names = Vec::with_capacity(object.names.len() + added.len());
    let mut own = std::mem::take(&mut object.names)
        .into_vec()
        .into_iter()
        .peekable();
    let mut added = added.into_iter().peekable();
    loop {
        let next = match (own.peek(), added.peek()) {
            (Some(known), Some((name, _, _)))
                if name_order(known.name.as_bytes(), name.as_bytes()) != std::cmp::Ordering::Greater =>
            {
                own.next()
            }
            (Some(_), None) => own.next(),
            (_, Some((name, _, _))) => Some(Name {
                name: name.clone(),
                property: None,
                visit: Visit::Node,
                bit: 0,
                also: Box::default(),
            }),
            (None, None) => None,
        };
        let Some(mut name) = next else {
            break;
        };
        let mut also = std::mem::take(&mut name.also).into_vec();
        while let Some((_, schema, lift)) = added.next_if(|(next, _, _)| *next == name.name) {
            also.push((schema, lift));
        }
        name.also = also.into_boxed_slice();
        names.push(name);
    }
    object.names = names.into_boxed_slice();
}

/// Folds into its node's plan each `unevaluatedProperties` whose node
/// evaluates properties only by keywords the plan folds: its own
/// `properties`, `patternProperties` and `additionalProperties`, and an
/// `allOf` or `$ref` folded by `fold_all_of` (run first: a branch with an
/// `unevaluatedProperties` of its own is never folded into another node).
/// Every other keyword of the node must be one that evaluates no property
/// (`unevaluated_neutral`), so no in-place applicator but that `allOf`.
///
/// When the node is valid, every keyword beside `unevaluatedProperties`
/// held, so what they evaluated is exactly the names and patterns the
/// schema gives them: the plan decides as the annotations would. Only the
/// walks that record nothing use plans; the recording walk keeps the
/// annotations, which also give the failures of an invalid instance
/// (where a failed branch evaluates nothing).
///
/// Answers whether an `unevaluated*` keyword is left that needs the
/// annotations to decide.
pub(crate) fn fold_unevaluated(nodes: &mut [Node]) -> bool {
    let mut left = false;
    for node in nodes.iter_mut() {
        let Body::Keywords(entries, plan) = &mut node.body else {
            continue;
        };
        left |= entries
            .iter()
            .any(|e| matches!(e.keyword, Keyword::UnevaluatedItems(_)));
        let Some((at, schema)) = entries.iter().enumerate().find_map(|(i, e)| match e.keyword {
            Keyword::UnevaluatedProperties(schema) => Some((i, schema)),
            _ => None,
        }) else {
            continue;
        };
        // A plan names its entries by `u16` index (as `plan` requires).
        let (Ok(count), Ok(at)) = (u16::try_from(entries.len()), u16::try_from(at)) else {
            left = true;
            continue;
        };
        let others_are_neutral = match plan.as_deref() {
            Some(plan) => plan.rest.iter().all(|&i| {
                i == at
                    || entries
                        .get(usize::from(i))
                        .is_some_and(|e| unevaluated_neutral(&e.keyword))
            }),
            None => entries
                .iter()
                .enumerate()
                .all(|(i, e)| i == usize::from(at) || unevaluated_neutral(&e.keyword)),
        };
        if !others_are_neutral {
            left = true;
            continue;
        }
        let plan = plan.get_or_insert_with(|| Plan::leaving(usize::from(count)));
        plan.rest = plan.rest.iter().copied().filter(|&i| i != at).collect();
        let object = plan.object.get_or_insert_with(ObjectPlan::empty);
        // Beside a folded `additionalProperties`, every key is evaluated:
        // `unevaluatedProperties` checks nothing.
        if matches!(object.additional, Additional::Any) {
            object.additional = Additional::Unevaluated(schema);
        }
    }
    left
}

/// The `type` bits of node `id` when it holds `type` and nothing else.
pub(crate) fn type_alone(nodes: &[Node], id: NodeId) -> Option<u8> {
    match &nodes.get(id as usize)?.body {
        Body::Keywords(entries, _) => match &entries[..] {
            [Entry {
                keyword: Keyword::Type(bits, _),
                ..
            }] => Some(*bits),
            _ => None,
        },
        _ => None,
    }
}

/// The most `$ref`s alone a `Visit::Hops` goes through.
const MAX_VISIT_HOPS: u32 = 8;

/// How a plan visits schema `id` (`Visit`), in a schema whose walk keeps
/// a dynamic scope (`dynamic`: every `$ref` is then walked as a keyword)
/// or not.
fn visit_of(nodes: &[Node], id: NodeId, dynamic: bool) -> Visit {
    if let Some(bits) = type_alone(nodes, id) {
        return Visit::Type(bits);
    }
    if dynamic {
        return Visit::Node;
    }
    let Some(mut target) = nodes.get(id as usize).and_then(Node::reference_alone) else {
        return Visit::Node;
    };
    // A longer chain (or a cycle of `$ref`s alone, which meets the depth
    // limit on the way) is left to `Walk::hop`: the compile follows at
    // most `MAX_VISIT_HOPS` for each schema that leads to one.
    let mut hops = 1;
    while hops <= MAX_VISIT_HOPS {
        match nodes.get(target as usize) {
            None => return Visit::Node,
            Some(node) => match node.reference_alone() {
                Some(next) => target = next,
                None => return Visit::Hops { target, hops },
            },
        }
        hops += 1;
    }
    Visit::Node
}

/// Tells each plan how to visit its property, pattern and `items` schemas
/// (`Visit`). One that holds `type` alone (`{"type": "string"}`, the
/// commonest property schema there is) the plan checks itself
/// (`Walk::type_leaf`); through a `$ref` alone (`{"$ref": "#/$defs/x"}`,
/// the next commonest, and every recursive schema's), it goes straight to
/// the schema the `$ref`s lead to (`Walk::hopped`). Both charge the units
/// and make the depth checks of the visits they skip.
pub(crate) fn inline_subschemas(nodes: &mut [Node], dynamic: bool) {
    let mut found: Vec<(usize, Visit)> = Vec::new();
    let mut patterns_found: Vec<(usize, Visit)> = Vec::new();
    for at in 0..nodes.len() {
        let Some(Body::Keywords(_, Some(plan))) = nodes.get(at).map(|node| &node.body) else {
            continue;
        };
        let items = plan.items.map_or(Visit::Node, |id| visit_of(nodes, id, dynamic));
        found.clear();
        patterns_found.clear();
        if let Some(object) = &plan.object {
            for (i, name) in object.names.iter().enumerate() {
                let visit = name
                    .property
                    .map_or(Visit::Node, |id| visit_of(nodes, id, dynamic));
                if visit != Visit::Node {
                    found.push((i, visit));
                }
            }
            for (i, &(_, id, _)) in object.patterns.iter().enumerate() {
                let visit = visit_of(nodes, id, dynamic);
                if visit != Visit::Node {
                    patterns_found.push((i, visit));
                }
            }
        }
        if items == Visit::Node && found.is_empty() && patterns_found.is_empty() {
            continue;
        }
        let Some(Body::Keywords(_, Some(plan))) = nodes.get_mut(at).map(|node| &mut node.body) else {
            continue;
        };
        plan.items_visit = items;
        if let Some(object) = plan.object.as_mut() {
            for &(i, visit) in &found {
                if let Some(name) = object.names.get_mut(i) {
                    name.visit = visit;
                }
            }
            for &(i, visit) in &patterns_found {
                if let Some(pattern) = object.patterns.get_mut(i) {
                    pattern.2 = visit;
                }
            }
        }
    }
}

/// Whether `keyword` evaluates no property and applies no subschema in
/// place, so that it adds nothing to what `unevaluatedProperties` skips.
fn unevaluated_neutral(keyword: &Keyword) -> bool {
    matches!(
        keyword,
        Keyword::Type(..)
            | Keyword::Enum(_)
            | Keyword::Const(_)
            | Keyword::MultipleOf(_)
            | Keyword::Minimum(_)
            | Keyword::Maximum(_)
            | Keyword::ExclusiveMinimum(_)
            | Keyword::ExclusiveMaximum(_)
            | Keyword::MinLength(_)
            | Keyword::MaxLength(_)
            | Keyword::Format(_)
            | Keyword::Pattern { .. }
            | Keyword::MinItems(_)
            | Keyword::MaxItems(_)
            | Keyword::UniqueItems
            | Keyword::MinProperties(_)
            | Keyword::MaxProperties(_)
            | Keyword::Required(_)
            | Keyword::DependentRequired(_)
            | Keyword::PropertyNames(_)
            | Keyword::PrefixItems(_)
            | Keyword::Items { .. }
            | Keyword::Contains { .. }
            | Keyword::UnevaluatedItems(_)
            // Its schema applies to a decoded value, not in place.
            | Keyword::Content(_)
    )
}

/// Whether `names` (what `additionalProperties` skips) are exactly the
/// names of `properties` (none when there is no `properties`).
fn same_names(names: &[Box<str>], properties: Option<&[(Arc<str>, NodeId)]>) -> bool {
    let properties = properties.unwrap_or_default();
    names.len() == properties.len()
        && properties
            .iter()
            .all(|(name, _)| names.iter().any(|known| **known == **name))
}

fn object_plan(
    properties: Option<&[(Arc<str>, NodeId)]>,
    required: Option<&[Box<str>]>,
    additional: Additional,
) -> ObjectPlan {
    let mut names: Vec<Name> = properties
        .unwrap_or_default()
        .iter()
        .map(|(name, node)| Name {
            name: name.clone(),
            property: Some(*node),
            visit: Visit::Node,
            bit: 0,
            also: Box::default(),
        })
        .collect();
    let mut mask = 0u64;
    for (i, name) in required.unwrap_or_default().iter().enumerate() {
        let bit = 1u64 << i;
        mask |= bit;
        match names.iter_mut().find(|n| *n.name == **name) {
            Some(known) if known.bit == 0 => known.bit = bit,
            // A name listed twice: its first bit stands for both.
            Some(_) => mask &= !bit,
            None => names.push(Name {
                name: Arc::from(&**name),
                property: None,
                visit: Visit::Node,
                bit,
                also: Box::default(),
            }),
        }
    }
    names.sort_by(|a, b| name_order(a.name.as_bytes(), b.name.as_bytes()));
    ObjectPlan {
        names: names.into_boxed_slice(),
        patterns: Box::default(),
        required: mask,
        additional,
        covers_siblings: false,
    }
}

impl<'w> Walk<'w> {
    /// A node's keywords by its plan: the answer of the recording walk's
    /// `keywords`, without its failures.
    pub(crate) fn planned<'a, V: Value<'a>>(
        &mut self,
        node: &'w Node,
        plan: &'w Plan,
        entries: &'w [Entry],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if let Some(depth) = plan.fold_depth {
            // Met as a leaf, the node itself was not counted.
            if self.past_depth((depth as usize).saturating_add(usize::from(plan.is_leaf()))) {
                return Err(Limit::Depth);
            }
        }
        let kind = instance.kind();
        let object = plan.object.as_ref().filter(|_| kind == Kind::Map);
        // A string's text, read once (`None`: not valid UTF-8).
        let mut text = None;
        if kind == Kind::Binary && (plan.min_length.is_some() || plan.max_length.is_some()) {
            text = self.text(instance)?;
        }
        // A list's length (`None`: an improper list), counted once for
        // `type` and `items`.
        let mut length = None;
        if kind == Kind::List && (plan.types.is_some() || plan.items.is_some()) {
            length = Some(instance.list_len());
        }
        if let Some(types) = plan.types {
            // A struct is no object; when the object plan runs, it finds
            // the struct's `__struct__` key and fails it there, so the map
            // needs no separate look-up here.
            let bits = if object.is_some() {
                OBJECT
            } else if text.is_some() {
                STRING
            } else if let Some(length) = length {
                if length.is_some() {
                    ARRAY
                } else {
                    0
                }
            } else {
                instance_type_of(kind, instance, floats_decide(types))
            };
            if bits & types & !FLOATS_ARE_NEVER_INTEGERS == 0 {
                return Ok(false);
            }
        }
        if let Some(text) = text {
            if !self.lengths_hold(plan, text)? {
                return Ok(false);
            }
        }
        if !plan.bounds.is_empty() && matches!(kind, Kind::Integer | Kind::Float) {
            if let Some(value) = instance.number() {
                if !plan
                    .bounds
                    .iter()
                    .all(|(bound, limit)| bound.holds(value.compare(limit)))
                {
                    return Ok(false);
                }
            }
        }
        if let Some(object) = object {
            if !self.object_once(node, object, instance, kp, ip)? {
                return Ok(false);
            }
        }
        if let (Some(schema), Some(length)) = (plan.items, length) {
            if !self.items_once(schema, plan.items_visit, instance, length, kp, ip)? {
                return Ok(false);
            }
        }
        for &i in plan.rest.iter() {
            let Some(entry) = entries.get(usize::from(i)) else {
                // Not reachable: the indexes come from these entries.
                return Err(Limit::Depth);
            };
            if !self.keyword(node, entry, instance, kp, ip, None)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `minLength` and `maxLength` over `text`, in characters, charged as
    /// the keywords charge.
    fn lengths_hold(&mut self, plan: &Plan, text: &str) -> Result<bool, Limit> {
        let length = self.length(text)?;
        Ok(
            plan.min_length.is_none_or(|min| length >= min)
                && plan.max_length.is_none_or(|max| length <= max),
        )
    }

    /// `items` over every item of a list of `length` items (an improper
    /// list, `None`, passes it, as in the recording walk; `type` fails
    /// it), its count charged as `list_len_charged` charges it.
    fn items_once<'a, V: Value<'a>>(
        &mut self,
        schema: NodeId,
        visit: Visit,
        instance: V,
        length: Option<usize>,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(length) = length else {
            return Ok(true);
        };
        self.charge_list_len(length)?;
        for item in instance.list_items() {
            self.budget.charge_one().map_err(|_| Limit::Work)?;
            // Written out here and in `object_once`: one helper for both
            // cost `valid?/2` 4 % of its instructions (the speed guard's
            // `standard_valid`), by how it was inlined.
            let passed = match visit {
                Visit::Type(types) => self.type_leaf(types, item)?,
                Visit::Hops { target, hops } => self.hopped(target, hops, item, kp, ip)?,
                Visit::Node => self.node(schema, item, kp, ip, None)?,
            };
            if !passed {
                self.item_failed(schema, instance, 0, item);
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every entry of a map once: its property's schema, the schemas of
    /// the patterns it matches, or else the additional one; and the
    /// required names seen. A key that is neither a binary nor an atom, or
    /// a struct's `__struct__` key, fails the object keywords, as in the
    /// recording walk.
    fn object_once<'a, V: Value<'a>>(
        &mut self,
        node: &Node,
        plan: &ObjectPlan,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let mut seen = 0u64;
        let mut next = 0;
        for (key, value) in instance.map_entries() {
            self.budget.charge_one().map_err(|_| Limit::Work)?;
            let text = match key.bytes() {
                Some(bytes) => Cow::Borrowed(bytes),
                None if key.kind() == Kind::Atom => match key.atom_name() {
                    Some(name) if name == "__struct__" => return self.key_failed(node, plan, instance, key),
                    Some(name) => Cow::Owned(name.into_bytes()),
                    None => return self.key_failed(node, plan, instance, key),
                },
                None => return self.key_failed(node, plan, instance, key),
            };
            let found = plan.find_from(&text, &mut next);
            if let Some(name) = found {
                seen |= name.bit;
                for &(schema, lift) in name.also.iter() {
                    if !self.node_lifted(schema, lift, value, kp, ip)? {
                        return self.key_failed(node, plan, instance, key);
                    }
                }
            }
            let property = found.and_then(|n| n.property);
            if let Some(schema) = property {
                let passed = match found.map_or(Visit::Node, |n| n.visit) {
                    Visit::Type(types) => self.type_leaf(types, value)?,
                    Visit::Hops { target, hops } => self.hopped(target, hops, value, kp, ip)?,
                    Visit::Node => self.node(schema, value, kp, ip, None)?,
                };
                if !passed {
                    return self.key_failed(node, plan, instance, key);
                }
            }
            let mut matched = false;
            if !plan.patterns.is_empty() {
                // `patternProperties` fails a key that is not UTF-8. A
                // backend whose keys are text already answers without a
                // check; a BEAM key of ASCII bytes, with one pass over them.
                let Some(name) = key_name(key, &text) else {
                    return self.key_failed(node, plan, instance, key);
                };
                for (pattern, schema, visit) in plan.patterns.iter() {
                    self.budget
                        .charge(1 + name.len() as u64 / 16)
                        .map_err(|_| Limit::Work)?;
                    if !pattern.search(name).map_err(|_| Limit::Work)? {
                        continue;
                    }
                    matched = true;
                    let passed = match *visit {
                        Visit::Type(types) => self.type_leaf(types, value)?,
                        Visit::Hops { target, hops } => self.hopped(target, hops, value, kp, ip)?,
                        Visit::Node => self.node(*schema, value, kp, ip, None)?,
                    };
                    if !passed {
                        return self.key_failed(node, plan, instance, key);
                    }
                }
            }
            let unnamed = match (property, matched, plan.additional) {
                (None, false, Additional::Schema(schema)) => Some(schema),
                (None, false, Additional::Unevaluated(schema)) if found.is_none_or(|n| n.also.is_empty()) => {
                    Some(schema)
                }
                _ => None,
            };
            if let Some(schema) = unnamed {
                if !self.node(schema, value, kp, ip, None)? {
                    return self.key_failed(node, plan, instance, key);
                }
            }
        }
        if seen & plan.required != plan.required {
            if plan.covers_siblings {
                self.keys_failed(node, instance, Passed::All);
            }
            return Ok(false);
        }
        Ok(true)
    }

    /// `object_once`'s answer for a key that fails, noted for `validate`'s
    /// recording walk (`Walk::key_failed`).
    #[cold]
    fn key_failed<'a, V: Value<'a>>(&mut self, node: &Node, plan: &ObjectPlan, instance: V, key: V) -> Step {
        if plan.covers_siblings {
            self.keys_failed(node, instance, Passed::Before(key));
        }
        Ok(false)
    }
}

#[cfg(test)]
mod ref_hops_tests;

#[cfg(test)]
pub(crate) mod twins;

#[cfg(test)]
mod type_leaves_tests;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::MAX_FOLDED_NAMES_IN_ALL;
    use crate::json::JsonRef;
    use crate::keywords::Body;
    use crate::standard::{Options, Validator};
    use serde_json::{json, Map, Value};

    /// `patternProperties` and `additionalProperties` match each key's
    /// name against the patterns, in the plan (`is_valid`) and in the
    /// recording walk (`validate`), which report the same verdicts.
    #[test]
    fn patterns_match_each_key_by_its_name() {
        let schema = json!({
            "patternProperties": {"^a": {"type": "integer"}, "é$": {"type": "string"}},
            "additionalProperties": false
        });
        let v = Validator::compile(&schema, &Options::default()).unwrap();
        // Each instance and the places of its failures: (keyword location,
        // instance location).
        let cases = [
            (json!({}), vec![]),
            (json!({"ab": 1}), vec![]),
            (json!({"ab": 1, "cé": "x"}), vec![]),
            (json!({"ab": "x"}), vec![("/patternProperties/^a/type", "/ab")]),
            (json!({"cé": 1}), vec![("/patternProperties/é$/type", "/cé")]),
            (json!({"aé": 1}), vec![("/patternProperties/é$/type", "/aé")]),
            (json!({"b": 1}), vec![("/additionalProperties", "/b")]),
            // `additionalProperties` after `patternProperties`, whatever
            // their order in the schema.
            (
                json!({"ab": "x", "": 1}),
                vec![
                    ("/patternProperties/^a/type", "/ab"),
                    ("/additionalProperties", "/"),
                ],
            ),
        ];
        for (instance, failures) in cases {
            let at = JsonRef::from(&instance);
            assert_eq!(v.is_valid(at), Ok(failures.is_empty()), "{instance}");
            let units = v.validate(at).unwrap();
            let places: Vec<(&str, &str)> = units
                .iter()
                .map(|u| (u.keyword_location.as_str(), u.instance_location.as_str()))
                .collect();
            assert_eq!(places, failures, "{instance}");
        }
    }

    /// The plan of `properties` naming `names`, the i-th name's schema i.
    fn plan_of(names: &[&str]) -> super::ObjectPlan {
        use std::sync::Arc;
        let properties: Vec<(Arc<str>, u32)> = names
            .iter()
            .enumerate()
            .map(|(i, name)| (Arc::from(*name), i as u32))
            .collect();
        super::object_plan(Some(&properties), None, super::Additional::Any)
    }

    /// `find` tells apart names that share a length and their first eight
    /// bytes, or their last eight, in plans of up to eight names (a scan)
    /// and of more (a binary search by bytes).
    #[test]
    fn a_plan_finds_each_name_and_no_near_miss() {
        let names = [
            "",
            "a",
            "id",
            "abc",
            "property_a",
            "property_b",
            "a_property",
            "b_property",
            "a_very_long_property_name_1",
            "a_very_long_property_name_2",
            "b_very_long_property_name_1",
        ];
        let misses = [
            "b",
            "ab",
            "abd",
            "property_c",
            "c_property",
            "property_",
            "a_very_long_property_name_3",
            "a_very_long_property_name_",
            "a_very_long_property_name_10",
        ];
        for count in [3, 8, names.len()] {
            let chosen = names.get(..count).unwrap();
            let plan = plan_of(chosen);
            for (i, name) in chosen.iter().enumerate() {
                let found = plan.find(name.as_bytes()).unwrap();
                assert_eq!((&*found.name, found.property), (*name, Some(i as u32)), "{count}");
            }
            for name in names.iter().skip(count).chain(misses.iter()) {
                assert!(plan.find(name.as_bytes()).is_none(), "{count}: {name:?}");
            }
        }
    }

    /// `find_from` answers as `find` does whatever order the keys come in:
    /// in name order (where each name is at the place after the last),
    /// reversed, shuffled, repeated, and with keys that are no name among
    /// them, in plans of up to eight names and of more.
    #[test]
    fn a_plan_finds_names_in_turn_as_it_finds_them_alone() {
        let names = [
            "a", "ab", "b", "id", "items", "name", "qty", "sku", "status", "tags", "z",
        ];
        let misses = ["", "aa", "c", "item", "itemz", "zz"];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut random = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
        for count in [0, 1, 3, 8, names.len()] {
            let chosen = names.get(..count).unwrap();
            let plan = plan_of(chosen);
            let all: Vec<&str> = names.iter().chain(misses.iter()).copied().collect();
            let mut sorted = all.clone();
            sorted.sort_unstable();
            let mut orders = vec![sorted.clone(), sorted.iter().rev().copied().collect()];
            for _ in 0..200 {
                let length = random(2 * all.len());
                orders.push(
                    (0..length)
                        .map(|_| *all.get(random(all.len())).unwrap())
                        .collect(),
                );
            }
            for keys in orders {
                let mut next = 0;
                for key in keys.iter() {
                    let alone = plan.find(key.as_bytes()).map(|n| &*n.name);
                    let in_turn = plan.find_from(key.as_bytes(), &mut next).map(|n| &*n.name);
                    assert_eq!(in_turn, alone, "{count}: {key:?} in {keys:?}");
                    assert_eq!(alone.is_some(), chosen.contains(key), "{count}: {key:?}");
                }
            }
        }
    }

    #[test]
    fn the_folds_of_one_schema_copy_a_bounded_number_of_names() {
        // 1,000 references (and as many `allOf`s) to a schema of 256
        // properties would copy 512,000 names; the folds stop at the
        // allowance, and the nodes past it are checked unfolded.
        let big: Map<String, Value> = (0..256)
            .map(|i| (format!("p{i}"), json!({"type": "string"})))
            .collect();
        let properties: Map<String, Value> = (0..2_000)
            .map(|i| {
                let reference = json!({"$ref": "#/$defs/big"});
                let schema = if i % 2 == 0 {
                    reference
                } else {
                    json!({"allOf": [reference]})
                };
                (format!("k{i}"), schema)
            })
            .collect();
        let schema = json!({"$defs": {"big": {"properties": big}}, "properties": properties});
        let v = Validator::compile(&schema, &Options::default()).unwrap();
        let folded: usize = v
            .nodes
            .iter()
            .filter_map(|node| match &node.body {
                Body::Keywords(_, Some(plan)) => plan.object.as_ref(),
                _ => None,
            })
            .flat_map(|object| object.names.iter())
            .map(|name| name.also.len())
            .sum();
        assert!(folded <= MAX_FOLDED_NAMES_IN_ALL, "{folded} names folded");
        assert!(folded > MAX_FOLDED_NAMES_IN_ALL - 512, "{folded} names folded");
        // Folded and unfolded nodes alike.
        for key in (0..2_000).map(|i| format!("k{i}")) {
            let key = key.as_str();
            let valid = json!({key: {"p0": "s", "p255": "t", "other": 1}});
            let invalid = json!({key: {"p0": "s", "p255": 2}});
            assert_eq!(v.is_valid(JsonRef::from(&valid)), Ok(true), "{key}");
            assert_eq!(v.is_valid(JsonRef::from(&invalid)), Ok(false), "{key}");
            assert_eq!(
                v.validate(JsonRef::from(&invalid)).map(|e| e.len()),
                Ok(1),
                "{key}"
            );
        }
    }
}
