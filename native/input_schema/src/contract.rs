//! The NIFs of `Backplane.AgentRuntime.InputSchema` under `contract:
//! :draft2020_12`: the runtime's Draft 2020-12 boundary, as a profile over
//! the standard engine (`input_schema_core::profile::draft2020_12`). This
//! module reads the terms (normalising a schema as the contract says), runs
//! the contract's checks in its order around the standard compile, and
//! answers `%Backplane.AgentRuntime.Error{}` terms. Each NIF has an inline
//! half, within a fixed work budget, that answers `:dirty` when the call
//! needs more, and a `_dirty` twin that does the whole call on a dirty CPU
//! scheduler behind the Elixir side's gate.
//!
//! The checks, in order (docs/behaviour.md, "The Draft 2020-12 contract"):
//! the arguments' limits; the schema a map; normalisation; the schema's
//! limits; its dialect; an object root; the 2020-12 metaschema; the
//! registry or loader and the external documents; the compile; references
//! that resolve nowhere; then the arguments.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

use rustler::types::atom;
use rustler::{Atom, Encoder, Env, Term, TermType};
use serde_json::{Map, Number as JsonNumber, Value as Json};

use crate::cache::{self, Caller, Found, StandardKey};
use crate::resource;
use crate::term::{self, binary, details_map, error_struct, BeamTerm};
use input_schema_core::budget::Budget;
use input_schema_core::error::Class;
use input_schema_core::json::JsonRef;
use input_schema_core::profile::draft2020_12::{self as profile, Limit as ProfileLimit, Of};
use input_schema_core::standard::documents::{self, Reference};
use input_schema_core::standard::{
    CompileError, Constraint, ContentMode, Dialect, FormatMode, Limit, MetaschemaFailure, Options, Report,
    Validator, COMPILE_BUDGET, MAX_WALK_DEPTH, WALK_BUDGET,
};
use input_schema_core::value::{Kind, Shape, Value};

mod atoms {
    rustler::atoms! {
        dirty,
        dirty_validate,
        foreign,
        load,
        invalid_document,
        registry,
        loader,
        both,
        wrong_type,
        none,
        panic,
        path,
        key,
        limit,
        maximum,
        minimum,
        schema,
        supported,
        reference,
        reason,
        errors,
        rule,
        message,
        property,
        pattern,
        vocabulary,
        error,
        work,
        depth,
        compile_work,
        exclusive_minimum = "exclusiveMinimum",
        exclusive_maximum = "exclusiveMaximum",
        type_ = "type",
    }
}

/// The rule atoms of `details.errors`: every keyword a failure can name,
/// made when the library loads, so that no call creates an atom.
mod rules {
    rustler::atoms! {
        additional_items = "additionalItems",
        additional_properties = "additionalProperties",
        all_of = "allOf",
        any_of = "anyOf",
        const_ = "const",
        contains,
        content_encoding = "contentEncoding",
        content_media_type = "contentMediaType",
        content_schema = "contentSchema",
        dependencies,
        dependent_required = "dependentRequired",
        dependent_schemas = "dependentSchemas",
        else_ = "else",
        enum_ = "enum",
        exclusive_maximum = "exclusiveMaximum",
        exclusive_minimum = "exclusiveMinimum",
        false_schema,
        format,
        if_ = "if",
        items,
        max_contains = "maxContains",
        max_items = "maxItems",
        max_length = "maxLength",
        max_properties = "maxProperties",
        maximum,
        min_contains = "minContains",
        min_items = "minItems",
        min_length = "minLength",
        min_properties = "minProperties",
        minimum,
        multiple_of = "multipleOf",
        not,
        one_of = "oneOf",
        pattern,
        pattern_properties = "patternProperties",
        prefix_items = "prefixItems",
        properties,
        property_names = "propertyNames",
        required,
        schema,
        then,
        type_ = "type",
        unevaluated_items = "unevaluatedItems",
        unevaluated_properties = "unevaluatedProperties",
        unique_items = "uniqueItems",
    }
}

/// The rule atom of a failing keyword; a keyword outside the table (none
/// is) is reported as `:schema`.
fn rule(keyword: &str) -> Atom {
    match keyword {
        "additionalItems" => rules::additional_items(),
        "additionalProperties" => rules::additional_properties(),
        "allOf" => rules::all_of(),
        "anyOf" => rules::any_of(),
        "const" => rules::const_(),
        "contains" => rules::contains(),
        "contentEncoding" => rules::content_encoding(),
        "contentMediaType" => rules::content_media_type(),
        "contentSchema" => rules::content_schema(),
        "dependencies" => rules::dependencies(),
        "dependentRequired" => rules::dependent_required(),
        "dependentSchemas" => rules::dependent_schemas(),
        "else" => rules::else_(),
        "enum" => rules::enum_(),
        "exclusiveMaximum" => rules::exclusive_maximum(),
        "exclusiveMinimum" => rules::exclusive_minimum(),
        "false" => rules::false_schema(),
        "format" => rules::format(),
        "if" => rules::if_(),
        "items" => rules::items(),
        "maxContains" => rules::max_contains(),
        "maxItems" => rules::max_items(),
        "maxLength" => rules::max_length(),
        "maxProperties" => rules::max_properties(),
        "maximum" => rules::maximum(),
        "minContains" => rules::min_contains(),
        "minItems" => rules::min_items(),
        "minLength" => rules::min_length(),
        "minProperties" => rules::min_properties(),
        "minimum" => rules::minimum(),
        "multipleOf" => rules::multiple_of(),
        "not" => rules::not(),
        "oneOf" => rules::one_of(),
        "pattern" => rules::pattern(),
        "patternProperties" => rules::pattern_properties(),
        "prefixItems" => rules::prefix_items(),
        "properties" => rules::properties(),
        "propertyNames" => rules::property_names(),
        "required" => rules::required(),
        "then" => rules::then(),
        "type" => rules::type_(),
        "unevaluatedItems" => rules::unevaluated_items(),
        "unevaluatedProperties" => rules::unevaluated_properties(),
        "uniqueItems" => rules::unique_items(),
        _ => rules::schema(),
    }
}

/// Deepest schema term read (the standard entry point's reading depth):
/// past it the rest is not read, and the schema is refused as too deep
/// (it is past the contract's 128 levels in any case).
const MAX_TERM_DEPTH: usize = 2 * input_schema_core::standard::MAX_SCHEMA_DEPTH + 130;

/// Most terms a schema and its documents may have when read on a dirty
/// scheduler (the standard entry point's reading bound).
const MAX_SCHEMA_TERMS: u64 = 4_000_000;

/// Units a term read costs (as the standard entry point's reading).
const TERM_UNITS: u64 = 4;

/// Work units a call may spend on the calling scheduler reading and
/// compiling a schema (the standard entry point's compile budget inline),
/// and walking the arguments (its walk's).
const COMPILE_INLINE_BUDGET: u64 = 1_500;
const WALK_INLINE_BUDGET: u64 = 2_000;

/// Most external documents one compile may load: the contract's reference
/// limit (each document is named by a reference).
const MAX_DOCUMENTS: usize = profile::MAX_REFERENCES;

const DRAFT2020_12: &str = profile::DIALECT;

/// What a call stops with short of a compiled schema: an answer for the
/// caller, or the inline budget spent (the dirty twin does it all).
enum Stop<'a> {
    Answer(Term<'a>),
    Dirty,
}

fn answer<'a>(env: Env<'a>, error: Term<'a>) -> Stop<'a> {
    Stop::Answer((atom::error(), error).encode(env))
}

/// The contract's own errors.
fn validation<'a>(env: Env<'a>, message: &str, details: &[(Atom, Term<'a>)]) -> Stop<'a> {
    answer(env, error_struct(env, Class::Validation, message, details))
}

fn resource_limit<'a>(env: Env<'a>, limit: Atom, maximum: u64) -> Term<'a> {
    error_struct(
        env,
        Class::ExecutionFailure,
        "JSON Schema resource limit exceeded",
        &[
            (atoms::limit(), limit.encode(env)),
            (atoms::maximum(), maximum.encode(env)),
        ],
    )
}

fn profile_limit<'a>(env: Env<'a>, limit: ProfileLimit) -> Stop<'a> {
    answer(env, resource_limit(env, limit_atom(limit), limit.maximum()))
}

fn limit_atom(limit: ProfileLimit) -> Atom {
    match limit {
        ProfileLimit::SchemaBytes => limits::schema_bytes(),
        ProfileLimit::SchemaDepth => limits::schema_depth(),
        ProfileLimit::SchemaNodes => limits::schema_nodes(),
        ProfileLimit::References => limits::references(),
        ProfileLimit::InputDepth => limits::input_depth(),
        ProfileLimit::InputNodes => limits::input_nodes(),
    }
}

mod limits {
    rustler::atoms! { schema_bytes, schema_depth, schema_nodes, references, input_depth, input_nodes }
}

/// How the caller lets external documents in: nothing, a registry (a map
/// from URI to schema, read here), a loader (the documents it has loaded
/// so far, a map from what it was asked to the answer), or options the
/// contract refuses at its step for them.
enum Documents<'a> {
    None,
    Registry(Term<'a>),
    Loader(Term<'a>),
    Both,
    WrongType,
}

fn documents_of(term: Term<'_>) -> Option<Documents<'_>> {
    if let Ok(name) = term.decode::<Atom>() {
        return Some(if name == atoms::none() {
            Documents::None
        } else if name == atoms::both() {
            Documents::Both
        } else if name == atoms::wrong_type() {
            Documents::WrongType
        } else {
            return None;
        });
    }
    let (tag, map) = term.decode::<(Atom, Term<'_>)>().ok()?;
    if map.get_type() != TermType::Map {
        return None;
    }
    if tag == atoms::registry() {
        Some(Documents::Registry(map))
    } else if tag == atoms::loader() {
        Some(Documents::Loader(map))
    } else {
        None
    }
}

/// The compile options a call gives: `{format_assertion, content_assertion}`.
#[derive(Clone, Copy)]
struct Assertions {
    formats: FormatMode,
    content: bool,
}

fn assertions_of(term: Term<'_>) -> Option<Assertions> {
    let (formats, content) = term.decode::<(bool, bool)>().ok()?;
    Some(Assertions {
        formats: if formats {
            FormatMode::Assert
        } else {
            FormatMode::Annotate
        },
        content,
    })
}

// ------------------------------------------------------------ normalising

/// Why a term is not a schema the contract takes (its step 5).
enum Malformed<'a> {
    /// A struct, or a term that is no JSON value: the keys down to it,
    /// innermost first.
    NotJson(Vec<Term<'a>>),
    /// A map key that is neither a binary nor an atom.
    Key(Term<'a>),
    /// Two keys of one map equal as names: the keys down to that map.
    Duplicate(Vec<Term<'a>>),
}

enum ReadStop<'a> {
    Malformed(Malformed<'a>),
    Budget,
}

/// Reads a schema term into JSON as the contract normalises it: atom keys
/// read as their names; an atom value only where it is (or is in a list
/// that is) the value of a `type` key, read as its name; a map's
/// `additional_properties` read as `additionalProperties` unless that is
/// present (a `nil` one dropped). Every term is charged to the budget; a
/// term nested past [`MAX_TERM_DEPTH`] is read as `null` and the reading
/// notes it (the schema is then past the depth limit).
struct Normaliser<'a, 'b> {
    budget: &'b Budget,
    /// The keys down to the term being read (map keys only).
    keys: Vec<Term<'a>>,
    depth: usize,
    cut: bool,
}

impl<'a> Normaliser<'a, '_> {
    fn read(&mut self, term: Term<'a>, under_type: bool) -> Result<Json, ReadStop<'a>> {
        self.budget.charge(TERM_UNITS).map_err(|_| ReadStop::Budget)?;
        if self.depth >= MAX_TERM_DEPTH {
            self.cut = true;
            return Ok(Json::Null);
        }
        let value = BeamTerm(term);
        Ok(match term.get_type() {
            TermType::Atom => match value.shape() {
                Shape::Nil => Json::Null,
                Shape::Bool(b) => Json::Bool(b),
                _ if under_type => Json::String(term.atom_to_string().map_err(|_| self.not_json())?),
                _ => return Err(self.not_json()),
            },
            TermType::Binary => Json::String(self.text(term)?),
            TermType::Integer => match term.decode::<i64>() {
                Ok(n) => Json::Number(n.into()),
                Err(_) => {
                    let big: num_bigint::BigInt = term.decode().map_err(|_| self.not_json())?;
                    Json::Number(
                        big.to_string()
                            .parse::<JsonNumber>()
                            .map_err(|_| self.not_json())?,
                    )
                }
            },
            TermType::Float => {
                let f: f64 = term.decode().map_err(|_| self.not_json())?;
                Json::Number(JsonNumber::from_f64(f).ok_or_else(|| self.not_json())?)
            }
            TermType::List => input_schema_core::stack::deep(|| self.list(term, under_type))?,
            TermType::Map => input_schema_core::stack::deep(|| self.map(term))?,
            _ => return Err(self.not_json()),
        })
    }

    fn not_json(&self) -> ReadStop<'a> {
        ReadStop::Malformed(Malformed::NotJson(self.keys.iter().rev().copied().collect()))
    }

    fn list(&mut self, term: Term<'a>, under_type: bool) -> Result<Json, ReadStop<'a>> {
        let mut items = Vec::new();
        let mut tail = term;
        self.depth += 1;
        while let Ok((head, rest)) = tail.list_get_cell() {
            items.push(self.read(head, under_type)?);
            tail = rest;
        }
        self.depth -= 1;
        if !tail.is_empty_list() {
            return Err(self.not_json());
        }
        Ok(Json::Array(items))
    }

    fn map(&mut self, term: Term<'a>) -> Result<Json, ReadStop<'a>> {
        let value = BeamTerm(term);
        if value.is_struct() {
            return Err(self.not_json());
        }
        let mut map = Map::new();
        self.depth += 1;
        for (key, child) in value.map_entries() {
            let (key, child) = (key.0, child.0);
            let name = match key.get_type() {
                TermType::Atom => key.atom_to_string().ok(),
                TermType::Binary => BeamTerm(key)
                    .bytes()
                    .and_then(|bytes| std::str::from_utf8(bytes).ok())
                    .map(str::to_string),
                _ => None,
            };
            let Some(name) = name else {
                return Err(ReadStop::Malformed(Malformed::Key(key)));
            };
            self.budget
                .charge(name.len() as u64 / 64)
                .map_err(|_| ReadStop::Budget)?;
            self.keys.push(key);
            let read = self.read(child, name == "type")?;
            self.keys.pop();
            if map.contains_key(&name) {
                return Err(ReadStop::Malformed(Malformed::Duplicate(
                    self.keys.iter().rev().copied().collect(),
                )));
            }
            map.insert(name, read);
        }
        self.depth -= 1;
        if let Some(legacy) = map.remove("additional_properties") {
            if !legacy.is_null() && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".to_string(), legacy);
            }
        }
        Ok(Json::Object(map))
    }

    /// A binary's text (UTF-8), charged by its length.
    fn text(&self, term: Term<'a>) -> Result<String, ReadStop<'a>> {
        let bytes = BeamTerm(term).bytes().ok_or_else(|| self.not_json())?;
        self.budget
            .charge(bytes.len() as u64 / 64)
            .map_err(|_| ReadStop::Budget)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.not_json())
    }
}

/// A key as the name it is read as: a binary for a binary or an atom.
fn key_name<'a>(env: Env<'a>, key: Term<'a>) -> Term<'a> {
    match key.get_type() {
        TermType::Atom => binary(env, key.atom_to_string().unwrap_or_default().as_bytes()),
        _ => key,
    }
}

fn malformed<'a>(env: Env<'a>, malformed: Malformed<'a>) -> Term<'a> {
    let names = |keys: Vec<Term<'a>>| keys.into_iter().map(|k| key_name(env, k)).collect::<Vec<_>>();
    match malformed {
        Malformed::NotJson(keys) => error_struct(
            env,
            Class::Validation,
            "schema values must be JSON values",
            &[(atoms::path(), names(keys).encode(env))],
        ),
        Malformed::Key(key) => error_struct(
            env,
            Class::Validation,
            "schema object keys must be strings or atoms",
            &[(atoms::key(), key)],
        ),
        Malformed::Duplicate(keys) => error_struct(
            env,
            Class::Validation,
            "schema contains duplicate keys after normalization",
            &[(atoms::path(), names(keys).encode(env))],
        ),
    }
}

/// Steps 5 and 6 of one schema term (the schema, or a document loaded for
/// it): normalised and within the limits, or the error.
fn normalised<'a>(env: Env<'a>, term: Term<'a>, budget: &Budget) -> Result<Json, Stop<'a>> {
    let mut reader = Normaliser {
        budget,
        keys: Vec::new(),
        depth: 0,
        cut: false,
    };
    let json = match reader.read(term, false) {
        Ok(json) => json,
        Err(ReadStop::Budget) => return Err(Stop::Dirty),
        Err(ReadStop::Malformed(m)) => return Err(answer(env, malformed(env, m))),
    };
    if external_size(&json) > profile::MAX_SCHEMA_BYTES {
        return Err(profile_limit(env, ProfileLimit::SchemaBytes));
    }
    if reader.cut {
        return Err(profile_limit(env, ProfileLimit::SchemaDepth));
    }
    match profile::shape(JsonRef::from(&json), Of::Schema, budget) {
        Err(_) => return Err(Stop::Dirty),
        Ok(Some(limit)) => return Err(profile_limit(env, limit)),
        Ok(None) => {}
    }
    match profile::too_many_references(&json, budget) {
        Err(_) => Err(Stop::Dirty),
        Ok(true) => Err(profile_limit(env, ProfileLimit::References)),
        Ok(false) => Ok(json),
    }
}

/// Bytes an atom costs in the external format beside its name: measured on
/// the running VM (`ATOM_EXT`, three, up to OTP 25; `SMALL_ATOM_UTF8_EXT`,
/// two, from OTP 26), once.
static ATOM_HEADER: OnceLock<u64> = OnceLock::new();

/// Measures [`ATOM_HEADER`] (when the library loads).
pub fn measure_atom_header(env: Env<'_>) {
    let encoded = atom::true_().encode(env).to_binary();
    // The version byte, the header, then the four bytes of `true`.
    let header = (encoded.len() as u64).saturating_sub(1 + 4);
    let _ = ATOM_HEADER.set(header);
}

/// `:erlang.external_size/1` of the term `json` is read as: binaries for
/// strings and keys, integers and floats, `nil`, `true` and `false` atoms,
/// lists and maps (a list of small integers is a string in that format).
fn external_size(json: &Json) -> u64 {
    let atom_header = *ATOM_HEADER.get().unwrap_or(&3);
    let mut size = 1u64;
    let mut pending = vec![json];
    while let Some(value) = pending.pop() {
        let own = match value {
            Json::Null => atom_header + 3,
            Json::Bool(true) => atom_header + 4,
            Json::Bool(false) => atom_header + 5,
            Json::String(text) => 5 + text.len() as u64,
            Json::Number(n) => number_size(n),
            Json::Array(items) if items.is_empty() => 1,
            Json::Array(items) if items.len() < 65_536 && items.iter().all(is_byte) => 3 + items.len() as u64,
            Json::Array(items) => {
                pending.extend(items);
                6
            }
            Json::Object(map) => {
                let mut keys = 0u64;
                for (key, value) in map {
                    keys = keys.saturating_add(5 + key.len() as u64);
                    pending.push(value);
                }
                5u64.saturating_add(keys)
            }
        };
        size = size.saturating_add(own);
    }
    size
}

fn is_byte(value: &Json) -> bool {
    matches!(value, Json::Number(n) if n.as_u64().is_some_and(|n| n <= 255) && !is_float(n))
}

fn is_float(n: &JsonNumber) -> bool {
    matches!(
        input_schema_core::json::number(n),
        Some(input_schema_core::value::Number::Float(_))
    )
}

fn number_size(n: &JsonNumber) -> u64 {
    use input_schema_core::value::Number;
    let magnitude_bytes = |bits: u64| bits.div_ceil(8).max(1);
    match input_schema_core::json::number(n) {
        Some(Number::Float(_)) | None => 9,
        Some(Number::Int(i)) if (0..=255).contains(&i) => 2,
        Some(Number::Int(i)) if i32::try_from(i).is_ok() => 5,
        Some(Number::Int(i)) => 3 + magnitude_bytes(u64::from(64 - i.unsigned_abs().leading_zeros())),
        Some(Number::Big(big)) => {
            let bytes = magnitude_bytes(big.bits());
            if bytes <= 255 {
                3 + bytes
            } else {
                6 + bytes
            }
        }
    }
}

// ------------------------------------------------------------ JSON terms

/// A JSON value as the term the contract reports it as (details).
fn json_term<'a>(env: Env<'a>, json: &Json) -> Term<'a> {
    input_schema_core::stack::deep(|| match json {
        Json::Null => atom::nil().encode(env),
        Json::Bool(b) => b.encode(env),
        Json::String(text) => binary(env, text.as_bytes()),
        Json::Number(n) => match input_schema_core::json::number(n) {
            Some(n) => term::number(env, &n),
            None => atom::nil().encode(env),
        },
        Json::Array(items) => items
            .iter()
            .map(|i| json_term(env, i))
            .collect::<Vec<_>>()
            .encode(env),
        Json::Object(map) => {
            let keys: Vec<Term<'a>> = map.keys().map(|k| binary(env, k.as_bytes())).collect();
            let values: Vec<Term<'a>> = map.values().map(|v| json_term(env, v)).collect();
            term::map_of(env, &keys, &values).unwrap_or_else(|| Term::map_new(env))
        }
    })
}

// ------------------------------------------------------------ the schema

/// Steps 4 to 11: the schema compiled, or why not.
fn prepare<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    assertions: Assertions,
    documents: &Documents<'a>,
    read: &Budget,
    budget: &Budget,
    inline: bool,
) -> Result<Validator, Stop<'a>> {
    if schema.get_type() != TermType::Map {
        return Err(validation(env, "tool schema must be a map", &[]));
    }
    input_schema_core::stack::within(input_schema_core::stack::LIBRARY_RED_ZONE, || {
        let json = normalised(env, schema, read)?;
        if let Some(value) = profile::unsupported_dialect(&json, read).map_err(|_| Stop::Dirty)? {
            return Err(answer(
                env,
                error_struct(
                    env,
                    Class::UnsupportedCapability,
                    "JSON Schema dialect is unsupported",
                    &[
                        (atoms::schema(), json_term(env, value)),
                        (atoms::supported(), binary(env, DRAFT2020_12.as_bytes())),
                    ],
                ),
            ));
        }
        if let Some(root) = profile::non_object_root(&json) {
            return Err(answer(
                env,
                error_struct(
                    env,
                    Class::UnsupportedCapability,
                    "only object tool schemas are supported",
                    &[(atoms::type_(), json_term(env, root))],
                ),
            ));
        }
        let mut options = Options {
            dialect: Dialect::Draft2020_12,
            resources: Vec::new(),
            formats: assertions.formats,
            content: if assertions.content {
                ContentMode::Assert
            } else {
                ContentMode::Annotate
            },
        };
        match Validator::check_metaschema(&json, &options, budget, inline) {
            Ok(()) => {}
            Err(CompileError::Metaschema { failures, .. }) => {
                return Err(answer(env, metaschema_failures(env, &json, &failures)))
            }
            Err(error) => return Err(compile_stop(env, &json, error, inline)),
        }
        match documents {
            Documents::Both => {
                return Err(validation(
                    env,
                    "provide either schema_registry or schema_loader, not both",
                    &[],
                ))
            }
            Documents::WrongType => {
                return Err(validation(
                    env,
                    "schema_registry must be a map and schema_loader must be a function",
                    &[],
                ))
            }
            _ => {}
        }
        let references = load(env, &json, &mut options, documents, read, budget, inline)?;
        let (validator, dangling) = match Validator::compile_past_dangling(&json, &options, budget, inline) {
            Ok(compiled) => compiled,
            Err(error) => return Err(compile_stop(env, &json, error, inline)),
        };
        let unresolved = references
            .iter()
            .find(|r| !r.resolves)
            .map(|r| r.written.clone())
            .or_else(|| {
                dangling
                    .as_ref()
                    .and_then(|error| written_reference(&json, &options, error))
            });
        if let Some(reference) = unresolved {
            return Err(validation(
                env,
                "schema reference could not be resolved",
                &[(atoms::reference(), binary(env, reference.as_bytes()))],
            ));
        }
        Ok(validator)
    })
}

/// The reference as written at an `UnresolvedReference`'s place.
fn written_reference(schema: &Json, options: &Options, error: &CompileError) -> Option<String> {
    let CompileError::UnresolvedReference { pointer, uri } = error else {
        return None;
    };
    let documents = std::iter::once(schema).chain(options.resources.iter().map(|(_, json)| json));
    documents
        .filter_map(|doc| doc.pointer(pointer).and_then(Json::as_str))
        .next()
        .map(str::to_string)
        .or_else(|| Some(uri.clone()))
}

/// Step 10's references: the external documents the schema needs, from
/// the registry or the documents the loader has answered so far (read and
/// normalised as the schema is), added to `options.resources` by the URI
/// each resolves to. Answers every reference of the schema and of those
/// documents, resolved, once nothing more is needed.
fn load<'a>(
    env: Env<'a>,
    schema: &Json,
    options: &mut Options,
    documents: &Documents<'a>,
    read: &Budget,
    budget: &Budget,
    inline: bool,
) -> Result<Vec<Reference>, Stop<'a>> {
    let references = |options: &Options| match documents::references(schema, options, budget) {
        Ok(references) => Ok(references),
        Err(error) => Err(compile_stop(env, schema, error, inline)),
    };
    let mut found = references(options)?;
    let given = match documents {
        Documents::Registry(map) | Documents::Loader(map) => Some(*map),
        _ => None,
    };
    let Some(given) = given else {
        return match found.iter().find(|r| profile::is_external(r)) {
            Some(external) => Err(validation(
                env,
                "external schema reference requires an explicit loader",
                &[(atoms::reference(), binary(env, external.written.as_bytes()))],
            )),
            None => Ok(found),
        };
    };
    loop {
        let mut provided: Vec<String> = options.resources.iter().map(|(uri, _)| uri.clone()).collect();
        let mut missing: Vec<Term<'a>> = Vec::new();
        let mut added = false;
        for reference in &found {
            if !profile::needs_document(reference, &provided) {
                continue;
            }
            provided.push(reference.document.clone());
            if provided.len() > MAX_DOCUMENTS {
                return Err(load_failed(env, reference, ":reference_limit_exceeded"));
            }
            let request = binary(env, reference.request.as_bytes());
            match given.map_get(request) {
                Ok(document) => {
                    let json = match loaded(env, document, read) {
                        Ok(json) => json,
                        Err(Stop::Dirty) => return Err(Stop::Dirty),
                        Err(Stop::Answer(error)) => {
                            // The Elixir side names the document in its
                            // load error.
                            let error = error.decode::<(Atom, Term<'a>)>().map_or(error, |(_, e)| e);
                            let written = binary(env, reference.written.as_bytes());
                            return Err(Stop::Answer(
                                (atoms::invalid_document(), written, error).encode(env),
                            ));
                        }
                    };
                    options.resources.push((reference.document.clone(), json));
                    added = true;
                }
                Err(_) if matches!(documents, Documents::Registry(_)) => {
                    return Err(load_failed(env, reference, ":schema_not_found"));
                }
                Err(_) => missing.push(
                    (
                        binary(env, reference.written.as_bytes()),
                        binary(env, reference.request.as_bytes()),
                    )
                        .encode(env),
                ),
            }
        }
        if !missing.is_empty() {
            return Err(Stop::Answer((atoms::load(), missing).encode(env)));
        }
        if !added {
            return Ok(found);
        }
        found = references(options)?;
    }
}

/// A document a registry or a loader gave: `true`, `false`, or a schema
/// map normalised and limited as the schema is.
fn loaded<'a>(env: Env<'a>, document: Term<'a>, read: &Budget) -> Result<Json, Stop<'a>> {
    match document.get_type() {
        TermType::Map => normalised(env, document, read),
        TermType::Atom => match BeamTerm(document).shape() {
            Shape::Bool(b) => Ok(Json::Bool(b)),
            _ => Err(validation(env, "tool schema must be a map", &[])),
        },
        _ => Err(validation(env, "tool schema must be a map", &[])),
    }
}

fn load_failed<'a>(env: Env<'a>, reference: &Reference, reason: &str) -> Stop<'a> {
    answer(
        env,
        error_struct(
            env,
            Class::ExecutionFailure,
            "external schema reference could not be loaded",
            &[
                (atoms::reference(), binary(env, reference.written.as_bytes())),
                (atoms::reason(), binary(env, reason.as_bytes())),
            ],
        ),
    )
}

/// A compile error past the metaschema, as the contract reports it.
fn compile_stop<'a>(env: Env<'a>, schema: &Json, error: CompileError, inline: bool) -> Stop<'a> {
    let details = |error: &CompileError| [(atoms::error(), binary(env, error.to_string().as_bytes()))];
    match &error {
        CompileError::CompileBudget if inline => Stop::Dirty,
        CompileError::CompileBudget => {
            answer(env, resource_limit(env, atoms::compile_work(), COMPILE_BUDGET))
        }
        CompileError::TooDeep { .. } => profile_limit(env, ProfileLimit::SchemaDepth),
        CompileError::UnknownVocabulary { uri, .. } => answer(
            env,
            error_struct(
                env,
                Class::UnsupportedCapability,
                "JSON Schema vocabulary is unsupported",
                &[(atoms::vocabulary(), binary(env, uri.as_bytes()))],
            ),
        ),
        CompileError::Pattern { pattern, reason, .. } if !CompileError::is_invalid_pattern(reason) => answer(
            env,
            error_struct(
                env,
                Class::UnsupportedCapability,
                "JSON Schema pattern is unsupported",
                &[(atoms::pattern(), binary(env, pattern.as_bytes()))],
            ),
        ),
        CompileError::Metaschema { failures, .. } => answer(env, metaschema_failures(env, schema, failures)),
        _ => validation(env, "tool schema is invalid", &details(&error)),
    }
}

// ------------------------------------------------------------ failures

/// One failure as the contract reports it.
struct Failure<'r> {
    keyword: &'static str,
    message: &'r str,
    location: &'r str,
    constraint: Option<Constraint>,
}

/// `%Error{class: :validation}` for failures, in order: the first's
/// message, `details.errors` with each one's path, rule and message (each
/// once), the
/// first's location in the gateway's form (`$arguments.a[0]`), and the
/// constraint of the first failure of each bound, of `type` and of
/// `required`. Paths are read against `instance`, which says whether a
/// step is a key or an index.
fn failures_error<'a, 'v, V: Value<'v>>(env: Env<'a>, instance: V, failures: &[Failure<'_>]) -> Term<'a> {
    let Some(first) = failures.first() else {
        return error_struct(env, Class::Validation, "tool arguments are invalid", &[]);
    };
    let mut errors = Vec::with_capacity(failures.len());
    let mut first_path = None;
    for (i, failure) in failures.iter().enumerate() {
        // A failure met again by another way through the schema (the
        // metaschema's vocabularies reach a subschema several times) says
        // nothing new in this shape: listed once.
        let seen = failures.get(..i).unwrap_or_default().iter().any(|earlier| {
            earlier.keyword == failure.keyword
                && earlier.location == failure.location
                && earlier.message == failure.message
        });
        if seen {
            continue;
        }
        let steps = path_steps(instance, failure.location);
        let path: Vec<Term<'a>> = steps
            .iter()
            .map(|step| match step {
                PathStep::Index(i) => i.encode(env),
                PathStep::Key(name) => binary(env, name.as_bytes()),
            })
            .collect();
        if first_path.is_none() {
            first_path = Some(gateway_path(&steps));
        }
        errors.push(details_map(
            env,
            &[
                (atoms::path(), path.encode(env)),
                (atoms::rule(), rule(failure.keyword).encode(env)),
                (atoms::message(), binary(env, failure.message.as_bytes())),
            ],
        ));
    }
    let mut details = vec![
        (atoms::errors(), errors.encode(env)),
        (
            atoms::path(),
            binary(env, first_path.unwrap_or_default().as_bytes()),
        ),
    ];
    for failure in failures {
        let Some(constraint) = &failure.constraint else {
            continue;
        };
        let (key, value) = match constraint {
            Constraint::Bound(n) => {
                let key = match failure.keyword {
                    "minimum" => atoms::minimum(),
                    "maximum" => atoms::maximum(),
                    "exclusiveMinimum" => atoms::exclusive_minimum(),
                    _ => atoms::exclusive_maximum(),
                };
                (key, term::number(env, n))
            }
            Constraint::Types { names, listed } => {
                let value = match (names.as_slice(), listed) {
                    ([one], false) => binary(env, one.as_bytes()),
                    _ => names
                        .iter()
                        .map(|n| binary(env, n.as_bytes()))
                        .collect::<Vec<_>>()
                        .encode(env),
                };
                (atoms::type_(), value)
            }
            Constraint::Property(name) => (atoms::property(), binary(env, name.as_bytes())),
        };
        if !details.iter().any(|(k, _)| *k == key) {
            details.push((key, value));
        }
    }
    error_struct(env, Class::Validation, first.message, &details)
}

enum PathStep {
    Key(String),
    Index(usize),
}

/// A JSON Pointer into `instance` as its steps: a token is an index where
/// the value there is a list, a key otherwise.
fn path_steps<'v, V: Value<'v>>(instance: V, pointer: &str) -> Vec<PathStep> {
    let mut at = Some(instance);
    let mut steps = Vec::new();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let here = at.take();
        match here.map(|v| v.kind()) {
            Some(Kind::List) => {
                if let (Some(list), Ok(index)) = (here, token.parse::<usize>()) {
                    at = list.list_items().nth(index);
                    steps.push(PathStep::Index(index));
                    continue;
                }
            }
            Some(Kind::Map) => {
                if let Some(map) = here {
                    at = map
                        .map_entries()
                        .find(|(key, _)| name_of(*key).as_deref() == Some(token.as_str()))
                        .map(|(_, value)| value);
                }
            }
            _ => {}
        }
        steps.push(PathStep::Key(token));
    }
    steps
}

fn name_of<'v, V: Value<'v>>(key: V) -> Option<String> {
    match key.kind() {
        Kind::Binary => key.text().map(str::to_string),
        _ => key.atom_name(),
    }
}

/// `$arguments`, then `.key` or `[index]` for each step.
fn gateway_path(steps: &[PathStep]) -> String {
    let mut out = String::from("$arguments");
    for step in steps {
        match step {
            PathStep::Key(name) => {
                out.push('.');
                out.push_str(name);
            }
            PathStep::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// Step 9: the schema's metaschema failures, answered as the arguments'.
fn metaschema_failures<'a>(env: Env<'a>, schema: &Json, failures: &[MetaschemaFailure]) -> Term<'a> {
    let failures: Vec<Failure<'_>> = failures
        .iter()
        .map(|f| Failure {
            keyword: f.keyword,
            message: &f.message,
            location: &f.pointer,
            constraint: f.constraint.clone(),
        })
        .collect();
    failures_error(env, JsonRef::from(schema), &failures)
}

/// Step 12's failures, from a validation's report.
fn report_error<'a>(env: Env<'a>, validator: &Validator, arguments: Term<'a>, report: &Report) -> Term<'a> {
    let text = |span: &std::ops::Range<usize>| report.text().get(span.clone()).unwrap_or_default();
    let failures: Vec<Failure<'_>> = report
        .spans()
        .iter()
        .map(|unit| Failure {
            keyword: unit.keyword,
            message: text(&unit.message),
            location: text(&unit.instance_location),
            constraint: validator.constraint(unit),
        })
        .collect();
    failures_error(env, BeamTerm(arguments), &failures)
}

fn walk_limit<'a>(env: Env<'a>, limit: Limit) -> Term<'a> {
    let error = match limit {
        Limit::Work => resource_limit(env, atoms::work(), WALK_BUDGET),
        Limit::Depth => resource_limit(env, atoms::depth(), MAX_WALK_DEPTH as u64),
    };
    (atom::error(), error).encode(env)
}

// ------------------------------------------------------------ arguments

/// Step 3: the arguments' limits (`None`: within them; `Err`: the inline
/// budget ran out).
fn argument_limits<'a>(env: Env<'a>, arguments: Term<'a>, budget: &Budget) -> Result<Option<Term<'a>>, ()> {
    match profile::shape(BeamTerm(arguments), Of::Arguments, budget) {
        Err(_) => Err(()),
        Ok(None) => Ok(None),
        Ok(Some(limit)) => Ok(Some(resource_limit(env, limit_atom(limit), limit.maximum()))),
    }
}

/// Step 12: `:ok` or the failures; `None` when the inline budget ran out.
fn validate_arguments<'a>(
    env: Env<'a>,
    validator: &Validator,
    arguments: Term<'a>,
    budget: &Budget,
    inline: bool,
) -> Option<Term<'a>> {
    let report = if inline {
        validator.report_within(BeamTerm(arguments), budget)
    } else {
        validator.report_limited(BeamTerm(arguments), WALK_BUDGET)
    };
    match report {
        Ok(report) if report.is_empty() => Some(atom::ok().encode(env)),
        Ok(report) => Some((atom::error(), report_error(env, validator, arguments, &report)).encode(env)),
        Err(Limit::Work) if inline => None,
        Err(limit) => Some(walk_limit(env, limit)),
    }
}

fn guarded<'a>(env: Env<'a>, body: impl FnOnce() -> Term<'a>) -> Term<'a> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(term) => term,
        Err(_) => (atom::error(), atoms::panic()).encode(env),
    }
}

/// What a schema map is filed under in the cache: the contract and its
/// assertions. `None` (compiled for the call alone) with a registry or a
/// loader, or with the cache off.
fn cache_key(documents: &Documents<'_>, assertions: Assertions) -> Option<StandardKey> {
    if !cache::enabled() || !matches!(documents, Documents::None) {
        return None;
    }
    Some(StandardKey {
        dialect: Dialect::Draft2020_12,
        formats: assertions.formats,
        content: assertions.content,
        contract: true,
    })
}

/// The budgets of a call: reading a schema's terms (and the contract's
/// walks over them), compiling it (inline, the reading's budget), and
/// walking the arguments (for their limits; the validation has its own
/// work limit on a dirty scheduler).
fn budgets(inline: bool) -> (Budget, Option<Budget>, Budget) {
    if inline {
        (
            Budget::new(COMPILE_INLINE_BUDGET),
            None,
            Budget::new(WALK_INLINE_BUDGET),
        )
    } else {
        (
            Budget::new(MAX_SCHEMA_TERMS * TERM_UNITS),
            Some(Budget::new(COMPILE_BUDGET)),
            Budget::new(MAX_SCHEMA_TERMS),
        )
    }
}

/// `validate/2,3` and `validate_schema/1,2` given a schema map
/// (`arguments` the atom `:none` for the latter): steps 3 to 12, the
/// compiled schema found in the cache or filed there.
fn check<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    arguments: Term<'a>,
    assertions: Assertions,
    documents: Documents<'a>,
    inline: bool,
) -> Term<'a> {
    let (read_budget, compile_budget, walk_budget) = budgets(inline);
    let dirty = || atoms::dirty().encode(env);
    let schema_only = arguments.decode::<Atom>().is_ok_and(|a| a == atoms::none());
    if !schema_only {
        match argument_limits(env, arguments, &walk_budget) {
            Err(()) if inline => return dirty(),
            Err(()) => return walk_limit(env, Limit::Work),
            Ok(Some(error)) => return (atom::error(), error).encode(env),
            Ok(None) => {}
        }
    }
    let caller = if inline { Caller::Inline } else { Caller::Dirty };
    let key = cache_key(&documents, assertions);
    let run = |validator: &Arc<Validator>| {
        if schema_only {
            return atom::ok().encode(env);
        }
        validate_shared(env, validator, arguments, &walk_budget, inline)
    };
    if let (Some(key), true) = (key, inline) {
        if let Some(answer) = cache::front_hit_standard(schema, key, caller, run) {
            return answer;
        }
    }
    let found = match key {
        Some(key) => cache::find_standard(schema, key, caller),
        None => Found::Skip,
    };
    let filing = match found {
        Found::Hit(validator) => return run(&validator),
        Found::TooLarge if inline => return dirty(),
        Found::Miss(hash) => key.map(|key| (hash, key)),
        Found::TooLarge | Found::Skip => None,
    };
    let compile_budget = compile_budget.as_ref().unwrap_or(&read_budget);
    let validator = match prepare(
        env,
        schema,
        assertions,
        &documents,
        &read_budget,
        compile_budget,
        inline,
    ) {
        Ok(validator) => Arc::new(validator),
        Err(Stop::Answer(answer)) => return answer,
        Err(Stop::Dirty) if inline => return dirty(),
        Err(Stop::Dirty) => {
            return (
                atom::error(),
                resource_limit(env, atoms::compile_work(), COMPILE_BUDGET),
            )
                .encode(env)
        }
    };
    if let Some((hash, key)) = filing {
        if !cache::insert_standard(schema, hash, Arc::clone(&validator), key, caller) {
            return dirty();
        }
    }
    run(&validator)
}

/// Validates against a compiled schema shared with the cache (or about to
/// be dropped). Inline, a walk past the budget answers `{:dirty_validate,
/// resource}` for the dirty walk.
fn validate_shared<'a>(
    env: Env<'a>,
    validator: &Arc<Validator>,
    arguments: Term<'a>,
    budget: &Budget,
    inline: bool,
) -> Term<'a> {
    match validate_arguments(env, validator, arguments, budget, inline) {
        Some(answer) => answer,
        None if !inline => walk_limit(env, Limit::Work),
        None => match resource::make_standard(env, Arc::clone(validator)) {
            Some(resource) => (atoms::dirty_validate(), resource).encode(env),
            None => walk_limit(env, Limit::Work),
        },
    }
}

fn checked<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    arguments: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
    inline: bool,
) -> Term<'a> {
    guarded(env, || {
        match (assertions_of(assertions), documents_of(documents)) {
            (Some(assertions), Some(documents)) => {
                check(env, schema, arguments, assertions, documents, inline)
            }
            _ => atom::badarg().encode(env),
        }
    })
}

#[rustler::nif]
fn contract_check<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    arguments: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
) -> Term<'a> {
    checked(env, schema, arguments, assertions, documents, true)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn contract_check_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    arguments: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
) -> Term<'a> {
    crate::deferred::drain();
    checked(env, schema, arguments, assertions, documents, false)
}

fn compiled<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
    inline: bool,
) -> Term<'a> {
    guarded(env, || {
        let (Some(assertions), Some(documents)) = (assertions_of(assertions), documents_of(documents)) else {
            return atom::badarg().encode(env);
        };
        let (read, compile, _) = budgets(inline);
        match prepare(
            env,
            schema,
            assertions,
            &documents,
            &read,
            compile.as_ref().unwrap_or(&read),
            inline,
        ) {
            Ok(validator) => match resource::make_standard(env, Arc::new(validator)) {
                Some(resource) => (atom::ok(), resource).encode(env),
                None => (
                    atom::error(),
                    resource_limit(env, atoms::compile_work(), COMPILE_BUDGET),
                )
                    .encode(env),
            },
            Err(Stop::Answer(answer)) => answer,
            Err(Stop::Dirty) if inline => atoms::dirty().encode(env),
            Err(Stop::Dirty) => (
                atom::error(),
                resource_limit(env, atoms::compile_work(), COMPILE_BUDGET),
            )
                .encode(env),
        }
    })
}

/// `compile/1,2`: `{:ok, resource}`, an error, `{:load, requests}` or
/// `:dirty`.
#[rustler::nif]
fn contract_compile<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
) -> Term<'a> {
    compiled(env, schema, assertions, documents, true)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn contract_compile_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    assertions: Term<'a>,
    documents: Term<'a>,
) -> Term<'a> {
    crate::deferred::drain();
    compiled(env, schema, assertions, documents, false)
}

fn validated<'a>(env: Env<'a>, compiled: Term<'a>, arguments: Term<'a>, inline: bool) -> Term<'a> {
    guarded(env, || {
        let Some(validator) = resource::get_standard(compiled) else {
            return atoms::foreign().encode(env);
        };
        let budget = Budget::new(if inline {
            WALK_INLINE_BUDGET
        } else {
            MAX_SCHEMA_TERMS
        });
        match argument_limits(env, arguments, &budget) {
            Err(()) if inline => return atoms::dirty().encode(env),
            Err(()) => return walk_limit(env, Limit::Work),
            Ok(Some(error)) => return (atom::error(), error).encode(env),
            Ok(None) => {}
        }
        match validate_arguments(env, validator, arguments, &budget, inline) {
            Some(answer) => answer,
            None => atoms::dirty().encode(env),
        }
    })
}

/// `validate/2,3` of a compiled schema: steps 3 and 12.
#[rustler::nif]
fn contract_validate<'a>(env: Env<'a>, compiled: Term<'a>, arguments: Term<'a>) -> Term<'a> {
    validated(env, compiled, arguments, true)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn contract_validate_dirty<'a>(env: Env<'a>, compiled: Term<'a>, arguments: Term<'a>) -> Term<'a> {
    crate::deferred::drain();
    validated(env, compiled, arguments, false)
}

/// The external size the contract's byte limit reads a schema term as
/// (test builds only: the tests compare it with `:erlang.external_size/1`
/// of the normalised term). `nil` for a term that does not normalise.
#[cfg(feature = "test-probes")]
#[rustler::nif]
fn contract_schema_size<'a>(env: Env<'a>, schema: Term<'a>) -> Term<'a> {
    guarded(env, || {
        let mut reader = Normaliser {
            budget: &Budget::unlimited(),
            keys: Vec::new(),
            depth: 0,
            cut: false,
        };
        match reader.read(schema, false) {
            Ok(json) => external_size(&json).encode(env),
            Err(_) => atom::nil().encode(env),
        }
    })
}
