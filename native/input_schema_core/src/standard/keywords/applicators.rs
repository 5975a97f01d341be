//! Applicators in place: `allOf`, `anyOf`, `oneOf`, `not`, and
//! `if`/`then`/`else`. Branches that only need a yes or no are probed
//! without building errors; annotations of the branches that hold are kept
//! for `unevaluated*`.

use serde_json::Value as Json;

use super::{entry, Compiled, Keyword, NodeId};
use crate::standard::compiler::{At, Compiler};
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::CompileError;
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
                    format!("instance is valid against more than one schema of oneOf (indexes {first} and {second})")
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
