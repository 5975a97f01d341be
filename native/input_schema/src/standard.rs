//! The NIFs of `Backplane.JSONSchema`, the standard entry point: compile a
//! schema (BEAM terms, read into JSON once) into a resource, and validate
//! any term against it in place. Each has an inline half, within a fixed
//! work budget on the calling scheduler, that answers `:dirty` when the
//! call needs more; its `_dirty` twin then does the whole call on a dirty
//! CPU scheduler, behind the Elixir side's gate.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use rustler::types::atom;
use rustler::{Atom, Encoder, Env, Term, TermType};
use serde_json::{Map, Number as JsonNumber, Value as Json};

use crate::cache::{self, Caller, Found, StandardKey};
use crate::resource;
use crate::term::{binary, details_map, BeamTerm, Entries};
use input_schema_core::budget::Budget;
use input_schema_core::standard::{
    CompileError, ContentMode, Dialect, FormatMode, Limit, Options, Report, Validator, COMPILE_BUDGET,
    MAX_SCHEMA_DEPTH, WALK_BUDGET,
};
use input_schema_core::value::{Shape, Value};

mod atoms {
    rustler::atoms! {
        dirty,
        dirty_validate,
        foreign,
        limit,
        work,
        depth,
        panic,
        draft4,
        draft6,
        draft7,
        draft2019_09,
        draft2020_12,
        annotate,
        assert,
        all,
        valid,
        keyword,
        message,
        reason,
        pointer,
        uri,
        failures,
    }
}

/// Deepest schema term read: two terms a subschema level (`properties`,
/// then the name) for every level the compiler allows, and an `enum` or
/// `const` value's own nesting below that. Past it the rest of the document
/// is not read (it is refused as too deep), so that neither the reading nor
/// dropping what was read recurses without bound.
const MAX_TERM_DEPTH: usize = 2 * MAX_SCHEMA_DEPTH + 130;

/// Most terms a schema (with its resources) may have when read on a dirty
/// scheduler: the reading's own budget, apart from the compile's.
const MAX_SCHEMA_TERMS: u64 = 4_000_000;

/// Units a term read costs: reading it into a `serde_json` value and
/// dropping that copy take about 1,000 instructions for a small map's
/// entry (an allocation or two), some 250-300 ns, so that a schema made of
/// many small terms holds the calling scheduler as long as its units say.
const TERM_UNITS: u64 = 4;

/// A step of the path the reader is at, kept as terms so that a pointer is
/// rendered only for an error.
#[derive(Clone, Copy)]
enum Step<'a> {
    Index(usize),
    Key(Term<'a>),
}

enum Stop {
    Budget,
    NotJson(String),
}

/// Reads schema terms as JSON: maps with binary or atom keys, lists,
/// binaries (UTF-8), numbers, `true`, `false`, `nil`. Every term read is
/// charged to the budget ([`TERM_UNITS`], and a unit per 64 bytes of
/// text). A value nested past [`MAX_TERM_DEPTH`] is read as
/// `null` and the first such place is kept: the caller refuses the schema
/// as too deep, never compiles it.
struct Reader<'a, 'b> {
    budget: &'b Budget,
    path: Vec<Step<'a>>,
    cut_at: Option<String>,
}

impl<'a> Reader<'a, '_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            out.push('/');
            match step {
                Step::Index(i) => out.push_str(&i.to_string()),
                Step::Key(key) => {
                    let text = match key.get_type() {
                        TermType::Atom => key.atom_to_string().unwrap_or_default(),
                        _ => String::from_utf8_lossy(BeamTerm(*key).bytes().unwrap_or_default()).into_owned(),
                    };
                    out.push_str(&text.replace('~', "~0").replace('/', "~1"));
                }
            }
        }
        out
    }

    fn not_json(&self) -> Stop {
        Stop::NotJson(self.pointer())
    }

    fn read(&mut self, term: Term<'a>) -> Result<Json, Stop> {
        self.budget.charge(TERM_UNITS).map_err(|_| Stop::Budget)?;
        if self.path.len() >= MAX_TERM_DEPTH {
            if self.cut_at.is_none() {
                self.cut_at = Some(self.pointer());
            }
            return Ok(Json::Null);
        }
        Ok(match term.get_type() {
            // Compared as terms: an atom's name is not copied out.
            TermType::Atom => match BeamTerm(term).shape() {
                Shape::Nil => Json::Null,
                Shape::Bool(b) => Json::Bool(b),
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
            // Only a list or a map recurses: the stack is checked there.
            TermType::List => input_schema_core::stack::deep(|| self.list(term))?,
            TermType::Map => input_schema_core::stack::deep(|| self.map(term))?,
            _ => return Err(self.not_json()),
        })
    }

    fn list(&mut self, term: Term<'a>) -> Result<Json, Stop> {
        let mut items = Vec::new();
        let mut tail = term;
        while let Ok((head, rest)) = tail.list_get_cell() {
            self.path.push(Step::Index(items.len()));
            items.push(self.read(head)?);
            self.path.pop();
            tail = rest;
        }
        if !tail.is_empty_list() {
            return Err(self.not_json());
        }
        Ok(Json::Array(items))
    }

    fn map(&mut self, term: Term<'a>) -> Result<Json, Stop> {
        if BeamTerm(term).is_struct() {
            return Err(self.not_json());
        }
        let mut map = Map::new();
        let entries = Entries::forward(term).ok_or_else(|| self.not_json())?;
        for (key, value) in entries {
            let (key, value) = (key.0, value.0);
            let name = match key.get_type() {
                TermType::Atom => key.atom_to_string().map_err(|_| self.not_json())?,
                TermType::Binary => self.text(key)?,
                _ => return Err(self.not_json()),
            };
            self.path.push(Step::Key(key));
            let value = self.read(value)?;
            self.path.pop();
            map.insert(name, value);
        }
        Ok(Json::Object(map))
    }

    /// A binary's text, charged by its length.
    fn text(&self, term: Term<'a>) -> Result<String, Stop> {
        let bytes = BeamTerm(term).bytes().ok_or_else(|| self.not_json())?;
        self.budget
            .charge(bytes.len() as u64 / 64)
            .map_err(|_| Stop::Budget)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.not_json())
    }
}

fn dialect_of(name: Atom) -> Option<Dialect> {
    Some(if name == atoms::draft2020_12() {
        Dialect::Draft2020_12
    } else if name == atoms::draft2019_09() {
        Dialect::Draft2019_09
    } else if name == atoms::draft7() {
        Dialect::Draft7
    } else if name == atoms::draft6() {
        Dialect::Draft6
    } else if name == atoms::draft4() {
        Dialect::Draft4
    } else {
        return None;
    })
}

fn guarded<'a>(env: Env<'a>, body: impl FnOnce() -> Term<'a>) -> Term<'a> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(term) => term,
        Err(_) => (atom::error(), atoms::panic()).encode(env),
    }
}

fn compile_error<'a>(env: Env<'a>, error: &CompileError) -> Term<'a> {
    let failures: Vec<Term<'a>> = match error {
        CompileError::Metaschema { failures, .. } => failures
            .iter()
            .map(|f| {
                details_map(
                    env,
                    &[
                        (atoms::pointer(), binary(env, f.pointer.as_bytes())),
                        (atoms::keyword(), binary(env, f.keyword.as_bytes())),
                        (atoms::message(), binary(env, f.message.as_bytes())),
                    ],
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    let uri = match error {
        CompileError::UnresolvedReference { uri, .. }
        | CompileError::UnknownMetaschema { uri }
        | CompileError::UnknownVocabulary { uri, .. } => binary(env, uri.as_bytes()),
        CompileError::Metaschema { metaschema, .. } => binary(env, metaschema.as_bytes()),
        _ => atom::nil().encode(env),
    };
    let pointer = match error.pointer() {
        Some(pointer) => binary(env, pointer.as_bytes()),
        None => atom::nil().encode(env),
    };
    let reason = Atom::from_str(env, error.reason())
        .map(|a| a.encode(env))
        .unwrap_or_else(|_| atom::nil().encode(env));
    let details = details_map(
        env,
        &[
            (atoms::reason(), reason),
            (atoms::message(), binary(env, error.to_string().as_bytes())),
            (atoms::pointer(), pointer),
            (atoms::uri(), uri),
            (atoms::failures(), failures.encode(env)),
        ],
    );
    (atom::error(), details).encode(env)
}

/// The failures, each as `{keyword, message, keyword_location,
/// instance_location, absolute_keyword_location | nil}`: the Elixir side
/// makes each a `ValidationError` struct, whose literal keys the VM shares
/// between every struct it builds (a map made here is sorted and given
/// keys of its own, each time). Each text is a binary of its own, copied
/// from the report's buffer: a sub-binary of one binary of the whole
/// buffer costs the VM as much as a small binary (OTP 27), and would keep
/// every failure's text alive for as long as any one of them.
fn units<'a>(env: Env<'a>, report: &Report) -> Term<'a> {
    let slice = |span: &Range<usize>| {
        binary(
            env,
            report.text().get(span.clone()).unwrap_or_default().as_bytes(),
        )
    };
    // The list is built from its end: no vector of terms.
    report
        .spans()
        .iter()
        .rev()
        .fold(Term::list_new_empty(env), |list, u| {
            let absolute = match &u.absolute_keyword_location {
                Some(span) => slice(span),
                None => atom::nil().encode(env),
            };
            // A tuple of Rust's encodes from an array on the stack
            // (Rustler's `make_tuple` gathers its terms into a vector
            // first).
            let unit = (
                binary(env, u.keyword.as_bytes()),
                slice(&u.message),
                slice(&u.keyword_location),
                slice(&u.instance_location),
                absolute,
            );
            list.list_prepend(unit.encode(env))
        })
}

fn limit_error<'a>(env: Env<'a>, limit: Limit) -> Term<'a> {
    let reason = match limit {
        Limit::Work => atoms::work(),
        Limit::Depth => atoms::depth(),
    };
    (
        atom::error(),
        (atoms::limit(), reason, binary(env, limit.to_string().as_bytes())),
    )
        .encode(env)
}

/// A compile's answer as `compile/2` takes it: `{:ok, resource}` or the
/// error term; `None` when the inline budget ran out.
fn into_resource<'a>(env: Env<'a>, compiled: Result<Validator, Option<Term<'a>>>) -> Option<Term<'a>> {
    match compiled {
        Ok(validator) => Some(match resource::make_standard(env, Arc::new(validator)) {
            Some(resource) => (atom::ok(), resource).encode(env),
            None => compile_error(env, &CompileError::CompileBudget),
        }),
        Err(answer) => answer,
    }
}

/// Compiles; `Err(None)` when the inline budget ran out, `Err(Some(term))`
/// with the error term to answer. Reading and compiling each have their
/// budget; inline, both are the one inline budget.
#[allow(clippy::too_many_arguments)]
fn compile_validator<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
    read_budget: &Budget,
    compile_budget: &Budget,
    inline: bool,
) -> Result<Validator, Option<Term<'a>>> {
    // The documents read are dropped here too: their nesting is bounded,
    // and so is the stack that takes.
    input_schema_core::stack::within(input_schema_core::stack::LIBRARY_RED_ZONE, || {
        let (json, options) = read_documents(
            env,
            schema,
            dialect,
            resources,
            formats,
            content,
            read_budget,
            inline,
        )?;
        let compiled = if inline {
            Validator::compile_inline(&json, &options, compile_budget)
        } else {
            Validator::compile_within(&json, &options, compile_budget)
        };
        match compiled {
            Ok(validator) => Ok(validator),
            Err(CompileError::CompileBudget) if inline => Err(None),
            Err(error) => Err(Some(compile_error(env, &error))),
        }
    })
}

/// The schema and the resources read as JSON, with the compile options;
/// `Err(None)` when the inline budget ran out, `Err(Some(term))` with the
/// error term to answer.
#[allow(clippy::too_many_arguments)]
fn read_documents<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
    read_budget: &Budget,
    inline: bool,
) -> Result<(Json, Options), Option<Term<'a>>> {
    let Some(dialect) = dialect_of(dialect) else {
        return Err(Some(atom::badarg().encode(env)));
    };
    {
        let over_budget = || (!inline).then(|| compile_error(env, &CompileError::CompileBudget));
        let mut reader = Reader {
            budget: read_budget,
            path: Vec::new(),
            cut_at: None,
        };
        let json = match reader.read(schema) {
            Ok(json) => json,
            Err(Stop::Budget) => return Err(over_budget()),
            Err(Stop::NotJson(pointer)) => {
                return Err(Some(compile_error(env, &CompileError::NotJson { pointer })))
            }
        };
        let mut documents = Vec::new();
        if let Some(entries) = rustler::types::map::MapIterator::new(resources) {
            for (uri, document) in entries {
                let Some(uri) = BeamTerm(uri).bytes().and_then(|b| std::str::from_utf8(b).ok()) else {
                    return Err(Some(atom::badarg().encode(env)));
                };
                match reader.read(document) {
                    Ok(json) => documents.push((uri.to_string(), json)),
                    Err(Stop::Budget) => return Err(over_budget()),
                    Err(Stop::NotJson(pointer)) => {
                        return Err(Some(compile_error(env, &CompileError::NotJson { pointer })))
                    }
                }
            }
        }
        if let Some(pointer) = reader.cut_at {
            // Cut short: where the schema nests past the compiler's limit, if
            // the part read shows it, else where the reading stopped.
            let error = Validator::nesting_error(&json, dialect).unwrap_or(CompileError::TooDeep { pointer });
            return Err(Some(compile_error(env, &error)));
        }
        let options = Options {
            dialect,
            resources: documents,
            formats: format_mode(formats),
            content: content_mode(content),
        };
        Ok((json, options))
    }
}

/// The documents a schema's references name that neither it, nor its
/// resources, nor the built-in metaschemas hold: `{:ok, [{request,
/// document}]}` (what a loader is asked, and the URI the answer is a
/// resource under), each document once, in the schema's order; an error
/// term; or `:dirty` past the inline budget.
fn missing<'a>(env: Env<'a>, schema: Term<'a>, dialect: Atom, resources: Term<'a>, inline: bool) -> Term<'a> {
    guarded(env, || {
        let budget = Budget::new(if inline {
            COMPILE_INLINE_BUDGET
        } else {
            MAX_SCHEMA_TERMS * TERM_UNITS
        });
        input_schema_core::stack::within(input_schema_core::stack::LIBRARY_RED_ZONE, || {
            let annotate = atoms::annotate();
            let (json, options) = match read_documents(
                env, schema, dialect, resources, annotate, annotate, &budget, inline,
            ) {
                Ok(read) => read,
                Err(Some(answer)) => return answer,
                Err(None) => return atoms::dirty().encode(env),
            };
            let references =
                match input_schema_core::standard::documents::references(&json, &options, &budget) {
                    Ok(references) => references,
                    Err(CompileError::CompileBudget) if inline => return atoms::dirty().encode(env),
                    Err(error) => return compile_error(env, &error),
                };
            let mut named: Vec<&str> = Vec::new();
            let mut requests = Vec::new();
            for reference in &references {
                if reference.document_known || named.contains(&reference.document.as_str()) {
                    continue;
                }
                named.push(&reference.document);
                requests.push(
                    (
                        binary(env, reference.request.as_bytes()),
                        binary(env, reference.document.as_bytes()),
                    )
                        .encode(env),
                );
            }
            (atom::ok(), requests).encode(env)
        })
    })
}

#[rustler::nif]
fn json_schema_missing<'a>(env: Env<'a>, schema: Term<'a>, dialect: Atom, resources: Term<'a>) -> Term<'a> {
    missing(env, schema, dialect, resources, true)
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_schema_missing_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    dialect: Atom,
    resources: Term<'a>,
) -> Term<'a> {
    crate::deferred::drain();
    missing(env, schema, dialect, resources, false)
}

/// Work units a standard compile may spend on the calling (normal)
/// scheduler, reading the schema's terms included, before it is handed
/// whole to a dirty CPU scheduler. `bench/json_schema_budget.exs` times the
/// largest schema of each of its twelve kinds that fits: medians of 5-46 µs
/// at 1,500 units, within the bound an inline call keeps. (The gateway's
/// [`INLINE_BUDGET`](crate::nif::INLINE_BUDGET), 1,000, is calibrated for
/// its own compile and walk.)
const COMPILE_INLINE_BUDGET: u64 = 1_500;

#[rustler::nif]
fn json_schema_compile<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
) -> Term<'a> {
    guarded(env, || {
        let budget = Budget::new(COMPILE_INLINE_BUDGET);
        let compiled = compile_validator(
            env, schema, dialect, resources, formats, content, &budget, &budget, true,
        );
        into_resource(env, compiled).unwrap_or_else(|| atoms::dirty().encode(env))
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_schema_compile_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || {
        let read_budget = Budget::new(MAX_SCHEMA_TERMS * TERM_UNITS);
        let compile_budget = Budget::new(COMPILE_BUDGET);
        let compiled = compile_validator(
            env,
            schema,
            dialect,
            resources,
            formats,
            content,
            &read_budget,
            &compile_budget,
            false,
        );
        into_resource(env, compiled).unwrap_or_else(|| compile_error(env, &CompileError::CompileBudget))
    })
}

/// Validates; `None` when the inline budget ran out.
fn validate<'a>(
    env: Env<'a>,
    compiled: Term<'a>,
    instance: Term<'a>,
    mode: Atom,
    budget: &Budget,
    inline: bool,
) -> Option<Term<'a>> {
    // A reference this image did not make (another node's, or from before
    // an upgrade to another library image): the caller compiles the
    // struct's schema again.
    let Some(validator) = resource::get_standard(compiled) else {
        return Some(atoms::foreign().encode(env));
    };
    validate_with(env, validator, instance, mode, budget, inline)
}

/// Validates against `validator`; `None` when the inline budget ran out.
fn validate_with<'a>(
    env: Env<'a>,
    validator: &Validator,
    instance: Term<'a>,
    mode: Atom,
    budget: &Budget,
    inline: bool,
) -> Option<Term<'a>> {
    let instance = BeamTerm(instance);
    if mode == atoms::valid() {
        return match validator.is_valid_within(instance, budget) {
            Ok(valid) => Some(valid.encode(env)),
            Err(Limit::Work) if inline => None,
            Err(limit) => Some(limit_error(env, limit)),
        };
    }
    // Inline, both walks of an invalid instance share the one budget (the
    // call's bound on this scheduler); dirty, each has the work limit.
    let report = if inline {
        validator.report_within(instance, budget)
    } else {
        validator.report_limited(instance, WALK_BUDGET)
    };
    match report {
        Ok(report) if report.is_empty() => Some(atom::ok().encode(env)),
        Ok(report) => Some((atom::error(), units(env, &report)).encode(env)),
        Err(Limit::Work) if inline => None,
        Err(limit) => Some(limit_error(env, limit)),
    }
}

/// Work units a standard validation may spend on the calling (normal)
/// scheduler before it is handed whole to a dirty CPU scheduler. The
/// standard walk's unit is cheaper than the gateway's
/// ([`INLINE_BUDGET`](crate::nif::INLINE_BUDGET), 50-100 ns):
/// `bench/json_schema_walk_budget.exs` measures 3-35 µs for 1,000 units
/// over its fifteen kinds of instance
/// (wide objects, arrays of objects, patterns, `uniqueItems`, references,
/// `anyOf`, `unevaluatedProperties`, decimal `multipleOf`, asserted
/// formats, every failure recorded), so 2,000 units hold a scheduler for
/// about as long as the gateway's 1,000 (at most 50-70 µs a call).
const WALK_INLINE_BUDGET: u64 = 2_000;

/// `validate/2` and `valid?/2` of a compiled schema.
///
/// Its entry is [`crate::nif::HOT`]'s, not rustler's.
fn json_schema_validate<'a>(env: Env<'a>, compiled: Term<'a>, instance: Term<'a>, mode: Atom) -> Term<'a> {
    guarded(env, || {
        let budget = Budget::new(WALK_INLINE_BUDGET);
        validate(env, compiled, instance, mode, &budget, true).unwrap_or_else(|| atoms::dirty().encode(env))
    })
}

#[rustler::nif(schedule = "DirtyCpu")]
fn json_schema_validate_dirty<'a>(
    env: Env<'a>,
    compiled: Term<'a>,
    instance: Term<'a>,
    mode: Atom,
) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || {
        let budget = Budget::new(WALK_BUDGET);
        validate(env, compiled, instance, mode, &budget, false)
            .unwrap_or_else(|| limit_error(env, Limit::Work))
    })
}

/// Compiles a schema for one validation and validates: `validate/2` and
/// `valid?/2` given a schema map. Nothing outlives the call (no resource,
/// no second call) unless the walk is over the inline budget: then the
/// compiled schema is answered as a resource, `{:dirty_validate,
/// resource}`, for `json_schema_validate_dirty`. `:dirty` when the compile
/// is over its inline budget: `json_schema_check_dirty` does both.
///
/// Its entry is [`crate::nif::HOT`]'s, not rustler's.
#[allow(clippy::too_many_arguments)]
fn json_schema_check<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    instance: Term<'a>,
    mode: Atom,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
) -> Term<'a> {
    guarded(env, || {
        check(
            env, schema, instance, mode, dialect, resources, formats, content, true,
        )
    })
}

/// [`json_schema_check`] on a dirty scheduler: the compile and the walk
/// with their full limits.
#[allow(clippy::too_many_arguments)]
#[rustler::nif(schedule = "DirtyCpu")]
fn json_schema_check_dirty<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    instance: Term<'a>,
    mode: Atom,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
) -> Term<'a> {
    crate::deferred::drain();
    guarded(env, || {
        check(
            env, schema, instance, mode, dialect, resources, formats, content, false,
        )
    })
}

/// Both check functions: inline within the two inline budgets, or dirty
/// within the full limits.
#[allow(clippy::too_many_arguments)]
fn check<'a>(
    env: Env<'a>,
    schema: Term<'a>,
    instance: Term<'a>,
    mode: Atom,
    dialect: Atom,
    resources: Term<'a>,
    formats: Atom,
    content: Atom,
    inline: bool,
) -> Term<'a> {
    // Inline, reading and compiling share the one inline budget.
    let (read_budget, compile_budget) = if inline {
        (Budget::new(COMPILE_INLINE_BUDGET), None)
    } else {
        (
            Budget::new(MAX_SCHEMA_TERMS * TERM_UNITS),
            Some(Budget::new(COMPILE_BUDGET)),
        )
    };
    let walk_budget = Budget::new(if inline { WALK_INLINE_BUDGET } else { WALK_BUDGET });
    let caller = if inline { Caller::Inline } else { Caller::Dirty };
    let key = cache_key(dialect, resources, formats, content);
    if let (Some(key), true) = (key, inline) {
        // This thread's recent hits first: no shared write.
        let hit = cache::front_hit_standard(schema, key, caller, |validator| {
            validate_shared(env, validator, instance, mode, &walk_budget, inline)
        });
        if let Some(answer) = hit {
            return answer;
        }
    }
    let found = match key {
        Some(key) => cache::find_standard(schema, key, caller),
        None => Found::Skip,
    };
    let filing = match found {
        Found::Hit(validator) => {
            return validate_shared(env, &validator, instance, mode, &walk_budget, inline)
        }
        // Deciding would cost the calling scheduler more than it may spend.
        Found::TooLarge if inline => return atoms::dirty().encode(env),
        Found::Miss(hash) => key.map(|key| (hash, key)),
        Found::TooLarge | Found::Skip => None,
    };
    let compiled = compile_validator(
        env,
        schema,
        dialect,
        resources,
        formats,
        content,
        &read_budget,
        compile_budget.as_ref().unwrap_or(&read_budget),
        inline,
    );
    let validator = match compiled {
        Ok(validator) => Arc::new(validator),
        Err(Some(answer)) => return answer,
        Err(None) if inline => return atoms::dirty().encode(env),
        Err(None) => return compile_error(env, &CompileError::CompileBudget),
    };
    // Filed for the next call with this schema and these options. Inline,
    // a term too large to copy here is not filed (`insert_standard` says
    // so): the dirty half compiles it again and files it, as the gateway's
    // does, and later calls find it there.
    if let Some((hash, key)) = filing {
        if !cache::insert_standard(schema, hash, Arc::clone(&validator), key, caller) {
            return atoms::dirty().encode(env);
        }
    }
    // Compiled within the inline budget, or on a dirty scheduler; dropped
    // here unless the cache keeps it.
    validate_shared(env, &validator, instance, mode, &walk_budget, inline)
}

/// What a schema map's compile is filed under in the cache, besides the
/// term: its dialect, format and content modes. `None` (compiled for the call alone)
/// when the cache is off, when the call gives `resources:` (their terms
/// would be part of what the entry is found by), or for an option the
/// compile refuses.
fn cache_key(dialect: Atom, resources: Term<'_>, formats: Atom, content: Atom) -> Option<StandardKey> {
    if !cache::enabled() || resources.map_size().ok()? != 0 {
        return None;
    }
    Some(StandardKey {
        dialect: dialect_of(dialect)?,
        formats: format_mode(formats),
        content: content_mode(content) == ContentMode::Assert,
        contract: false,
    })
}

fn content_mode(content: Atom) -> ContentMode {
    if content == atoms::assert() {
        ContentMode::Assert
    } else {
        ContentMode::Annotate
    }
}

fn format_mode(formats: Atom) -> FormatMode {
    if formats == atoms::assert() {
        FormatMode::Assert
    } else {
        FormatMode::Annotate
    }
}

/// Validates against a compiled schema shared with the cache (or about to
/// be dropped). Inline, a walk past the budget answers `{:dirty_validate,
/// resource}`: the compiled schema, for the dirty walk.
fn validate_shared<'a>(
    env: Env<'a>,
    validator: &Arc<Validator>,
    instance: Term<'a>,
    mode: Atom,
    budget: &Budget,
    inline: bool,
) -> Term<'a> {
    match validate_with(env, validator, instance, mode, budget, inline) {
        Some(answer) => answer,
        None if !inline => limit_error(env, Limit::Work),
        None => match resource::make_standard(env, Arc::clone(validator)) {
            Some(resource) => (atoms::dirty_validate(), resource).encode(env),
            None => compile_error(env, &CompileError::CompileBudget),
        },
    }
}

/// Heap bytes a compiled standard schema holds (`nil` for anything else).
#[rustler::nif]
fn json_schema_bytes<'a>(env: Env<'a>, compiled: Term<'a>) -> Term<'a> {
    match resource::get_standard(compiled) {
        Some(validator) => validator.approximate_bytes().encode(env),
        None => atom::nil().encode(env),
    }
}

// ---------------------------------------------------------------- entries
//
// The two calls a validation of a compiled schema or of a schema map makes
// have hand-written entries, as the gateway's do (`crate::nif::HOT`): no
// `Vec` of arguments, no second panic guard. The bodies catch panics
// themselves (`guarded`); reading the atoms cannot panic, and a term that
// is not one is `badarg`, as rustler's wrapper answers it.

/// The atom `term` is, or `None`.
fn atom_of(term: Term<'_>) -> Option<Atom> {
    Atom::from_term(term).ok()
}

/// # Safety
/// The runtime calls this as a NIF.
pub(crate) unsafe extern "C" fn json_schema_validate_entry(
    env: *mut crate::nif::RawEnv,
    argc: i32,
    argv: *const crate::nif::RawTerm,
) -> crate::nif::RawTerm {
    // SAFETY: the runtime calls this as a NIF.
    unsafe {
        crate::nif::entry(env, argc, argv, |env, args| {
            let [compiled, instance, mode] = crate::nif::terms(env, args)?;
            Some(json_schema_validate(env, compiled, instance, atom_of(mode)?))
        })
    }
}

/// # Safety
/// The runtime calls this as a NIF.
pub(crate) unsafe extern "C" fn json_schema_check_entry(
    env: *mut crate::nif::RawEnv,
    argc: i32,
    argv: *const crate::nif::RawTerm,
) -> crate::nif::RawTerm {
    // SAFETY: the runtime calls this as a NIF.
    unsafe {
        crate::nif::entry(env, argc, argv, |env, args| {
            let [schema, instance, mode, dialect, resources, formats, content] =
                crate::nif::terms(env, args)?;
            Some(json_schema_check(
                env,
                schema,
                instance,
                atom_of(mode)?,
                atom_of(dialect)?,
                resources,
                atom_of(formats)?,
                atom_of(content)?,
            ))
        })
    }
}
