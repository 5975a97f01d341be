//! The one place that lists what the subset supports: a keyword name is
//! supported exactly when `Keyword::from_name` knows it.

/// A supported schema keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keyword {
    Type,
    Properties,
    Required,
    AdditionalProperties,
    /// `additional_properties`, the spelling Elixir callers may use.
    AdditionalPropertiesSnake,
    Description,
    Title,
    Default,
    Enum,
    Const,
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
    MinLength,
    MaxLength,
    MinItems,
    MaxItems,
    Pattern,
    Items,
    OneOf,
    AnyOf,
    Not,
    Format,
    ContentEncoding,
    Schema,
    McpHeader,
    /// `$comment`, an annotation.
    Comment,
    /// `$id`, an annotation allowed at the root only: below it, it would
    /// change what `#` refers to.
    Id,
    Examples,
    Deprecated,
    ReadOnly,
    WriteOnly,
    /// `$ref`: a JSON Pointer into the same document (see `refs`).
    Ref,
    /// `$defs` and the draft-07 `definitions`: maps of schemas.
    Defs,
    Definitions,
    AllOf,
    PrefixItems,
    AdditionalItems,
    UniqueItems,
    PropertyNames,
    DependentRequired,
}

/// Number of keywords, for per-schema slot tables: `Keyword::ALL`'s. A
/// keyword whose index falls outside the table is refused where a schema
/// is read (`schema::slots`), never accepted unenforced; the tests below
/// pin that every keyword is in `ALL`, in its place.
pub const KEYWORD_COUNT: usize = Keyword::ALL.len();

impl Keyword {
    /// Every keyword, in declaration order (`index` is its place here).
    pub const ALL: [Keyword; 42] = [
        Keyword::Type,
        Keyword::Properties,
        Keyword::Required,
        Keyword::AdditionalProperties,
        Keyword::AdditionalPropertiesSnake,
        Keyword::Description,
        Keyword::Title,
        Keyword::Default,
        Keyword::Enum,
        Keyword::Const,
        Keyword::Minimum,
        Keyword::Maximum,
        Keyword::ExclusiveMinimum,
        Keyword::ExclusiveMaximum,
        Keyword::MinLength,
        Keyword::MaxLength,
        Keyword::MinItems,
        Keyword::MaxItems,
        Keyword::Pattern,
        Keyword::Items,
        Keyword::OneOf,
        Keyword::AnyOf,
        Keyword::Not,
        Keyword::Format,
        Keyword::ContentEncoding,
        Keyword::Schema,
        Keyword::McpHeader,
        Keyword::Comment,
        Keyword::Id,
        Keyword::Examples,
        Keyword::Deprecated,
        Keyword::ReadOnly,
        Keyword::WriteOnly,
        Keyword::Ref,
        Keyword::Defs,
        Keyword::Definitions,
        Keyword::AllOf,
        Keyword::PrefixItems,
        Keyword::AdditionalItems,
        Keyword::UniqueItems,
        Keyword::PropertyNames,
        Keyword::DependentRequired,
    ];

    pub fn from_name(name: &[u8]) -> Option<Keyword> {
        Some(match name {
            b"type" => Keyword::Type,
            b"properties" => Keyword::Properties,
            b"required" => Keyword::Required,
            b"additionalProperties" => Keyword::AdditionalProperties,
            b"additional_properties" => Keyword::AdditionalPropertiesSnake,
            b"description" => Keyword::Description,
            b"title" => Keyword::Title,
            b"default" => Keyword::Default,
            b"enum" => Keyword::Enum,
            b"const" => Keyword::Const,
            b"minimum" => Keyword::Minimum,
            b"maximum" => Keyword::Maximum,
            b"exclusiveMinimum" => Keyword::ExclusiveMinimum,
            b"exclusiveMaximum" => Keyword::ExclusiveMaximum,
            b"minLength" => Keyword::MinLength,
            b"maxLength" => Keyword::MaxLength,
            b"minItems" => Keyword::MinItems,
            b"maxItems" => Keyword::MaxItems,
            b"pattern" => Keyword::Pattern,
            b"items" => Keyword::Items,
            b"oneOf" => Keyword::OneOf,
            b"anyOf" => Keyword::AnyOf,
            b"not" => Keyword::Not,
            b"format" => Keyword::Format,
            b"contentEncoding" => Keyword::ContentEncoding,
            b"$schema" => Keyword::Schema,
            b"x-mcp-header" => Keyword::McpHeader,
            b"$comment" => Keyword::Comment,
            b"$id" => Keyword::Id,
            b"examples" => Keyword::Examples,
            b"deprecated" => Keyword::Deprecated,
            b"readOnly" => Keyword::ReadOnly,
            b"writeOnly" => Keyword::WriteOnly,
            b"$ref" => Keyword::Ref,
            b"$defs" => Keyword::Defs,
            b"definitions" => Keyword::Definitions,
            b"allOf" => Keyword::AllOf,
            b"prefixItems" => Keyword::PrefixItems,
            b"additionalItems" => Keyword::AdditionalItems,
            b"uniqueItems" => Keyword::UniqueItems,
            b"propertyNames" => Keyword::PropertyNames,
            b"dependentRequired" => Keyword::DependentRequired,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Keyword::Type => "type",
            Keyword::Properties => "properties",
            Keyword::Required => "required",
            Keyword::AdditionalProperties => "additionalProperties",
            Keyword::AdditionalPropertiesSnake => "additional_properties",
            Keyword::Description => "description",
            Keyword::Title => "title",
            Keyword::Default => "default",
            Keyword::Enum => "enum",
            Keyword::Const => "const",
            Keyword::Minimum => "minimum",
            Keyword::Maximum => "maximum",
            Keyword::ExclusiveMinimum => "exclusiveMinimum",
            Keyword::ExclusiveMaximum => "exclusiveMaximum",
            Keyword::MinLength => "minLength",
            Keyword::MaxLength => "maxLength",
            Keyword::MinItems => "minItems",
            Keyword::MaxItems => "maxItems",
            Keyword::Pattern => "pattern",
            Keyword::Items => "items",
            Keyword::OneOf => "oneOf",
            Keyword::AnyOf => "anyOf",
            Keyword::Not => "not",
            Keyword::Format => "format",
            Keyword::ContentEncoding => "contentEncoding",
            Keyword::Schema => "$schema",
            Keyword::McpHeader => "x-mcp-header",
            Keyword::Comment => "$comment",
            Keyword::Id => "$id",
            Keyword::Examples => "examples",
            Keyword::Deprecated => "deprecated",
            Keyword::ReadOnly => "readOnly",
            Keyword::WriteOnly => "writeOnly",
            Keyword::Ref => "$ref",
            Keyword::Defs => "$defs",
            Keyword::Definitions => "definitions",
            Keyword::AllOf => "allOf",
            Keyword::PrefixItems => "prefixItems",
            Keyword::AdditionalItems => "additionalItems",
            Keyword::UniqueItems => "uniqueItems",
            Keyword::PropertyNames => "propertyNames",
            Keyword::DependentRequired => "dependentRequired",
        }
    }

    /// Annotations that must be strings, in the order they are checked.
    pub const STRING_ANNOTATIONS: [Keyword; 8] = [
        Keyword::Description,
        Keyword::Title,
        Keyword::Format,
        Keyword::ContentEncoding,
        Keyword::Schema,
        Keyword::McpHeader,
        Keyword::Comment,
        Keyword::Id,
    ];

    /// Annotations that must be booleans, in the order they are checked
    /// (after `examples`, which must be a list).
    pub const BOOLEAN_ANNOTATIONS: [Keyword; 3] =
        [Keyword::Deprecated, Keyword::ReadOnly, Keyword::WriteOnly];

    pub fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_listed_once_in_its_place_and_read_back_by_name() {
        for (i, keyword) in Keyword::ALL.iter().enumerate() {
            assert_eq!(keyword.index(), i, "{keyword:?}");
            assert_eq!(Keyword::from_name(keyword.name().as_bytes()), Some(*keyword));
        }
        // `name` is an exhaustive match: a keyword added to the enum has a
        // name, and `from_name` of it must be that keyword, which the loop
        // above checks only for the listed ones; so a keyword missing from
        // `ALL` is one whose index is at least `KEYWORD_COUNT`, refused.
        assert_eq!(KEYWORD_COUNT, Keyword::ALL.len());
    }
}
