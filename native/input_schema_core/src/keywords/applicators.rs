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

use super::{entry, Compiled, Keyword, NodeId};
use crate::error::{ArgumentError, SchemaError};
use crate::schema::{
    self as gateway, Compiled as GatewayCompiled, Node as GatewayNode, Slots, Step as GatewayStep,
};
use crate::standard::compiler::{At, Compiler};
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::CompileError;
use crate::validate::{self as gateway_walk, type_of, Check, Failure, Mode as GatewayMode};
use crate::value::Value;

/// A non-empty list of subschemas.
pub(crate) fn compile_list<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    key: &str,
    value: &Json,
) -> Result<Box<[NodeId]>, CompileError> {
    let Json::Array(items) = value else {
        return Err(at.invalid(key, "a non-empty list of schemas"));
    };
    if items.is_empty() {
        return Err(at.invalid(key, "a non-empty list of schemas"));
    }
    (0..items.len()).map(|i| c.child_at(at, key, i)).collect()
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

    pub(crate) fn check_any_of<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        nodes: &[NodeId],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        let mut valid = false;
        for (i, &node) in nodes.iter().enumerate() {
            let kp = kp.push(Seg::Index(i));
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
        self.fail(at, kp, ip, || {
            "instance is not valid against any schema of anyOf".to_string()
        })
    }

    pub(crate) fn check_one_of<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        nodes: &[NodeId],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let mut matched: Vec<usize> = Vec::new();
        let mut kept = Ann::default();
        for (i, &node) in nodes.iter().enumerate() {
            let kp = kp.push(Seg::Index(i));
            let mut branch = Ann::default();
            let holds = self.probe(node, instance, &kp, ip, ann.is_some().then_some(&mut branch))?;
            if holds {
                matched.push(i);
                kept = branch;
                if matched.len() > 1 {
                    break;
                }
            }
        }
        match matched.as_slice() {
            [_] => {
                if let Some(ann) = ann {
                    ann.merge(kept);
                }
                Ok(true)
            }
            [] => self.fail(at, kp, ip, || {
                "instance is not valid against any schema of oneOf".to_string()
            }),
            [first, second, ..] => {
                let (first, second) = (*first, *second);
                self.fail(at, kp, ip, || {
                    crate::standard::output::Message::new(
                        "instance is valid against more than one schema of oneOf (indexes ",
                    )
                    .number(first as u64)
                    .then(" and ")
                    .number(second as u64)
                    .then(")")
                    .done()
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
            return self.fail(at, kp, ip, || {
                "instance is valid against the schema of not".to_string()
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
