//! `$ref`, `$dynamicRef` (2020-12) and `$recursiveRef` (2019-09). Static
//! targets are linked at compile time; only the dynamic ones look along the
//! dynamic scope when they run.

use serde_json::Value as Json;

use super::{entry, Compiled, Keyword, NodeId};
use crate::standard::compiler::{At, Compiler};
use crate::standard::uri;
use crate::standard::walk::{Ann, Path, Step, Walk};
use crate::value::Value;

pub(crate) fn compile_ref<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Some(reference) = value.as_str() else {
        return Err(at.invalid("$ref", "a URI reference"));
    };
    let (target, _) = c.reference(at, "$ref", reference)?;
    entry("$ref", Keyword::Ref(target))
}

/// A `$dynamicRef` whose static target declares a `$dynamicAnchor` of the
/// fragment's name is dynamic; any other is a plain `$ref`.
pub(crate) fn compile_dynamic_ref<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Some(reference) = value.as_str() else {
        return Err(at.invalid("$dynamicRef", "a URI reference"));
    };
    let (target, _) = c.reference(at, "$dynamicRef", reference)?;
    let resolved = uri::resolve(&at.scope.base, reference);
    let (resource, fragment) = uri::split_fragment(&resolved);
    let dynamic = fragment.filter(|f| !f.starts_with('/')).and_then(|name| {
        c.registry
            .anchor(resource, name)
            .filter(|a| a.dynamic)
            .map(|_| Box::<str>::from(name))
    });
    match dynamic {
        Some(anchor) => entry(
            "$dynamicRef",
            Keyword::DynamicRef {
                fallback: target,
                anchor,
            },
        ),
        None => entry("$dynamicRef", Keyword::Ref(target)),
    }
}

pub(crate) fn compile_recursive_ref<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let Some(reference) = value.as_str() else {
        return Err(at.invalid("$recursiveRef", "a URI reference"));
    };
    let (target, _) = c.reference(at, "$recursiveRef", reference)?;
    entry("$recursiveRef", Keyword::RecursiveRef(target))
}

impl Walk<'_> {
    pub(crate) fn check_dynamic_ref<'a, V: Value<'a>>(
        &mut self,
        fallback: NodeId,
        anchor: &str,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let v = self.v;
        // The outermost resource of the dynamic scope that declares the
        // anchor wins. Reading the scope is work: it can hold up to the
        // depth limit of resources, each with many anchors.
        let mut target = fallback;
        for &r in &self.scope {
            let Some(resource) = v.resources.get(r as usize) else {
                continue;
            };
            self.charge(1 + resource.dynamic_anchors.len() as u64 / 16)?;
            if let Some((_, node)) = resource
                .dynamic_anchors
                .iter()
                .find(|(name, _)| &**name == anchor)
            {
                target = *node;
                break;
            }
        }
        self.node(target, instance, kp, ip, ann)
    }

    pub(crate) fn check_recursive_ref<'a, V: Value<'a>>(
        &mut self,
        target: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let v = self.v;
        let anchored = |id: NodeId| v.nodes.get(id as usize).is_some_and(|n| n.recursive_anchor);
        let mut chosen = target;
        if anchored(target) {
            // From the innermost resource outwards, as long as each root
            // also sets `$recursiveAnchor`.
            for &r in self.scope.iter().rev() {
                self.charge(1)?;
                match v.resources.get(r as usize).and_then(|r| r.root) {
                    Some(root) if anchored(root) => chosen = root,
                    _ => break,
                }
            }
        }
        self.node(chosen, instance, kp, ip, ann)
    }
}
