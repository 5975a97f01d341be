//! Writes the five dialects' metaschemas (and the 2019-09 and 2020-12
//! vocabulary metaschemas) into OUT_DIR, taken from the pinned `referencing`
//! crate (jsonschema-rs's registry), so that the library ships the published
//! documents rather than copies typed by hand. `referencing` is a build
//! dependency only: none of its code is in the NIF.

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let documents: [(&str, &serde_json::Value); 19] = [
        ("draft4", &**referencing::meta::DRAFT4),
        ("draft6", &**referencing::meta::DRAFT6),
        ("draft7", &**referencing::meta::DRAFT7),
        ("draft2019_09", &**referencing::meta::DRAFT201909),
        (
            "draft2019_09_applicator",
            &**referencing::meta::DRAFT201909_APPLICATOR,
        ),
        ("draft2019_09_content", &**referencing::meta::DRAFT201909_CONTENT),
        ("draft2019_09_core", &**referencing::meta::DRAFT201909_CORE),
        ("draft2019_09_format", &**referencing::meta::DRAFT201909_FORMAT),
        (
            "draft2019_09_meta_data",
            &**referencing::meta::DRAFT201909_META_DATA,
        ),
        (
            "draft2019_09_validation",
            &**referencing::meta::DRAFT201909_VALIDATION,
        ),
        ("draft2020_12", &**referencing::meta::DRAFT202012),
        ("draft2020_12_core", &**referencing::meta::DRAFT202012_CORE),
        (
            "draft2020_12_applicator",
            &**referencing::meta::DRAFT202012_APPLICATOR,
        ),
        (
            "draft2020_12_unevaluated",
            &**referencing::meta::DRAFT202012_UNEVALUATED,
        ),
        (
            "draft2020_12_validation",
            &**referencing::meta::DRAFT202012_VALIDATION,
        ),
        (
            "draft2020_12_meta_data",
            &**referencing::meta::DRAFT202012_META_DATA,
        ),
        (
            "draft2020_12_format_annotation",
            &**referencing::meta::DRAFT202012_FORMAT_ANNOTATION,
        ),
        (
            "draft2020_12_format_assertion",
            &**referencing::meta::DRAFT202012_FORMAT_ASSERTION,
        ),
        ("draft2020_12_content", &**referencing::meta::DRAFT202012_CONTENT),
    ];
    for (name, document) in documents {
        let text = serde_json::to_string_pretty(document).unwrap_or_default();
        if text.is_empty() {
            println!("cargo::error=metaschema {name} could not be written");
        }
        if std::fs::write(out.join(format!("{name}.json")), text).is_err() {
            println!("cargo::error=OUT_DIR is not writable");
        }
    }
    println!("cargo::rerun-if-changed=build.rs");
}
