//! `$ref`: a JSON Pointer into the same document (`#`, `#/$defs/node`,
//! `#/properties/tree/items`), `~0`/`~1` escapes and percent-encoding
//! decoded. A reference is checked where its key sits in the check order:
//! it must lead, through positions that hold subschemas, to a map or a
//! boolean; anything else (a remote or relative URI, an `$anchor` name, a
//! pointer to nothing or into a non-schema value) is an unsupported `$ref`.
//! Once every node exists, each reference is linked to the node compiled at
//! the location it names: compiled once, shared by every reference to it.

use super::{Compiled, NodeId, SchemaFailure, SchemaPath, Stop};
use crate::error::SchemaError;
use crate::value::{Shape, Value};

/// A `$ref` met by the compiler, linked once every node exists.
#[derive(Debug)]
pub(super) struct Pending<V> {
    /// The node holding the `$ref`.
    pub node: NodeId,
    /// The location it names, as the compiler renders locations.
    target: String,
    /// The `$ref` key as written, and where it sits, for an error.
    key: V,
    at: String,
}

/// The tokens of a same-document reference, decoded; `None` for any other
/// reference.
fn tokens(reference: &[u8]) -> Option<Vec<String>> {
    let fragment = percent_decode(reference.strip_prefix(b"#")?)?;
    let fragment = String::from_utf8(fragment).ok()?;
    if fragment.is_empty() {
        return Some(Vec::new());
    }
    fragment.strip_prefix('/')?.split('/').map(unescape).collect()
}

/// `%XX` to the byte it encodes; a `%` without two hex digits is malformed.
fn percent_decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.iter();
    while let Some(&byte) = bytes.next() {
        if byte == b'%' {
            let high = (*bytes.next()? as char).to_digit(16)?;
            let low = (*bytes.next()? as char).to_digit(16)?;
            out.push(u8::try_from(high * 16 + low).ok()?);
        } else {
            out.push(byte);
        }
    }
    Some(out)
}

/// RFC 6901: `~1` is `/`, `~0` is `~`, and `~` is followed by nothing else.
fn unescape(token: &str) -> Option<String> {
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next()? {
                '0' => out.push('~'),
                '1' => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// A location as the compiler renders it (`SchemaPath::pointer`).
fn render(tokens: &[String]) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push('/');
        out.push_str(&token.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// What a keyword of a schema map holds, for a pointer walking through it.
enum Holds {
    /// A map of named schemas: `properties`, `$defs`, `definitions`.
    Named,
    /// A list of schemas: `anyOf`, `oneOf`, `allOf`, `prefixItems`.
    Listed,
    /// One schema, or (`items`) a list of schemas.
    One,
}

fn holds(token: &str) -> Option<Holds> {
    Some(match token {
        "properties" | "$defs" | "definitions" => Holds::Named,
        "anyOf" | "oneOf" | "allOf" | "prefixItems" => Holds::Listed,
        "items"
        | "additionalItems"
        | "additionalProperties"
        | "additional_properties"
        | "not"
        | "propertyNames" => Holds::One,
        _ => return None,
    })
}

/// Whether a `$ref` value names a subschema of the document being compiled.
pub(super) fn resolves<'a, V: Value<'a>>(reference: V, path: &SchemaPath<'_, V>) -> Compiled<bool, V> {
    let Shape::Binary(text) = reference.shape() else {
        return Ok(false);
    };
    let Some(tokens) = tokens(text) else {
        return Ok(false);
    };
    Ok(resolve(path.cx.root, &tokens, path)?
        .is_some_and(|v| matches!(v.shape(), Shape::Map | Shape::Bool(_))))
}

/// Follows tokens from the root through positions that hold subschemas.
fn resolve<'a, V: Value<'a>>(root: V, tokens: &[String], path: &SchemaPath<'_, V>) -> Compiled<Option<V>, V> {
    let mut at = root;
    let mut rest = tokens;
    while let [keyword, tail @ ..] = rest {
        if at.shape() != Shape::Map {
            return Ok(None);
        }
        let Some(kind) = holds(keyword) else {
            return Ok(None);
        };
        // `additional_properties` is a schema only when neither form of
        // `additionalProperties` is written (as the compiler reads it).
        if keyword == "additional_properties" && member(at, "additionalProperties", path)?.is_some() {
            return Ok(None);
        }
        let Some(value) = member(at, keyword, path)? else {
            return Ok(None);
        };
        let listed = matches!(kind, Holds::Listed) || (keyword == "items" && value.shape() == Shape::List);
        (at, rest) = match (kind, tail) {
            (Holds::Named, [name, tail @ ..]) if value.shape() == Shape::Map => {
                match member(value, name, path)? {
                    Some(schema) => (schema, tail),
                    None => return Ok(None),
                }
            }
            (_, [index, tail @ ..]) if listed => match element(value, index, path)? {
                Some(schema) => (schema, tail),
                None => return Ok(None),
            },
            (Holds::One, tail) if !listed => (value, tail),
            _ => return Ok(None),
        };
    }
    Ok(Some(at))
}

/// A map's value under a key written as an atom (which wins, as for
/// keywords) or a binary.
fn member<'a, V: Value<'a>>(map: V, name: &str, path: &SchemaPath<'_, V>) -> Compiled<Option<V>, V> {
    path.charge(map.map_len() as u64)?;
    let mut found = None;
    for (key, value) in map.map_entries() {
        match key.shape() {
            Shape::Binary(bytes) if bytes == name.as_bytes() => found = found.or(Some(value)),
            Shape::Atom | Shape::Nil | Shape::Bool(_) if key.atom_name().as_deref() == Some(name) => {
                return Ok(Some(value));
            }
            _ => {}
        }
    }
    Ok(found)
}

/// A proper list's element at a decimal index (no sign, no leading zero).
fn element<'a, V: Value<'a>>(list: V, index: &str, path: &SchemaPath<'_, V>) -> Compiled<Option<V>, V> {
    let canonical = index == "0" || (!index.starts_with('0') && index.bytes().all(|b| b.is_ascii_digit()));
    let Some(index) = index.parse::<usize>().ok().filter(|_| canonical) else {
        return Ok(None);
    };
    if list.list_len().is_none_or(|len| index >= len) {
        return Ok(None);
    }
    path.charge(index as u64 / 8 + 1)?;
    Ok(list.list_items().nth(index))
}

/// Notes the `$ref` of a node just added (its value resolved when its key
/// was read); `path` is the `$ref` keyword's location.
pub(super) fn note<'a, V: Value<'a>>(
    schema: V,
    reference: V,
    node: NodeId,
    path: &SchemaPath<'_, V>,
) -> Compiled<(), V> {
    let target = reference.bytes().and_then(tokens).map(|t| render(&t));
    let key = schema
        .map_entries()
        .map(|(key, _)| key)
        .find(|key| match key.shape() {
            Shape::Binary(name) => name == b"$ref",
            Shape::Atom => key.atom_name().as_deref() == Some("$ref"),
            _ => false,
        });
    let (Some(target), Some(key)) = (target, key) else {
        return Err(path.fail(SchemaError::UnsupportedKeyword(reference)));
    };
    path.cx.refs.borrow_mut().push(Pending {
        node,
        target,
        key,
        at: path.pointer(),
    });
    Ok(())
}

/// Links every `$ref` to the node compiled at the location it names.
pub(super) fn link<'a, V: Value<'a>>(pending: &[Pending<V>], path: &SchemaPath<'_, V>) -> Compiled<(), V> {
    let Some(located) = &path.cx.located else {
        return Err(Stop::Restart);
    };
    let located = located.borrow();
    let mut nodes = path.cx.nodes.borrow_mut();
    for reference in pending {
        let target = located.get(&reference.target).copied();
        let node = nodes.get_mut(reference.node.index());
        let (Some(target), Some(node)) = (target, node) else {
            // Resolved when its key was read, so located: should it not be,
            // refuse the schema.
            return Err(Stop::Failure(SchemaFailure {
                error: SchemaError::UnsupportedKeyword(reference.key),
                pointer: reference.at.clone(),
            }));
        };
        node.reference = Some(target);
        node.settle();
    }
    Ok(())
}

impl<V> Pending<V> {
    /// Where the `$ref` sits, as a JSON Pointer.
    pub(super) fn at(&self) -> &str {
        &self.at
    }
}
