//! Objects: `properties`, `patternProperties`, `additionalProperties`,
//! `propertyNames`, `required`, `dependentRequired`, `dependentSchemas`,
//! draft 4-7 `dependencies`, `minProperties` and `maxProperties`. Keys are
//! read as text (an atom key by its name); a struct is no object, and a
//! key that is neither a string nor an atom fails the object keywords.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value as Json;

use super::{count, entry, names, Compiled, Keyword, NodeId};
use crate::pattern::Pattern;
use crate::standard::compiler::{At, Compiler};
use crate::standard::walk::{Ann, At as Checked, Path, Seg, Step, Walk};
use crate::standard::Limit;
use crate::value::{Kind, Text, Value};

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
fn sorted<T>(mut entries: Vec<(Box<str>, T)>) -> Box<[(Box<str>, T)]> {
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    entries.into_boxed_slice()
}

pub(crate) fn compile_properties<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let map = schema_map(at, "properties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for name in map.keys() {
        entries.push((Box::from(name.as_str()), c.child_named(at, "properties", name)?));
    }
    entry("properties", Keyword::Properties(sorted(entries)))
}

pub(crate) fn compile_pattern_properties<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    value: &Json,
) -> Compiled {
    let map = schema_map(at, "patternProperties", value)?;
    let mut entries = Vec::with_capacity(map.len());
    for source in map.keys() {
        let pointer =
            crate::standard::registry::pointer_join(&at.place.pointer, &["patternProperties", source]);
        let pattern = super::strings::pattern(c, pointer, source)?;
        entries.push((
            Box::from(source.as_str()),
            pattern,
            c.child_named(at, "patternProperties", source)?,
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
                crate::standard::registry::pointer_join(&at.place.pointer, &["patternProperties", source]);
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

pub(crate) fn compile_dependent_schemas<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let map = schema_map(at, "dependentSchemas", value)?;
    let mut schemas = Vec::with_capacity(map.len());
    for name in map.keys() {
        schemas.push((
            Box::from(name.as_str()),
            c.child_named(at, "dependentSchemas", name)?,
        ));
    }
    entry(
        "dependentSchemas",
        Keyword::DependentSchemas(schemas.into_boxed_slice()),
    )
}

/// Draft 4-7 `dependencies`: a list is `dependentRequired`, a schema is
/// `dependentSchemas`. Both keep the name `dependencies` in locations.
pub(crate) fn compile_dependencies<'s>(c: &mut Compiler<'s>, at: &At<'_, 's>, value: &Json) -> Compiled {
    let map = schema_map(at, "dependencies", value)?;
    let mut required = Vec::new();
    let mut schemas = Vec::new();
    for (name, dependency) in map {
        match dependency {
            Json::Array(_) => {
                required.push((Box::from(name.as_str()), names(at, "dependencies", dependency)?))
            }
            Json::Object(_) | Json::Bool(_) => {
                schemas.push((Box::from(name.as_str()), c.child_named(at, "dependencies", name)?))
            }
            _ => return Err(at.invalid("dependencies", "a map of schemas or lists of names")),
        }
    }
    // Both halves: the names as an entry of their own, then the schemas.
    if !required.is_empty() {
        c.extra.push(super::Entry {
            name: "dependencies",
            keyword: Keyword::DependentRequired(required.into_boxed_slice()),
        });
    }
    if schemas.is_empty() {
        return Ok(None);
    }
    entry(
        "dependencies",
        Keyword::DependentSchemas(schemas.into_boxed_slice()),
    )
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
fn key_text<'a, V: Value<'a>>(key: V) -> Option<Cow<'a, [u8]>> {
    if let Some(bytes) = key.bytes() {
        return Some(Cow::Borrowed(bytes));
    }
    if key.kind() == Kind::Atom {
        return key.atom_name().map(|name| Cow::Owned(name.into_bytes()));
    }
    None
}

fn find<T>(entries: &[(Box<str>, T)], key: &[u8]) -> Option<usize> {
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
            Object::Unreadable(why) => Some(self.fail(at, kp, ip, || why.to_string())),
            Object::Readable => None,
        }
    }

    pub(crate) fn check_properties<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        properties: &[(Box<str>, NodeId)],
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        mut ann: Option<&mut Ann>,
    ) -> Step {
        if let Some(step) = self.object_guard(at, instance, kp, ip) {
            return step;
        }
        let mut valid = true;
        for (i, (key, value)) in instance.map_entries().enumerate() {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, || "object has a key that is not a string".to_string());
            };
            let Some(found) = find(properties, &text) else {
                continue;
            };
            let Some((name, node)) = properties.get(found) else {
                continue;
            };
            if let Some(ann) = ann.as_deref_mut() {
                ann.mark(i);
            }
            let kp = kp.push(Seg::Name(name.as_bytes()));
            let passed = self.node(*node, value, &kp, &ip.push(Seg::Name(&text)), None)?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
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
        for (i, (key, value)) in instance.map_entries().enumerate() {
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, || "object has a key that is not a string".to_string());
            };
            let Ok(name) = std::str::from_utf8(&text) else {
                return self.fail(at, kp, ip, || {
                    "object has a key that is not valid UTF-8".to_string()
                });
            };
            for (source, pattern, node) in patterns {
                self.charge(1 + name.len() as u64 / 16)?;
                if !pattern.search(name).map_err(|_| Limit::Work)? {
                    continue;
                }
                if let Some(ann) = ann.as_deref_mut() {
                    ann.mark(i);
                }
                let kp = kp.push(Seg::Name(source.as_bytes()));
                let passed = self.node(*node, value, &kp, &ip.push(Seg::Name(&text)), None)?;
                if self.stops(passed, &mut valid) {
                    return Ok(false);
                }
            }
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
        let mut valid = true;
        for (key, value) in instance.map_entries() {
            self.charge(1)?;
            let Some(text) = key_text(key) else {
                return self.fail(at, kp, ip, || "object has a key that is not a string".to_string());
            };
            if has_name(names, &text) {
                continue;
            }
            if !patterns.is_empty() {
                let Ok(name) = std::str::from_utf8(&text) else {
                    return self.fail(at, kp, ip, || {
                        "object has a key that is not valid UTF-8".to_string()
                    });
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
                return self.fail(at, kp, ip, || "object has a key that is not a string".to_string());
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
            Err(why) => return self.fail(at, kp, ip, || why.to_string()),
        };
        let mut valid = true;
        for (i, name) in names.iter().enumerate() {
            self.charge(1)?;
            if !present.has(i, name) {
                let passed = self.fail(at, kp, ip, || format!("required property {name:?} is missing"))?;
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
            Err(why) => return self.fail(at, kp, ip, || why.to_string()),
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
                    let passed = self.fail(at, kp, ip, || {
                        format!("property {name:?} is required when {present:?} is present")
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
            let kp = kp.push(Seg::Name(present.as_bytes()));
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
        self.fail(at, kp, ip, || {
            if minimum {
                format!("object has fewer than {limit} properties")
            } else {
                format!("object has more than {limit} properties")
            }
        })
    }
}
