//! An instance against a compiled graph: the walk. One walk answers either
//! "is it valid?" (stopping at the first failure, building no error) or
//! "every failure" (output units, at most `Limits::max_errors`). It keeps
//! the dynamic scope only when the schema has dynamic references, and
//! collects annotations only when it has `unevaluated*` keywords (when
//! recording nothing, only when one of them is not folded into a plan).
//!
//! Every step is charged to the work budget and counted against the depth
//! limit; each node's evaluation runs through `stack::deep`, so no instance
//! and no schema can overflow a stack.

use super::output::{push_decimal, Limit, Message, Report, UnitSpans};
use super::Validator;
use crate::budget::Budget;
use crate::keywords::numbers::Bound;
use crate::keywords::type_bits::STRING;
use crate::keywords::types::{type_holds, FLOATS_ARE_NEVER_INTEGERS};
use crate::keywords::{Body, Entry, Keyword, Node, NodeId};
use crate::value::{push_pointer_token, Value};

pub(crate) type Step = Result<bool, Limit>;

/// One step of a location: a keyword, a name from the schema or the
/// instance (as text, or as bytes not yet read as UTF-8), or an index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'p> {
    Key(&'static str),
    Text(&'p str),
    Name(&'p [u8]),
    Index(usize),
}

impl Seg<'_> {
    /// Appends this step of a JSON Pointer (its `/` and its token).
    #[inline]
    fn write(self, out: &mut String) {
        match self {
            Seg::Key(key) => {
                out.push('/');
                out.push_str(key);
            }
            Seg::Index(i) => {
                out.push('/');
                push_decimal(out, i as u64);
            }
            Seg::Text(name) => push_pointer_token(out, name),
            Seg::Name(bytes) => match std::str::from_utf8(bytes) {
                Ok(name) => push_pointer_token(out, name),
                Err(_) => push_pointer_token(out, &String::from_utf8_lossy(bytes)),
            },
        }
    }
}

/// A location built as the walk descends, rendered only for an error.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Path<'p> {
    seg: Option<Seg<'p>>,
    parent: Option<&'p Path<'p>>,
}

impl<'p> Path<'p> {
    pub const ROOT: Path<'static> = Path {
        seg: None,
        parent: None,
    };

    pub fn push<'q>(&'q self, seg: Seg<'q>) -> Path<'q>
    where
        'p: 'q,
    {
        Path {
            seg: Some(seg),
            parent: Some(self),
        }
    }

    /// The location one step up (`then` and `else` sit beside `if`).
    pub fn parent_path(&self) -> Path<'p> {
        self.parent.copied().unwrap_or(Path {
            seg: None,
            parent: None,
        })
    }

    /// The location as a JSON Pointer.
    #[cfg(test)]
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    /// Appends the location as a JSON Pointer to `out`.
    pub fn render_into(&self, out: &mut String) {
        // The steps are met innermost first and written outermost first:
        // the usual short locations gather references to their steps on
        // the stack, a longer one in a vector.
        const SHORT: usize = 16;
        let mut short: [&Path<'_>; SHORT] = [self; SHORT];
        let mut count = 0;
        let mut long = Vec::new();
        let mut at = Some(self);
        while let Some(path) = at {
            if path.seg.is_some() {
                match short.get_mut(count) {
                    Some(slot) => *slot = path,
                    None => long.push(path),
                }
                count += 1;
            }
            at = path.parent;
        }
        let steps = short.get(..count.min(SHORT)).unwrap_or_default();
        // `long` holds the outermost steps (met last), so it comes first.
        for path in long.iter().rev().chain(steps.iter().rev()) {
            if let Some(seg) = path.seg {
                seg.write(out);
            }
        }
    }

    /// The nearest keyword on the path (what a `false` schema reports).
    fn last_key(&self) -> &'static str {
        let mut at = Some(self);
        while let Some(path) = at {
            if let Some(Seg::Key(key)) = path.seg {
                return key;
            }
            at = path.parent;
        }
        "false"
    }
}

/// Annotations a schema's evaluation produced for `unevaluated*`: which
/// properties (by their position in the map) or items it evaluated. The
/// first 64 positions are kept in a word of their own, so that most
/// objects and lists need no allocation.
#[derive(Debug, Default, Clone)]
pub(crate) struct Ann {
    first: u64,
    /// Positions 64 and on, 64 a word.
    more: Vec<u64>,
    all: bool,
}

impl Ann {
    pub fn mark(&mut self, index: usize) {
        if index < 64 {
            self.first |= 1 << index;
            return;
        }
        let word = index / 64 - 1;
        if self.more.len() <= word {
            self.more.resize(word + 1, 0);
        }
        if let Some(w) = self.more.get_mut(word) {
            *w |= 1 << (index % 64);
        }
    }

    pub fn mark_all(&mut self) {
        self.all = true;
    }

    pub fn has(&self, index: usize) -> bool {
        if self.all {
            return true;
        }
        if index < 64 {
            return self.first & (1 << index) != 0;
        }
        self.more
            .get(index / 64 - 1)
            .is_some_and(|w| w & (1 << (index % 64)) != 0)
    }

    pub fn merge(&mut self, other: Ann) {
        self.all |= other.all;
        self.first |= other.first;
        if other.more.is_empty() {
            return;
        }
        if self.more.len() < other.more.len() {
            self.more.resize(other.more.len(), 0);
        }
        for (mine, theirs) in self.more.iter_mut().zip(other.more) {
            *mine |= theirs;
        }
    }
}

pub(crate) struct Walk<'w> {
    pub v: &'w Validator,
    pub budget: &'w Budget,
    /// Resources entered, outermost first (kept when `v.dynamic`).
    pub scope: Vec<u32>,
    depth: usize,
    /// Whether failures become output units (false: "is it valid?").
    pub collect: bool,
    pub report: Report,
    /// The error bound is reached: stop.
    pub full: bool,
    /// What the recording walk may still spend on items that the walk
    /// recording nothing finds invalid (`passes_unrecorded`): as many units
    /// as the first pass took, so that the second pass costs at most that
    /// much more (and one item's trial past it) than it would without it.
    spare: u64,
    /// `validate`'s first pass: where its items failed (made at the first).
    remember: Option<&'w mut Option<Failures>>,
    /// The recording walk: the first pass's failures, whose items it walks
    /// without trying them first.
    recall: Option<&'w Failures>,
    /// The keys of one object that its node's `properties` and
    /// `patternProperties` matched (`Matched`).
    pub matched: Matched,
    /// While the recording walk is in a value decoded from a string of the
    /// instance (`decoded`), that string's instance location, rendered:
    /// every failure inside is reported there.
    content_at: Option<String>,
}

/// Which keys of an object passed a plan that failed it (`keys_failed`):
/// every one (a required name is missing), or those before a failing key.
pub(crate) enum Passed<V> {
    All,
    Before(V),
}

/// The keys of one object (by their position in the map) that one node's
/// `properties` or `patternProperties` matched, noted when a keyword has
/// read every key, so that the node's `additionalProperties` reads the
/// answer instead of matching each key again. Both keywords match by the
/// keys and the schema alone, so a note for the same node and object is
/// right whenever it was made (an evaluation of another node or object in
/// between replaces it, and is told apart by them).
#[derive(Debug, Default)]
pub(crate) struct Matched {
    node: usize,
    object: usize,
    properties: bool,
    patterns: bool,
    keys: Ann,
}

/// Which keyword's matches a `Matched` note holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Matcher {
    Properties,
    Patterns,
}

impl Matched {
    /// Adds the keys `matcher` matched on `object` for `node`.
    pub fn note(&mut self, node: &Node, object: usize, matcher: Matcher, keys: Ann) {
        let node = std::ptr::from_ref(node) as usize;
        if self.node != node || self.object != object {
            *self = Matched {
                node,
                object,
                ..Matched::default()
            };
        }
        match matcher {
            Matcher::Properties => self.properties = true,
            Matcher::Patterns => self.patterns = true,
        }
        self.keys.merge(keys);
    }

    /// The keys matched on `object` for `node` by its `properties` (when
    /// `properties`) and its `patternProperties` (when `patterns`), when
    /// both were noted; the note is taken.
    pub fn take(&mut self, node: &Node, object: usize, properties: bool, patterns: bool) -> Option<Ann> {
        let node = std::ptr::from_ref(node) as usize;
        let noted = self.node == node
            && self.object == object
            && (self.properties || !properties)
            && (self.patterns || !patterns);
        noted.then(|| std::mem::take(self).keys)
    }
}

/// Where `items` failed in `validate`'s first pass, one entry per list on
/// the way to the failure that stopped it (and any earlier one, in a
/// branch), innermost first, so the last ones kept are the outermost. The
/// first pass walks a list's items in order and stops at the first that
/// fails, so an entry says two things about its list, its `items` schema
/// and the depth the walk met them at: the item at `index` fails, and
/// each one from `first` (the first item `items` checks) up to it passes.
/// The recording walk, at the same list, schema and depth, walks the
/// failing item without trying it first, and passes the ones before it
/// without walking them (`passes_unrecorded`); for a failure deep in a
/// recursive instance, it walks only the path to it, not every subtree
/// around it again.
///
/// A list's identity is its term (or its address): two lists that share
/// one are one value. The schema, the depth and the value decide the
/// verdict, but for a dynamic scope (`$dynamicRef`, `$recursiveRef`),
/// which a shared list may meet in two ways; in such a schema the entries
/// only spare the failing item's trial, which decides nothing.
///
/// Objects are noted the same way (`KeysFailed`): a node's plan reads an
/// object's entries in order and stops at the first key that fails, so
/// the keys before it pass the node's `properties`, `patternProperties`
/// and `additionalProperties`, and the recording walk's keywords pass
/// over them. An object's entry holds the dynamic scope too (when the
/// schema keeps one), so it speaks only for the same scope.
pub(crate) struct Failures {
    seen: [Failed; Failures::KEPT],
    noted: usize,
    objects: [KeysFailed; Failures::KEPT],
    objects_noted: usize,
    scopes: Vec<u32>,
}

/// One object's entries in `validate`'s first pass: against the plan of
/// `node` (its address), at `depth`, in the dynamic scope held at
/// `scope_at` in `Failures::scopes` (`scope_len` ids; none when the schema
/// keeps no scope), the first `passed` keys pass (all of them when a
/// required name is missing).
#[derive(Debug, Default, Clone, Copy)]
struct KeysFailed {
    object: usize,
    node: usize,
    depth: u32,
    passed: u32,
    scope_at: u32,
    scope_len: u32,
}

/// One list's first failing item in `validate`'s first pass (a list of
/// more than `u32::MAX` items, or a depth past it, is not noted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Failed {
    list: usize,
    schema: NodeId,
    depth: u32,
    first: u32,
    index: u32,
}

/// What the first pass found for one list against one schema at one
/// depth (`Failures::list`): the items from `first` up to `failed` pass
/// (when `passes` may be trusted: no dynamic scope), item `failed` fails.
/// Looked up once for the list, not once per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Recalled {
    first: usize,
    failed: usize,
    passes: bool,
}

impl Recalled {
    /// Whether the first pass found item `index` valid.
    #[inline]
    fn passed(self, index: usize) -> bool {
        self.passes && (self.first..self.failed).contains(&index)
    }

    /// How many items from `from` on the first pass found valid, when it
    /// began at `from`.
    pub fn passed_from(self, from: usize) -> Option<usize> {
        (self.passes && self.first == from).then(|| self.failed.saturating_sub(from))
    }
}

impl Failures {
    const KEPT: usize = 16;
    /// The most resource ids the entries' dynamic scopes hold in all.
    const SCOPE_WORDS: usize = 16 * 1024;

    fn new() -> Failures {
        Failures {
            seen: [Failed {
                list: 0,
                schema: 0,
                depth: 0,
                first: 0,
                index: 0,
            }; Failures::KEPT],
            noted: 0,
            objects: [KeysFailed::default(); Failures::KEPT],
            objects_noted: 0,
            scopes: Vec::new(),
        }
    }

    #[cold]
    fn note_keys(&mut self, mut failed: KeysFailed, scope: &[u32]) {
        if !scope.is_empty() {
            // The scopes of older entries stay behind in the buffer; past
            // its bound, an entry is not kept (the recording walk then
            // reads the object's keys itself).
            let (Ok(at), Ok(len)) = (u32::try_from(self.scopes.len()), u32::try_from(scope.len())) else {
                return;
            };
            if self.scopes.len() + scope.len() > Failures::SCOPE_WORDS {
                return;
            }
            self.scopes.extend_from_slice(scope);
            failed.scope_at = at;
            failed.scope_len = len;
        }
        if let Some(slot) = self.objects.get_mut(self.objects_noted % Failures::KEPT) {
            *slot = failed;
        }
        self.objects_noted += 1;
    }

    /// How many keys of `object` the first pass found passing the plan of
    /// `node` at `depth` in `scope` (its first entry for them, as for
    /// lists).
    fn keys(&self, node: usize, object: usize, depth: usize, scope: &[u32]) -> Option<usize> {
        let depth = u32::try_from(depth).ok()?;
        let kept = self.objects_noted.min(Failures::KEPT);
        let objects = self.objects.get(..kept).unwrap_or_default();
        objects
            .iter()
            .find(|failed| {
                failed.node == node
                    && failed.object == object
                    && failed.depth == depth
                    // Read from the buffer only in a dynamic scope.
                    && (scope.is_empty() && failed.scope_len == 0 || self.scope_of(failed) == Some(scope))
            })
            .map(|failed| failed.passed as usize)
    }

    /// The dynamic scope an object's entry was noted in.
    fn scope_of(&self, failed: &KeysFailed) -> Option<&[u32]> {
        let at = failed.scope_at as usize;
        self.scopes.get(at..at.checked_add(failed.scope_len as usize)?)
    }

    #[cold]
    fn note(&mut self, failed: Failed) {
        if let Some(slot) = self.seen.get_mut(self.noted % Failures::KEPT) {
            *slot = failed;
        }
        self.noted += 1;
    }

    /// What the first pass found for `list` against `schema` at `depth`:
    /// its first entry for them (two entries for one list, schema and
    /// depth say the same, but in a dynamic scope, where only the failing
    /// item is taken from them).
    fn list(&self, schema: NodeId, list: usize, depth: usize) -> Option<(usize, usize)> {
        let depth = u32::try_from(depth).ok()?;
        let kept = self
            .seen
            .get(..self.noted.min(Failures::KEPT))
            .unwrap_or_default();
        kept.iter()
            .find(|failed| failed.schema == schema && failed.list == list && failed.depth == depth)
            .map(|failed| (failed.first as usize, failed.index as usize))
    }
}

pub(crate) fn is_valid<'a, V: Value<'a>>(v: &Validator, instance: V, budget: &Budget) -> Step {
    let mut walk = Walk::new(v, budget, false);
    walk.node(v.root, instance, &Path::ROOT, &Path::ROOT, None)
}

/// Every failure. A first pass that records nothing answers for a valid
/// instance (the plans' fast path, charged to `first`); only an invalid one
/// is walked again, recording, charged to `second` (the same budget, for a
/// bound on the whole call; or one of its own, for a work limit on each).
pub(crate) fn validate<'a, V: Value<'a>>(
    v: &Validator,
    instance: V,
    first: &Budget,
    second: &Budget,
) -> Result<Report, Limit> {
    let mut spare = 0;
    let mut failures = None;
    if !v.annotates_to_decide {
        let before = first.left();
        let mut walk = Walk::new(v, first, false);
        walk.remember = Some(&mut failures);
        if walk.node(v.root, instance, &Path::ROOT, &Path::ROOT, None)? {
            return Ok(Report::default());
        }
        spare = before.saturating_sub(first.left()) as u64;
    }
    let mut walk = Walk::new(v, second, true);
    walk.spare = spare;
    walk.recall = failures.as_ref();
    let valid = walk.node(v.root, instance, &Path::ROOT, &Path::ROOT, None)?;
    if !valid && walk.report.is_empty() {
        // Every failure reports itself; this is the backstop that keeps
        // an invalid verdict from reading as valid.
        let message = walk.report.write(|out| out.push_str("instance is not valid"));
        let root = message.start..message.start;
        walk.report.push(UnitSpans {
            keyword: "schema",
            keyword_location: root.clone(),
            absolute_keyword_location: None,
            instance_location: root,
            message,
            node: v.root,
            detail: 0,
        });
    }
    Ok(walk.report)
}

impl<'w> Walk<'w> {
    fn new(v: &'w Validator, budget: &'w Budget, collect: bool) -> Walk<'w> {
        Walk {
            v,
            budget,
            scope: Vec::new(),
            depth: 0,
            collect,
            report: Report::default(),
            full: false,
            spare: 0,
            remember: None,
            recall: None,
            matched: Matched::default(),
            content_at: None,
        }
    }

    /// Whether evaluations collect annotations: in the recording walk when
    /// the schema has `unevaluated*` keywords (its failures follow them),
    /// in a walk that records nothing only when one of them needs them to
    /// decide.
    #[inline]
    fn annotating(&self) -> bool {
        if self.collect {
            self.v.annotates
        } else {
            self.v.annotates_to_decide
        }
    }

    pub fn charge(&self, units: u64) -> Result<(), Limit> {
        self.budget.charge(units).map_err(|_| Limit::Work)
    }

    /// Evaluates node `id` against `instance`; `ann`, when given, receives
    /// the annotations of a successful evaluation.
    pub fn node<'a, V: Value<'a>>(
        &mut self,
        id: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        self.charge(1)?;
        let v = self.v;
        let Some(node) = v.nodes.get(id as usize) else {
            return Err(Limit::Depth);
        };
        self.entered(node, instance, kp, ip, ann)
    }

    /// A property's subschema `id` for its `value` (`properties`,
    /// `patternProperties`): `node`; in the recording walk, a subschema
    /// of `type` alone is checked by its plan's check first (`type_leaf`,
    /// as a plan visits it), and only a value of another type is walked.
    #[inline]
    pub(crate) fn property<'a, V: Value<'a>>(
        &mut self,
        id: NodeId,
        value: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        if self.collect {
            if let Some(types) = super::plan::type_alone(&self.v.nodes, id) {
                if self.type_leaf(types, value)? {
                    return Ok(true);
                }
            }
        }
        self.node(id, value, kp, ip, None)
    }

    /// `node`, as deep as `lift` nested evaluations further: a property
    /// schema folded into a plan from an `allOf` branch or a `$ref`
    /// (`plan::fold_all_of`), met as deep as from that branch.
    pub(crate) fn node_lifted<'a, V: Value<'a>>(
        &mut self,
        id: NodeId,
        lift: u32,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let depth = self.depth;
        self.depth = depth.saturating_add(lift as usize);
        let result = self.node(id, instance, kp, ip, None);
        self.depth = depth;
        result
    }

    /// Whether a depth check `extra` nested evaluations below this one
    /// would fail.
    #[inline]
    pub(crate) fn past_depth(&self, extra: usize) -> bool {
        self.depth.saturating_add(extra) >= self.v.limits.max_walk_depth
    }

    /// In `validate`'s first pass, notes that `schema` failed for `item` of
    /// `list`, and passed for each one from `first` up to it (for
    /// `passes_unrecorded`). The item's place is found here, on the
    /// failure's way out, so that the loops over items count nothing: it
    /// is the first item from `first` on that is this value (two items
    /// share an identity only when they are equal, and an equal item
    /// before it would have failed first).
    #[cold]
    pub(crate) fn item_failed<'a, V: Value<'a>>(&mut self, schema: NodeId, list: V, first: usize, item: V) {
        let depth = self.depth;
        let Some(failures) = self.remember.as_deref_mut() else {
            return;
        };
        let identity = item.identity();
        let Some(at) = list
            .list_items()
            .skip(first)
            .position(|other| other.identity() == identity)
        else {
            return;
        };
        let (Ok(depth), Ok(first), Ok(index)) = (
            u32::try_from(depth),
            u32::try_from(first),
            u32::try_from(first + at),
        ) else {
            return;
        };
        failures.get_or_insert_with(Failures::new).note(Failed {
            list: list.identity(),
            schema,
            depth,
            first,
            index,
        });
    }

    /// In `validate`'s first pass, notes which keys of `object` passed the
    /// plan of `node` before it failed (`keys_passed`). A failing key's
    /// place is found here, on the way out, so that the loop over the
    /// entries counts nothing.
    #[cold]
    pub(crate) fn keys_failed<'a, V: Value<'a>>(&mut self, node: &Node, object: V, passed: Passed<V>) {
        let depth = self.depth;
        let Some(failures) = self.remember.as_deref_mut() else {
            return;
        };
        let passed = match passed {
            Passed::All => object.map_len(),
            Passed::Before(key) => {
                let identity = key.identity();
                let Some(at) = object
                    .map_entries()
                    .position(|(other, _)| other.identity() == identity)
                else {
                    return;
                };
                at
            }
        };
        // No key passed: nothing to pass over.
        if passed == 0 {
            return;
        }
        let (Ok(depth), Ok(passed)) = (u32::try_from(depth), u32::try_from(passed)) else {
            return;
        };
        failures.get_or_insert_with(Failures::new).note_keys(
            KeysFailed {
                object: object.identity(),
                node: std::ptr::from_ref(node) as usize,
                depth,
                passed,
                scope_at: 0,
                scope_len: 0,
            },
            &self.scope,
        );
    }

    /// In the recording walk, how many of `object`'s first keys the first
    /// pass found passing every one of `node`'s `properties`,
    /// `patternProperties` and `additionalProperties` in the same dynamic
    /// scope: they record nothing, so those keywords pass over them (0 when
    /// nothing is known). Not where annotations are collected (each key
    /// must be marked).
    pub(crate) fn keys_passed<'a, V: Value<'a>>(&self, node: &Node, object: V) -> usize {
        if !self.collect || self.annotating() {
            return 0;
        }
        let node = std::ptr::from_ref(node) as usize;
        self.recall
            .and_then(|recall| recall.keys(node, object.identity(), self.depth, &self.scope))
            .unwrap_or(0)
    }

    /// The answer of a node that holds `type` alone (its `type` bits:
    /// `plan::inline_subschemas`), as `node` would give it: the node's
    /// unit, its depth check, and its plan's check of the type.
    #[inline]
    pub(crate) fn type_leaf<'a, V: Value<'a>>(&mut self, types: u8, instance: V) -> Step {
        self.charge(1)?;
        if self.depth >= self.v.limits.max_walk_depth {
            return Err(Limit::Depth);
        }
        // `string` alone (the commonest leaf) needs no kind: only a string
        // has bytes to read, and they must be text.
        if types & !FLOATS_ARE_NEVER_INTEGERS == STRING {
            return Ok(instance
                .bytes()
                .is_some_and(|bytes| instance.text_of(bytes).is_some()));
        }
        Ok(type_holds(types, instance.kind(), instance))
    }

    /// The answer of a `$ref` alone (its node charged), and of the `$ref`s
    /// alone it leads to: its target's, without the frames of the hops.
    /// Each hop is counted against the depth limit and each target charged
    /// as the keyword-by-keyword `$ref` would be; nothing is recorded, so
    /// the locations the hops would push are never read.
    #[cold]
    #[inline(never)]
    fn hop<'a, V: Value<'a>>(
        &mut self,
        mut target: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let v = self.v;
        let mut hops = 0;
        loop {
            if self.depth + hops >= v.limits.max_walk_depth {
                return Err(Limit::Depth);
            }
            hops += 1;
            self.charge(1)?;
            let Some(node) = v.nodes.get(target as usize) else {
                return Err(Limit::Depth);
            };
            match node.reference_alone() {
                Some(next) => target = next,
                None => {
                    self.depth += hops;
                    let result = self.entered(node, instance, kp, ip, ann);
                    self.depth -= hops;
                    return result;
                }
            }
        }
    }

    /// The answer of a `$ref` alone whose chain of `hops` `$ref`s alone
    /// leads to `target` (`plan::Visit::Hops`), in a walk that records
    /// nothing and keeps no dynamic scope: what `node` and `hop` give, with
    /// their units and depth checks in the same order (the `$ref`'s unit;
    /// then, for each hop, a depth check and a unit), without their frames.
    #[inline]
    pub(crate) fn hopped<'a, V: Value<'a>>(
        &mut self,
        target: NodeId,
        hops: u32,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        debug_assert!(!self.collect && !self.v.dynamic);
        self.charge(1)?;
        let v = self.v;
        let hops = hops as usize;
        // The hops whose depth check passes.
        let room = v.limits.max_walk_depth.saturating_sub(self.depth);
        if hops > room {
            self.charge(room as u64)?;
            return Err(Limit::Depth);
        }
        self.charge(hops as u64)?;
        let Some(node) = v.nodes.get(target as usize) else {
            return Err(Limit::Depth);
        };
        self.depth += hops;
        let result = self.entered(node, instance, kp, ip, None);
        self.depth -= hops;
        result
    }

    /// Evaluates `node` (charged) against `instance`.
    #[inline(always)]
    fn entered<'a, V: Value<'a>>(
        &mut self,
        node: &'w Node,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let v = self.v;
        let leaf = match &node.body {
            Body::Accept => return Ok(true),
            Body::Reject => {
                return self.fail_at(node, kp.last_key(), 0, kp, ip, |m| {
                    m.then("no value is allowed here (the schema is false)")
                })
            }
            Body::Keywords(entries, Some(plan)) if plan.is_leaf() => Some((entries, plan)),
            // A `$ref` alone (its node has no plan: nothing folded it), in
            // a walk that records nothing and keeps no dynamic scope.
            Body::Keywords(_, None) if !self.collect && !v.dynamic => {
                if let Some(target) = node.reference_alone() {
                    return self.hop(target, instance, kp, ip, ann);
                }
                None
            }
            Body::Keywords(..) => None,
        };
        if self.depth >= v.limits.max_walk_depth {
            return Err(Limit::Depth);
        }
        // A leaf's plan checks the value alone (no subschema, no keyword
        // left to the keyword-by-keyword walk, no annotation): it recurses
        // nowhere, so it needs neither a new stack segment nor the dynamic
        // scope. It answers for the walks that record nothing, and for a
        // valid value in the recording walk (which records nothing there);
        // only a failing value is walked again, keyword by keyword, for
        // its failures.
        if let Some((entries, plan)) = leaf {
            let valid = self.planned(node, plan, entries, instance, kp, ip)?;
            if valid || !self.collect {
                return Ok(valid);
            }
        }
        self.depth += 1;
        let entered = v.dynamic && self.scope.last() != Some(&node.resource);
        if entered {
            self.scope.push(node.resource);
        }
        // A walk that records nothing and collects no annotation answers
        // by the node's plan, straight from the new frame.
        let result = crate::stack::deep(|| match &node.body {
            Body::Keywords(entries, Some(plan)) if !self.collect && !self.annotating() => {
                self.planned(node, plan, entries, instance, kp, ip)
            }
            _ => self.keywords(node, instance, kp, ip, ann),
        });
        if entered {
            self.scope.pop();
        }
        self.depth -= 1;
        result
    }

    /// A node's keywords one by one (`entered` answers by the plan where
    /// it may).
    #[inline(never)]
    fn keywords<'a, V: Value<'a>>(
        &mut self,
        node: &'w Node,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let Body::Keywords(entries, _) = &node.body else {
            return Ok(true);
        };
        let annotating = self.annotating();
        let mut local = if annotating { Some(Ann::default()) } else { None };
        let mut valid = true;
        for entry in entries.iter() {
            let passed = self.keyword(node, entry, instance, kp, ip, local.as_mut())?;
            if self.stops(passed, &mut valid) {
                return Ok(false);
            }
        }
        if valid {
            if let (Some(parent), Some(local)) = (ann, local) {
                parent.merge(local);
            }
        }
        Ok(valid)
    }

    pub(crate) fn keyword<'a, V: Value<'a>>(
        &mut self,
        node: &'w Node,
        entry: &'w Entry,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let kp = kp.push(Seg::Key(entry.name));
        let at = At {
            node,
            name: entry.name,
        };
        match &entry.keyword {
            Keyword::Ref(target) => self.node(*target, instance, &kp, ip, ann),
            Keyword::DynamicRef { fallback, anchor } => {
                self.check_dynamic_ref(*fallback, anchor, instance, &kp, ip, ann)
            }
            Keyword::RecursiveRef(target) => self.check_recursive_ref(*target, instance, &kp, ip, ann),
            Keyword::AllOf(nodes) => self.check_all_of(nodes, instance, &kp, ip, ann),
            Keyword::AnyOf(branches) => self.check_any_of(&at, branches, instance, &kp, ip, ann),
            Keyword::OneOf(branches) => self.check_one_of(&at, branches, instance, &kp, ip, ann),
            Keyword::Not(schema) => self.check_not(&at, *schema, instance, &kp, ip),
            Keyword::If {
                condition,
                then,
                otherwise,
            } => self.check_if(*condition, *then, *otherwise, instance, &kp, ip, ann),
            Keyword::DependentSchemas(schemas) => {
                self.check_dependent_schemas(schemas, instance, &kp, ip, ann)
            }
            Keyword::Properties(properties) => self.check_properties(&at, properties, instance, &kp, ip, ann),
            Keyword::PatternProperties(patterns) => {
                self.check_pattern_properties(&at, patterns, instance, &kp, ip, ann)
            }
            Keyword::AdditionalProperties {
                schema,
                names,
                patterns,
            } => self.check_additional_properties(&at, *schema, names, patterns, instance, &kp, ip, ann),
            Keyword::PropertyNames(schema) => self.check_property_names(&at, *schema, instance, &kp, ip),
            Keyword::PrefixItems(nodes) => self.check_prefix_items(&at, nodes, instance, &kp, ip, ann),
            Keyword::Items { schema, skip } => self.check_items(&at, *schema, *skip, instance, &kp, ip, ann),
            Keyword::Contains {
                schema,
                min,
                max,
                annotates,
            } => self.check_contains(&at, *schema, *min, *max, *annotates, instance, &kp, ip, ann),
            Keyword::UnevaluatedProperties(schema) => {
                self.check_unevaluated_properties(&at, *schema, instance, &kp, ip, ann)
            }
            Keyword::UnevaluatedItems(schema) => {
                self.check_unevaluated_items(&at, *schema, instance, &kp, ip, ann)
            }
            Keyword::Type(types, _) => self.check_type(&at, *types, instance, &kp, ip),
            Keyword::Enum(choices) => self.check_enum(&at, choices, instance, &kp, ip),
            Keyword::Const(value) => self.check_const(&at, value, instance, &kp, ip),
            Keyword::MultipleOf(n) => self.check_multiple_of(&at, n, instance, &kp, ip),
            Keyword::Minimum(n) => self.check_bound(&at, n, Bound::Minimum, instance, &kp, ip),
            Keyword::Maximum(n) => self.check_bound(&at, n, Bound::Maximum, instance, &kp, ip),
            Keyword::ExclusiveMinimum(n) => {
                self.check_bound(&at, n, Bound::ExclusiveMinimum, instance, &kp, ip)
            }
            Keyword::ExclusiveMaximum(n) => {
                self.check_bound(&at, n, Bound::ExclusiveMaximum, instance, &kp, ip)
            }
            Keyword::MinLength(n) => self.check_length(&at, *n, true, instance, &kp, ip),
            Keyword::MaxLength(n) => self.check_length(&at, *n, false, instance, &kp, ip),
            Keyword::Pattern { pattern, source } => {
                self.check_pattern(&at, pattern, source, instance, &kp, ip)
            }
            Keyword::Format(format) => self.check_format(&at, *format, instance, &kp, ip),
            Keyword::MinItems(n) => self.check_item_count(&at, *n, true, instance, &kp, ip),
            Keyword::MaxItems(n) => self.check_item_count(&at, *n, false, instance, &kp, ip),
            Keyword::UniqueItems => self.check_unique_items(&at, instance, &kp, ip),
            Keyword::MinProperties(n) => self.check_property_count(&at, *n, true, instance, &kp, ip),
            Keyword::MaxProperties(n) => self.check_property_count(&at, *n, false, instance, &kp, ip),
            Keyword::Required(names) => self.check_required(&at, names, instance, &kp, ip),
            Keyword::DependentRequired(rules) => self.check_dependent_required(&at, rules, instance, &kp, ip),
            Keyword::Content(content) => self.check_content(&at, content, instance, &kp, ip),
        }
    }

    /// Records a failure of keyword `at` (when collecting) and answers
    /// "invalid".
    pub fn fail(
        &mut self,
        at: &At<'_>,
        kp: &Path<'_>,
        ip: &Path<'_>,
        message: impl FnOnce(Message<'_>) -> Message<'_>,
    ) -> Step {
        self.fail_at(at.node, at.name, 0, kp, ip, message)
    }

    /// [`Walk::fail`] of one part of a keyword (`detail`: see
    /// `UnitSpans::detail`).
    pub fn fail_part(
        &mut self,
        at: &At<'_>,
        detail: usize,
        kp: &Path<'_>,
        ip: &Path<'_>,
        message: impl FnOnce(Message<'_>) -> Message<'_>,
    ) -> Step {
        let detail = u32::try_from(detail).unwrap_or(u32::MAX);
        self.fail_at(at.node, at.name, detail, kp, ip, message)
    }

    /// The index of `node` in the validator's node list: every node a
    /// walk meets is one of them, so its address says which.
    fn node_index(&self, node: &Node) -> u32 {
        let size = std::mem::size_of::<Node>().max(1);
        let offset = (std::ptr::from_ref(node) as usize).wrapping_sub(self.v.nodes.as_ptr() as usize);
        let index = offset / size;
        match self.v.nodes.get(index) {
            Some(found) if std::ptr::eq(found, node) => index as u32,
            _ => u32::MAX,
        }
    }

    fn fail_at(
        &mut self,
        node: &Node,
        name: &'static str,
        detail: u32,
        kp: &Path<'_>,
        ip: &Path<'_>,
        message: impl FnOnce(Message<'_>) -> Message<'_>,
    ) -> Step {
        if self.collect && !self.full {
            let index = self.node_index(node);
            let report = &mut self.report;
            let keyword_location = report.write(|out| kp.render_into(out));
            let absolute_keyword_location = (!node.location.starts_with('#')).then(|| {
                report.write(|out| {
                    out.push_str(&node.location);
                    if matches!(kp.seg, Some(Seg::Key(key)) if key == name) {
                        out.push('/');
                        out.push_str(name);
                    }
                })
            });
            let instance_location = match &self.content_at {
                Some(at) => report.write(|out| out.push_str(at)),
                None => report.write(|out| ip.render_into(out)),
            };
            let message = report.write(|out| {
                message(Message::to(out));
            });
            self.report.push(UnitSpans {
                keyword: name,
                keyword_location,
                absolute_keyword_location,
                instance_location,
                message,
                node: index,
                detail,
            });
            if self.report.len() >= self.v.limits.max_errors {
                self.full = true;
            }
        }
        Ok(false)
    }

    /// Records one check's verdict in `valid` and answers whether the walk
    /// stops here: at the first failure when it only answers "is it
    /// valid?", or once the error bound is reached.
    pub fn stops(&self, passed: bool, valid: &mut bool) -> bool {
        if passed {
            return false;
        }
        *valid = false;
        !self.collect || self.full
    }

    /// In the recording walk, what `validate`'s first pass found for
    /// `list` against `schema` here (`passes_unrecorded` reads it for each
    /// item).
    pub(crate) fn recalled<'a, V: Value<'a>>(&self, schema: NodeId, list: V) -> Option<Recalled> {
        if !self.collect {
            return None;
        }
        let (first, failed) = self.recall?.list(schema, list.identity(), self.depth)?;
        Some(Recalled {
            first,
            failed,
            passes: !self.v.dynamic,
        })
    }

    /// In the recording walk, whether `schema` holds for item `index` of a
    /// list by the walk that records nothing (the plans' fast path): a
    /// valid item records nothing, so the recording walk need not visit
    /// it. The first pass's failures (`recalled`, for this list) answer
    /// first: the items it passed before the one that failed pass, and
    /// that one is walked without a trial. Others are tried while `spare`
    /// lasts; an item found invalid is charged to it and then walked
    /// again, recording. (In a list of many items with a few failing, most
    /// are valid.) `false`: not known valid.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn passes_unrecorded<'a, V: Value<'a>>(
        &mut self,
        schema: NodeId,
        recalled: Option<Recalled>,
        index: usize,
        item: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Result<bool, Limit> {
        if !self.collect {
            return Ok(false);
        }
        if let Some(recalled) = recalled {
            if recalled.passed(index) {
                return Ok(true);
            }
            if index == recalled.failed {
                return Ok(false);
            }
        }
        if self.spare == 0 {
            return Ok(false);
        }
        let before = self.budget.left();
        if self.probe(schema, item, kp, ip, None)? {
            return Ok(true);
        }
        let spent = before.saturating_sub(self.budget.left()) as u64;
        self.spare = self.spare.saturating_sub(spent.max(1));
        Ok(false)
    }

    /// `node` for `decoded`, a value decoded from a string of the instance
    /// (`contentSchema`), at the string's location `ip`. The value is a
    /// temporary, whose lists and objects may lie where an earlier one's
    /// did, so that an address says nothing about it: no failure of it is
    /// noted for the recording walk and none recalled for it (`Failures`),
    /// and the walk's note of matched keys is set aside while it runs
    /// (`Matched`). Its failures are reported at the string's location:
    /// the decoded value has no place in the instance.
    pub(crate) fn decoded<'a, V: Value<'a>>(
        &mut self,
        id: NodeId,
        decoded: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let remember = self.remember.take();
        let recall = self.recall.take();
        let matched = std::mem::take(&mut self.matched);
        // A value decoded inside a decoded value reports at the outermost
        // string, the one the instance holds.
        let outermost = self.collect && self.content_at.is_none();
        if outermost {
            let mut at = String::new();
            ip.render_into(&mut at);
            self.content_at = Some(at);
        }
        let result = self.node(id, decoded, kp, ip, None);
        if outermost {
            self.content_at = None;
        }
        self.matched = matched;
        self.recall = recall;
        self.remember = remember;
        result
    }

    /// Evaluates without recording failures ("does it match?").
    pub fn probe<'a, V: Value<'a>>(
        &mut self,
        id: NodeId,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
        ann: Option<&mut Ann>,
    ) -> Step {
        let collect = std::mem::replace(&mut self.collect, false);
        let result = self.node(id, instance, kp, ip, ann);
        self.collect = collect;
        result
    }
}

/// The keyword being checked: its node (for its absolute location) and name.
pub(crate) struct At<'n> {
    pub node: &'n Node,
    pub name: &'static str,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::{Ann, Limit, Path, Seg};
    use crate::json::JsonRef;
    use crate::standard::{OutputUnit, Validator};
    use serde_json::json;

    #[test]
    fn annotations_keep_every_position_in_and_past_the_first_word() {
        let marked = [0, 1, 63, 64, 65, 127, 128, 200, 1000];
        let mut ann = Ann::default();
        for &i in &marked {
            ann.mark(i);
        }
        for i in 0..1100 {
            assert_eq!(ann.has(i), marked.contains(&i), "position {i}");
        }
        // Merged both ways: the union, whichever holds more words.
        let mut small = Ann::default();
        small.mark(2);
        small.mark(70);
        let mut merged = small.clone();
        merged.merge(ann.clone());
        let mut other = ann;
        other.merge(small);
        for i in 0..1100 {
            let expected = marked.contains(&i) || i == 2 || i == 70;
            assert_eq!(merged.has(i), expected, "position {i}");
            assert_eq!(other.has(i), expected, "position {i}");
        }
        let mut all = Ann::default();
        all.mark_all();
        assert!(all.has(0) && all.has(5000));
        let mut none = Ann::default();
        none.merge(all);
        assert!(none.has(77));
    }

    /// Renders a chain of `steps` pushed one below the other, outermost
    /// first.
    fn rendered(steps: &[Seg<'_>]) -> String {
        fn go(path: &Path<'_>, rest: &[Seg<'_>]) -> String {
            match rest.split_first() {
                Some((seg, rest)) => go(&path.push(*seg), rest),
                None => path.render(),
            }
        }
        go(&Path::ROOT, steps)
    }

    #[test]
    fn locations_render_as_json_pointers_at_any_length() {
        assert_eq!(rendered(&[]), "");
        let step = |i: usize| match i % 3 {
            0 => (Seg::Key("properties"), "properties".to_string()),
            1 if i.is_multiple_of(2) => (Seg::Text("a/b~c"), "a~1b~0c".to_string()),
            1 => (Seg::Name(b"a/b~c"), "a~1b~0c".to_string()),
            _ => (Seg::Index(i), i.to_string()),
        };
        // Either side of the 16 steps kept on the stack.
        for length in [1, 2, 15, 16, 17, 40] {
            let (segs, tokens): (Vec<_>, Vec<_>) = (0..length).map(step).unzip();
            let expected: String = tokens.iter().map(|t| format!("/{t}")).collect();
            assert_eq!(rendered(&segs), expected, "{length} steps");
        }
        // A name that is not UTF-8 renders with replacement characters.
        assert_eq!(
            rendered(&[Seg::Name(b"x\xffy"), Seg::Name(b"plain")]),
            "/x\u{fffd}y/plain"
        );
    }

    #[test]
    fn a_report_holds_each_failures_texts_in_turn_in_one_buffer() {
        let schema = json!({
            "$id": "https://example.com/s.json",
            "properties": {"a/b": {"minimum": 3}, "n": {"type": "string", "maxLength": 1}},
            "required": ["z"]
        });
        let validator = Validator::compile(&schema, &Default::default()).unwrap();
        let instance = json!({"a/b": 1, "n": "xyz"});
        let report = validator.report_limited(JsonRef::from(&instance), 1_000).unwrap();
        let unit = |keyword, keyword_location: &str, instance_location: &str, message: &str| OutputUnit {
            keyword,
            keyword_location: keyword_location.to_string(),
            absolute_keyword_location: Some(format!("https://example.com/s.json#{keyword_location}")),
            instance_location: instance_location.to_string(),
            message: message.to_string(),
        };
        let expected = vec![
            unit(
                "minimum",
                "/properties/a~1b/minimum",
                "/a~1b",
                "instance is less than the minimum 3",
            ),
            unit(
                "maxLength",
                "/properties/n/maxLength",
                "/n",
                "string is longer than 1 characters",
            ),
            unit("required", "/required", "", "required property \"z\" is missing"),
        ];
        assert_eq!(report.units(), expected);
        assert_eq!(validator.validate(JsonRef::from(&instance)).unwrap(), expected);
        let budget = crate::budget::Budget::new(1_000);
        assert_eq!(
            validator
                .validate_within(JsonRef::from(&instance), &budget)
                .unwrap(),
            expected
        );
        // The buffer holds those texts, in turn, and nothing else.
        let mut written = String::new();
        let mut end = 0;
        for spans in report.spans() {
            let absolute = spans.absolute_keyword_location.clone().unwrap();
            for span in [
                &spans.keyword_location,
                &absolute,
                &spans.instance_location,
                &spans.message,
            ] {
                assert_eq!(span.start, end);
                end = span.end;
                written.push_str(&report.text()[span.clone()]);
            }
        }
        assert_eq!(written, report.text());
        // A valid instance: an empty report.
        let valid = validator
            .report_limited(JsonRef::from(&json!({"z": 1})), 1_000)
            .unwrap();
        assert!(valid.is_empty() && valid.text().is_empty());
    }

    #[test]
    fn contains_reports_its_count_either_way() {
        let failures = |schema: serde_json::Value, instance: serde_json::Value| {
            let validator = Validator::compile(&schema, &Default::default()).unwrap();
            let units = validator.validate(JsonRef::from(&instance)).unwrap();
            units
                .iter()
                .map(|u| (u.keyword, u.keyword_location.clone(), u.message.clone()))
                .collect::<Vec<_>>()
        };
        let counted = json!({"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3});
        let at = |message: &str| vec![("contains", "/contains".to_string(), message.to_string())];
        assert_eq!(
            failures(counted.clone(), json!([1, "a"])),
            at("array contains fewer than 2 items valid against the schema of contains")
        );
        assert_eq!(
            failures(counted.clone(), json!([1, 2, 3, 4])),
            at("array contains more than 3 items valid against the schema of contains")
        );
        assert_eq!(failures(counted.clone(), json!([1, "a", 2])), vec![]);
        assert_eq!(failures(counted, json!([1, 2, 3])), vec![]);
        assert_eq!(
            failures(json!({"contains": {"type": "integer"}}), json!(["a"])),
            at("array contains no item valid against the schema of contains")
        );
    }

    /// Messages and bounds of the recording walk that only failures show:
    /// `dependentRequired`, a union whose branches fail (one unit, the
    /// union's own: what the branches' probes find is not recorded), a
    /// valid instance of a schema that collects annotations to decide
    /// (no first pass: the recording walk answers it, with no unit), and
    /// the bound on units.
    #[test]
    fn the_recording_walk_reports_what_fails_and_no_more() {
        let units = |schema: serde_json::Value, instance: serde_json::Value| {
            let validator = Validator::compile(&schema, &Default::default()).unwrap();
            validator.validate(JsonRef::from(&instance)).unwrap()
        };
        let brief = |units: Vec<OutputUnit>| {
            units
                .into_iter()
                .map(|u| (u.keyword, u.keyword_location, u.instance_location, u.message))
                .collect::<Vec<_>>()
        };
        let owned =
            |k: &'static str, kl: &str, il: &str, m: &str| (k, kl.to_string(), il.to_string(), m.to_string());
        assert_eq!(
            brief(units(
                json!({"dependentRequired": {"a": ["b", "c"]}}),
                json!({"a": 1, "c": 2})
            )),
            vec![owned(
                "dependentRequired",
                "/dependentRequired",
                "",
                "property \"b\" is required when \"a\" is present"
            )]
        );
        assert_eq!(
            brief(units(json!({"dependentRequired": {"a": ["b"]}}), json!({"b": 1}))),
            vec![]
        );
        assert_eq!(
            brief(units(
                json!({"anyOf": [{"multipleOf": 2}, {"enum": [3]}]}),
                json!(1)
            )),
            vec![owned(
                "anyOf",
                "/anyOf",
                "",
                "instance is not valid against any schema of anyOf"
            )]
        );
        // Which properties are evaluated depends on the branch that holds.
        let unevaluated = json!({
            "anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"required": ["z"]}],
            "unevaluatedProperties": false
        });
        assert_eq!(brief(units(unevaluated.clone(), json!({"a": "x"}))), vec![]);
        assert_eq!(
            brief(units(unevaluated, json!({"a": "x", "b": 1}))),
            vec![owned(
                "unevaluatedProperties",
                "/unevaluatedProperties",
                "/b",
                "no value is allowed here (the schema is false)"
            )]
        );
        // 100 failing items, 64 units: the first 64, in order.
        let items = units(json!({"items": {"type": "string"}}), json!(vec![0; 100]));
        assert_eq!(items.len(), 64);
        for (i, unit) in items.iter().enumerate() {
            assert_eq!(unit.instance_location, format!("/{i}"));
        }
    }

    /// The failures of `instance` against `schema`, as (keyword location,
    /// instance location); `is_valid` agrees on whether there are any.
    fn places(schema: serde_json::Value, instance: serde_json::Value) -> Vec<(String, String)> {
        let validator = Validator::compile(&schema, &Default::default()).unwrap();
        let at = JsonRef::from(&instance);
        let units = validator.validate(at).unwrap();
        assert_eq!(validator.is_valid(at), Ok(units.is_empty()), "{instance}");
        units
            .into_iter()
            .map(|u| (u.keyword_location, u.instance_location))
            .collect()
    }

    /// A schema that applies `shared` (given a resource of its own, with
    /// a `$dynamicAnchor` "elem") twice: in a dynamic scope where "elem"
    /// is an integer (`allOf/0`), then in one where it is a string.
    fn in_two_scopes(mut shared: serde_json::Value) -> serde_json::Value {
        shared["$id"] = json!("shared");
        shared["$defs"] = json!({"elem": {"$dynamicAnchor": "elem"}});
        let scope = |id: &str, elem: &str| {
            json!({
                "$id": id,
                "$defs": {"elem": {"$dynamicAnchor": "elem", "type": elem}},
                "$ref": "shared"
            })
        };
        json!({
            "$id": "https://example.com/root",
            "allOf": [{"$ref": "a"}, {"$ref": "b"}],
            "$defs": {"a": scope("a", "integer"), "b": scope("b", "string"), "shared": shared}
        })
    }

    fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, i)| (k.to_string(), i.to_string()))
            .collect()
    }

    /// `additionalProperties` runs after the other keywords of its schema
    /// (but `unevaluated*`) and reads the keys its siblings matched on the
    /// same object: never a note for another object (a nested one, against
    /// the same schema) or another schema.
    #[test]
    fn additional_properties_follows_and_reads_its_siblings_matches() {
        // After `required` and `type`, whose names sort after it.
        assert_eq!(
            places(
                json!({"additionalProperties": false, "required": ["z"], "properties": {"a": {"type": "string"}}}),
                json!({"a": 1, "b": 2})
            ),
            owned(&[
                ("/properties/a/type", "/a"),
                ("/required", ""),
                ("/additionalProperties", "/b"),
            ])
        );
        // A key named by `properties`, one matched by a pattern, one by
        // both, one by neither.
        let both = json!({
            "properties": {"a": {}, "xb": {}},
            "patternProperties": {"^x": {}},
            "additionalProperties": {"type": "string"}
        });
        assert_eq!(
            places(both.clone(), json!({"a": 1, "xa": 2, "xb": 3, "c": 4, "d": "ok"})),
            owned(&[("/additionalProperties/type", "/c")])
        );
        assert_eq!(places(both, json!({"a": 1, "xa": 2})), owned(&[]));
        // The same schema on nested objects: each object's own keys.
        let nested = json!({
            "patternProperties": {"^n": {"$ref": "#"}},
            "properties": {"p": {"$ref": "#"}},
            "additionalProperties": false
        });
        assert_eq!(
            places(
                nested.clone(),
                json!({"n1": {"n2": {"x": 1}, "p": {}, "y": 2}, "p": {"z": 3}, "w": 4})
            ),
            owned(&[
                (
                    "/patternProperties/^n/$ref/patternProperties/^n/$ref/additionalProperties",
                    "/n1/n2/x"
                ),
                ("/patternProperties/^n/$ref/additionalProperties", "/n1/y"),
                ("/properties/p/$ref/additionalProperties", "/p/z"),
                ("/additionalProperties", "/w"),
            ])
        );
        assert_eq!(
            places(nested, json!({"n": {"p": {"n": {}}}, "p": {}})),
            owned(&[])
        );
        // Two schemas on one object (an `allOf` branch and its parent):
        // each reads its own siblings' matches.
        assert_eq!(
            places(
                json!({
                    "allOf": [{"properties": {"a": {}}, "additionalProperties": false}],
                    "patternProperties": {"^b": {}},
                    "additionalProperties": false
                }),
                json!({"a": 1, "b": 2})
            ),
            owned(&[
                ("/allOf/0/additionalProperties", "/b"),
                ("/additionalProperties", "/a"),
            ])
        );
    }

    /// The first pass's note of a failing item is read for its own list
    /// against its own schema only: another list under the same schema,
    /// or another schema over the same list, is walked for its own
    /// failures; and in a dynamic scope, where one list against one
    /// schema may be met in two scopes, the items a note passed are tried
    /// again.
    #[test]
    fn a_failing_item_noted_by_the_first_pass_speaks_for_its_list_alone() {
        // Two lists under one `items` schema.
        assert_eq!(
            places(
                json!({
                    "$defs": {"ints": {"items": {"type": "integer"}}},
                    "properties": {"a": {"$ref": "#/$defs/ints"}, "b": {"$ref": "#/$defs/ints"}}
                }),
                json!({"a": [1, 2, "x"], "b": [1, "y", 3]})
            ),
            owned(&[
                ("/properties/a/$ref/items/type", "/a/2"),
                ("/properties/b/$ref/items/type", "/b/1"),
            ])
        );
        // Two `items` schemas over one list.
        assert_eq!(
            places(
                json!({"allOf": [{"items": {"type": "integer"}}, {"items": {"maximum": 5}}]}),
                json!([1, 7, "x"])
            ),
            owned(&[("/allOf/0/items/type", "/2"), ("/allOf/1/items/maximum", "/1")])
        );
        // One list against one schema in two dynamic scopes: integers in
        // the first, strings in the second.
        let scoped = in_two_scopes(json!({"items": {"$dynamicRef": "#elem"}}));
        assert_eq!(
            places(scoped, json!([1, "s"])),
            owned(&[
                ("/allOf/0/$ref/$ref/items/$dynamicRef/type", "/1"),
                ("/allOf/1/$ref/$ref/items/$dynamicRef/type", "/0"),
            ])
        );
    }

    /// The first pass's note on a list holds for the depth it met the list
    /// at. Here one list is met twice against one `items` schema: through
    /// `allOf/0` and, two evaluations deeper, through `allOf/1/allOf/0`.
    /// The first pass stops at `/1` in the first; under a depth limit that
    /// the valid nested lists at `/0` reach only from the deeper place,
    /// the recording walk must visit `/0` there, and stop at the limit,
    /// rather than take the shallower note's word that it passes.
    #[test]
    fn a_first_pass_note_holds_only_at_its_own_depth() {
        let schema = json!({
            "$defs": {"nest": {"type": ["array", "integer"], "items": {"$ref": "#/$defs/nest"}}},
            "allOf": [{"$ref": "#/$defs/nest"}, {"allOf": [{"$ref": "#/$defs/nest"}]}]
        });
        let instance = json!([[[[[1]]]], "x"]);
        split_at_the_depth_limit(
            &schema,
            &instance,
            &[
                "/allOf/0/$ref/items/$ref/type",
                "/allOf/1/allOf/0/$ref/items/$ref/type",
            ],
        );
    }

    /// Under the smallest depth limit the first pass decides `instance`
    /// under, the shallower place fits and the deeper one (one evaluation
    /// more) does not: `validate` stops at the limit. One level more, and
    /// it reports `both` failures (their keyword locations).
    fn split_at_the_depth_limit(schema: &serde_json::Value, instance: &serde_json::Value, both: &[&str]) {
        let at = JsonRef::from(instance);
        let verdict = |limit: usize| {
            let mut validator = Validator::compile(schema, &Default::default()).unwrap();
            validator.limits.max_walk_depth = limit;
            let failures = validator
                .validate(at)
                .map(|units| units.into_iter().map(|u| u.keyword_location).collect::<Vec<_>>());
            (validator.is_valid(at), failures)
        };
        // Some limit fits the shallower place.
        let first = (1..64).find(|&limit| verdict(limit).0.is_ok()).unwrap();
        assert_eq!(verdict(first), (Ok(false), Err(Limit::Depth)));
        let both = both.iter().map(|s| s.to_string()).collect();
        assert_eq!(verdict(first + 1), (Ok(false), Ok(both)));
    }

    /// The keys the first pass passed before an object's failing key are
    /// passed over by the node's object keywords in the recording walk,
    /// and every failure after them is still reported. The note holds for
    /// its node and its object alone, and for its dynamic scope alone.
    /// (Each schema keeps a keyword its plan does not fold, `minProperties`,
    /// so that the node's own plan meets the object, not a parent's plan
    /// that folds it.)
    #[test]
    fn keys_the_first_pass_passed_are_passed_over_by_their_node_alone() {
        // The plan passes `a` and `b`, then fails `m`: the failures of `m`,
        // `x1` and `z` are all reported, in the keywords' order.
        let wide = json!({
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "m": {"type": "integer"}},
            "patternProperties": {"^x": {"type": "string"}},
            "additionalProperties": false
        });
        assert_eq!(
            places(wide.clone(), json!({"a": 1, "b": 2, "m": "no", "x1": 3, "z": 0})),
            owned(&[
                ("/patternProperties/^x/type", "/x1"),
                ("/properties/m/type", "/m"),
                ("/additionalProperties", "/z"),
            ])
        );
        // The first key fails: nothing is passed over.
        assert_eq!(
            places(wide.clone(), json!({"a": "no", "b": 2, "m": 3, "z": 0})),
            owned(&[("/properties/a/type", "/a"), ("/additionalProperties", "/z")])
        );
        // Every key passes; a required name is missing.
        assert_eq!(
            places(
                json!({"properties": {"a": {"type": "integer"}}, "required": ["q"], "additionalProperties": false}),
                json!({"a": 1, "b": 2})
            ),
            owned(&[("/required", ""), ("/additionalProperties", "/b")])
        );
        // Two nodes over one object: the first passes `a` and fails `b`;
        // the second fails `a`.
        assert_eq!(
            places(
                json!({"allOf": [
                    {"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "minProperties": 1},
                    {"properties": {"a": {"type": "string"}}, "minProperties": 1}
                ]}),
                json!({"a": 1, "b": "x"})
            ),
            owned(&[
                ("/allOf/0/properties/b/type", "/b"),
                ("/allOf/1/properties/a/type", "/a")
            ])
        );
        // Two objects under one node at one depth: the first passes `a`
        // and fails `b`; the second fails `a`.
        assert_eq!(
            places(
                json!({"items": {"properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "minProperties": 1}}),
                json!([{"a": 1, "b": "x"}, {"a": "y", "b": 2}])
            ),
            owned(&[
                ("/items/properties/b/type", "/0/b"),
                ("/items/properties/a/type", "/1/a")
            ])
        );
        // Where annotations are collected, every key is read: `a` is
        // evaluated (its value passes), `z` is not.
        assert_eq!(
            places(
                json!({
                    "properties": {"a": {"type": "integer"}, "m": {"type": "integer"}},
                    "unevaluatedProperties": false
                }),
                json!({"a": 1, "m": "no", "z": 0})
            ),
            owned(&[("/properties/m/type", "/m"), ("/unevaluatedProperties", "/z")])
        );
        // One node over one object in two dynamic scopes: integers in the
        // first, where `a` passes and `b` fails; strings in the second,
        // where `a` fails.
        let scoped = in_two_scopes(json!({
            "properties": {"a": {"$dynamicRef": "#elem"}, "b": {"$dynamicRef": "#elem"}},
            "minProperties": 1
        }));
        assert_eq!(
            places(scoped, json!({"a": 1, "b": "s"})),
            owned(&[
                ("/allOf/0/$ref/$ref/properties/b/$dynamicRef/type", "/b"),
                ("/allOf/1/$ref/$ref/properties/a/$dynamicRef/type", "/a"),
            ])
        );
    }

    /// The note on an object holds only at the depth the first pass met
    /// it at: one object met from two places one evaluation apart, under
    /// the smallest limit that lets the first pass decide. The deeper
    /// place must stop at the limit in the valid nested value at `a`.
    #[test]
    fn a_first_pass_note_on_an_object_holds_only_at_its_own_depth() {
        let schema = json!({
            "$defs": {"nest": {
                "type": ["object", "integer"],
                "properties": {"a": {"$ref": "#/$defs/nest"}, "b": {"$ref": "#/$defs/nest"}},
                "minProperties": 1
            }},
            "allOf": [{"$ref": "#/$defs/nest"}, {"allOf": [{"$ref": "#/$defs/nest"}]}]
        });
        let instance = json!({"a": {"a": {"a": {"a": 1}}}, "b": "x"});
        split_at_the_depth_limit(
            &schema,
            &instance,
            &[
                "/allOf/0/$ref/properties/b/$ref/type",
                "/allOf/1/allOf/0/$ref/properties/b/$ref/type",
            ],
        );
    }

    /// `unevaluatedProperties` reads what `additionalProperties` evaluated,
    /// and an `additionalProperties` reads no note its own schema's
    /// `properties` and `patternProperties` did not make (here, an
    /// `allOf` branch's, on the same object).
    #[test]
    fn additional_properties_reads_its_own_schemas_matches_and_is_read() {
        let both = json!({
            "additionalProperties": {"type": "integer"},
            "unevaluatedProperties": false,
            "minProperties": 2
        });
        assert_eq!(places(both.clone(), json!({"x": 1, "y": 2})), vec![]);
        // Walked keyword by keyword (`minProperties` fails): `x` was
        // evaluated by `additionalProperties` before `unevaluatedProperties`
        // looked.
        assert_eq!(places(both, json!({"x": 1})), owned(&[("/minProperties", "")]));
        assert_eq!(
            places(
                json!({
                    "allOf": [{"properties": {"b": {"type": "string"}}}],
                    "additionalProperties": false
                }),
                json!({"b": 1})
            ),
            owned(&[
                ("/allOf/0/properties/b/type", "/b"),
                ("/additionalProperties", "/b"),
            ])
        );
        // A `then` on the same object (evaluated in `if`'s place, before
        // the schema's own `properties`): its matches are not the schema's.
        assert_eq!(
            places(
                json!({
                    "if": true,
                    "then": {"properties": {"b": {"type": "string"}}},
                    "properties": {"a": {}},
                    "additionalProperties": false
                }),
                json!({"a": 1, "b": 2})
            ),
            owned(&[("/then/properties/b/type", "/b"), ("/additionalProperties", "/b"),])
        );
    }
}
