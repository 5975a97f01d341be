//! Objects: `properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `required`, `dependentRequired`, `dependentSchemas`,
//! `dependencies` (every dialect), `minProperties` and `maxProperties`. Keys are
//! read as text (an atom key by its name); a struct is no object, and a
//! key that is neither a string nor an atom fails the object keywords.
//!
//! The gateway's object keywords are here too ([`gateway_object`],
//! `gateway::Walk::check_object`): `properties`, `required`,
//! `dependentRequired`, `additionalProperties` and `propertyNames`, with the
//! contract's semantics (atom keys, structs refused) and its check order,
//! read through the name tables of `schema/object.rs`.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value as Json;

use super::{count, entry, names, Compiled, Keyword, Node, NodeId};
use crate::error::{ArgumentError, SchemaError};
use crate::pattern::Pattern;
use crate::schema::{
    self as gateway, Additional, Compiled as GatewayCompiled, ObjectRules, OnePass, Slots,
    Step as GatewayStep,
};
use crate::standard::compiler::{At, Compiler};
use crate::standard::walk::{Ann, At as Checked, Matcher, Path, Seg, Step, Walk};
use crate::standard::Limit;
use crate::validate::{self as gateway_walk, Check, Failure, Mode as GatewayMode, Segment as GatewaySegment};
use crate::value::{Kind, Number, Shape, Text, Value};

fn schema_map<'j>(
    at: &At<'_, '_>,
    key: &str,
    value: &'j Json,
) -> Result<&'j serde_json::Map<String, Json>, crate::standard::CompileError> {
    match value {
        Json::Object(map) => Ok(map),
        _ => Err(at.invalid(key, "a map of schemas")),
    }
}

/// Names sorted by their bytes, for binary search.
fn sorted<K: std::ops::Deref<Target = str>, T>(mut entries: Vec<(K, T)>) -> Box<[(K, T)]> {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    entries.into_boxed_slice()
}

pub(crate) fn compile_properties<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &'s Json) -> Compiled {
    let map = schema_map(at, "properties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for (name, schema) in map {
        entries.push((
            Arc::from(name.as_str()),
            c.child_named(at, "properties", name, schema)?,
        ));
    }
    entry("properties", Keyword::Properties(sorted(entries)))
}

pub(crate) fn compile_pattern_properties<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    value: &'s Json,
) -> Compiled {
    let map = schema_map(at, "patternProperties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for (source, schema) in map {
        let pointer =
            || crate::standard::registry::pointer_join(&at.place.pointer, &["patternProperties", source]);
        let pattern = super::strings::pattern(c, pointer, source)?;
        entries.push((
            Box::from(source.as_str()),
            pattern,
            c.child_named(at, "patternProperties", source, schema)?,
        ));
    }
    entry(
        "patternProperties",
        Keyword::PatternProperties(entries.into_boxed_slice()),
    )
}

pub(crate) fn compile_additional_properties<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    _value: &Json,
) -> Compiled {
    let schema = c.child(at, "additionalProperties")?;
    let mut known: Vec<Box<str>> = match at.sibling("properties") {
        Some(Json::Object(map)) => map.keys().map(|k| Box::from(k.as_str())).collect(),
        _ => Vec::new(),
    };
    known.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    let mut patterns = Vec::new();
    if let Some(Json::Object(map)) = at.sibling("patternProperties") {
        for source in map.keys() {
            let pointer =
                || crate::standard::registry::pointer_join(&at.place.pointer, &["patternProperties", source]);
            patterns.push(super::strings::pattern(c, pointer, source)?);
        }
    }
    entry(
        "additionalProperties",
        Keyword::AdditionalProperties {
            schema,
            names: known.into_boxed_slice(),
            patterns: patterns.into_boxed_slice(),
        },
    )
}

pub(crate) fn compile_required(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    entry("required", Keyword::Required(names(at, "required", value)?))
}

pub(crate) fn compile_dependent_required(_c: &mut Compiler<'_>, at: &At<'_, '_>, value: &Json) -> Compiled {
    let map = schema_map(at, "dependentRequired", value)?;
    let mut rules = Vec::with_capacity(map.len());
    for (name, required) in map {
        rules.push((
            Box::from(name.as_str()),
            names(at, "dependentRequired", required)?,
        ));
    }
    entry(
        "dependentRequired",
        Keyword::DependentRequired(rules.into_boxed_slice()),
    )
}

pub(crate) fn compile_dependent_schemas<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    value: &'s Json,
) -> Compiled {
    let map = schema_map(at, "dependentSchemas", value)?;
    let mut schemas = Vec::with_capacity(map.len());
    for (name, schema) in map {
        schemas.push((
            Box::from(name.as_str()),
            c.child_named(at, "dependentSchemas", name, schema)?,
        ));
    }
    entry(
        "dependentSchemas",
        Keyword::DependentSchemas(schemas.into_boxed_slice()),
    )
}

/// `dependencies` (drafts 4-7, and kept by the later metaschemas): a list is
/// `dependentRequired`, a schema is `dependentSchemas`. Both keep the name
/// `dependencies` in locations.
pub(crate) fn compile_dependencies<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &'s Json) -> Compiled {
    let map = schema_map(at, "dependencies", value)?;
    let mut required = Vec::new();
    let mut schemas = Vec::new();
    for (name, dependency) in map {
        match dependency {
            Json::Array(_) => {
                required.push((Box::from(name.as_str()), names(at, "dependencies", dependency)?))
            }
            Json::Object(_) | Json::Bool(_) => schemas.push((
                Box::from(name.as_str()),
                c.child_named(at, "dependencies", name, dependency)?,
            )),
            _ => return Err(at.invalid("dependencies", "a map of schemas or lists of names")),
        }
    }
    // Both halves, each an entry of its own, in the compiler's extra
    // entries: the names, then the schemas.
    let half = |keyword| super::Entry {
        name: "dependencies",
        keyword,
    };
    if !required.is_empty() {
        c.extra
            .push(half(Keyword::DependentRequired(required.into_boxed_slice())));
    }
    if !schemas.is_empty() {
        c.extra
            .push(half(Keyword::DependentSchemas(schemas.into_boxed_slice())));
    }
    Ok(None)
}

pub(crate) fn compile_count(_c: &mut Compiler<'_>, at: &At<'_, '_>, key: &str, value: &Json) -> Compiled {
    let n = count(at, key, value)?;
    if key == "minProperties" {
        entry("minProperties", Keyword::MinProperties(n))
    } else {
        entry("maxProperties", Keyword::MaxProperties(n))
    }
}

/// The text of a key: a binary's bytes, an atom's name; `None` otherwise.
pub(crate) fn key_text<'a, V: Value<'a>>(key: V) -> Option<Cow<'a, [u8]>> {
    if let Some(bytes) = key.bytes() {
        return Some(Cow::Borrowed(bytes));
    }
    if key.kind() == Kind::Atom {
        return key.atom_name().map(|name| Cow::Owned(name.into_bytes()));
    }
    None
}

/// The name a key's `text` (what `key_text` gave for it) spells, when it
/// is UTF-8: a key the backend holds as text already (a `serde_json` key)
/// answers without a check, a binary of ASCII with one pass over it.
// The `Cow`'s variant is what tells a key's own bytes (which the backend may
// know to be text) from an atom's name, copied.
#[allow(clippy::ptr_arg)]
pub(crate) fn key_name<'t, 'a: 't, V: Value<'a>>(key: V, text: &'t Cow<'a, [u8]>) -> Option<&'t str> {
    match text {
        Cow::Borrowed(bytes) => key.text_of(bytes),
        Cow::Owned(bytes) => std::str::from_utf8(bytes).ok(),
    }
}

fn find<K: std::ops::Deref<Target = str>, T>(entries: &[(K, T)], key: &[u8]) -> Option<usize> {
    if entries.len() <= 8 {
        entries.iter().position(|(name, _)| name.as_bytes() == key)
    } else {
        entries
            .binary_search_by(|(name, _)| name.as_bytes().cmp(key))
            .ok()
    }
}

fn has_name(names: &[Box<str>], key: &[u8]) -> bool {
    if names.len() <= 8 {
        names.iter().any(|name| name.as_bytes() == key)
    } else {
        names.binary_search_by(|name| name.as_bytes().cmp(key)).is_ok()
    }
}

/// The keys of an object instance, sorted, for many lookups.
struct Keys<'k>(Vec<Cow<'k, [u8]>>);

/// Which of a `required` list an object instance has: a bit per name when
/// both are small (one pass over the keys, nothing allocated), its sorted
/// keys otherwise.
enum Present<'k> {
    Bits(u64),
    Keys(Keys<'k>),
}

impl Present<'_> {
    fn has(&self, index: usize, name: &str) -> bool {
        match self {
            Present::Bits(bits) => index < 64 && bits & (1 << index) != 0,
            Present::Keys(keys) => keys.has(name),
        }
    }
}

/// The most keys and names [`Present::Bits`] compares pairwise.
const PAIRWISE_KEYS: usize = 32;
const PAIRWISE_NAMES: usize = 8;

impl Keys<'_> {
    fn has(&self, name: &str) -> bool {
        self.0.binary_search_by(|k| (**k).cmp(name.as_bytes())).is_ok()
    }
}

enum Object {
    /// Not an object: the keyword does not apply.
    Other,
    /// A map the keyword cannot read (a struct): it fails.
    Unreadable(&'static str),
    Readable,
}

fn object<'a, V: Value<'a>>(instance: V) -> Object {
    if instance.kind() != Kind::Map {
        return Object::Other;
    }
    if instance.is_struct() {
        return Object::Unreadable("instance is a struct, not a JSON object");
    }
    Object::Readable
}

/// Whether `node` has an `additionalProperties` to read the keys its
/// `properties` and `patternProperties` match (`walk::Matched`): without
/// one, they note nothing.
fn reads_matches(node: &crate::keywords::Node) -> bool {
    match &node.body {
        crate::keywords::Body::Keywords(entries, _) => entries
            .iter()
            .any(|entry| matches!(entry.keyword, Keyword::AdditionalProperties { .. })),
        _ => false,
    }
}

impl Walk<'_> {
    /// Reads the keys of an object instance, sorted; a key that is not text
    /// makes it unreadable.
    fn keys<'a, V: Value<'a>>(&mut self, instance: V) -> Result<Result<Keys<'a>, &'static str>, Limit> {
        let mut keys = Vec::with_capacity(instance.map_len());
        for (key, _) in instance.map_entries() {
            self.charge(1)?;
            match key_text(key) {
                Some(text) => keys.push(text),
                None => return Ok(Err("object has a key that is not a string")),
            }
        }
        keys.sort_unstable();
        Ok(Ok(Keys(keys)))
    }

    /// Which of `names` the object instance has (`Present`); a key that is
    /// not text makes it unreadable.
    fn present<'a, V: Value<'a>>(
        &mut self,
        names: &[Box<str>],
        instance: V,
    ) -> Result<Result<Present<'a>, &'static str>, Limit> {
        if names.len() > PAIRWISE_NAMES || instance.map_len() > PAIRWISE_KEYS {
            return Ok(self.keys(instance)?.map(Present::Keys));
        }
        let mut bits = 0u64;
        for (key, _) in instance.map_entries() {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return Ok(Err("object has a key that is not a string"));
            };
            for (i, name) in names.iter().enumerate() {
                if name.as_bytes() == &*text {
                    bits |= 1 << i;
                }
            }
        }
        Ok(Ok(Present::Bits(bits)))
    }

    /// Guards an object keyword: `Some(step)` when it is decided already
    /// (not an object: passes; a struct: fails).
    fn object_guard<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Option<Step> {
        match object(instance) {
            Object::Other => Some(Ok(true)),
            Object::Unreadable(why) => Some(self.fail(at, kp, ip, |m| m.then(why))),
            Object::Readable => None,
        }
    }

    /// The first keys of `instance` that the first pass of `validate`
    /// found passing this node's object keywords (`Walk::keys_passed`),
    /// charged a unit each and, when `noting`, marked as matched: the
    /// node's `additionalProperties` passed them too.
    fn passed_keys<'a, V: Value<'a>>(
        &mut self,
        node: &Node,
        instance: V,
        noting: bool,
        matched: &mut Ann,
    ) -> Result<usize, Limit> {
        let passed = self.keys_passed(node, instance);
        if passed > 0 {
            self.charge(passed as u64)?;
            if noting {
                for i in 0..passed {
                    matched.mark(i);
                }
            }
        }
        Ok(passed)
    }

    pub(crate) fn check_properties<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        properties: &[(Arc<str>, NodeId)],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let mut valid = true;
        let noting = reads_matches(at.node);
        let mut matched = Ann::default();
        let skip = self.passed_keys(at.node, instance, noting, &mut matched)?;
        for (i, (key, value)) in instance.map_entries().enumerate().skip(skip) {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not a string"));
            };
            let Some(found) = find(properties, &text) else {
                continue;
            };
            let Some((name, node)) = properties.get(found) else {
                continue;
            };
            if noting {
                matched.mark(i);
            }
            if let Some(ann) = ann.as_deref_mut() {
                ann.mark(i);
            }
            // The key is the name's bytes: text already.
            let kp = kp.push(Seg::Text(name));
            let passed = self.property(*node, value, &kp, &ip.push(Seg::Text(name)))?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        if noting {
            self.matched
                .note(at.node, instance.identity(), Matcher::Properties, matched);
        }
        Ok(valid)
    }

    pub(crate) fn check_pattern_properties<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        patterns: &[super::PatternProperty],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let mut valid = true;
        let noting = reads_matches(at.node);
        let mut matched = Ann::default();
        let skip = self.passed_keys(at.node, instance, noting, &mut matched)?;
        for (i, (key, value)) in instance.map_entries().enumerate().skip(skip) {
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not a string"));
            };
            let Some(name) = key_name(key, &text) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not valid UTF-8"));
            };
            for (source, pattern, node) in patterns {
                self.charge(1 + name.len() as u64 / 16)?;
                if !pattern.search(name).map_err(|_| Limit::Work)? {
                    continue;
                }
                if noting {
                    matched.mark(i);
                }
                if let Some(ann) = ann.as_deref_mut() {
                    ann.mark(i);
                }
                let kp = kp.push(Seg::Text(source));
                let passed = self.property(*node, value, &kp, &ip.push(Seg::Text(name)))?;
                if self.stops(passed, &mut valid) {
                    return Ok(false);
                }
            }
        }
        if noting {
            self.matched
                .note(at.node, instance.identity(), Matcher::Patterns, matched);
        }
        Ok(valid)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_additional_properties<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        names: &[Box<str>],
        patterns: &[Arc<Pattern>],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        // The keys this node's `properties` and `patternProperties` matched
        // on this object, when they read every key: the others are the
        // additional ones, and each was read as text already.
        let noted = self.matched.take(
            at.node,
            instance.identity(),
            !names.is_empty(),
            !patterns.is_empty(),
        );
        if let Some(matched) = noted {
            let valid = self.check_unmarked_keys(at, schema, &matched, instance, kp, ip)?;
            if let Some(ann) = ann {
                ann.mark_all();
            }
            return Ok(valid);
        }
        let mut valid = true;
        let skip = self.passed_keys(at.node, instance, false, &mut Ann::default())?;
        for (key, value) in instance.map_entries().skip(skip) {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not a string"));
            };
            if has_name(names, &text) {
                continue;
            }
            if !patterns.is_empty() {
                let Some(name) = key_name(key, &text) else {
                    return self.fail(at, kp, ip, |m| m.then("object has a key that is not valid UTF-8"));
                };
                let mut matched = false;
                for pattern in patterns {
                    self.charge(1 + name.len() as u64 / 16)?;
                    if pattern.search(name).map_err(|_| Limit::Work)? {
                        matched = true;
                        break;
                    }
                }
                if matched {
                    continue;
                }
            }
            let passed = self.node(schema, value, kp, &ip.push(Seg::Name(&text)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        // Every property is evaluated by one of the three keywords.
        if let Some(ann) = ann {
            ann.mark_all();
        }
        Ok(valid)
    }

    /// `schema` over the keys of an object instance that `marked` does not
    /// hold: `additionalProperties` past the keys its siblings matched,
    /// `unevaluatedProperties` past the evaluated ones. The keys after the
    /// last one not marked are not read, but every key is charged its unit,
    /// as when each was read: the search for that last key is paid for.
    pub(crate) fn check_unmarked_keys<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        marked: &Ann,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let len = instance.map_len();
        let Some(last) = (0..len).rev().find(|&i| !marked.has(i)) else {
            self.charge(len as u64)?;
            return Ok(true);
        };
        self.charge((len - last - 1) as u64)?;
        let mut valid = true;
        for (i, (key, value)) in instance.map_entries().enumerate().take(last + 1) {
            self.charge(1)?;
            if marked.has(i) {
                continue;
            }
            // An atom key by its name, as the other object keywords read it.
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not a string"));
            };
            let passed = self.node(schema, value, kp, &ip.push(Seg::Name(&text)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        Ok(valid)
    }

    pub(crate) fn check_property_names<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        schema: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let mut valid = true;
        for (key, _) in instance.map_entries() {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, |m| m.then("object has a key that is not a string"));
            };
            let passed = self.node(schema, Text(&text), kp, &ip.push(Seg::Name(&text)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        Ok(valid)
    }

    pub(crate) fn check_required<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        names: &[Box<str>],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let present = match self.present(names, instance)? {
            Ok(present) => present,
            Err(why) => return self.fail(at, kp, ip, |m| m.then(why)),
        };
        let mut valid = true;
        for (i, name) in names.iter().enumerate() {
            self.charge(1)?;
            if !present.has(i, name) {
                let passed = self.fail_part(at, i, kp, ip, |m| {
                    m.then("required property ").quoted(name).then(" is missing")
                })?;
                if self.stops(passed, &mut valid) {
                    return Ok(false);
                }
            }
        }
        Ok(valid)
    }

    pub(crate) fn check_dependent_required<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        rules: &[super::Dependency],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let keys = match self.keys(instance)? {
            Ok(keys) => keys,
            Err(why) => return self.fail(at, kp, ip, |m| m.then(why)),
        };
        let mut valid = true;
        for (present, required) in rules {
            self.charge(1)?;
            if !keys.has(present) {
                continue;
            }
            for name in required.iter() {
                self.charge(1)?;
                if !keys.has(name) {
                    let passed = self.fail(at, kp, ip, |m| {
                        m.then("property ")
                            .quoted(name)
                            .then(" is required when ")
                            .quoted(present)
                            .then(" is present")
                    })?;
                    if self.stops(passed, &mut valid) {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(valid)
    }

    pub(crate) fn check_dependent_schemas<'a, V: Value<'a>>(
        &mut self,
        schemas: &[(Box<str>, NodeId)],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        if !matches!(object(instance), Object::Readable) {
            return Ok(true);
        }
        let keys = match self.keys(instance)? {
            Ok(keys) => keys,
            Err(_) => return Ok(true),
        };
        let mut valid = true;
        for (present, node) in schemas {
            self.charge(1)?;
            if !keys.has(present) {
                continue;
            }
            let kp = kp.push(Seg::Text(present));
            let passed = self.node(*node, instance, &kp, ip, ann.as_deref_mut())?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        Ok(valid)
    }

    pub(crate) fn check_property_count<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        limit: u64,
        minimum: bool,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let len = instance.map_len() as u64;
        if super::count_holds(len, limit, minimum) {
            return Ok(true);
        }
        self.fail(at, kp, ip, |m| {
            if minimum {
                m.then("object has fewer than ").number(limit).then(" properties")
            } else {
                m.then("object has more than ").number(limit).then(" properties")
            }
        })
    }
}

#[inline(never)]
fn gateway_properties<'a, V: Value<'a>>(
    value: V,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<Vec<gateway::PropertySource>, V> {
    if value.shape() != Shape::Map {
        return Err(path.fail(SchemaError::PropertiesNotMap));
    }
    let mut names = Vec::with_capacity(value.map_len());
    for (key, _) in value.map_entries() {
        let name = match key.shape() {
            Shape::Binary(name) => (Box::<[u8]>::from(name), None),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => match (key.atom_name(), key.atom_id()) {
                (Some(name), id) => (name.into_bytes().into_boxed_slice(), id),
                _ => return Err(path.fail(SchemaError::PropertyNameNotString)),
            },
            _ => return Err(path.fail(SchemaError::PropertyNameNotString)),
        };
        names.push(name);
    }
    let mut properties = Vec::with_capacity(names.len());
    for ((name, atom), (_, schema)) in names.into_iter().zip(value.map_entries()) {
        let at = path.child(GatewayStep::Name(&name));
        let node = gateway::compile_subschema(schema, depth + 2, &at, SchemaError::SubschemaNotMap)?;
        properties.push((name, atom, node));
    }
    Ok(properties)
}

/// The object keywords of one schema, in the check order: `properties`,
/// `required`, `dependentRequired`, `additionalProperties` (or
/// `additional_properties`), `propertyNames`. `None` when none of them
/// constrains anything; the flag says whether any of them was written.
pub(crate) fn gateway_object<'a, V: Value<'a>>(
    slots: &Slots<V>,
    depth: usize,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<(Option<Box<ObjectRules>>, bool), V> {
    let properties = match gateway::get(slots, gateway::Keyword::Properties) {
        None => Vec::new(),
        Some(value) => gateway_properties(value, depth, &path.keyword(gateway::Keyword::Properties))?,
    };

    let required = match gateway::get(slots, gateway::Keyword::Required) {
        None => Vec::new(),
        Some(value) => gateway_name_list(value).ok_or_else(|| {
            path.keyword(gateway::Keyword::Required)
                .fail(SchemaError::MalformedRequired)
        })?,
    };

    let dependent = match gateway::get(slots, gateway::Keyword::DependentRequired) {
        None => Vec::new(),
        Some(value) => gateway_dependent(value, path)?,
    };

    // `additional_properties` only when neither form of the camelCase one is there.
    let (additional_keyword, additional_value) =
        match gateway::get(slots, gateway::Keyword::AdditionalProperties) {
            Some(value) => (gateway::Keyword::AdditionalProperties, Some(value)),
            None => (
                gateway::Keyword::AdditionalPropertiesSnake,
                gateway::get(slots, gateway::Keyword::AdditionalPropertiesSnake),
            ),
        };
    let additional = match additional_value {
        None => Additional::Allow,
        Some(value) => {
            let at = path.keyword(additional_keyword);
            match value.shape() {
                Shape::Bool(allowed) => {
                    // A `$ref` may point here: the pass that records
                    // locations gives the boolean a node of its own.
                    at.record_boolean(allowed)?;
                    if allowed {
                        Additional::Allow
                    } else {
                        Additional::Deny
                    }
                }
                Shape::Map => Additional::Schema(gateway::compile_node(value, depth + 1, &at)?),
                _ => return Err(at.fail(SchemaError::MalformedAdditional)),
            }
        }
    };

    let property_names = match gateway::get(slots, gateway::Keyword::PropertyNames) {
        None => None,
        Some(value) => Some(gateway::compile_subschema(
            value,
            depth + 1,
            &path.keyword(gateway::Keyword::PropertyNames),
            SchemaError::MalformedPropertyNames,
        )?),
    };

    let written = gateway::get(slots, gateway::Keyword::Properties).is_some()
        || gateway::get(slots, gateway::Keyword::Required).is_some()
        || gateway::get(slots, gateway::Keyword::DependentRequired).is_some()
        || additional_value.is_some()
        || property_names.is_some();
    let object = gateway::object_rules(properties, required, dependent, additional, property_names);
    let rules = if object.is_trivial() {
        None
    } else {
        Some(Box::new(object))
    };
    Ok((rules, written))
}

/// A proper list of binaries (`required`, a `dependentRequired` value).
fn gateway_name_list<'a, V: Value<'a>>(value: V) -> Option<Vec<Box<[u8]>>> {
    if value.shape() != Shape::List || value.list_len().is_none() {
        return None;
    }
    value
        .list_items()
        .map(|name| match name.shape() {
            Shape::Binary(name) => Some(Box::<[u8]>::from(name)),
            _ => None,
        })
        .collect()
}

/// `dependentRequired`: a map from a property name (binary or atom, as in
/// `properties`) to a list of binary names.
fn gateway_dependent<'a, V: Value<'a>>(
    value: V,
    path: &gateway::SchemaPath<'_, V>,
) -> GatewayCompiled<Vec<gateway::DependentSource>, V> {
    let at = path.keyword(gateway::Keyword::DependentRequired);
    let malformed = || at.fail(SchemaError::MalformedDependentRequired);
    if value.shape() != Shape::Map {
        return Err(malformed());
    }
    path.charge(value.map_len() as u64)?;
    let mut dependent = Vec::with_capacity(value.map_len());
    for (key, names) in value.map_entries() {
        let name: Box<[u8]> = match key.shape() {
            Shape::Binary(name) => name.into(),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => match key.atom_name() {
                Some(name) => name.into_bytes().into_boxed_slice(),
                None => return Err(malformed()),
            },
            _ => return Err(malformed()),
        };
        let names = gateway_name_list(names).ok_or_else(malformed)?;
        path.charge(names.len() as u64)?;
        dependent.push((name, names));
    }
    Ok(dependent)
}

impl<'a, V: Value<'a>> gateway_walk::Walk<'_, V> {
    /// `required` (list order), then `properties` (schema order), then the
    /// additional keys (argument order).
    pub(crate) fn check_object(
        self,
        rules: &ObjectRules,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        self.budget.charge(value.map_len() as u64)?;
        match (&self.mode, &rules.one_pass) {
            (GatewayMode::Optimistic | GatewayMode::OptimisticBranch, Some(one_pass)) => {
                self.check_object_once(rules, one_pass, value, path, depth)
            }
            _ => self.check_object_walked(rules, value, path, depth),
        }
    }

    /// Every key in argument order, each checked as it comes; `required`
    /// last, as a set. Any failure is a bare mismatch, and so is a key that
    /// is not a binary (the ordered walk reads those).
    fn check_object_once(
        self,
        rules: &ObjectRules,
        one_pass: &OnePass,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let mut seen = 0u64;
        for (key, item) in value.map_entries() {
            let name = key.bytes().ok_or(Failure::Mismatch)?;
            if let Some(entry) = rules.find(name) {
                seen |= entry.bit;
                if let Some(property) = entry.property.and_then(|index| rules.properties.get(index)) {
                    let item_path = path.child(GatewaySegment::Property(&property.name));
                    self.check_id(property.schema, item, &item_path, depth + 1)?;
                    continue;
                }
            }
            match &rules.additional {
                Additional::Allow => {}
                Additional::Deny => return Err(Failure::Mismatch),
                Additional::Schema(schema) => {
                    let item_path = path.child(GatewaySegment::Key(key));
                    self.check_id(*schema, item, &item_path, depth + 1)?;
                }
            }
        }
        if seen & one_pass.required != one_pass.required {
            return Err(Failure::Mismatch);
        }
        Ok(())
    }

    /// For maps read by a walk: one pass over the entries fills a slot per
    /// distinct name, then the slots are read.
    fn check_object_walked(
        self,
        rules: &ObjectRules,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        const INLINE: usize = 16;
        let slot_count = rules.slot_count();
        let needed = slot_count + rules.properties.len();
        let mut inline: [Option<V>; INLINE] = [None; INLINE];
        let mut heap: Vec<Option<V>>;
        let buffer: &mut [Option<V>] = if needed <= INLINE {
            inline.get_mut(..needed).unwrap_or_default()
        } else {
            heap = vec![None; needed];
            &mut heap
        };
        let (by_name, by_atom) = buffer.split_at_mut(slot_count);

        let mut has_extra = false;
        for (key, item) in value.map_entries() {
            has_extra |= !Self::note_key(rules, key, item, by_name, by_atom);
        }

        for required in &rules.required {
            if by_name.get(required.slot).copied().flatten().is_none() {
                self.report(|| ArgumentError::MissingRequired {
                    path: path.render(),
                    property: required.name.clone(),
                })?;
            }
        }
        if !rules.dependent.is_empty() {
            self.check_dependent(rules, by_name, path)?;
        }

        for (index, property) in rules.properties.iter().enumerate() {
            let by_own_atom = match property.atom {
                Some(_) => by_atom.get(index).copied().flatten(),
                None => None,
            };
            let found = by_own_atom.or_else(|| by_name.get(property.slot).copied().flatten());
            if let Some(item) = found {
                let item_path = path.child(GatewaySegment::Property(&property.name));
                self.check_id(property.schema, item, &item_path, depth + 1)?;
            }
        }

        if has_extra {
            self.check_additional(rules, value, path, depth)?;
        }
        if let Some(names) = rules.property_names {
            self.check_property_names(names, value, path, depth)?;
        }
        Ok(())
    }

    /// `dependentRequired`: for each name present (as a binary key), the
    /// names it requires, in list order.
    #[inline(never)]
    fn check_dependent(
        self,
        rules: &ObjectRules,
        by_name: &[Option<V>],
        path: &gateway_walk::Path<'_, V>,
    ) -> Check<V> {
        for dependent in &rules.dependent {
            if by_name.get(dependent.slot).copied().flatten().is_none() {
                continue;
            }
            for required in &dependent.required {
                if by_name.get(required.slot).copied().flatten().is_none() {
                    self.report(|| ArgumentError::MissingRequired {
                        path: path.render(),
                        property: required.name.clone(),
                    })?;
                }
            }
        }
        Ok(())
    }

    /// `propertyNames`: each key of the map (in its order), as a string,
    /// against the schema. A key that fails is reported as written; an
    /// aborting failure inside (a pattern's work limit) ends the walk at
    /// the map's path.
    #[inline(never)]
    fn check_property_names(
        self,
        names: gateway::NodeId,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let schema = self.node(names, path)?;
        for (key, _) in value.map_entries() {
            let owned;
            let name: &[u8] = match key.shape() {
                Shape::Binary(bytes) => bytes,
                Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                    owned = key.atom_name().unwrap_or_default();
                    owned.as_bytes()
                }
                Shape::Number(Number::Int(n)) => {
                    owned = n.to_string();
                    owned.as_bytes()
                }
                Shape::Number(Number::Big(n)) => {
                    owned = n.to_string();
                    owned.as_bytes()
                }
                _ => return Err(Self::abort(ArgumentError::KeyNotString { path: path.render() })),
            };
            let probe: gateway_walk::Walk<'_, Text<'_>> = gateway_walk::Walk {
                mode: GatewayMode::Probe,
                budget: self.budget,
                nodes: self.nodes,
            };
            let key_path = gateway_walk::root_path();
            match probe.check_frame(schema, Text(name), &key_path, depth + 1) {
                Ok(()) => {}
                Err(Failure::OverBudget) => return Err(Failure::OverBudget),
                Err(Failure::Error(error)) if error.is_aborting() => {
                    return Err(Self::abort(error.at(path.render())));
                }
                Err(_) => self.report(|| ArgumentError::PropertyNameNotAllowed {
                    path: path.render(),
                    key,
                })?,
            }
        }
        Ok(())
    }

    /// The keys no property names, in argument order, against
    /// `additionalProperties`.
    fn check_additional(
        self,
        rules: &ObjectRules,
        value: V,
        path: &gateway_walk::Path<'_, V>,
        depth: usize,
    ) -> Check<V> {
        let extras = value
            .map_entries()
            .filter(|(key, _)| !Self::is_named(rules, *key));
        match &rules.additional {
            Additional::Allow => Ok(()),
            Additional::Deny => {
                // A first-error walk stops at the first; an all-errors walk
                // lists them all.
                for (key, _) in extras {
                    self.report(|| ArgumentError::AdditionalNotAllowed {
                        path: path.render(),
                        key,
                    })?;
                }
                Ok(())
            }
            Additional::Schema(schema) => {
                for (key, item) in extras {
                    match key.shape() {
                        Shape::Binary(_)
                        | Shape::Atom
                        | Shape::Nil
                        | Shape::Bool(_)
                        | Shape::Number(Number::Int(_) | Number::Big(_)) => {}
                        _ => return Err(Self::abort(ArgumentError::KeyNotString { path: path.render() })),
                    }
                    let item_path = path.child(GatewaySegment::Key(key));
                    self.check_id(*schema, item, &item_path, depth + 1)?;
                }
                Ok(())
            }
        }
    }

    /// Records a key's value in its slot; returns whether the key is named
    /// by `properties` (so is not additional).
    fn note_key(
        rules: &ObjectRules,
        key: V,
        item: V,
        by_name: &mut [Option<V>],
        by_atom: &mut [Option<V>],
    ) -> bool {
        match key.shape() {
            Shape::Binary(name) => match rules.find(name) {
                Some(entry) => {
                    if let Some(cell) = by_name.get_mut(entry.slot) {
                        *cell = Some(item);
                    }
                    entry.property.is_some()
                }
                None => false,
            },
            Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                if let Some(index) = key.atom_id().and_then(|id| rules.find_atom(id)) {
                    if let Some(cell) = by_atom.get_mut(index) {
                        *cell = Some(item);
                    }
                    return true;
                }
                Self::atom_names_property(rules, key)
            }
            _ => false,
        }
    }

    fn is_named(rules: &ObjectRules, key: V) -> bool {
        match key.shape() {
            Shape::Binary(name) => rules.find(name).is_some_and(|entry| entry.property.is_some()),
            Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                key.atom_id().and_then(|id| rules.find_atom(id)).is_some()
                    || Self::atom_names_property(rules, key)
            }
            _ => false,
        }
    }

    /// An atom key whose name is a property's string form (the slow path:
    /// the atom was not written in the schema).
    fn atom_names_property(rules: &ObjectRules, key: V) -> bool {
        key.atom_name()
            .and_then(|name| rules.find(name.as_bytes()).map(|entry| entry.property.is_some()))
            .unwrap_or(false)
    }
}
