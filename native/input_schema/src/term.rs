//! BEAM terms as `Value`s, and errors as `%Backplane.AgentRuntime.Error{}`
//! terms. With `nif.rs`, the only module that reads or builds terms.

use rustler::types::atom::{self, Atom};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

use rustler::sys::{
    enif_make_map_from_arrays, enif_map_iterator_create, enif_map_iterator_destroy,
    enif_map_iterator_get_pair, enif_map_iterator_next, enif_map_iterator_prev, ErlNifMapIterator,
    ErlNifMapIteratorEntry, ErlNifTerm as NIF_TERM,
};
use rustler::{BigInt, Binary, Encoder, Env, NewBinary, Term, TermType};

use input_schema_core::error::{ArgumentError, Class, Detail, Details, SchemaError};
use input_schema_core::value::{AtomId, Datum, Kind, ListLength, Number, Shape, Value};

/// Budgets at least this large count a list with the runtime's own loop.
const UNBOUNDED_COUNT: usize = 1 << 40;

mod keys {
    rustler::atoms! {
        __struct__,
        class,
        message,
        details,
        cause,
        path,
        keyword,
        property,
        reason,
        match_limit,
        patterns,
        work,
        line,
        errors,
        pointer,
        column,
        validation,
        unsupported_capability,
        execution_failure,
        minimum,
        maximum,
        exclusive_minimum = "exclusiveMinimum",
        exclusive_maximum = "exclusiveMaximum",
        min_length = "minLength",
        max_length = "maxLength",
        min_items = "minItems",
        max_items = "maxItems",
        error_module = "Elixir.Backplane.AgentRuntime.Error",
        // `type` is a Rust keyword.
        type_ = "type",
    }
}

/// A BEAM term as the core's `Value`.
#[derive(Debug, Clone, Copy)]
pub struct BeamTerm<'a>(pub Term<'a>);

pub struct Items<'a> {
    rest: Term<'a>,
}

impl<'a> Iterator for Items<'a> {
    type Item = BeamTerm<'a>;
    fn next(&mut self) -> Option<BeamTerm<'a>> {
        let (head, tail) = self.rest.list_get_cell().ok()?;
        self.rest = tail;
        Some(BeamTerm(head))
    }
}

/// Maps of up to this many keys are flat (keys sorted); larger ones are hash
/// array mapped tries (`MAP_SMALL_MAP_LIMIT` in the runtime's `erl_map.h`).
const FLATMAP_LIMIT: usize = 32;

/// Whether the NIF iterator walks a map of each kind (flat, hash) in the
/// reverse of `Map.keys/1` order. OTP releases differ for hash maps: up to
/// OTP 27 `maps:keys/1` prepends each key the iterator meets, so its list
/// is the iterator's order reversed; from OTP 29 it lists them in the
/// iterator's own order. The directions are measured on the running VM when
/// the library loads (`learn_map_order`), never assumed; until then the
/// library is not callable.
static FLAT_BACKWARD: AtomicBool = AtomicBool::new(false);
static HASH_BACKWARD: AtomicBool = AtomicBool::new(true);

/// Learns the walk direction of each kind of map from `probes`, a list of
/// `{map, Map.keys(map)}` pairs built by the loading VM, and keeps it.
/// Every probe of a kind must agree on one direction, and both kinds must be
/// probed; otherwise `false`, and the library refuses to load (the order the
/// contract promises could not be kept).
pub fn learn_map_order(probes: Term<'_>) -> bool {
    let Some((flat, hash)) = map_order(probes) else {
        return false;
    };
    FLAT_BACKWARD.store(flat, Ordering::Relaxed);
    HASH_BACKWARD.store(hash, Ordering::Relaxed);
    true
}

/// The directions `(flat, hash)` that `probes` show (`true`: backward), or
/// `None` when they show none.
pub fn map_order(probes: Term<'_>) -> Option<(bool, bool)> {
    let mut flat = None;
    let mut hash = None;
    for (map, keys) in probes.decode::<Vec<(Term<'_>, Term<'_>)>>().ok()? {
        let keys = keys.decode::<Vec<Term<'_>>>().ok()?;
        let walked: Vec<Term<'_>> = Entries::new(map, false).map(|(key, _)| key.0).collect();
        let backward = if walked == keys {
            false
        } else if walked.iter().rev().eq(keys.iter()) {
            true
        } else {
            return None;
        };
        let kind = if walked.len() > FLATMAP_LIMIT {
            &mut hash
        } else {
            &mut flat
        };
        if kind.is_some_and(|seen| seen != backward) {
            return None;
        }
        *kind = Some(backward);
    }
    Some((flat?, hash?))
}

/// A map's entries in `Map.keys/1` order (see `FLAT_BACKWARD`).
/// A plain wrapper over `enif_map_iterator_*`: one iterator, one direction.
/// The iterator is created in place (`live` once it is), rather than
/// returned and moved into the struct: it is ten words.
pub struct Entries<'a> {
    env: Env<'a>,
    iterator: MaybeUninit<ErlNifMapIterator>,
    live: bool,
    backward: bool,
}

impl<'a> Entries<'a> {
    /// A map's entries from its iterator's head (`None`: not a map).
    #[inline]
    pub fn forward(map: Term<'a>) -> Option<Entries<'a>> {
        let entries = Entries::new(map, false);
        entries.live.then_some(entries)
    }

    #[inline]
    fn new(map: Term<'a>, backward: bool) -> Entries<'a> {
        let start = if backward {
            ErlNifMapIteratorEntry::ERL_NIF_MAP_ITERATOR_TAIL
        } else {
            ErlNifMapIteratorEntry::ERL_NIF_MAP_ITERATOR_HEAD
        };
        let mut entries = Entries {
            env: map.get_env(),
            iterator: MaybeUninit::uninit(),
            live: false,
            backward,
        };
        // SAFETY: `map` is a term of `env`; on success the iterator is
        // initialised (and `live`), and it is destroyed exactly once, in
        // `drop`. It holds no pointer to itself, so it may move.
        let created = unsafe {
            enif_map_iterator_create(
                entries.env.as_c_arg(),
                map.as_c_arg(),
                entries.iterator.as_mut_ptr(),
                start,
            )
        };
        entries.live = created != 0;
        entries
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = (BeamTerm<'a>, BeamTerm<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if !self.live {
            return None;
        }
        let iterator = self.iterator.as_mut_ptr();
        let env = self.env.as_c_arg();
        let mut key = MaybeUninit::uninit();
        let mut value = MaybeUninit::uninit();
        // SAFETY: the iterator is live: created for a map of `env`; the
        // pair is written when the call returns non-zero.
        unsafe {
            if enif_map_iterator_get_pair(env, iterator, key.as_mut_ptr(), value.as_mut_ptr()) == 0 {
                return None;
            }
            if self.backward {
                enif_map_iterator_prev(env, iterator);
            } else {
                enif_map_iterator_next(env, iterator);
            }
            Some((
                BeamTerm(Term::new(self.env, key.assume_init())),
                BeamTerm(Term::new(self.env, value.assume_init())),
            ))
        }
    }
}

impl Drop for Entries<'_> {
    fn drop(&mut self) {
        if self.live {
            // SAFETY: live: created in `new` for this env, destroyed once.
            unsafe { enif_map_iterator_destroy(self.env.as_c_arg(), self.iterator.as_mut_ptr()) };
        }
    }
}

fn same_atom(term: Term<'_>, atom: Atom) -> bool {
    term.as_c_arg() == atom.as_c_arg()
}

impl<'a> Value<'a> for BeamTerm<'a> {
    type Items = Items<'a>;
    type Entries = Entries<'a>;

    fn shape(self) -> Shape<'a> {
        let term = self.0;
        match term.get_type() {
            TermType::Atom => {
                if same_atom(term, atom::nil()) {
                    Shape::Nil
                } else if same_atom(term, atom::true_()) {
                    Shape::Bool(true)
                } else if same_atom(term, atom::false_()) {
                    Shape::Bool(false)
                } else {
                    Shape::Atom
                }
            }
            TermType::Binary => match Binary::from_term(term) {
                Ok(binary) => Shape::Binary(binary.as_slice()),
                // A bitstring whose size is not a whole number of bytes.
                Err(_) => Shape::Other,
            },
            TermType::Integer => match term.decode::<i64>() {
                Ok(n) => Shape::Number(Number::Int(n)),
                Err(_) => match term.decode::<BigInt>() {
                    Ok(n) => Shape::Number(Number::from_big(n)),
                    Err(_) => Shape::Other,
                },
            },
            TermType::Float => match term.decode::<f64>() {
                Ok(f) => Shape::Number(Number::Float(f)),
                Err(_) => Shape::Other,
            },
            TermType::List => Shape::List,
            TermType::Map => Shape::Map,
            _ => Shape::Other,
        }
    }

    /// The type without decoding the payload: integers, bignums included,
    /// are read only when a bound needs their value.
    fn kind(self) -> Kind {
        let term = self.0;
        match term.get_type() {
            TermType::Atom => {
                if same_atom(term, atom::nil()) {
                    Kind::Nil
                } else if same_atom(term, atom::true_()) || same_atom(term, atom::false_()) {
                    Kind::Bool
                } else {
                    Kind::Atom
                }
            }
            // A whole number of bytes; no need to find them yet.
            TermType::Binary if term.is_binary() => Kind::Binary,
            TermType::Integer => Kind::Integer,
            TermType::Float => Kind::Float,
            TermType::List => Kind::List,
            TermType::Map => Kind::Map,
            _ => Kind::Other,
        }
    }

    /// An integer that fits in 64 bits first: one call into the runtime.
    fn number(self) -> Option<Number> {
        if let Ok(n) = self.0.decode::<i64>() {
            return Some(Number::Int(n));
        }
        match self.shape() {
            Shape::Number(n) => Some(n),
            _ => None,
        }
    }

    fn bytes(self) -> Option<&'a [u8]> {
        Binary::from_term(self.0).ok().map(|binary| binary.as_slice())
    }

    fn list_len(self) -> Option<usize> {
        self.0.list_length().ok()
    }

    fn list_len_within(self, limit: usize) -> ListLength {
        if limit >= UNBOUNDED_COUNT {
            return match self.list_len() {
                Some(n) => ListLength::Proper(n),
                None => ListLength::Improper,
            };
        }
        let mut rest = self.0;
        let mut counted = 0usize;
        loop {
            match rest.list_get_cell() {
                Ok((_, tail)) => {
                    counted += 1;
                    if counted > limit {
                        return ListLength::Longer;
                    }
                    rest = tail;
                }
                Err(_) if rest.is_empty_list() => return ListLength::Proper(counted),
                Err(_) => return ListLength::Improper,
            }
        }
    }

    fn list_items(self) -> Items<'a> {
        Items { rest: self.0 }
    }

    fn map_entries(self) -> Entries<'a> {
        let backward = if self.map_len() > FLATMAP_LIMIT {
            &HASH_BACKWARD
        } else {
            &FLAT_BACKWARD
        };
        Entries::new(self.0, backward.load(Ordering::Relaxed))
    }

    fn map_len(self) -> usize {
        self.0.map_size().unwrap_or(0)
    }

    fn is_struct(self) -> bool {
        self.0.map_get(keys::__struct__()).is_ok()
    }

    fn identity(self) -> usize {
        // SAFETY: `ErlNifTerm` is `repr(transparent)` over `size_t`, a
        // `usize`: the term's word itself.
        unsafe { std::mem::transmute::<NIF_TERM, usize>(self.0.as_c_arg()) }
    }

    fn atom_name(self) -> Option<String> {
        self.0.atom_to_string().ok()
    }

    fn atom_id(self) -> Option<AtomId> {
        if self.0.get_type() != TermType::Atom {
            return None;
        }
        // SAFETY: `ErlNifTerm` is `repr(transparent)` over `size_t`; an atom's
        // term word is the same in every environment for the VM's lifetime.
        let word: usize = unsafe { std::mem::transmute(self.0.as_c_arg()) };
        Some(AtomId(word))
    }
}

pub fn binary<'a>(env: Env<'a>, bytes: &[u8]) -> Term<'a> {
    let mut out = NewBinary::new(env, bytes.len());
    out.as_mut_slice().copy_from_slice(bytes);
    out.into()
}

pub fn number<'a>(env: Env<'a>, n: &Number) -> Term<'a> {
    match n {
        Number::Int(i) => i.encode(env),
        Number::Big(b) => b.encode(env),
        Number::Float(f) => f.encode(env),
    }
}

/// A datum as the term it was read from.
pub fn datum<'a>(env: Env<'a>, value: &Datum) -> Term<'a> {
    input_schema_core::stack::deep(|| match value {
        Datum::Nil => atom::nil().encode(env),
        Datum::Bool(b) => b.encode(env),
        Datum::Atom(name) => match Atom::from_str(env, name) {
            Ok(a) => a.encode(env),
            Err(_) => binary(env, name.as_bytes()),
        },
        Datum::Number(n) => number(env, n),
        Datum::Binary(bytes) => binary(env, bytes),
        Datum::List(items) => items
            .iter()
            .map(|d| datum(env, d))
            .collect::<Vec<_>>()
            .encode(env),
        Datum::Map(entries) => {
            let keys: Vec<Term<'a>> = entries.iter().map(|(k, _)| binary(env, k)).collect();
            let values: Vec<Term<'a>> = entries.iter().map(|(_, v)| datum(env, v)).collect();
            map_of(env, &keys, &values).unwrap_or_else(|| Term::map_new(env))
        }
    })
}

fn class_atom(class: Class) -> Atom {
    match class {
        Class::Validation => keys::validation(),
        Class::UnsupportedCapability => keys::unsupported_capability(),
        Class::ExecutionFailure => keys::execution_failure(),
    }
}

/// A details map from its atom keys and values. Up to eight entries (every
/// map this library builds: details, error structs, output units) are
/// gathered on the stack, with no allocation.
pub fn details_map<'a>(env: Env<'a>, details: &[(Atom, Term<'a>)]) -> Term<'a> {
    build_map(env, details.iter().map(|(k, v)| (k.as_c_arg(), v.as_c_arg())))
        .unwrap_or_else(|| Term::map_new(env))
}

/// Maps of up to this many entries are built from arrays on the stack.
const SMALL_MAP: usize = 8;

/// The map of `keys` to `values` (the same length); `None` when a key
/// repeats. Rustler's `Term::map_from_term_arrays` copies both arrays into
/// vectors first: two allocations for every error struct and output unit.
pub fn map_of<'a>(env: Env<'a>, keys: &[Term<'a>], values: &[Term<'a>]) -> Option<Term<'a>> {
    if keys.len() != values.len() {
        return None;
    }
    build_map(
        env,
        keys.iter().zip(values).map(|(k, v)| (k.as_c_arg(), v.as_c_arg())),
    )
}

/// The map of `entries`: gathered on the stack when they are few.
fn build_map<'a>(
    env: Env<'a>,
    entries: impl ExactSizeIterator<Item = (NIF_TERM, NIF_TERM)>,
) -> Option<Term<'a>> {
    let filler = atom::nil().as_c_arg();
    let (mut keys, mut values) = ([filler; SMALL_MAP], [filler; SMALL_MAP]);
    let n = entries.len();
    match (keys.get_mut(..n), values.get_mut(..n)) {
        (Some(keys), Some(values)) => {
            for ((key, value), (k, v)) in keys.iter_mut().zip(values.iter_mut()).zip(entries) {
                *key = k;
                *value = v;
            }
            make_map(env, keys, values)
        }
        _ => {
            let (keys, values): (Vec<NIF_TERM>, Vec<NIF_TERM>) = entries.unzip();
            make_map(env, &keys, &values)
        }
    }
}

fn make_map<'a>(env: Env<'a>, keys: &[NIF_TERM], values: &[NIF_TERM]) -> Option<Term<'a>> {
    let mut map = MaybeUninit::<NIF_TERM>::uninit();
    // SAFETY: both arrays hold `keys.len()` terms of `env` (the callers
    // build them from terms of `env`, the same length); the runtime writes
    // the map to `map` when it answers non-zero.
    let made = unsafe {
        enif_make_map_from_arrays(
            env.as_c_arg(),
            keys.as_ptr(),
            values.as_ptr(),
            keys.len(),
            map.as_mut_ptr(),
        )
    };
    // SAFETY: written by the runtime, as it answered non-zero; a term of
    // `env`.
    (made != 0).then(|| unsafe { Term::new(env, map.assume_init()) })
}

/// Builds `%Backplane.AgentRuntime.Error{class, message, details, cause: nil}`.
pub fn error_struct<'a>(env: Env<'a>, class: Class, message: &str, details: &[(Atom, Term<'a>)]) -> Term<'a> {
    let details = details_map(env, details);
    let keys = [
        keys::__struct__().encode(env),
        keys::class().encode(env),
        keys::message().encode(env),
        keys::details().encode(env),
        keys::cause().encode(env),
    ];
    let values = [
        keys::error_module().encode(env),
        class_atom(class).encode(env),
        binary(env, message.as_bytes()),
        details,
        atom::nil().encode(env),
    ];
    map_of(env, &keys, &values).unwrap_or_else(|| Term::map_new(env))
}

pub fn schema_error<'a>(env: Env<'a>, error: &SchemaError<BeamTerm<'a>>) -> Term<'a> {
    let details = detail_terms(env, &error.details());
    error_struct(env, error.class(), &error.to_string(), &details)
}

/// An error's details as `(key, term)` pairs.
fn detail_terms<'a>(env: Env<'a>, details: &Details<'_, BeamTerm<'a>>) -> Vec<(Atom, Term<'a>)> {
    details
        .iter()
        .map(|(key, value)| {
            let value = match value {
                Detail::Text(bytes) => binary(env, bytes),
                Detail::Datum(d) => datum(env, d),
                Detail::Term(term) => term.0,
                Detail::Reason(name) => reason_atom(env, name),
            };
            (detail_key(env, key), value)
        })
        .collect()
}

fn detail_key(env: Env<'_>, key: &str) -> Atom {
    match key {
        "path" => keys::path(),
        "type" => keys::type_(),
        "keyword" => keys::keyword(),
        "property" => keys::property(),
        "reason" => keys::reason(),
        "minimum" => keys::minimum(),
        "maximum" => keys::maximum(),
        "exclusiveMinimum" => keys::exclusive_minimum(),
        "exclusiveMaximum" => keys::exclusive_maximum(),
        "minLength" => keys::min_length(),
        "maxLength" => keys::max_length(),
        "minItems" => keys::min_items(),
        "maxItems" => keys::max_items(),
        other => Atom::from_str(env, other).unwrap_or_else(|_| keys::reason()),
    }
}

fn reason_atom<'a>(env: Env<'a>, name: &str) -> Term<'a> {
    match name {
        "match_limit" => keys::match_limit().encode(env),
        "patterns" => keys::patterns().encode(env),
        "work" => keys::work().encode(env),
        other => match Atom::from_str(env, other) {
            Ok(atom) => atom.encode(env),
            Err(_) => binary(env, other.as_bytes()),
        },
    }
}

/// The details of one argument error, as `(key, term)` pairs.
fn argument_details<'a>(env: Env<'a>, error: &ArgumentError<BeamTerm<'a>>) -> Vec<(Atom, Term<'a>)> {
    detail_terms(env, &error.details())
}

pub fn argument_error<'a>(env: Env<'a>, error: &ArgumentError<BeamTerm<'a>>) -> Term<'a> {
    error_struct(
        env,
        error.class(),
        &error.to_string(),
        &argument_details(env, error),
    )
}

/// An all-errors report: the first error as `validate/2` returns it, with
/// `details.errors` listing every error as `%{class, message, details}`.
pub fn argument_errors<'a>(env: Env<'a>, errors: &[ArgumentError<BeamTerm<'a>>]) -> Term<'a> {
    let listed: Vec<Term<'a>> = errors
        .iter()
        .map(|error| {
            let details = details_map(env, &argument_details(env, error));
            let fields = [
                keys::class().encode(env),
                keys::message().encode(env),
                keys::details().encode(env),
            ];
            let values = [
                class_atom(error.class()).encode(env),
                binary(env, error.to_string().as_bytes()),
                details,
            ];
            map_of(env, &fields, &values).unwrap_or_else(|| Term::map_new(env))
        })
        .collect();
    let Some(first) = errors.first() else {
        return error_struct(
            env,
            Class::ExecutionFailure,
            "tool argument validation failed",
            &[],
        );
    };
    let mut details = argument_details(env, first);
    details.push((keys::errors(), listed.encode(env)));
    error_struct(env, first.class(), &first.to_string(), &details)
}

pub fn json_error<'a>(env: Env<'a>, error: &crate::decode::JsonError) -> Term<'a> {
    let details = [
        (keys::line(), error.line.encode(env)),
        (keys::column(), error.column.encode(env)),
        (keys::reason(), binary(env, error.reason.as_bytes())),
    ];
    error_struct(env, Class::Validation, "invalid JSON", &details)
}
