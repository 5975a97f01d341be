//! Unicode property escapes of ECMAScript's Unicode mode, `\p{…}` and
//! `\P{…}` (standard mode only): which names ECMAScript accepts, exactly as
//! written (no loose matching: `\p{letter}` is a syntax error), and the code
//! points each stands for, taken from `regex-syntax`'s Unicode tables.
//!
//! ECMAScript accepts `\p{Name=Value}` with `General_Category`/`gc`,
//! `Script`/`sc` or `Script_Extensions`/`scx`, and a lone `\p{Value}` that is
//! a General_Category value or one of its binary properties (its table
//! "Binary Unicode property aliases", plus `Any`, `ASCII` and `Assigned`).
//! The names below are those of `PropertyValueAliases.txt` and
//! `PropertyAliases.txt` that the Unicode version of `regex-syntax` (16.0)
//! knows; scripts added later (Unicode 17: `Beria_Erfe`, `Sidetic`, `Tai_Yo`,
//! `Tolong_Siki`) are unknown names here, as in an engine of that version.
//! `Katakana_Or_Hiragana` (`Hrkt`), which has no code points of its own, is
//! not an ECMAScript value.

use std::sync::OnceLock;

use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

/// A property an escape names, by its `regex-syntax` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Property {
    GeneralCategory(&'static str),
    Script(&'static str),
    ScriptExtensions(&'static str),
    Binary(&'static str),
    Any,
    Ascii,
    Assigned,
}

/// The property `\p{name=value}` (or `\p{value}` when `name` is `None`)
/// names, if ECMAScript accepts the names exactly as written.
pub(super) fn lookup(name: Option<&str>, value: &str) -> Option<Property> {
    let find = |table: &[(&[&str], &'static str)]| {
        table
            .iter()
            .find(|(names, _)| names.contains(&value))
            .map(|&(_, canonical)| canonical)
    };
    match name {
        Some("General_Category" | "gc") => find(GENERAL_CATEGORY).map(Property::GeneralCategory),
        Some("Script" | "sc") => find(SCRIPT).map(Property::Script),
        Some("Script_Extensions" | "scx") => find(SCRIPT).map(Property::ScriptExtensions),
        Some(_) => None,
        None => match value {
            "Any" => Some(Property::Any),
            "ASCII" => Some(Property::Ascii),
            "Assigned" => Some(Property::Assigned),
            _ => find(GENERAL_CATEGORY)
                .map(Property::GeneralCategory)
                .or_else(|| find(BINARY).map(Property::Binary)),
        },
    }
}

/// The code points a property holds (surrogates never: no valid UTF-8
/// input holds one). `None` when `regex-syntax` has no table for it: of
/// ECMAScript's properties, only `Changes_When_NFKC_Casefolded` (the tests
/// build every other name in the tables).
pub(super) fn class(property: Property) -> Option<ClassUnicode> {
    let source = match property {
        Property::Any => return Some(ClassUnicode::new([ClassUnicodeRange::new('\0', char::MAX)])),
        Property::Ascii => return Some(ClassUnicode::new([ClassUnicodeRange::new('\0', '\x7F')])),
        // Surrogates only, which `regex-syntax` has no table for.
        Property::GeneralCategory("Surrogate") => return Some(ClassUnicode::empty()),
        // Nor for the code points of no script (`Zzzz`), which are
        // unassigned, private-use or surrogates.
        Property::Script("Unknown") | Property::ScriptExtensions("Unknown") => return unknown_script(),
        Property::Assigned => "Assigned".to_string(),
        Property::GeneralCategory(value) => format!("gc={value}"),
        Property::Script(value) => format!("sc={value}"),
        Property::ScriptExtensions(value) => format!("scx={value}"),
        Property::Binary(name) => name.to_string(),
    };
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(true)
        .build()
        .parse(&format!("\\p{{{source}}}"))
        .ok()?;
    match hir.into_kind() {
        HirKind::Class(Class::Unicode(class)) => Some(class),
        // A class of one code point (`Line_Separator`) as that character.
        HirKind::Literal(literal) => {
            let mut chars = std::str::from_utf8(&literal.0).ok()?.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(ClassUnicode::new([ClassUnicodeRange::new(c, c)])),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The code points of no script: those outside every other script.
fn unknown_script() -> Option<ClassUnicode> {
    static UNKNOWN: OnceLock<Option<ClassUnicode>> = OnceLock::new();
    UNKNOWN
        .get_or_init(|| {
            let mut known = ClassUnicode::empty();
            for &(_, script) in SCRIPT.iter().filter(|&&(_, script)| script != "Unknown") {
                known.union(&class(Property::Script(script))?);
            }
            known.negate();
            Some(known)
        })
        .clone()
}

/// Whether `c` may start a group name (ECMAScript's `RegExpIdentifierStart`:
/// `ID_Start`, `$` or `_`).
pub(super) fn is_identifier_start(c: char) -> bool {
    static ID_START: OnceLock<Option<ClassUnicode>> = OnceLock::new();
    matches!(c, '$' | '_' | 'A'..='Z' | 'a'..='z') || (!c.is_ascii() && contains(&ID_START, "ID_Start", c))
}

/// Whether `c` may continue a group name (`RegExpIdentifierPart`:
/// `ID_Continue`, `$`, ZWNJ or ZWJ).
pub(super) fn is_identifier_part(c: char) -> bool {
    static ID_CONTINUE: OnceLock<Option<ClassUnicode>> = OnceLock::new();
    matches!(c, '$' | '_' | 'A'..='Z' | 'a'..='z' | '0'..='9' | '\u{200C}' | '\u{200D}')
        || (!c.is_ascii() && contains(&ID_CONTINUE, "ID_Continue", c))
}

fn contains(table: &OnceLock<Option<ClassUnicode>>, name: &'static str, c: char) -> bool {
    table
        .get_or_init(|| class(Property::Binary(name)))
        .as_ref()
        .is_some_and(|class| {
            let ranges = class.ranges();
            let at = ranges.partition_point(|range| range.end() < c);
            ranges.get(at).is_some_and(|range| range.start() <= c)
        })
}

/// General_Category values and aliases.
pub(super) const GENERAL_CATEGORY: &[(&[&str], &str)] = &[
    (&["Pe", "Close_Punctuation"], "Close_Punctuation"),
    (&["Pc", "Connector_Punctuation"], "Connector_Punctuation"),
    (&["cntrl", "Cc", "Control"], "Control"),
    (&["Sc", "Currency_Symbol"], "Currency_Symbol"),
    (&["Pd", "Dash_Punctuation"], "Dash_Punctuation"),
    (&["digit", "Nd", "Decimal_Number"], "Decimal_Number"),
    (&["Me", "Enclosing_Mark"], "Enclosing_Mark"),
    (&["Pf", "Final_Punctuation"], "Final_Punctuation"),
    (&["Cf", "Format"], "Format"),
    (&["Pi", "Initial_Punctuation"], "Initial_Punctuation"),
    (&["Nl", "Letter_Number"], "Letter_Number"),
    (&["Zl", "Line_Separator"], "Line_Separator"),
    (&["Ll", "Lowercase_Letter"], "Lowercase_Letter"),
    (&["Sm", "Math_Symbol"], "Math_Symbol"),
    (&["Lm", "Modifier_Letter"], "Modifier_Letter"),
    (&["Sk", "Modifier_Symbol"], "Modifier_Symbol"),
    (&["Mn", "Nonspacing_Mark"], "Nonspacing_Mark"),
    (&["Ps", "Open_Punctuation"], "Open_Punctuation"),
    (&["Lo", "Other_Letter"], "Other_Letter"),
    (&["No", "Other_Number"], "Other_Number"),
    (&["Po", "Other_Punctuation"], "Other_Punctuation"),
    (&["So", "Other_Symbol"], "Other_Symbol"),
    (&["Zp", "Paragraph_Separator"], "Paragraph_Separator"),
    (&["Co", "Private_Use"], "Private_Use"),
    (&["Zs", "Space_Separator"], "Space_Separator"),
    (&["Mc", "Spacing_Mark"], "Spacing_Mark"),
    (&["Cs", "Surrogate"], "Surrogate"),
    (&["Lt", "Titlecase_Letter"], "Titlecase_Letter"),
    (&["Cn", "Unassigned"], "Unassigned"),
    (&["Lu", "Uppercase_Letter"], "Uppercase_Letter"),
    (&["LC", "Cased_Letter"], "Cased_Letter"),
    (&["C", "Other"], "Other"),
    (&["L", "Letter"], "Letter"),
    (&["Combining_Mark", "M", "Mark"], "Mark"),
    (&["N", "Number"], "Number"),
    (&["punct", "P", "Punctuation"], "Punctuation"),
    (&["S", "Symbol"], "Symbol"),
    (&["Z", "Separator"], "Separator"),
];

/// Script values and aliases.
pub(super) const SCRIPT: &[(&[&str], &str)] = &[
    (&["Adlam", "Adlm"], "Adlam"),
    (&["Caucasian_Albanian", "Aghb"], "Caucasian_Albanian"),
    (&["Ahom"], "Ahom"),
    (&["Arabic", "Arab"], "Arabic"),
    (&["Imperial_Aramaic", "Armi"], "Imperial_Aramaic"),
    (&["Armenian", "Armn"], "Armenian"),
    (&["Avestan", "Avst"], "Avestan"),
    (&["Balinese", "Bali"], "Balinese"),
    (&["Bamum", "Bamu"], "Bamum"),
    (&["Bassa_Vah", "Bass"], "Bassa_Vah"),
    (&["Batak", "Batk"], "Batak"),
    (&["Bengali", "Beng"], "Bengali"),
    (&["Bhaiksuki", "Bhks"], "Bhaiksuki"),
    (&["Bopomofo", "Bopo"], "Bopomofo"),
    (&["Brahmi", "Brah"], "Brahmi"),
    (&["Braille", "Brai"], "Braille"),
    (&["Buginese", "Bugi"], "Buginese"),
    (&["Buhid", "Buhd"], "Buhid"),
    (&["Chakma", "Cakm"], "Chakma"),
    (&["Canadian_Aboriginal", "Cans"], "Canadian_Aboriginal"),
    (&["Carian", "Cari"], "Carian"),
    (&["Cham"], "Cham"),
    (&["Cherokee", "Cher"], "Cherokee"),
    (&["Chorasmian", "Chrs"], "Chorasmian"),
    (&["Coptic", "Copt", "Qaac"], "Coptic"),
    (&["Cypro_Minoan", "Cpmn"], "Cypro_Minoan"),
    (&["Cypriot", "Cprt"], "Cypriot"),
    (&["Cyrillic", "Cyrl"], "Cyrillic"),
    (&["Devanagari", "Deva"], "Devanagari"),
    (&["Dives_Akuru", "Diak"], "Dives_Akuru"),
    (&["Dogra", "Dogr"], "Dogra"),
    (&["Deseret", "Dsrt"], "Deseret"),
    (&["Duployan", "Dupl"], "Duployan"),
    (&["Egyptian_Hieroglyphs", "Egyp"], "Egyptian_Hieroglyphs"),
    (&["Elbasan", "Elba"], "Elbasan"),
    (&["Elymaic", "Elym"], "Elymaic"),
    (&["Ethiopic", "Ethi"], "Ethiopic"),
    (&["Garay", "Gara"], "Garay"),
    (&["Georgian", "Geor"], "Georgian"),
    (&["Glagolitic", "Glag"], "Glagolitic"),
    (&["Gunjala_Gondi", "Gong"], "Gunjala_Gondi"),
    (&["Masaram_Gondi", "Gonm"], "Masaram_Gondi"),
    (&["Gothic", "Goth"], "Gothic"),
    (&["Grantha", "Gran"], "Grantha"),
    (&["Greek", "Grek"], "Greek"),
    (&["Gujarati", "Gujr"], "Gujarati"),
    (&["Gurung_Khema", "Gukh"], "Gurung_Khema"),
    (&["Gurmukhi", "Guru"], "Gurmukhi"),
    (&["Hangul", "Hang"], "Hangul"),
    (&["Han", "Hani"], "Han"),
    (&["Hanunoo", "Hano"], "Hanunoo"),
    (&["Hatran", "Hatr"], "Hatran"),
    (&["Hebrew", "Hebr"], "Hebrew"),
    (&["Hiragana", "Hira"], "Hiragana"),
    (&["Anatolian_Hieroglyphs", "Hluw"], "Anatolian_Hieroglyphs"),
    (&["Pahawh_Hmong", "Hmng"], "Pahawh_Hmong"),
    (&["Nyiakeng_Puachue_Hmong", "Hmnp"], "Nyiakeng_Puachue_Hmong"),
    (&["Old_Hungarian", "Hung"], "Old_Hungarian"),
    (&["Old_Italic", "Ital"], "Old_Italic"),
    (&["Javanese", "Java"], "Javanese"),
    (&["Kayah_Li", "Kali"], "Kayah_Li"),
    (&["Katakana", "Kana"], "Katakana"),
    (&["Kawi"], "Kawi"),
    (&["Kharoshthi", "Khar"], "Kharoshthi"),
    (&["Khmer", "Khmr"], "Khmer"),
    (&["Khojki", "Khoj"], "Khojki"),
    (&["Khitan_Small_Script", "Kits"], "Khitan_Small_Script"),
    (&["Kannada", "Knda"], "Kannada"),
    (&["Kirat_Rai", "Krai"], "Kirat_Rai"),
    (&["Kaithi", "Kthi"], "Kaithi"),
    (&["Tai_Tham", "Lana"], "Tai_Tham"),
    (&["Lao", "Laoo"], "Lao"),
    (&["Latin", "Latn"], "Latin"),
    (&["Lepcha", "Lepc"], "Lepcha"),
    (&["Limbu", "Limb"], "Limbu"),
    (&["Linear_A", "Lina"], "Linear_A"),
    (&["Linear_B", "Linb"], "Linear_B"),
    (&["Lisu"], "Lisu"),
    (&["Lycian", "Lyci"], "Lycian"),
    (&["Lydian", "Lydi"], "Lydian"),
    (&["Mahajani", "Mahj"], "Mahajani"),
    (&["Makasar", "Maka"], "Makasar"),
    (&["Mandaic", "Mand"], "Mandaic"),
    (&["Manichaean", "Mani"], "Manichaean"),
    (&["Marchen", "Marc"], "Marchen"),
    (&["Medefaidrin", "Medf"], "Medefaidrin"),
    (&["Mende_Kikakui", "Mend"], "Mende_Kikakui"),
    (&["Meroitic_Cursive", "Merc"], "Meroitic_Cursive"),
    (&["Meroitic_Hieroglyphs", "Mero"], "Meroitic_Hieroglyphs"),
    (&["Malayalam", "Mlym"], "Malayalam"),
    (&["Modi"], "Modi"),
    (&["Mongolian", "Mong"], "Mongolian"),
    (&["Mro", "Mroo"], "Mro"),
    (&["Meetei_Mayek", "Mtei"], "Meetei_Mayek"),
    (&["Multani", "Mult"], "Multani"),
    (&["Myanmar", "Mymr"], "Myanmar"),
    (&["Nag_Mundari", "Nagm"], "Nag_Mundari"),
    (&["Nandinagari", "Nand"], "Nandinagari"),
    (&["Old_North_Arabian", "Narb"], "Old_North_Arabian"),
    (&["Nabataean", "Nbat"], "Nabataean"),
    (&["Newa"], "Newa"),
    (&["Nko", "Nkoo"], "Nko"),
    (&["Nushu", "Nshu"], "Nushu"),
    (&["Ogham", "Ogam"], "Ogham"),
    (&["Ol_Chiki", "Olck"], "Ol_Chiki"),
    (&["Ol_Onal", "Onao"], "Ol_Onal"),
    (&["Old_Turkic", "Orkh"], "Old_Turkic"),
    (&["Oriya", "Orya"], "Oriya"),
    (&["Osage", "Osge"], "Osage"),
    (&["Osmanya", "Osma"], "Osmanya"),
    (&["Old_Uyghur", "Ougr"], "Old_Uyghur"),
    (&["Palmyrene", "Palm"], "Palmyrene"),
    (&["Pau_Cin_Hau", "Pauc"], "Pau_Cin_Hau"),
    (&["Old_Permic", "Perm"], "Old_Permic"),
    (&["Phags_Pa", "Phag"], "Phags_Pa"),
    (&["Inscriptional_Pahlavi", "Phli"], "Inscriptional_Pahlavi"),
    (&["Psalter_Pahlavi", "Phlp"], "Psalter_Pahlavi"),
    (&["Phoenician", "Phnx"], "Phoenician"),
    (&["Miao", "Plrd"], "Miao"),
    (&["Inscriptional_Parthian", "Prti"], "Inscriptional_Parthian"),
    (&["Rejang", "Rjng"], "Rejang"),
    (&["Hanifi_Rohingya", "Rohg"], "Hanifi_Rohingya"),
    (&["Runic", "Runr"], "Runic"),
    (&["Samaritan", "Samr"], "Samaritan"),
    (&["Old_South_Arabian", "Sarb"], "Old_South_Arabian"),
    (&["Saurashtra", "Saur"], "Saurashtra"),
    (&["SignWriting", "Sgnw"], "SignWriting"),
    (&["Shavian", "Shaw"], "Shavian"),
    (&["Sharada", "Shrd"], "Sharada"),
    (&["Siddham", "Sidd"], "Siddham"),
    (&["Khudawadi", "Sind"], "Khudawadi"),
    (&["Sinhala", "Sinh"], "Sinhala"),
    (&["Sogdian", "Sogd"], "Sogdian"),
    (&["Old_Sogdian", "Sogo"], "Old_Sogdian"),
    (&["Sora_Sompeng", "Sora"], "Sora_Sompeng"),
    (&["Soyombo", "Soyo"], "Soyombo"),
    (&["Sundanese", "Sund"], "Sundanese"),
    (&["Sunuwar", "Sunu"], "Sunuwar"),
    (&["Syloti_Nagri", "Sylo"], "Syloti_Nagri"),
    (&["Syriac", "Syrc"], "Syriac"),
    (&["Tagbanwa", "Tagb"], "Tagbanwa"),
    (&["Takri", "Takr"], "Takri"),
    (&["Tai_Le", "Tale"], "Tai_Le"),
    (&["New_Tai_Lue", "Talu"], "New_Tai_Lue"),
    (&["Tamil", "Taml"], "Tamil"),
    (&["Tangut", "Tang"], "Tangut"),
    (&["Tai_Viet", "Tavt"], "Tai_Viet"),
    (&["Telugu", "Telu"], "Telugu"),
    (&["Tifinagh", "Tfng"], "Tifinagh"),
    (&["Tagalog", "Tglg"], "Tagalog"),
    (&["Thaana", "Thaa"], "Thaana"),
    (&["Thai"], "Thai"),
    (&["Tibetan", "Tibt"], "Tibetan"),
    (&["Tirhuta", "Tirh"], "Tirhuta"),
    (&["Tangsa", "Tnsa"], "Tangsa"),
    (&["Todhri", "Todr"], "Todhri"),
    (&["Toto"], "Toto"),
    (&["Tulu_Tigalari", "Tutg"], "Tulu_Tigalari"),
    (&["Ugaritic", "Ugar"], "Ugaritic"),
    (&["Vai", "Vaii"], "Vai"),
    (&["Vithkuqi", "Vith"], "Vithkuqi"),
    (&["Warang_Citi", "Wara"], "Warang_Citi"),
    (&["Wancho", "Wcho"], "Wancho"),
    (&["Old_Persian", "Xpeo"], "Old_Persian"),
    (&["Cuneiform", "Xsux"], "Cuneiform"),
    (&["Yezidi", "Yezi"], "Yezidi"),
    (&["Yi", "Yiii"], "Yi"),
    (&["Zanabazar_Square", "Zanb"], "Zanabazar_Square"),
    (&["Inherited", "Zinh", "Qaai"], "Inherited"),
    (&["Common", "Zyyy"], "Common"),
    (&["Unknown", "Zzzz"], "Unknown"),
];

/// Binary properties.
pub(super) const BINARY: &[(&[&str], &str)] = &[
    (&["Alpha", "Alphabetic"], "Alphabetic"),
    (&["CI", "Case_Ignorable"], "Case_Ignorable"),
    (&["Cased"], "Cased"),
    (&["CWCF", "Changes_When_Casefolded"], "Changes_When_Casefolded"),
    (&["CWCM", "Changes_When_Casemapped"], "Changes_When_Casemapped"),
    (&["CWL", "Changes_When_Lowercased"], "Changes_When_Lowercased"),
    (&["CWT", "Changes_When_Titlecased"], "Changes_When_Titlecased"),
    (&["CWU", "Changes_When_Uppercased"], "Changes_When_Uppercased"),
    (
        &["DI", "Default_Ignorable_Code_Point"],
        "Default_Ignorable_Code_Point",
    ),
    (&["Gr_Base", "Grapheme_Base"], "Grapheme_Base"),
    (&["Gr_Ext", "Grapheme_Extend"], "Grapheme_Extend"),
    (&["IDC", "ID_Continue"], "ID_Continue"),
    (&["IDS", "ID_Start"], "ID_Start"),
    (&["Math"], "Math"),
    (&["XIDC", "XID_Continue"], "XID_Continue"),
    (&["XIDS", "XID_Start"], "XID_Start"),
    (&["AHex", "ASCII_Hex_Digit"], "ASCII_Hex_Digit"),
    (&["Bidi_C", "Bidi_Control"], "Bidi_Control"),
    (&["Dash"], "Dash"),
    (&["Dep", "Deprecated"], "Deprecated"),
    (&["Dia", "Diacritic"], "Diacritic"),
    (&["Ext", "Extender"], "Extender"),
    (&["Hex", "Hex_Digit"], "Hex_Digit"),
    (&["IDSB", "IDS_Binary_Operator"], "IDS_Binary_Operator"),
    (&["IDST", "IDS_Trinary_Operator"], "IDS_Trinary_Operator"),
    (&["Ideo", "Ideographic"], "Ideographic"),
    (&["Join_C", "Join_Control"], "Join_Control"),
    (&["LOE", "Logical_Order_Exception"], "Logical_Order_Exception"),
    (&["Lower", "Lowercase"], "Lowercase"),
    (&["NChar", "Noncharacter_Code_Point"], "Noncharacter_Code_Point"),
    (&["Pat_Syn", "Pattern_Syntax"], "Pattern_Syntax"),
    (&["Pat_WS", "Pattern_White_Space"], "Pattern_White_Space"),
    (&["QMark", "Quotation_Mark"], "Quotation_Mark"),
    (&["Radical"], "Radical"),
    (&["RI", "Regional_Indicator"], "Regional_Indicator"),
    (&["STerm", "Sentence_Terminal"], "Sentence_Terminal"),
    (&["SD", "Soft_Dotted"], "Soft_Dotted"),
    (&["Term", "Terminal_Punctuation"], "Terminal_Punctuation"),
    (&["UIdeo", "Unified_Ideograph"], "Unified_Ideograph"),
    (&["Upper", "Uppercase"], "Uppercase"),
    (&["VS", "Variation_Selector"], "Variation_Selector"),
    (&["space", "White_Space"], "White_Space"),
    (&["Emoji"], "Emoji"),
    (&["EComp", "Emoji_Component"], "Emoji_Component"),
    (&["EMod", "Emoji_Modifier"], "Emoji_Modifier"),
    (&["EBase", "Emoji_Modifier_Base"], "Emoji_Modifier_Base"),
    (&["EPres", "Emoji_Presentation"], "Emoji_Presentation"),
    (&["ExtPict", "Extended_Pictographic"], "Extended_Pictographic"),
    (
        &["CWKCF", "Changes_When_NFKC_Casefolded"],
        "Changes_When_NFKC_Casefolded",
    ),
    (&["Bidi_M", "Bidi_Mirrored"], "Bidi_Mirrored"),
];
