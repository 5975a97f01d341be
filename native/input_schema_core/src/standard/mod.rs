//! Standard JSON Schema: the five dialects (draft 4, 6, 7, 2019-09 and
//! 2020-12), every keyword, references across documents, output units with
//! the specification's locations. The second entry point over the core:
//! the gateway's strict subset lives in `schema` and `validate`; this module
//! owns the standard semantics (`1.0` is an integer, `$ref` beside other
//! keywords, annotations for `unevaluated*`).
//!
//! Layers: `uri` and `registry` (documents, resources, anchors) ->
//! `compiler` (the keyword table, `crate::keywords` by family) -> `walk` (an
//! instance against the compiled graph) -> `output`.

pub(crate) mod compiler;
pub mod dialect;
pub mod documents;
mod known_valid;
pub(crate) mod output;
pub(crate) mod plan;
pub(crate) mod registry;
pub mod uri;
pub(crate) mod vocabulary;
pub(crate) mod walk;

use std::sync::OnceLock;

use serde_json::Value as Json;

use crate::budget::Budget;
use crate::value::Value;

pub use dialect::Dialect;
pub use output::{CompileError, Constraint, Limit, MetaschemaFailure, OutputUnit, Report, UnitSpans};
pub use vocabulary::Vocabularies;

pub(crate) use crate::keywords::NodeId;

/// Whether `format` is an annotation (the specification's default) or an
/// assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatMode {
    #[default]
    Annotate,
    Assert,
}

/// Whether `contentEncoding`, `contentMediaType` and `contentSchema` are
/// annotations (what 2019-09 and 2020-12 require by default) or
/// assertions (`crate::keywords::content`: the encodings and the media
/// type it knows, in the dialects that have each keyword).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContentMode {
    #[default]
    Annotate,
    Assert,
}

/// What `Validator::compile` takes besides the schema.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The dialect of a schema without `$schema`.
    pub dialect: Dialect,
    /// Documents remote references may point at, by absolute URI.
    pub resources: Vec<(String, Json)>,
    pub formats: FormatMode,
    pub content: ContentMode,
}

/// The bounds a compilation and a validation keep to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting of subschemas in a document.
    pub max_schema_depth: usize,
    /// Most nested evaluations at once: a level of the instance, or a step
    /// that stays on the same value (an `allOf` entry, a `$ref`).
    pub max_walk_depth: usize,
    /// Most output units a validation returns.
    pub max_errors: usize,
}

/// Deepest subschema nesting a document may have. Real schemas nest a
/// dozen levels; the metaschemas, six.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// Most nested evaluations at once. A tree instance validated through a
/// recursive reference takes one or two per level; 1,024 levels of a real
/// document is far beyond any, and each frame continues on the heap when
/// the stack runs low (`stack::deep`).
pub const MAX_WALK_DEPTH: usize = 1_024;

/// Most output units `validate` returns: enough for a caller to repair a
/// document in one round trip, bounded so that an instance with a million
/// failures builds no million errors.
pub const MAX_ERRORS: usize = 64;

/// Work a compilation may do (the metaschema check included), in budget
/// units: about 50 ms here. The gateway's compile budget, for the same
/// reason: a schema from an untrusted server cannot stall the node.
pub const COMPILE_BUDGET: u64 = 2_000_000;

/// Work a validation may do, in budget units (about one per value visited,
/// one per keyword applied): about 0.5-1 s here. References, `anyOf` and
/// `unevaluated*` can make a small schema visit a value many times; past
/// the limit the validation stops with a limit error, never a verdict.
pub const WALK_BUDGET: u64 = 10_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_schema_depth: MAX_SCHEMA_DEPTH,
            max_walk_depth: MAX_WALK_DEPTH,
            max_errors: MAX_ERRORS,
        }
    }
}

/// A compiled schema: an immutable graph of nodes, one per subschema, with
/// every static reference linked.
#[derive(Debug)]
pub struct Validator {
    pub(crate) nodes: Vec<crate::keywords::Node>,
    pub(crate) root: NodeId,
    pub(crate) resources: Vec<crate::keywords::Resource>,
    /// Whether any `unevaluated*` keyword exists: only then does the
    /// recording walk collect annotations.
    pub(crate) annotates: bool,
    /// Whether an `unevaluated*` keyword needs the annotations to decide
    /// (one that no plan folds): only then do the walks that record
    /// nothing collect them too.
    pub(crate) annotates_to_decide: bool,
    /// Whether dynamic references exist: only then is the dynamic scope kept.
    pub(crate) dynamic: bool,
    pub(crate) limits: Limits,
    /// Heap bytes held, approximately (for caches).
    pub(crate) bytes: usize,
}

impl Validator {
    /// Checks a schema against its dialect's metaschema and compiles it.
    pub fn compile(schema: &Json, options: &Options) -> Result<Validator, CompileError> {
        Validator::compile_within(schema, options, &Budget::new(COMPILE_BUDGET))
    }

    /// [`Validator::compile`] within a caller's budget: over it, the error
    /// is `CompileError::CompileBudget` (the NIF then retries on a dirty
    /// scheduler with the full budget).
    pub fn compile_within(
        schema: &Json,
        options: &Options,
        budget: &Budget,
    ) -> Result<Validator, CompileError> {
        crate::stack::deep(|| {
            compiler::check_metaschema(schema, options, budget, false)?;
            compiler::compile(schema, options, budget, Limits::default(), false, None)
        })
    }

    /// [`Validator::compile_within`] for a normal scheduler: it also stops
    /// with `CompileError::CompileBudget` where the work would not be
    /// bounded by the budget: building a metaschema this process has not
    /// built yet, or a pattern not built before. The dirty retry does both.
    ///
    /// A pattern found built costs this compile its look-up (a unit and a
    /// unit per 16 bytes of source), not its build. The verdict stays the
    /// one the dirty compile, which charges every build, would give: when
    /// what this call spent and the builds it was spared pass
    /// [`COMPILE_BUDGET`], it stops with `CompileBudget` and the dirty
    /// compile decides.
    pub fn compile_inline(
        schema: &Json,
        options: &Options,
        budget: &Budget,
    ) -> Result<Validator, CompileError> {
        crate::stack::deep(|| {
            let before = budget.left() as u64;
            compiler::check_metaschema(schema, options, budget, true)?;
            let deferred = std::cell::Cell::new(0);
            let validator =
                compiler::compile(schema, options, budget, Limits::default(), true, Some(&deferred))?;
            let spent = before.saturating_sub(budget.left() as u64);
            if spent.saturating_add(deferred.get()) > COMPILE_BUDGET {
                return Err(CompileError::CompileBudget);
            }
            Ok(validator)
        })
    }

    /// The metaschema check of [`Validator::compile_within`] alone (inline:
    /// as [`Validator::compile_inline`] runs it), for a profile that orders
    /// its own checks around it.
    pub fn check_metaschema(
        schema: &Json,
        options: &Options,
        budget: &Budget,
        inline: bool,
    ) -> Result<(), CompileError> {
        crate::stack::deep(|| compiler::check_metaschema(schema, options, budget, inline))
    }

    /// The compile of [`Validator::compile_within`] (inline: of
    /// [`Validator::compile_inline`]) without the metaschema check, going
    /// on past a reference that resolves nowhere: the first such reference
    /// the compile met comes back beside the validator, which must then not
    /// be used. A profile that reports every other compile error before an
    /// unresolved reference compiles this way.
    pub fn compile_past_dangling(
        schema: &Json,
        options: &Options,
        budget: &Budget,
        inline: bool,
    ) -> Result<(Validator, Option<CompileError>), CompileError> {
        crate::stack::deep(|| {
            let before = budget.left() as u64;
            let deferred = std::cell::Cell::new(0);
            let compiled = compiler::compile_past_dangling(
                schema,
                options,
                budget,
                inline,
                inline.then_some(&deferred),
            )?;
            let spent = before.saturating_sub(budget.left() as u64);
            if inline && spent.saturating_add(deferred.get()) > COMPILE_BUDGET {
                return Err(CompileError::CompileBudget);
            }
            Ok(compiled)
        })
    }

    /// Where `schema` nests past [`MAX_SCHEMA_DEPTH`], as the compiler would
    /// report it (`CompileError::TooDeep`); `None` when it does not. For a
    /// reader that had to cut a document short: the schema-level place is
    /// what a caller can act on.
    pub fn nesting_error(schema: &Json, dialect: Dialect) -> Option<CompileError> {
        compiler::nesting_error(schema, dialect, &Budget::new(COMPILE_BUDGET))
    }

    /// Compiles without the metaschema check (the metaschemas themselves).
    pub(crate) fn compile_unchecked(
        schema: &Json,
        options: &Options,
        budget: &Budget,
    ) -> Result<Validator, CompileError> {
        compiler::compile(schema, options, budget, Limits::default(), false, None)
    }

    /// Whether `instance` is valid, within the validation work limit.
    pub fn is_valid<'a, V: Value<'a>>(&self, instance: V) -> Result<bool, Limit> {
        self.is_valid_within(instance, &Budget::new(WALK_BUDGET))
    }

    pub fn is_valid_within<'a, V: Value<'a>>(&self, instance: V, budget: &Budget) -> Result<bool, Limit> {
        walk::is_valid(self, instance, budget)
    }

    /// Every failure (at most `MAX_ERRORS`), in evaluation order; empty
    /// when the instance is valid. Within the validation work limit.
    pub fn validate<'a, V: Value<'a>>(&self, instance: V) -> Result<Vec<OutputUnit>, Limit> {
        self.validate_limited(instance, WALK_BUDGET)
    }

    /// [`Validator::validate`] with a work limit of `units`. An invalid
    /// instance is walked twice, first to decide, then to record its
    /// failures; each walk has the limit (so the work limit means what it
    /// means for [`Validator::is_valid`]).
    pub fn validate_limited<'a, V: Value<'a>>(
        &self,
        instance: V,
        units: u64,
    ) -> Result<Vec<OutputUnit>, Limit> {
        self.report_limited(instance, units).map(|report| report.units())
    }

    /// [`Validator::validate_limited`] as a [`Report`]: the failures' texts
    /// in one buffer.
    pub fn report_limited<'a, V: Value<'a>>(&self, instance: V, units: u64) -> Result<Report, Limit> {
        walk::validate(self, instance, &Budget::new(units), &Budget::new(units))
    }

    /// [`Validator::validate`] with both walks charged to one `budget`: a
    /// bound on the whole call (a normal scheduler's inline budget).
    pub fn validate_within<'a, V: Value<'a>>(
        &self,
        instance: V,
        budget: &Budget,
    ) -> Result<Vec<OutputUnit>, Limit> {
        self.report_within(instance, budget).map(|report| report.units())
    }

    /// [`Validator::validate_within`] as a [`Report`].
    pub fn report_within<'a, V: Value<'a>>(&self, instance: V, budget: &Budget) -> Result<Report, Limit> {
        walk::validate(self, instance, budget, budget)
    }

    /// Heap bytes the compiled schema holds, approximately.
    pub fn approximate_bytes(&self) -> usize {
        self.bytes
    }

    /// What the keyword a failure of this schema's names demanded, for the
    /// keywords whose constraint a caller may report as data (bounds,
    /// `type`, `required`); `None` for the others.
    pub fn constraint(&self, unit: &UnitSpans) -> Option<Constraint> {
        let node = self.nodes.get(unit.node as usize)?;
        let crate::keywords::Body::Keywords(entries, _) = &node.body else {
            return None;
        };
        let entry = entries.iter().find(|entry| entry.name == unit.keyword)?;
        use crate::keywords::Keyword;
        Some(match &entry.keyword {
            Keyword::Minimum(n)
            | Keyword::Maximum(n)
            | Keyword::ExclusiveMinimum(n)
            | Keyword::ExclusiveMaximum(n) => Constraint::Bound(n.clone()),
            Keyword::Type(_, written) => {
                let (names, listed) = written.names();
                Constraint::Types { names, listed }
            }
            Keyword::Required(names) => Constraint::Property(names.get(unit.detail as usize)?.to_string()),
            _ => return None,
        })
    }
}

static METASCHEMAS: [OnceLock<Option<Validator>>; 5] = [const { OnceLock::new() }; 5];

/// The compiled metaschema of a dialect if this process has built it
/// (never waits, never builds).
pub(crate) fn metaschema_if_built(dialect: Dialect) -> Option<&'static Validator> {
    let index = Dialect::ALL.iter().position(|d| *d == dialect)?;
    METASCHEMAS.get(index)?.get()?.as_ref()
}

/// The compiled metaschema of a dialect, built once per process.
pub(crate) fn metaschema(dialect: Dialect) -> Option<&'static Validator> {
    let index = Dialect::ALL.iter().position(|d| *d == dialect)?;
    METASCHEMAS
        .get(index)?
        .get_or_init(|| {
            let json = registry::built_in_document(dialect.uri())?;
            let options = Options {
                dialect,
                ..Options::default()
            };
            Validator::compile_unchecked(json, &options, &Budget::unlimited()).ok()
        })
        .as_ref()
}
