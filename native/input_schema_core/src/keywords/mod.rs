//! Every keyword, one family per file, for both profiles. For standard JSON
//! Schema each keyword has the same shape: a `compile` that turns its value
//! into a [`Keyword`], and the walk's check for it (an `impl Walk` block in
//! the same file); [`table`] is the one place that says which keyword a
//! dialect and its vocabularies know. The gateway's compile of the same
//! keywords (`gateway_*`) and its checks (an `impl` on the gateway's walk)
//! sit beside them; its allow-list, node and order are `crate::schema`'s
//! and `crate::validate`'s.

pub(crate) mod applicators;
pub(crate) mod arrays;
pub(crate) mod content;
pub(crate) mod numbers;
pub(crate) mod objects;
pub(crate) mod references;
pub(crate) mod strings;
pub(crate) mod types;
pub(crate) mod unevaluated;
pub(crate) mod unique;

use std::sync::Arc;

use serde_json::Value as Json;

use crate::error::SchemaError;
use crate::format::Format;
use crate::pattern::Pattern;
use crate::schema::{self as gateway, Compiled as GatewayCompiled, Count, Slots};
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::plan::Plan;
use crate::standard::vocabulary::Vocabularies;
use crate::standard::{CompileError, ContentMode};
use crate::validate::{self as gateway_walk, number_datum, Check, ErrorAt};
use crate::value::{Datum, Number, Shape, Value};

/// A node of the compiled graph: an index into `Validator::nodes`.
pub type NodeId = u32;

/// A compiled subschema.
#[derive(Debug)]
pub(crate) struct Node {
    pub body: Body,
    /// The schema resource the node belongs to (the dynamic scope's unit).
    pub resource: u32,
    /// The node's absolute location: its resource's URI and a JSON Pointer
    /// fragment.
    pub location: Box<str>,
    /// 2019-09 `$recursiveAnchor: true`.
    pub recursive_anchor: bool,
}

impl Node {
    /// The target of a node that holds a `$ref` and nothing else, with no
    /// plan (no fold took it).
    #[inline]
    pub(crate) fn reference_alone(&self) -> Option<NodeId> {
        match &self.body {
            Body::Keywords(entries, None) => match &entries[..] {
                [Entry {
                    keyword: Keyword::Ref(target),
                    ..
                }] => Some(*target),
                _ => None,
            },
            _ => None,
        }
    }
}

#[derive(Debug)]
pub(crate) enum Body {
    /// `true`, or an object with nothing to check.
    Accept,
    /// `false`.
    Reject,
    /// The entries, and the fast path's plan of them (`plan.rs`).
    Keywords(Box<[Entry]>, Option<Box<Plan>>),
}

/// A keyword as compiled, with its name (the last step of its location).
#[derive(Debug)]
pub(crate) struct Entry {
    pub name: &'static str,
    pub keyword: Keyword,
}

/// A schema resource: the unit of the dynamic scope.
#[derive(Debug)]
pub(crate) struct Resource {
    pub root: Option<NodeId>,
    /// `$dynamicAnchor`s declared in the resource, by name.
    pub dynamic_anchors: Box<[(Box<str>, NodeId)]>,
}

/// A `patternProperties` entry: the pattern's source, the pattern, and the
/// schema of the properties it matches.
pub(crate) type PatternProperty = (Box<str>, Arc<Pattern>, NodeId);

/// A property name and the names it requires.
pub(crate) type Dependency = (Box<str>, Box<[Box<str>]>);

/// JSON types as bits: [`types::TypeSet`]'s, the one table both profiles
/// read.
pub(crate) mod type_bits {
    use super::types::TypeSet;

    pub const NULL: u8 = TypeSet::NULL.bits();
    pub const BOOLEAN: u8 = TypeSet::BOOLEAN.bits();
    pub const INTEGER: u8 = TypeSet::INTEGER.bits();
    pub const NUMBER: u8 = TypeSet::NUMBER.bits();
    pub const STRING: u8 = TypeSet::STRING.bits();
    pub const ARRAY: u8 = TypeSet::ARRAY.bits();
    pub const OBJECT: u8 = TypeSet::OBJECT.bits();
}

#[derive(Debug)]
pub(crate) enum Keyword {
    // Core: references.
    Ref(NodeId),
    DynamicRef {
        fallback: NodeId,
        anchor: Box<str>,
    },
    RecursiveRef(NodeId),
    // Applicators in place.
    AllOf(Box<[NodeId]>),
    AnyOf(applicators::Branches),
    OneOf(applicators::Branches),
    Not(NodeId),
    If {
        condition: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    DependentSchemas(Box<[(Box<str>, NodeId)]>),
    // Applicators to children.
    /// The names are shared with the plans (`plan::Name`), which copy
    /// them.
    Properties(Box<[(Arc<str>, NodeId)]>),
    /// Each pattern with its source (a step of the keyword location).
    PatternProperties(Box<[PatternProperty]>),
    AdditionalProperties {
        schema: NodeId,
        names: Box<[Box<str>]>,
        patterns: Box<[Arc<Pattern>]>,
    },
    PropertyNames(NodeId),
    PrefixItems(Box<[NodeId]>),
    /// Every item from index `skip` on.
    Items {
        schema: NodeId,
        skip: usize,
    },
    Contains {
        schema: NodeId,
        min: u64,
        max: Option<u64>,
        annotates: bool,
    },
    UnevaluatedProperties(NodeId),
    UnevaluatedItems(NodeId),
    // Validation.
    /// The type bits, and the names as written (for reports only).
    Type(u8, types::Written),
    Enum(Box<[Datum]>),
    Const(Datum),
    MultipleOf(Number),
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MinLength(u64),
    MaxLength(u64),
    Format(Format),
    Pattern {
        pattern: Arc<Pattern>,
        source: Box<str>,
    },
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinProperties(u64),
    MaxProperties(u64),
    Required(Box<[Box<str>]>),
    DependentRequired(Box<[Dependency]>),
    // Content, asserted: `contentEncoding`, `contentMediaType` and
    // `contentSchema` as one entry.
    Content(content::Content),
}

/// What a keyword compiles to: nothing (an annotation, or a keyword this
/// dialect does not know), or one entry.
pub(crate) type Compiled = Result<Option<Entry>, CompileError>;

fn entry(name: &'static str, keyword: Keyword) -> Compiled {
    Ok(Some(Entry { name, keyword }))
}

/// The keyword table: which keyword `key` is in the schema's dialect and
/// vocabularies, compiled from its value.
pub(crate) fn table<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, key: &str, value: &'s Json) -> Compiled {
    let d = at.scope.dialect;
    let v = at.scope.vocabularies;
    let applicator = v.has(Vocabularies::APPLICATOR);
    let validation = v.has(Vocabularies::VALIDATION);
    // Annotations unless asserted (`content.rs`).
    let content = c.content == ContentMode::Assert && v.has(Vocabularies::CONTENT);
    let since = |first: Dialect| d >= first;
    let until = |last: Dialect| d <= last;
    match key {
        "$ref" => references::compile_ref(c, at, value),
        "$dynamicRef" if since(Dialect::Draft2020_12) => references::compile_dynamic_ref(c, at, value),
        "$recursiveRef" if d == Dialect::Draft2019_09 => references::compile_recursive_ref(c, at, value),

        "allOf" if applicator => {
            applicators::compile_list(c, at, key, value).and_then(|n| entry("allOf", Keyword::AllOf(n)))
        }
        "anyOf" if applicator => applicators::compile_list(c, at, key, value)
            .and_then(|n| entry("anyOf", Keyword::AnyOf(applicators::Branches::new(n)))),
        "oneOf" if applicator => applicators::compile_list(c, at, key, value)
            .and_then(|n| entry("oneOf", Keyword::OneOf(applicators::Branches::new(n)))),
        "not" if applicator => entry("not", Keyword::Not(c.child(at, "not")?)),
        "if" if applicator && since(Dialect::Draft7) => applicators::compile_if(c, at, value),
        "dependentSchemas" if applicator && since(Dialect::Draft2019_09) => {
            objects::compile_dependent_schemas(c, at, value)
        }
        // Split into the two keywords above in 2019-09, and kept by that
        // dialect's and 2020-12's metaschemas (deprecated, the same shape):
        // a schema written with it is checked as it says, not ignored.
        "dependencies" if applicator => objects::compile_dependencies(c, at, value),

        "properties" if applicator => objects::compile_properties(c, at, value),
        "patternProperties" if applicator => objects::compile_pattern_properties(c, at, value),
        "additionalProperties" if applicator => objects::compile_additional_properties(c, at, value),
        "propertyNames" if applicator && since(Dialect::Draft6) => {
            entry("propertyNames", Keyword::PropertyNames(c.child(at, key)?))
        }
        "prefixItems" if applicator && since(Dialect::Draft2020_12) => {
            arrays::compile_prefix_items(c, at, value)
        }
        "items" if applicator => arrays::compile_items(c, at, value),
        "additionalItems" if applicator && until(Dialect::Draft2019_09) => {
            arrays::compile_additional_items(c, at, value)
        }
        "contains" if applicator && since(Dialect::Draft6) => arrays::compile_contains(c, at, value),
        "unevaluatedProperties" if since(Dialect::Draft2019_09) && v.has(Vocabularies::UNEVALUATED) => entry(
            "unevaluatedProperties",
            Keyword::UnevaluatedProperties(c.child(at, key)?),
        ),
        "unevaluatedItems" if since(Dialect::Draft2019_09) && v.has(Vocabularies::UNEVALUATED) => {
            entry("unevaluatedItems", Keyword::UnevaluatedItems(c.child(at, key)?))
        }

        "type" if validation => types::compile_type(c, at, value),
        "enum" if validation => types::compile_enum(c, at, value),
        "const" if validation && since(Dialect::Draft6) => types::compile_const(c, at, value),
        "multipleOf" if validation => numbers::compile_multiple_of(c, at, value),
        "minimum" if validation => numbers::compile_minimum(c, at, value),
        "maximum" if validation => numbers::compile_maximum(c, at, value),
        "exclusiveMinimum" if validation && since(Dialect::Draft6) => {
            numbers::compile_exclusive(c, at, key, value)
        }
        "exclusiveMaximum" if validation && since(Dialect::Draft6) => {
            numbers::compile_exclusive(c, at, key, value)
        }
        "minLength" | "maxLength" if validation => strings::compile_length(c, at, key, value),
        "pattern" if validation => strings::compile_pattern(c, at, value),
        "format" => strings::compile_format(c, at, value),
        "minItems" | "maxItems" if validation => arrays::compile_count(c, at, key, value),
        "uniqueItems" if validation => arrays::compile_unique_items(c, at, value),
        "minProperties" | "maxProperties" if validation => objects::compile_count(c, at, key, value),
        "required" if validation => objects::compile_required(c, at, value),
        "dependentRequired" if validation && since(Dialect::Draft2019_09) => {
            objects::compile_dependent_required(c, at, value)
        }

        "contentEncoding" | "contentMediaType" if content && since(Dialect::Draft7) => {
            content::compile_content(c, at, key, value)
        }
        "contentSchema" if content && since(Dialect::Draft2019_09) => {
            content::compile_content(c, at, key, value)
        }
        _ => Ok(None),
    }
}

/// A non-negative integer keyword value (`minLength`, `maxItems`, ...);
/// `1.0` counts, as the specification allows from draft 6.
pub(crate) fn count(at: &At<'_, '_>, key: &str, value: &Json) -> Result<u64, CompileError> {
    let malformed = || at.invalid(key, "a non-negative integer");
    let Json::Number(n) = value else {
        return Err(malformed());
    };
    if let Some(u) = n.as_u64() {
        return Ok(u);
    }
    match crate::json::number(n) {
        Some(Number::Float(f)) if f >= 0.0 && f.fract() == 0.0 => {
            Ok(if f >= u64::MAX as f64 { u64::MAX } else { f as u64 })
        }
        Some(Number::Big(b)) if b.sign() != num_bigint::Sign::Minus => Ok(u64::MAX),
        _ => Err(malformed()),
    }
}

/// Whether a count keeps a `min*` (`minimum` true) or `max*` bound.
pub(crate) fn count_holds(count: u64, limit: u64, minimum: bool) -> bool {
    if minimum {
        count >= limit
    } else {
        count <= limit
    }
}

/// The gateway's counts (`minLength`, `maxItems`, ...): an integer (`1.0`
/// is not one), kept as written for the error's details.
pub(crate) fn gateway_count<'a, V: Value<'a>>(
    slots: &Slots<V>,
    keyword: gateway::Keyword,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<Option<Count>, V> {
    match gateway::get(slots, keyword).map(|v| v.shape()) {
        None => Ok(None),
        Some(Shape::Number(n)) => match n.as_count() {
            Some(value) => Ok(Some(Count { value, written: n })),
            _ => Err(path.keyword(keyword).fail(SchemaError::NotCount(keyword.name()))),
        },
        Some(_) => Err(path.keyword(keyword).fail(SchemaError::NotCount(keyword.name()))),
    }
}

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    /// A count against its inclusive bounds (`minLength`/`maxLength`,
    /// `minItems`/`maxItems`), the lower bound first.
    pub(crate) fn check_count(
        self,
        count: u64,
        (min, max): (&Option<Count>, &Option<Count>),
        (too_few, too_many): (ErrorAt<V>, ErrorAt<V>),
        path: &gateway_walk::Path<'_, V>,
    ) -> Check<V> {
        if let Some(min) = min {
            if !count_holds(count, min.value, true) {
                self.report(|| too_few(path.render(), number_datum(&min.written)))?;
            }
        }
        if let Some(max) = max {
            if !count_holds(count, max.value, false) {
                self.report(|| too_many(path.render(), number_datum(&max.written)))?;
            }
        }
        Ok(())
    }
}

/// A list of distinct strings (`required`, `dependentRequired` values).
pub(crate) fn names(at: &At<'_, '_>, key: &str, value: &Json) -> Result<Box<[Box<str>]>, CompileError> {
    let Json::Array(items) = value else {
        return Err(at.invalid(key, "a list of strings"));
    };
    items
        .iter()
        .map(|item| {
            item.as_str()
                .map(Box::from)
                .ok_or_else(|| at.invalid(key, "a list of strings"))
        })
        .collect()
}
