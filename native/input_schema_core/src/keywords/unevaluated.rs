//! `unevaluatedProperties` and `unevaluatedItems` (2019-09 on): they apply
//! to what no other keyword of the schema, nor any subschema applied in
//! place (`allOf`, `$ref`, the branches of `anyOf` that hold, ...),
//! evaluated. The walk collects those annotations only for schemas that
//! have one of these keywords; a walk that records nothing, only when one
//! of them is not folded into its node's plan (`plan::fold_unevaluated`).

use super::NodeId;
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::value::{Kind, Value};

impl Walk<'_> {
    pub(crate) fn check_unevaluated_properties<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        if instance.kind() != Kind::Map {
            return Ok(true);
        }
        if instance.is_struct() {
            return self.fail(at, kp, ip, |m| m.then("instance is a struct, not a JSON object"));
        }
        let none = Ann::default();
        let seen = ann.as_deref().unwrap_or(&none);
        let valid = self.check_unmarked_keys(at, schema, seen, instance, kp, ip)?;
        if let Some(ann) = ann {
            ann.mark_all();
        }
        Ok(valid)
    }

    pub(crate) fn check_unevaluated_items<'a, V: Value<'a>>(
        &mut self,
        _at: &Checked<'_>,
        schema: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        if instance.kind() != Kind::List || instance.list_len().is_none() {
            return Ok(true);
        }
        let seen = ann.as_deref().cloned().unwrap_or_default();
        let mut valid = true;
        for (i, item) in instance.list_items().enumerate() {
            self.charge(1)?;
            if seen.has(i) {
                continue;
            }
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
}
