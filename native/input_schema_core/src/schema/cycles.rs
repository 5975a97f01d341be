//! The checks a schema with `$ref` needs once its references are linked.
//!
//! Edges that keep the walk on the same argument value (`$ref`, `allOf`,
//! `anyOf`, `oneOf`, `not`) must not form a cycle: such a schema could loop
//! without descending into the arguments (`{"$ref": "#"}` at the root). And
//! the number of nodes one value meets through those edges, counted along
//! every path (shared nodes once per path), is bounded: ten definitions
//! that each refer twice to the next make 1,024 visits of one value from
//! eleven nodes.

use super::{Compiled, Node, NodeId, SchemaFailure, SchemaPath, Stop};
use crate::error::SchemaError;
use crate::value::Value;

use super::refs::{self, Pending};

/// Most nodes one argument value may meet without the walk descending
/// (counted along every path). A schema without `$ref` stays far below it
/// (its nodes are bounded by the compile budget); past it, the schema is
/// rejected.
pub const MAX_EXPANSION: u64 = 100_000;

/// The same-value edges of a node.
fn edges(node: &Node) -> impl Iterator<Item = NodeId> + '_ {
    node.reference
        .iter()
        .chain(&node.all_of)
        .chain(&node.any_of)
        .chain(&node.one_of)
        .chain(&node.not)
        .copied()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    New,
    Open,
    Done(u64),
}

/// Rejects a same-value cycle, then a same-value expansion past
/// [`MAX_EXPANSION`]. Iterative: a long chain of references costs heap,
/// not stack.
pub(super) fn check<'a, V: Value<'a>>(pending: &[Pending<V>], path: &SchemaPath<'_, V>) -> Compiled<(), V> {
    let nodes = path.cx.nodes.borrow();
    path.charge(nodes.len() as u64)?;
    let mut marks = vec![Mark::New; nodes.len()];
    let mut stack: Vec<(NodeId, usize)> = Vec::new();
    for start in 0..nodes.len() {
        let Ok(start) = u32::try_from(start).map(NodeId) else {
            return Err(fail(pending, &[], SchemaError::RefCycle, path));
        };
        if marks.get(start.index()) != Some(&Mark::New) {
            continue;
        }
        stack.push((start, 0));
        set(&mut marks, start, Mark::Open);
        while let Some(&mut (id, ref mut next)) = stack.last_mut() {
            let Some(node) = nodes.get(id.index()) else {
                return Err(fail(pending, &[], SchemaError::RefCycle, path));
            };
            if let Some(child) = edges(node).nth(*next) {
                *next += 1;
                match marks.get(child.index()) {
                    Some(Mark::New) => {
                        set(&mut marks, child, Mark::Open);
                        stack.push((child, 0));
                    }
                    Some(Mark::Done(_)) => {}
                    // An open node reached again: a cycle, from it to the
                    // top of the stack.
                    _ => {
                        let cycle: Vec<NodeId> = stack
                            .iter()
                            .map(|(id, _)| *id)
                            .skip_while(|id| *id != child)
                            .collect();
                        return Err(fail(pending, &cycle, SchemaError::RefCycle, path));
                    }
                }
                continue;
            }
            let mut total: u64 = 1;
            for child in edges(node) {
                if let Some(Mark::Done(count)) = marks.get(child.index()) {
                    total = total.saturating_add(*count);
                }
            }
            if total > MAX_EXPANSION {
                return Err(fail(pending, &[id], SchemaError::RefExpansion, path));
            }
            set(&mut marks, id, Mark::Done(total));
            stack.pop();
        }
    }
    Ok(())
}

fn set(marks: &mut [Mark], id: NodeId, mark: Mark) {
    if let Some(slot) = marks.get_mut(id.index()) {
        *slot = mark;
    }
}

/// The failure: a cycle at the first `$ref` (in compile order) held by a
/// node on it; an expansion at the node whose expansion is too large.
fn fail<'a, V: Value<'a>>(
    pending: &[Pending<V>],
    nodes: &[NodeId],
    error: SchemaError<V>,
    path: &SchemaPath<'_, V>,
) -> Stop<V> {
    let pointer = match (&path.cx.located, &error, nodes) {
        (Some(located), SchemaError::RefExpansion, [node]) => refs::location(&located.borrow(), *node),
        (Some(located), _, _) => pending
            .iter()
            .find(|p| nodes.contains(&p.node))
            .map_or_else(String::new, |p| refs::at(&located.borrow(), p.node)),
        _ => String::new(),
    };
    Stop::Failure(SchemaFailure { error, pointer })
}
