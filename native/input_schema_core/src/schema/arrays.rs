//! Array keywords that hold schemas: `prefixItems` (2020-12), `items` as a
//! schema or as a draft-07 list, and `additionalItems`. They compile to one
//! form: a schema per leading element (`Node::prefix_items`), then one
//! schema for every element after them (`Node::items`).

use super::{
    compile_branches, compile_entries, compile_subschema, get, Compiled, Keyword, Node, SchemaPath, Slots,
};
use crate::error::SchemaError;
use crate::value::{Shape, Value};

/// Compiles the array keywords in the check order `prefixItems`, `items`,
/// `additionalItems`; returns whether any array keyword applies.
pub(super) fn compile_arrays<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &SchemaPath<'_, V>,
    node: &mut Node,
) -> Compiled<bool, V> {
    let prefix = get(slots, Keyword::PrefixItems);
    if let Some(value) = prefix {
        let at = path.keyword(Keyword::PrefixItems);
        node.prefix_items = compile_branches(value, depth, &at, SchemaError::MalformedPrefixItems)?;
    }

    // A list `items` is the draft-07 tuple: `additionalItems` then applies
    // to the rest. Beside `prefixItems` it has no meaning: malformed.
    let mut tuple = false;
    if let Some(value) = get(slots, Keyword::Items) {
        let at = path.keyword(Keyword::Items);
        if value.shape() == Shape::List {
            if prefix.is_some() {
                return Err(at.fail(SchemaError::ItemsListBesidePrefixItems));
            }
            if value.list_len().is_none() {
                return Err(at.fail(SchemaError::MalformedItems));
            }
            node.prefix_items = compile_entries(value, depth, &at)?;
            tuple = true;
        } else {
            node.items = Some(compile_subschema(
                value,
                depth + 1,
                &at,
                SchemaError::MalformedItems,
            )?);
        }
    }

    // Checked wherever it is written; it applies only after a list `items`.
    if let Some(value) = get(slots, Keyword::AdditionalItems) {
        let at = path.keyword(Keyword::AdditionalItems);
        let rest = compile_subschema(value, depth + 1, &at, SchemaError::MalformedAdditionalItems)?;
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
