//! `contentEncoding`, `contentMediaType` and `contentSchema`: annotations
//! unless asserted (`ContentMode::Assert`), and then one entry per schema,
//! so that a string is decoded once and its JSON parsed once for all three.
//!
//! Asserted, in the dialects that have each keyword (`contentEncoding` and
//! `contentMediaType` from draft 7, `contentSchema` from 2019-09), for a
//! string instance (every other value passes):
//!
//! - `contentEncoding` names one of RFC 4648's `base64` (section 4),
//!   `base64url` (section 5), `base32` (section 6) or `base16` (section 8),
//!   compared without regard to ASCII case, as MIME compares encoding names
//!   (RFC 2045 section 6.1); the string must decode under it. Any other
//!   name stays an annotation, and so then do the other two keywords: the
//!   content of a string in an unknown encoding is not known.
//! - `contentMediaType` of `application/json` (the type compared without
//!   regard to ASCII case, its parameters ignored): the string, decoded
//!   first when `contentEncoding` is given, must be a JSON text as
//!   `serde_json` parses one (UTF-8, no byte order mark, nested at most 128
//!   levels: its recursion limit). Any other media type stays an annotation.
//! - `contentSchema`, beside such a `contentMediaType`: the parsed value
//!   must hold against it. Its failures are reported as they are (their
//!   keyword locations under `contentSchema`), each at the string's own
//!   instance location: the decoded value has no place in the instance.
//!
//! A string that does not decode fails `contentEncoding` alone, and one that
//! is not JSON fails `contentMediaType` alone: what the next keyword would
//! read does not exist.

use serde_json::Value as Json;

use super::{entry, Compiled, Keyword, NodeId};
use crate::json::JsonRef;
use crate::standard::compiler::{At, Compiler};
use crate::standard::dialect::Dialect;
use crate::standard::walk::{At as Checked, Path, Seg, Step, Walk};
use crate::value::Value;

/// Bytes of an encoded string per unit of work: decoding reads each byte
/// once through a table, some 10-20 ns per 64 bytes here, so the charge is
/// generous (a unit is 50-100 ns), as the walk's per-16-byte scans are.
const DECODED_BYTES_PER_UNIT: u64 = 64;

/// Bytes of a JSON text per unit of work: `serde_json` builds a value as it
/// parses, about a unit's time per 16 bytes of the densest text (a list of
/// one-digit numbers, each of them a value and, with `arbitrary_precision`,
/// a string of its own), measured here with `benches/content.rs`.
const PARSED_BYTES_PER_UNIT: u64 = 16;

/// The content keywords of one schema, as asserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Content {
    /// `contentEncoding`, when it names an encoding this module knows
    /// (`None`: the string is its content).
    pub encoding: Option<Encoding>,
    /// `contentMediaType` is `application/json`.
    pub json: bool,
    /// `contentSchema`, beside a JSON `contentMediaType`.
    pub schema: Option<NodeId>,
}

/// The encodings of RFC 4648 this module decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Base64,
    Base64Url,
    Base32,
    Base16,
}

impl Encoding {
    /// The encoding `name` names, compared without regard to ASCII case.
    pub(crate) fn lookup(name: &str) -> Option<Encoding> {
        [
            Encoding::Base64,
            Encoding::Base64Url,
            Encoding::Base32,
            Encoding::Base16,
        ]
        .into_iter()
        .find(|encoding| encoding.name().eq_ignore_ascii_case(name))
    }

    /// Its name as messages give it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Encoding::Base64 => "base64",
            Encoding::Base64Url => "base64url",
            Encoding::Base32 => "base32",
            Encoding::Base16 => "base16",
        }
    }

    /// Bits a symbol of the alphabet carries.
    fn bits(self) -> usize {
        match self {
            Encoding::Base64 | Encoding::Base64Url => 6,
            Encoding::Base32 => 5,
            Encoding::Base16 => 4,
        }
    }

    /// Symbols in a quantum that padding completes (RFC 4648 section 3.2),
    /// and whether a final quantum must be padded: section 4 and section 6
    /// require it, section 5 foresees leaving it out where the length is
    /// known (URLs, JSON Web Tokens), so `base64url` takes either; base16
    /// never needs it.
    fn quantum(self) -> (usize, bool) {
        match self {
            Encoding::Base64 => (4, true),
            Encoding::Base64Url => (4, false),
            Encoding::Base32 => (8, true),
            Encoding::Base16 => (2, true),
        }
    }

    /// The value of symbol `byte`, when it is one of the alphabet's. Only
    /// base16 allows both cases (RFC 4648 section 8: "the standard
    /// case-insensitive hex encoding"); base32's alphabet is upper case.
    fn symbol(self, byte: u8) -> Option<u8> {
        let value = match (self, byte) {
            (Encoding::Base64 | Encoding::Base64Url, b'A'..=b'Z') => byte - b'A',
            (Encoding::Base64 | Encoding::Base64Url, b'a'..=b'z') => byte - b'a' + 26,
            (Encoding::Base64 | Encoding::Base64Url, b'0'..=b'9') => byte - b'0' + 52,
            (Encoding::Base64, b'+') | (Encoding::Base64Url, b'-') => 62,
            (Encoding::Base64, b'/') | (Encoding::Base64Url, b'_') => 63,
            (Encoding::Base32, b'A'..=b'Z') => byte - b'A',
            (Encoding::Base32, b'2'..=b'7') => byte - b'2' + 26,
            (Encoding::Base16, b'0'..=b'9') => byte - b'0',
            (Encoding::Base16, b'A'..=b'F') => byte - b'A' + 10,
            (Encoding::Base16, b'a'..=b'f') => byte - b'a' + 10,
            _ => return None,
        };
        Some(value)
    }

    /// Decodes `text`, giving each byte to `out`, in one pass; `false` when
    /// it is not in the encoding: a symbol outside the alphabet (spaces and
    /// line breaks included: RFC 4648 section 3.3), a length no encoder
    /// writes, padding where it is not due, or pad bits that are not zero
    /// (section 3.5 lets a decoder refuse them; refused, each byte string
    /// has one encoding).
    pub(crate) fn decode(self, text: &[u8], mut out: impl FnMut(u8)) -> bool {
        let bits = self.bits();
        let (quantum, padded) = self.quantum();
        let symbols = text.iter().rposition(|&b| b != b'=').map_or(0, |last| last + 1);
        let (body, pad) = text.split_at(symbols);
        // A final partial quantum of `body.len() % quantum` symbols holds
        // its last byte's bits and fewer than a symbol's more; the padding,
        // when written, completes the quantum.
        let short = body.len() % quantum;
        let due = (quantum - short) % quantum;
        if (short * bits) % 8 >= bits || !(pad.len() == due || !padded && pad.is_empty()) {
            return false;
        }
        let mut held = 0u32;
        let mut count = 0;
        for &byte in body {
            let Some(value) = self.symbol(byte) else {
                return false;
            };
            held = held << bits | u32::from(value);
            count += bits;
            if count >= 8 {
                count -= 8;
                out((held >> count) as u8);
                held &= (1 << count) - 1;
            }
        }
        held == 0
    }
}

/// Whether `media_type` is `application/json`: its type and subtype
/// compared without regard to ASCII case (RFC 2045 section 5.1), with
/// spaces or tabs around them and any parameters (`; charset=utf-8`)
/// allowed and not read.
fn is_json(media_type: &str) -> bool {
    let essence = media_type.split(';').next().unwrap_or_default();
    essence
        .trim_matches([' ', '\t'])
        .eq_ignore_ascii_case("application/json")
}

/// One content keyword, `key`: its value must be a string (`contentSchema`:
/// a schema, which the entry compiles). The three compile into one entry,
/// named after the first that asserts something (`contentEncoding` with an
/// encoding known, else `contentMediaType` of JSON); the others compile to
/// nothing, and so does each when none asserts anything.
pub(crate) fn compile_content<'s>(
    c: &mut Compiler<'s>,
    at: &At<'_, 's>,
    key: &str,
    value: &Json,
) -> Compiled {
    if key != "contentSchema" && !value.is_string() {
        return Err(at.invalid(key, "a string"));
    }
    let (encoding, known) = match at.sibling("contentEncoding") {
        None => (None, true),
        Some(name) => {
            let encoding = name.as_str().and_then(Encoding::lookup);
            (encoding, encoding.is_some())
        }
    };
    let json = known
        && at
            .sibling("contentMediaType")
            .and_then(Json::as_str)
            .is_some_and(is_json);
    let owner = match (encoding, json) {
        (Some(_), _) => "contentEncoding",
        (None, true) => "contentMediaType",
        (None, false) => return Ok(None),
    };
    if key != owner {
        return Ok(None);
    }
    let schema = match at.sibling("contentSchema") {
        Some(_) if json && at.scope.dialect >= Dialect::Draft2019_09 => Some(c.child(at, "contentSchema")?),
        _ => None,
    };
    entry(
        owner,
        Keyword::Content(Content {
            encoding,
            json,
            schema,
        }),
    )
}

impl Walk<'_> {
    /// The content keywords of one schema against `instance`; `kp` is the
    /// entry's location, and each keyword reports at its own, beside it.
    pub(crate) fn check_content<'a, V: Value<'a>>(
        &mut self,
        at: &Checked<'_>,
        content: &Content,
        instance: V,
        kp: &Path<'_>,
        ip: &Path<'_>,
    ) -> Step {
        let Some(text) = self.text(instance)? else {
            return Ok(true);
        };
        let schema_kp = kp.parent_path();
        let part = |name: &'static str| Checked { node: at.node, name };
        let decoded;
        let document = match content.encoding {
            None => text.as_bytes(),
            Some(encoding) => {
                self.charge(1 + text.len() as u64 / DECODED_BYTES_PER_UNIT)?;
                let mut bytes = Vec::new();
                // The bytes are kept only for the media type to parse.
                let valid = if content.json {
                    bytes.reserve(text.len() / 8 * encoding.bits() + encoding.bits());
                    encoding.decode(text.as_bytes(), |byte| bytes.push(byte))
                } else {
                    encoding.decode(text.as_bytes(), |_| {})
                };
                if !valid {
                    let kp = schema_kp.push(Seg::Key("contentEncoding"));
                    return self.fail(&part("contentEncoding"), &kp, ip, |m| {
                        m.then("string is not valid ").then(encoding.name())
                    });
                }
                decoded = bytes;
                &decoded[..]
            }
        };
        if !content.json {
            return Ok(true);
        }
        self.charge(1 + document.len() as u64 / PARSED_BYTES_PER_UNIT)?;
        let Ok(value) = serde_json::from_slice::<Json>(document) else {
            let kp = schema_kp.push(Seg::Key("contentMediaType"));
            return self.fail(&part("contentMediaType"), &kp, ip, |m| match content.encoding {
                None => m.then("string is not valid JSON"),
                Some(encoding) => m
                    .then("string decoded from ")
                    .then(encoding.name())
                    .then(" is not valid JSON"),
            });
        };
        let Some(schema) = content.schema else {
            return Ok(true);
        };
        let kp = schema_kp.push(Seg::Key("contentSchema"));
        self.decoded(schema, JsonRef::from(&value), &kp, ip)
    }
}
