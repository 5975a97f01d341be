//! `$vocabulary`: which keyword families a metaschema turns on. The five
//! dialects' own metaschemas turn on all of theirs; a custom metaschema
//! (one of the caller's resources, named by `$schema`) declares its own, and
//! a required vocabulary this library does not know refuses the schema.

use serde_json::Value as Json;

use super::dialect::Dialect;
use super::CompileError;

/// Keyword families, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vocabularies(u8);

impl Vocabularies {
    pub const CORE: u8 = 1;
    pub const APPLICATOR: u8 = 2;
    pub const UNEVALUATED: u8 = 4;
    pub const VALIDATION: u8 = 8;
    pub const META_DATA: u8 = 16;
    pub const FORMAT_ANNOTATION: u8 = 32;
    pub const FORMAT_ASSERTION: u8 = 64;
    pub const CONTENT: u8 = 128;

    /// Every family a dialect has (drafts before 2019-09 have no
    /// vocabularies: all of their keywords apply).
    pub fn all(_dialect: Dialect) -> Vocabularies {
        Vocabularies(!Self::FORMAT_ASSERTION)
    }

    pub fn has(self, family: u8) -> bool {
        self.0 & family != 0
    }

    /// The families a `$vocabulary` map declares.
    pub fn declared(
        dialect: Dialect,
        declared: &Json,
        metaschema: &str,
    ) -> Result<Vocabularies, CompileError> {
        let Json::Object(entries) = declared else {
            return Ok(Vocabularies::all(dialect));
        };
        let mut bits = 0u8;
        for (uri, required) in entries {
            match family(uri) {
                Some(family) => bits |= family,
                None if required.as_bool() == Some(true) => {
                    return Err(CompileError::UnknownVocabulary {
                        uri: uri.clone(),
                        metaschema: metaschema.to_string(),
                    })
                }
                None => {}
            }
        }
        // 2019-09's applicator vocabulary holds the `unevaluated*` keywords.
        if dialect == Dialect::Draft2019_09 && bits & Self::APPLICATOR != 0 {
            bits |= Self::UNEVALUATED;
        }
        Ok(Vocabularies(bits | Self::CORE))
    }
}

fn family(uri: &str) -> Option<u8> {
    let name = uri
        .strip_prefix("https://json-schema.org/draft/2020-12/vocab/")
        .or_else(|| uri.strip_prefix("https://json-schema.org/draft/2019-09/vocab/"))?;
    Some(match name {
        "core" => Vocabularies::CORE,
        "applicator" => Vocabularies::APPLICATOR,
        "unevaluated" => Vocabularies::UNEVALUATED,
        "validation" => Vocabularies::VALIDATION,
        "meta-data" => Vocabularies::META_DATA,
        "format-annotation" | "format" => Vocabularies::FORMAT_ANNOTATION,
        "format-assertion" => Vocabularies::FORMAT_ASSERTION,
        "content" => Vocabularies::CONTENT,
        _ => return None,
    })
}
