//! The five dialects of standard JSON Schema this library runs, and what
//! tells them apart: a dialect is a table (its metaschema URI, its keyword
//! set, a few flags), not a fork of the validator.

/// A JSON Schema dialect (specification draft).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Dialect {
    Draft4,
    Draft6,
    Draft7,
    Draft2019_09,
    #[default]
    Draft2020_12,
}

impl Dialect {
    pub const ALL: [Dialect; 5] = [
        Dialect::Draft4,
        Dialect::Draft6,
        Dialect::Draft7,
        Dialect::Draft2019_09,
        Dialect::Draft2020_12,
    ];

    /// The dialect's metaschema URI, as `$schema` names it (without the
    /// empty fragment some writers add).
    pub fn uri(self) -> &'static str {
        match self {
            Dialect::Draft4 => "http://json-schema.org/draft-04/schema",
            Dialect::Draft6 => "http://json-schema.org/draft-06/schema",
            Dialect::Draft7 => "http://json-schema.org/draft-07/schema",
            Dialect::Draft2019_09 => "https://json-schema.org/draft/2019-09/schema",
            Dialect::Draft2020_12 => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    /// The dialect a `$schema` value names: one of the five metaschema
    /// URIs, with or without an empty fragment.
    pub fn from_uri(uri: &str) -> Option<Dialect> {
        let bare = uri.strip_suffix('#').unwrap_or(uri);
        Dialect::ALL.into_iter().find(|d| d.uri() == bare)
    }

    /// The name the Elixir API uses (`:draft2020_12`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Draft4 => "draft4",
            Dialect::Draft6 => "draft6",
            Dialect::Draft7 => "draft7",
            Dialect::Draft2019_09 => "draft2019_09",
            Dialect::Draft2020_12 => "draft2020_12",
        }
    }

    /// The keyword that sets a schema's base URI: `id` in draft 4, `$id` after.
    pub fn id_keyword(self) -> &'static str {
        match self {
            Dialect::Draft4 => "id",
            _ => "$id",
        }
    }

    /// Whether `$ref` makes every sibling keyword ignored (drafts 4 to 7).
    pub fn ref_overrides_siblings(self) -> bool {
        self <= Dialect::Draft7
    }
}
