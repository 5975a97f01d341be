//! `$ref`: a JSON Pointer into the same document (`#`, `#/$defs/node`,
//! `#/properties/tree/items`), `~0`/`~1` escapes and percent-encoding
//! decoded. A reference is checked where its key sits in the check order:
//! it must lead, through positions that hold subschemas, to a map or a
//! boolean; anything else (a remote or relative URI, an `$anchor` name, a
//! pointer to nothing or into a non-schema value) is an unsupported `$ref`.
//! Once every node exists, each reference is linked to the node compiled at
//! the location it names: compiled once, shared by every reference to it.

use std::collections::HashMap;

use super::{push_token, Compiled, NodeId, SchemaFailure, SchemaPath, Stop};
use crate::error::SchemaError;
use crate::value::{Shape, Value};

/// A `$ref` met by the compiler, linked once every node exists.
#[derive(Debug)]
pub(super) struct Pending<V> {
    /// The node holding the `$ref`.
    pub node: NodeId,
    /// The location it names, as the compiler renders locations.
    target: String,
    /// The `$ref` key as written, for an error.
    key: V,
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
    let mut out = String::with_capacity(tokens.iter().map(|t| t.len() + 1).sum());
    for token in tokens {
        push_token(&mut out, token);
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

/// A map or list met by a pointer, indexed once for every later pointer
/// through it, so that resolving many references costs what reading the
/// document once does (a chain of a thousand references into a `$defs` of
/// a thousand entries is linear, not quadratic).
#[derive(Debug)]
pub(super) enum Index<V> {
    /// A map's values by key name (an atom key wins over a binary one).
    Names(HashMap<Box<[u8]>, V>),
    Items(Vec<V>),
}

/// Indexes by the location of the map or list they index.
pub(super) type Indexes<V> = HashMap<String, Index<V>>;

/// The location a `$ref` value names, as the compiler renders locations,
/// when it is a subschema of the document being compiled.
pub(super) fn resolve_target<'a, V: Value<'a>>(
    reference: V,
    path: &SchemaPath<'_, V>,
) -> Compiled<Option<String>, V> {
    let Shape::Binary(text) = reference.shape() else {
        return Ok(None);
    };
    let Some(tokens) = tokens(text) else {
        return Ok(None);
    };
    let found = resolve(path.cx.root, &tokens, path)?;
    Ok(found
        .filter(|v| matches!(v.shape(), Shape::Map | Shape::Bool(_)))
        .map(|_| render(&tokens)))
}

/// Follows tokens from the root through positions that hold subschemas.
fn resolve<'a, V: Value<'a>>(root: V, tokens: &[String], path: &SchemaPath<'_, V>) -> Compiled<Option<V>, V> {
    let mut at = root;
    let mut prefix = String::new();
    let mut rest = tokens;
    while let [keyword, tail @ ..] = rest {
        let Some(kind) = holds(keyword) else {
            return Ok(None);
        };
        // `additional_properties` is a schema only when neither form of
        // `additionalProperties` is written (as the compiler reads it).
        if keyword == "additional_properties" && member(at, &prefix, "additionalProperties", path)?.is_some()
        {
            return Ok(None);
        }
        let Some(value) = member(at, &prefix, keyword, path)? else {
            return Ok(None);
        };
        push_token(&mut prefix, keyword);
        let listed = matches!(kind, Holds::Listed) || (keyword == "items" && value.shape() == Shape::List);
        let (next, tail) = match (kind, tail) {
            (Holds::Named, [name, tail @ ..]) => {
                let next = member(value, &prefix, name, path)?;
                push_token(&mut prefix, name);
                (next, tail)
            }
            (_, [index, tail @ ..]) if listed => {
                let next = element(value, &prefix, index, path)?;
                push_token(&mut prefix, index);
                (next, tail)
            }
            (Holds::One, tail) if !listed => (Some(value), tail),
            _ => return Ok(None),
        };
        let Some(next) = next else {
            return Ok(None);
        };
        at = next;
        rest = tail;
    }
    Ok(Some(at))
}

/// The value under a name in a map (the map at `location`): from its index,
/// built on first use. Not a map: nothing.
fn member<'a, V: Value<'a>>(
    map: V,
    location: &str,
    name: &str,
    path: &SchemaPath<'_, V>,
) -> Compiled<Option<V>, V> {
    if map.shape() != Shape::Map {
        return Ok(None);
    }
    let mut indexes = path.cx.indexes.borrow_mut();
    let indexes = indexes.get_or_insert_with(HashMap::new);
    if !indexes.contains_key(location) {
        path.charge(map.map_len() as u64)?;
        let mut names: HashMap<Box<[u8]>, V> = HashMap::with_capacity(map.map_len());
        for (key, value) in map.map_entries() {
            match key.shape() {
                Shape::Binary(bytes) => {
                    names.entry(bytes.into()).or_insert(value);
                }
                Shape::Atom | Shape::Nil | Shape::Bool(_) => {
                    if let Some(atom) = key.atom_name() {
                        names.insert(atom.into_bytes().into_boxed_slice(), value);
                    }
                }
                _ => {}
            }
        }
        indexes.insert(location.to_string(), Index::Names(names));
    }
    Ok(match indexes.get(location) {
        Some(Index::Names(names)) => names.get(name.as_bytes()).copied(),
        _ => None,
    })
}

/// A proper list's element at a decimal index (no sign, no leading zero),
/// from the list's index, built on first use.
fn element<'a, V: Value<'a>>(
    list: V,
    location: &str,
    index: &str,
    path: &SchemaPath<'_, V>,
) -> Compiled<Option<V>, V> {
    let canonical = index == "0" || (!index.starts_with('0') && index.bytes().all(|b| b.is_ascii_digit()));
    let Some(index) = index.parse::<usize>().ok().filter(|_| canonical) else {
        return Ok(None);
    };
    if list.shape() != Shape::List || list.list_len().is_none() {
        return Ok(None);
    }
    let mut indexes = path.cx.indexes.borrow_mut();
    let indexes = indexes.get_or_insert_with(HashMap::new);
    if !indexes.contains_key(location) {
        path.charge(list.list_len().unwrap_or(0) as u64)?;
        indexes.insert(location.to_string(), Index::Items(list.list_items().collect()));
    }
    Ok(match indexes.get(location) {
        Some(Index::Items(items)) => items.get(index).copied(),
        _ => None,
    })
}

/// Notes the `$ref` of a node just added (its target resolved when its key
/// was read, and pushed then); `path` is the `$ref` keyword's location.
pub(super) fn note<'a, V: Value<'a>>(
    reference: V,
    node: NodeId,
    path: &SchemaPath<'_, V>,
) -> Compiled<(), V> {
    let Some((target, key)) = path.cx.targets.borrow_mut().pop() else {
        // Pushed when the key was read; should it be missing, refuse.
        return Err(path.fail(SchemaError::UnsupportedKeyword(reference)));
    };
    path.cx.refs.borrow_mut().push(Pending { node, target, key });
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
                pointer: at(&located, reference.node),
            }));
        };
        node.reference = Some(target);
        node.settle();
    }
    Ok(())
}

/// Where a node was compiled, as a JSON Pointer (found by a scan of the
/// recorded locations: only an error needs it).
pub(super) fn location(located: &HashMap<String, NodeId>, node: NodeId) -> String {
    located
        .iter()
        .filter(|(_, id)| **id == node)
        .map(|(pointer, _)| pointer)
        .min()
        .cloned()
        .unwrap_or_default()
}

/// Where a node's `$ref` sits, as a JSON Pointer.
pub(super) fn at(located: &HashMap<String, NodeId>, node: NodeId) -> String {
    format!("{}/$ref", location(located, node))
}
