//! `contentEncoding`, `contentMediaType` and `contentSchema`, asserted
//! (`ContentMode::Assert`) and annotated (the default). Expected encodings
//! are RFC 4648's own test vectors (section 10); every verdict here is
//! written from the RFCs, not taken from a run.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use input_schema_core::json::JsonRef;
use input_schema_core::standard::{ContentMode, Dialect, Options, Validator};
use serde_json::{json, Value};

fn options(dialect: Dialect, content: ContentMode) -> Options {
    Options {
        dialect,
        content,
        ..Options::default()
    }
}

fn asserted(schema: &Value) -> Validator {
    Validator::compile(schema, &options(Dialect::Draft2020_12, ContentMode::Assert)).unwrap()
}

/// `(keyword, keyword location, instance location, message)` of each failure.
fn failures(validator: &Validator, instance: &Value) -> Vec<(&'static str, String, String, String)> {
    validator
        .validate(JsonRef::from(instance))
        .unwrap()
        .into_iter()
        .map(|u| (u.keyword, u.keyword_location, u.instance_location, u.message))
        .collect()
}

fn valid(validator: &Validator, instance: &Value) -> bool {
    let verdict = validator.is_valid(JsonRef::from(instance)).unwrap();
    // The fast path and the recording walk agree.
    assert_eq!(verdict, failures(validator, instance).is_empty(), "{instance}");
    verdict
}

#[test]
fn rfc_4648_test_vectors_decode_in_each_encoding() {
    // RFC 4648, section 10: "", "f", "fo", "foo", "foob", "fooba", "foobar".
    let vectors: [(&str, [&str; 7]); 4] = [
        (
            "base64",
            ["", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"],
        ),
        (
            "base32",
            [
                "",
                "MY======",
                "MZXQ====",
                "MZXW6===",
                "MZXW6YQ=",
                "MZXW6YTB",
                "MZXW6YTBOI======",
            ],
        ),
        (
            "base16",
            [
                "",
                "66",
                "666F",
                "666F6F",
                "666F6F62",
                "666F6F6261",
                "666F6F626172",
            ],
        ),
        // base64url's alphabet differs only in 62 and 63; the vectors are
        // base64's, padded or not (section 5 allows leaving it out).
        (
            "base64url",
            ["", "Zg", "Zm8=", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"],
        ),
    ];
    for (encoding, texts) in vectors {
        let validator = asserted(&json!({"contentEncoding": encoding}));
        for text in texts {
            assert!(valid(&validator, &json!(text)), "{encoding} {text:?}");
        }
    }
}

#[test]
fn a_string_outside_its_encoding_fails_content_encoding() {
    let cases = [
        // A symbol outside the alphabet: '-' is base64url's, not base64's.
        ("base64", "Zm9v-A=="),
        // Padding missing where base64 requires it (section 4).
        ("base64", "Zg"),
        // Pad bits that are not zero ("Zh==" carries a set bit past "f").
        ("base64", "Zh=="),
        // White space is outside every alphabet (section 3.3).
        ("base64", "Zm9v\nYmFy"),
        // A length no encoder writes.
        ("base64", "Z"),
        // base64's '+' is not base64url's.
        ("base64url", "a+b="),
        // base32's alphabet is upper case.
        ("base32", "my======"),
        // An odd number of hex digits.
        ("base16", "666"),
    ];
    for (encoding, text) in cases {
        let validator = asserted(&json!({"contentEncoding": encoding}));
        assert_eq!(
            failures(&validator, &json!(text)),
            vec![(
                "contentEncoding",
                "/contentEncoding".to_string(),
                String::new(),
                format!("string is not valid {encoding}")
            )],
            "{encoding} {text:?}"
        );
    }
}

#[test]
fn encoding_names_compare_without_regard_to_case_and_hex_takes_both_cases() {
    let validator = asserted(&json!({"contentEncoding": "BASE16"}));
    assert!(valid(&validator, &json!("666f6F")));
    assert!(!valid(&validator, &json!("66 6F")));
}

#[test]
fn json_media_type_parses_the_decoded_string_and_its_schema_applies() {
    let validator = asserted(&json!({
        "properties": {
            "payload": {
                "contentEncoding": "base64",
                "contentMediaType": "application/json; charset=utf-8",
                "contentSchema": {"type": "object", "required": ["id"]}
            }
        }
    }));
    // {"id":1} and {} and [1 in base64.
    assert!(valid(&validator, &json!({"payload": "eyJpZCI6MX0="})));
    assert_eq!(
        failures(&validator, &json!({"payload": "e30="})),
        vec![(
            "required",
            "/properties/payload/contentSchema/required".to_string(),
            "/payload".to_string(),
            "required property \"id\" is missing".to_string()
        )]
    );
    assert_eq!(
        failures(&validator, &json!({"payload": "WzE="})),
        vec![(
            "contentMediaType",
            "/properties/payload/contentMediaType".to_string(),
            "/payload".to_string(),
            "string decoded from base64 is not valid JSON".to_string()
        )]
    );
    // Not base64 at all: the media type has nothing to read.
    assert_eq!(
        failures(&validator, &json!({"payload": "{\"id\":1}"})),
        vec![(
            "contentEncoding",
            "/properties/payload/contentEncoding".to_string(),
            "/payload".to_string(),
            "string is not valid base64".to_string()
        )]
    );
}

#[test]
fn a_json_string_without_an_encoding_is_parsed_as_it_is() {
    let validator = asserted(&json!({
        "contentMediaType": "Application/JSON",
        "contentSchema": {"items": {"type": "integer"}}
    }));
    assert!(valid(&validator, &json!("[1, 2]")));
    assert_eq!(
        failures(&validator, &json!("[1, \"2\"]")),
        vec![(
            "type",
            "/contentSchema/items/type".to_string(),
            String::new(),
            "instance is not of type integer".to_string()
        )]
    );
    assert_eq!(
        failures(&validator, &json!("{")),
        vec![(
            "contentMediaType",
            "/contentMediaType".to_string(),
            String::new(),
            "string is not valid JSON".to_string()
        )]
    );
    // Only strings carry content.
    assert!(valid(&validator, &json!(12)));
    assert!(valid(&validator, &json!(["x"])));
}

#[test]
fn unknown_encodings_and_media_types_stay_annotations() {
    for schema in [
        json!({"contentEncoding": "7bit", "contentMediaType": "application/json"}),
        json!({"contentEncoding": "quoted-printable"}),
        json!({"contentMediaType": "text/html", "contentSchema": false}),
        json!({"contentSchema": false}),
    ] {
        let validator = asserted(&schema);
        assert!(valid(&validator, &json!("not base64 nor JSON {")), "{schema}");
    }
}

#[test]
fn annotated_by_default_and_in_every_dialect_before_they_exist() {
    let schema = json!({
        "contentEncoding": "base64",
        "contentMediaType": "application/json",
        "contentSchema": false
    });
    let instance = json!("@@@");
    for dialect in [Dialect::Draft2020_12, Dialect::Draft2019_09, Dialect::Draft7] {
        let annotated = Validator::compile(&schema, &options(dialect, ContentMode::Annotate)).unwrap();
        assert!(valid(&annotated, &instance), "{dialect:?}");
        let asserted = Validator::compile(&schema, &options(dialect, ContentMode::Assert)).unwrap();
        assert!(!valid(&asserted, &instance), "{dialect:?}");
    }
    // Draft 6 and draft 4 have no content keywords.
    for dialect in [Dialect::Draft6, Dialect::Draft4] {
        let validator = Validator::compile(&schema, &options(dialect, ContentMode::Assert)).unwrap();
        assert!(valid(&validator, &instance), "{dialect:?}");
    }
    // Draft 7 has no contentSchema: the JSON is checked, not its schema.
    let draft7 = Validator::compile(&schema, &options(Dialect::Draft7, ContentMode::Assert)).unwrap();
    assert!(valid(&draft7, &json!("bnVsbA==")));
}

#[test]
fn a_content_keyword_of_the_wrong_type_fails_the_metaschema() {
    let error = Validator::compile(
        &json!({"contentEncoding": 1}),
        &options(Dialect::Draft2020_12, ContentMode::Assert),
    );
    assert!(error.is_err());
}

#[test]
fn content_schema_failures_leave_unevaluated_properties_alone() {
    // The decoded value has no place in the instance: nothing it evaluates
    // counts for the instance's own unevaluatedProperties.
    let validator = asserted(&json!({
        "properties": {
            "p": {
                "contentMediaType": "application/json",
                "contentSchema": {"properties": {"q": true}, "unevaluatedProperties": false}
            }
        },
        "unevaluatedProperties": false
    }));
    assert!(valid(&validator, &json!({"p": "{\"q\": 1}"})));
    assert_eq!(
        failures(&validator, &json!({"p": "{\"r\": 1}", "s": 1})),
        vec![
            (
                "unevaluatedProperties",
                "/properties/p/contentSchema/unevaluatedProperties".to_string(),
                "/p".to_string(),
                "no value is allowed here (the schema is false)".to_string()
            ),
            (
                "unevaluatedProperties",
                "/unevaluatedProperties".to_string(),
                "/s".to_string(),
                "no value is allowed here (the schema is false)".to_string()
            ),
        ]
    );
}

#[test]
fn a_large_string_is_decoded_within_the_work_budget() {
    // One mebibyte of base64 of a JSON list of zeros: decoded and parsed
    // once, in well under the default validation's work budget.
    let items = vec!["0"; 300_000].join(",");
    let text = format!("[{items}]");
    let encoded = base64(text.as_bytes());
    let validator = asserted(&json!({
        "contentEncoding": "base64",
        "contentMediaType": "application/json",
        "contentSchema": {"maxItems": 10}
    }));
    let found = failures(&validator, &json!(encoded));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "maxItems");
}

/// RFC 4648 base64, padded: written here to make the test's input.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| n << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
