//! Applicators in place: `allOf`, `anyOf`, `oneOf`, `not`, and
//! `if`/`then`/`else`. Branches that only need a yes or no are probed
//! without building errors; annotations of the branches that hold are kept
//! for `unevaluated*`.
//!
//! The gateway's compositions are here too ([`gateway_compositions`],
//! `gateway::Walk::probe_branch`): `not`, `oneOf`, `anyOf` (never both) and
//! `allOf`, with its messages; a branch is probed without building errors,
//! and only an aborting error inside it ends the walk.

use serde_json::Value as Json;

use super::types::Read;
use super::{entry, Body, Compiled, Entry, Keyword, Node, NodeId};
use crate::error::{ArgumentError, SchemaError};
use crate::schema::{
    self as gateway, Compiled as GatewayCompiled, Node as GatewayNode, Slots, Step as GatewayStep,
};
use crate::standard::compiler::{At, Compiler};
use crate::standard::plan::Plan;
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::{CompileError, Limit};
use crate::validate::{self as gateway_walk, type_of, Check, Failure, Mode as GatewayMode};
use crate::value::{Datum, Kind, Shape, Value};

/// The branches of `anyOf` or `oneOf`, and their tag when they have one.
#[derive(Debug)]
pub(crate) struct Branches {
    pub nodes: Box<[NodeId]>,
    pub tag: Option<Box<Tag>>,
}

impl Branches {
    pub(crate) fn new(nodes: Box<[NodeId]>) -> Branches {
        Branches { nodes, tag: None }
    }
}

/// A property every branch requires, in branches that hold only for
/// objects, whose schema in each branch is `const` or `enum` alone (a
/// tagged union: object shapes told apart by a `kind` or `type` constant).
/// A branch can hold only when its schema of the property holds for the
/// instance's value of it, so the other branches are not evaluated: the
/// verdict, and what a holding branch annotates, are the same.
#[derive(Debug)]
pub(crate) struct Tag {
    name: Box<str>,
    /// Each branch's schema of the property, in branch order.
    schemas: Box<[NodeId]>,
    /// When every one of those schemas is a `const` string alone (the
    /// commonest tag), each string, in branch order: the instance's value
    /// is compared with it in place (`Walk::tag_allows`).
    texts: Option<Box<[Box<[u8]>]>>,
}

/// A tag and the instance's value of it (`None`: the instance is not a
/// map, or has no such entry).
type Tagged<'b, 'a, V> = (&'b Tag, Option<Read<'a, V>>);

/// The most `$ref`-only nodes followed from a branch to the schema that
/// gives its tag.
const MAX_REF_HOPS: usize = 4;

/// Finds the tag of each `anyOf` and `oneOf`, once the plans are final.
pub(crate) fn tag_branches(nodes: &mut [Node]) {
    let mut found = Vec::new();
    for (at, node) in nodes.iter().enumerate() {
        let Body::Keywords(entries, _) = &node.body else {
            continue;
        };
        for (i, entry) in entries.iter().enumerate() {
            if let Keyword::AnyOf(branches) | Keyword::OneOf(branches) = &entry.keyword {
                if let Some(tag) = tag_of(nodes, &branches.nodes) {
                    found.push((at, i, tag));
                }
            }
        }
    }
    for (at, i, tag) in found {
        if let Some(Node {
            body: Body::Keywords(entries, _),
            ..
        }) = nodes.get_mut(at)
        {
            if let Some(Entry {
                keyword: Keyword::AnyOf(branches) | Keyword::OneOf(branches),
                ..
            }) = entries.get_mut(i)
            {
                branches.tag = Some(Box::new(tag));
            }
        }
    }
}

/// The first name (in plan order) that tags every branch, if any.
fn tag_of(nodes: &[Node], branches: &[NodeId]) -> Option<Tag> {
    if branches.len() < 2 {
        return None;
    }
    let plans = branches
        .iter()
        .map(|&branch| object_plan(nodes, branch))
        .collect::<Option<Vec<&Plan>>>()?;
    let first = plans.first()?;
    first.required_properties().find_map(|name| {
        let schemas = plans
            .iter()
            .map(|plan| {
                plan.required_property(name)
                    .filter(|&schema| constant(nodes, schema))
            })
            .collect::<Option<Box<[NodeId]>>>()?;
        let texts = schemas.iter().map(|&schema| const_text(nodes, schema)).collect();
        Some(Tag {
            name: name.into(),
            schemas,
            texts,
        })
    })
}

/// The string of a schema that is a `const` string alone. Only UTF-8 (a
/// string from JSON always is): a value equal to it byte for byte is text
/// then, as `const` requires.
fn const_text(nodes: &[Node], id: NodeId) -> Option<Box<[u8]>> {
    match nodes.get(id as usize).map(|node| &node.body) {
        Some(Body::Keywords(entries, _)) => match &entries[..] {
            [Entry {
                keyword: Keyword::Const(Datum::Binary(bytes)),
                ..
            }] if std::str::from_utf8(bytes).is_ok() => Some(bytes.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// The plan of a branch that holds only for objects, itself or through
/// nodes that hold only a `$ref`.
fn object_plan(nodes: &[Node], branch: NodeId) -> Option<&Plan> {
    let mut id = branch;
    for _ in 0..=MAX_REF_HOPS {
        let Body::Keywords(entries, plan) = &nodes.get(id as usize)?.body else {
            return None;
        };
        match (&entries[..], plan) {
            (
                [Entry {
                    keyword: Keyword::Ref(target),
                    ..
                }],
                _,
            ) => id = *target,
            (_, Some(plan)) if plan.holds_only_for_objects() => return Some(plan),
            _ => return None,
        }
    }
    None
}

/// Whether a node is `const` or `enum` alone.
fn constant(nodes: &[Node], id: NodeId) -> bool {
    matches!(
        nodes.get(id as usize).map(|node| &node.body),
        Some(Body::Keywords(entries, _))
            if !entries.is_empty()
                && entries
                    .iter()
                    .all(|e| matches!(e.keyword, Keyword::Const(_) | Keyword::Enum(_)))
    )
}

/// A non-empty list of subschemas.
pub(crate) fn compile_list<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    key: &str,
    value: &'s Json,
) -> Result<Box<[NodeId]>, CompileError> {
    let Json::Array(items) = value else {
        return Err(at.invalid(key, "a non-empty list of schemas"));
    };
    if items.is_empty() {
        return Err(at.invalid(key, "a non-empty list of schemas"));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| c.child_at(at, key, i, item))
        .collect()
}

pub(crate) fn compile_if<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, _value: &Json) -> Compiled {
    let condition = c.child(at, "if")?;
    let then = match at.sibling("then") {
        Some(_) => Some(c.child(at, "then")?),
        None => None,
    };
    let otherwise = match at.sibling("else") {
        Some(_) => Some(c.child(at, "else")?),
        None => None,
    };
    entry(
        "if",
        Keyword::If {
            condition,
            then,
            otherwise,
        },
    )
}

impl Walk<'_> {
    pub(crate) fn check_all_of<'a, V: Value<'a>>(
        &mut self,
        nodes: &[NodeId],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        let mut valid = true;
        for (i, &node) in nodes.iter().enumerate() {
            let kp = kp.push(Seg::Index(i));
            let passed = self.node(node, instance, &kp, ip, ann.as_deref_mut())?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        Ok(valid)
    }

    /// The instance's value of the tag's property (the first entry of
    /// that name, a binary key or an atom key by its name), each entry
    /// looked at charged a unit; `None` when the instance is not a map or
    /// has no such entry: then no branch holds.
    fn tag_value<'a, V: Value<'a>>(&self, tag: &Tag, instance: V) -> Result<Option<V>, Limit> {
        if instance.kind() != Kind::Map {
            return Ok(None);
        }
        for (key, value) in instance.map_entries() {
            self.charge(1)?;
            let same = match key.bytes() {
                Some(bytes) => bytes == tag.name.as_bytes(),
                None => key.atom_name().is_some_and(|name| *name == *tag.name),
            };
            if same {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Whether branch `i` may hold by its tag (`tagged`: the tag and the
    /// instance's value of it), or has no tag.
    fn tag_allows<'a, V: Value<'a>>(&mut self, tagged: Option<&Tagged<'_, 'a, V>>, i: usize) -> Step {
        let Some((tag, value)) = tagged else {
            return Ok(true);
        };
        let Some(value) = value else {
            return Ok(false);
        };
        if let (Some(texts), Read::Scalar { shape, .. }) = (&tag.texts, value) {
            // `constants_hold` on a scalar: the schema's unit, then its
            // `const`, which only a string of the same bytes equals.
            self.charge(1)?;
            return Ok(match (shape, texts.get(i)) {
                (Shape::Binary(bytes), Some(text)) => **bytes == **text,
                _ => false,
            });
        }
        match tag.schemas.get(i) {
            Some(&schema) => self.constants_hold(schema, value),
            None => Ok(false),
        }
    }

    /// Whether a tag schema (`const` or `enum` alone) holds for `value`:
    /// its entries checked as the walk checks them, without the walk's
    /// visit of a node (charged its unit all the same).
    fn constants_hold<'a, V: Value<'a>>(&mut self, schema: NodeId, value: &Read<'a, V>) -> Step {
        let entries = match self.v.nodes.get(schema as usize).map(|node| &node.body) {
            Some(Body::Keywords(entries, _)) => entries,
            // Not reachable: a tag schema is `const` or `enum` alone.
            _ => return Err(Limit::Depth),
        };
        self.charge(1)?;
        for entry in entries.iter() {
            let holds = match &entry.keyword {
                Keyword::Const(constant) => self.const_holds_read(constant, value)?,
                Keyword::Enum(choices) => self.enum_holds_read(choices, value)?,
                // Not reachable, as above.
                _ => return Err(Limit::Depth),
            };
            if !holds {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The tag of `branches` with the instance's value of it, read once for
    /// every branch's constants.
    fn tagged<'b, 'a, V: Value<'a>>(
        &self,
        branches: &'b Branches,
        instance: V,
    ) -> Result<Option<Tagged<'b, 'a, V>>, Limit> {
        match &branches.tag {
            Some(tag) => Ok(Some((tag, self.tag_value(tag, instance)?.map(Read::of)))),
            None => Ok(None),
        }
    }

    pub(crate) fn check_any_of<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        branches: &Branches,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        let tagged = self.tagged(branches, instance)?;
        let mut valid = false;
        for (i, &node) in branches.nodes.iter().enumerate() {
            let kp = kp.push(Seg::Index(i));
            if !self.tag_allows(tagged.as_ref(), i)? {
                continue;
            }
            if self.probe(node, instance, &kp, ip, ann.as_deref_mut())? {
                valid = true;
                // Without `unevaluated*`, the first branch that holds decides;
                // with them, every branch's annotations count.
                if ann.is_none() {
                    return Ok(true);
                }
            }
        }
        if valid {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            m.then("instance is not valid against any schema of anyOf")
        })
    }

    pub(crate) fn check_one_of<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        branches: &Branches,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let tagged = self.tagged(branches, instance)?;
        // The first two branches that hold: a third changes nothing.
        let mut matched = [0usize; 2];
        let mut count = 0;
        let mut kept = Ann::default();
        for (i, &node) in branches.nodes.iter().enumerate() {
            let kp = kp.push(Seg::Index(i));
            if !self.tag_allows(tagged.as_ref(), i)? {
                continue;
            }
            let mut branch = Ann::default();
            let holds = self.probe(node, instance, &kp, ip, ann.is_some().then_some(&mut branch))?;
            if holds {
                if let Some(slot) = matched.get_mut(count) {
                    *slot = i;
                }
                count += 1;
                kept = branch;
                if count > 1 {
                    break;
                }
            }
        }
        match matched.get(..count).unwrap_or(&matched) {
            [_] => {
                if let Some(ann) = ann {
                    ann.merge(kept);
                }
                Ok(true)
            }
            [] => self.fail(at, kp, ip, |m| {
                m.then("instance is not valid against any schema of oneOf")
            }),
            [first, second, ..] => {
                let (first, second) = (*first, *second);
                self.fail(at, kp, ip, |m| {
                    m.then("instance is valid against more than one schema of oneOf (indexes ")
                        .number(first as u64)
                        .then(" and ")
                        .number(second as u64)
                        .then(")")
                })
            }
        }
    }

    pub(crate) fn check_not<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if self.probe(schema, instance, kp, ip, None)? {
            return self.fail(at, kp, ip, |m| {
                m.then("instance is valid against the schema of not")
            });
        }
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_if<'a, V: Value<'a>>(
        &mut self,
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        let mut held = Ann::default();
        let holds = self.probe(condition, instance, kp, ip, ann.is_some().then_some(&mut held))?;
        let parent = kp_parent(kp);
        if holds {
            if let Some(ann) = ann.as_deref_mut() {
                ann.merge(held);
            }
            match then {
                Some(then) => self.node(then, instance, &parent.push(Seg::Key("then")), ip, ann),
                None => Ok(true),
            }
        } else {
            match otherwise {
                Some(otherwise) => self.node(otherwise, instance, &parent.push(Seg::Key("else")), ip, ann),
                None => Ok(true),
            }
        }
    }
}

/// `then` and `else` sit beside `if`, not under it: their locations start
/// from the schema's own.
fn kp_parent<'p>(kp: &Path<'p>) -> Path<'p> {
    kp.parent_path()
}

/// The gateway's compositions, in its compile order: `not`, `oneOf`,
/// `anyOf` (a schema may not have both), `allOf`. Inlined into the
/// compiler's recursive step, which it was written in: no frame of its own.
#[inline(always)]
pub(crate) fn gateway_compositions<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
    node: &mut GatewayNode,
) -> GatewayCompiled<(), V> {
    if let Some(value) = gateway::get(slots, gateway::Keyword::Not) {
        let at = path.keyword(gateway::Keyword::Not);
        node.not = Some(gateway::compile_subschema(
            value,
            depth + 1,
            &at,
            SchemaError::MalformedNot,
        )?);
    }
    if let Some(value) = gateway::get(slots, gateway::Keyword::OneOf) {
        let at = path.keyword(gateway::Keyword::OneOf);
        node.one_of = gateway_branches(value, depth, &at, SchemaError::MalformedOneOf)?;
    }
    if let Some(value) = gateway::get(slots, gateway::Keyword::AnyOf) {
        let at = path.keyword(gateway::Keyword::AnyOf);
        node.any_of = gateway_branches(value, depth, &at, SchemaError::MalformedAnyOf)?;
    }
    if !node.one_of.is_empty() && !node.any_of.is_empty() {
        return Err(path
            .keyword(gateway::Keyword::AnyOf)
            .fail(SchemaError::CombinedCompositions));
    }
    if let Some(value) = gateway::get(slots, gateway::Keyword::AllOf) {
        let at = path.keyword(gateway::Keyword::AllOf);
        node.all_of = gateway_branches(value, depth, &at, SchemaError::MalformedAllOf)?;
    }
    Ok(())
}

#[inline(never)]
pub(crate) fn gateway_branches<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
    malformed: SchemaError<V>,
) -> GatewayCompiled<Vec<gateway::NodeId>, V> {
    if !gateway::non_empty_list(value) {
        return Err(path.fail(malformed));
    }
    gateway_entries(value, depth, path)
}

/// The entries of a proper list of subschemas, each at `path/index` (a list
/// and a schema: two levels deeper).
pub(crate) fn gateway_entries<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<Vec<gateway::NodeId>, V> {
    let mut entries = Vec::new();
    for (index, entry) in value.list_items().enumerate() {
        let at = path.child(GatewayStep::Index(index));
        entries.push(gateway::compile_subschema(
            entry,
            depth + 2,
            &at,
            SchemaError::SubschemaNotMap,
        )?);
    }
    Ok(entries)
}

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    /// `anyOf`: the branches probed in order until one holds.
    #[inline(always)]
    pub(crate) fn check_any_of(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        for branch in &node.any_of {
            if self.probe_branch(*branch, value, path, depth)? {
                return Ok(());
            }
        }
        self.report(|| ArgumentError::NoAnyOfMatch { path: path.render() })
    }

    /// `oneOf`: the branches probed in order until a second one holds.
    #[inline(always)]
    pub(crate) fn check_one_of(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let mut matches = 0;
        for branch in &node.one_of {
            if self.probe_branch(*branch, value, path, depth)? {
                matches += 1;
                if matches > 1 {
                    break;
                }
            }
        }
        if matches != 1 {
            self.report(|| ArgumentError::NotExactlyOneOf { path: path.render() })?;
        }
        Ok(())
    }

    /// `not`: the negated schema probed.
    #[inline(always)]
    pub(crate) fn check_not(
        self,
        negated: gateway::NodeId,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        if self.probe_branch(negated, value, path, depth)? {
            self.report(|| ArgumentError::MatchesNot { path: path.render() })?;
        }
        Ok(())
    }

    /// `allOf` entries, then the `$ref` target: they apply in place, so
    /// their own failures are the value's.
    #[inline(never)]
    pub(crate) fn check_in_place(
        self,
        node: &GatewayNode,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let depth = Self::hop(path, depth)?;
        for entry in node.all_of.iter().chain(&node.reference) {
            self.check_id(*entry, value, path, depth)?;
        }
        Ok(())
    }

    /// Whether a branch accepts the value. Aborting errors propagate as they
    /// are; only a `:validation` failure is a mismatch.
    pub(crate) fn probe_branch(
        self,
        branch: gateway::NodeId,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Result<bool, Failure<V>> {
        let branch = self.node(branch, path)?;
        let depth = Self::hop(path, depth)?;
        // A branch whose `type` excludes the value fails at its first check,
        // in any walk (the depth was checked with the composition's value).
        if let Some(types) = &branch.types {
            if !types.set.intersects(type_of(value.kind())) {
                return Ok(false);
            }
        }
        if let GatewayMode::Optimistic = self.mode {
            let attempt = self.with_mode(GatewayMode::OptimisticBranch);
            // A success is final; a failure may be a mismatch or an aborting
            // error, which only the ordered probe below tells apart.
            match attempt.check_frame(branch, value, path, depth) {
                Ok(()) => return Ok(true),
                Err(Failure::OverBudget) => return Err(Failure::OverBudget),
                Err(Failure::Mismatch | Failure::Error(_) | Failure::Full) => {}
            }
        }
        let probe = self.with_mode(GatewayMode::Probe);
        match probe.check_frame(branch, value, path, depth) {
            Ok(()) => Ok(true),
            Err(Failure::Mismatch) => Ok(false),
            Err(Failure::Error(error)) if !error.is_aborting() => Ok(false),
            Err(failure) => Err(failure),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use crate::keywords::{Body, Keyword};
    use crate::standard::{Options, Validator};

    /// The tag's name of the first `anyOf` or `oneOf` of the root, or of
    /// its `shape` property's schema.
    fn tag(schema: serde_json::Value) -> Option<String> {
        let v = Validator::compile(&schema, &Options::default()).unwrap();
        v.nodes.iter().find_map(|node| match &node.body {
            Body::Keywords(entries, _) => entries.iter().find_map(|e| match &e.keyword {
                Keyword::AnyOf(b) | Keyword::OneOf(b) => Some(b.tag.as_ref().map(|t| t.name.to_string())),
                _ => None,
            }),
            _ => None,
        })?
    }

    #[test]
    fn a_tag_is_found_only_where_it_rules_the_other_branches_out() {
        let object = |kind: serde_json::Value| json!({"type": "object", "required": ["kind", "x"], "properties": {"x": {"type": "integer"}, "kind": kind}});
        // `const` and `enum` tags, required, objects only.
        let union = json!({"oneOf": [object(json!({"const": "a"})), object(json!({"enum": ["b", "c"]}))]});
        assert_eq!(tag(union).as_deref(), Some("kind"));
        // Behind `$ref` (and a second one).
        let union = json!({"$defs": {"a": object(json!({"const": "a"})), "b": {"$ref": "#/$defs/c"}, "c": object(json!({"const": "b"}))},
                           "anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}]});
        assert_eq!(tag(union).as_deref(), Some("kind"));
        // The first name (in name order: by bytes) that tags every branch,
        // whatever order `required` lists them in.
        let both = |k: &str| json!({"type": "object", "required": ["x", "kind"], "properties": {"x": {"const": k}, "kind": {"const": k}}});
        assert_eq!(
            tag(json!({"oneOf": [both("a"), both("b")]})).as_deref(),
            Some("kind")
        );
        // One branch: no tag.
        assert_eq!(tag(json!({"oneOf": [object(json!({"const": "a"}))]})), None);
        // The tag not required in one branch.
        let loose = json!({"type": "object", "properties": {"kind": {"const": "b"}}});
        assert_eq!(
            tag(json!({"oneOf": [object(json!({"const": "a"})), loose]})),
            None
        );
        // A branch that allows strings too, or has no `type`.
        let wide = json!({"type": ["object", "string"], "required": ["kind"], "properties": {"kind": {"const": "b"}}});
        assert_eq!(tag(json!({"oneOf": [object(json!({"const": "a"})), wide]})), None);
        let untyped = json!({"required": ["kind"], "properties": {"kind": {"const": "b"}}});
        assert_eq!(
            tag(json!({"anyOf": [object(json!({"const": "a"})), untyped]})),
            None
        );
        // A tag schema of more than `const` or `enum`.
        assert_eq!(
            tag(
                json!({"oneOf": [object(json!({"const": "a"})), object(json!({"const": "b", "minLength": 1}))]})
            ),
            None
        );
        // A branch with a sibling of `$ref`.
        let beside = json!({"$ref": "#/$defs/a", "minProperties": 1});
        assert_eq!(
            tag(
                json!({"$defs": {"a": object(json!({"const": "a"}))}, "oneOf": [object(json!({"const": "b"})), beside]})
            ),
            None
        );
    }

    /// The unions' tags, each with its strings when it has them, and the
    /// same validator with the strings taken away.
    fn texts(v: &mut Validator, keep: bool) -> usize {
        let mut with = 0;
        for node in v.nodes.iter_mut() {
            if let Body::Keywords(entries, _) = &mut node.body {
                for entry in entries.iter_mut() {
                    if let Keyword::AnyOf(b) | Keyword::OneOf(b) = &mut entry.keyword {
                        if let Some(tag) = b.tag.as_mut() {
                            with += usize::from(tag.texts.is_some());
                            if !keep {
                                tag.texts = None;
                            }
                        }
                    }
                }
            }
        }
        with
    }

    /// A tag of `const` strings compares the instance's value with them in
    /// place: the same verdict, failures and units as through the tag
    /// schemas, at every budget, whatever the value (each tag, another
    /// string, a prefix of a tag, a number, a list or a map holding a tag,
    /// no tag), and only such tags have their strings.
    #[test]
    fn a_tag_of_strings_decides_as_its_schemas() {
        use crate::budget::Budget;
        use crate::json::JsonRef;
        use crate::standard::plan::twins::within;

        let object = |kind: serde_json::Value| json!({"type": "object", "required": ["kind"], "properties": {"kind": kind, "n": {"type": "integer"}}});
        let unions = [
            json!({"oneOf": [object(json!({"const": "circle"})), object(json!({"const": "rect"})), object(json!({"const": "rect"}))]}),
            json!({"anyOf": [object(json!({"const": "a"})), object(json!({"const": ""})), object(json!({"const": "é"}))]}),
            json!({"oneOf": [object(json!({"const": "a"})), object(json!({"enum": ["b"]}))]}),
            json!({"oneOf": [object(json!({"const": "a"})), object(json!({"const": 1}))]}),
        ];
        let values = [
            json!("circle"),
            json!("rect"),
            json!("rec"),
            json!("a"),
            json!(""),
            json!("é"),
            json!("b"),
            json!(1),
            json!(1.0),
            json!(null),
            json!(["a"]),
            json!({"kind": "a"}),
        ];
        let mut compared = 0;
        for (u, union) in unions.iter().enumerate() {
            let mut fast = Validator::compile(union, &Options::default()).unwrap();
            let mut slow = Validator::compile(union, &Options::default()).unwrap();
            assert_eq!(texts(&mut fast, true), usize::from(u < 2), "{union}");
            texts(&mut slow, false);
            let instances = values.iter().map(|kind| json!({"kind": kind, "n": 1})).chain([
                json!({"n": 1}),
                json!({"kind": "a", "n": "x"}),
                json!("a"),
            ]);
            for instance in instances {
                let at = JsonRef::from(&instance);
                assert_eq!(fast.validate(at), slow.validate(at), "{union} {instance}");
                let (units, answer) = within(1 << 40, |b| fast.is_valid_within(at, b));
                assert_eq!((units, answer), within(1 << 40, |b| slow.is_valid_within(at, b)));
                for limit in 0..=units {
                    assert_eq!(
                        within(limit, |b| fast.is_valid_within(at, b)),
                        within(limit, |b| slow.is_valid_within(at, b)),
                        "{limit}: {union} {instance}"
                    );
                }
                let every =
                    |v: &Validator, b: &Budget| v.validate_within(at, b).map(|units| units.is_empty());
                assert_eq!(
                    within(1 << 40, |b| every(&fast, b)),
                    within(1 << 40, |b| every(&slow, b))
                );
                compared += 1;
            }
        }
        assert_eq!(compared, 4 * 15);
    }
}
