//! Glyph names to text, for simple fonts that carry no ToUnicode map: the names of a
//! `/Differences` array and of a Type 1 font program's built-in encoding (`dup 12 /fi put`,
//! as TeX's Computer Modern fonts have). Covers the Adobe Glyph List names that running text
//! uses: letters, digits, punctuation, quotes and dashes, ligatures, common accented letters,
//! and the `uniXXXX` / `uXXXX` forms. A suffix (`a.sc`, `one.oldstyle`) is ignored.

use std::collections::HashMap;

use lopdf::{Document, Object};

use super::deref;

#[rustfmt::skip]
const NAMES: &[(&str, &str)] = &[
    ("space", " "),
    ("exclam", "!"),
    ("quotedbl", "\""),
    ("numbersign", "#"),
    ("dollar", "$"),
    ("percent", "%"),
    ("ampersand", "&"),
    ("quoteright", "’"),
    ("quotesingle", "'"),
    ("parenleft", "("),
    ("parenright", ")"),
    ("asterisk", "*"),
    ("plus", "+"),
    ("comma", ","),
    ("hyphen", "-"),
    ("period", "."),
    ("slash", "/"),
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("colon", ":"),
    ("semicolon", ";"),
    ("less", "<"),
    ("equal", "="),
    ("greater", ">"),
    ("question", "?"),
    ("at", "@"),
    ("bracketleft", "["),
    ("backslash", "\\"),
    ("bracketright", "]"),
    ("asciicircum", "^"),
    ("underscore", "_"),
    ("quoteleft", "‘"),
    ("grave", "`"),
    ("braceleft", "{"),
    ("bar", "|"),
    ("braceright", "}"),
    ("asciitilde", "~"),
    ("quotedblleft", "“"),
    ("quotedblright", "”"),
    ("quotedblbase", "„"),
    ("quotesinglbase", "‚"),
    ("endash", "–"),
    ("emdash", "—"),
    ("bullet", "•"),
    ("dagger", "†"),
    ("daggerdbl", "‡"),
    ("section", "§"),
    ("paragraph", "¶"),
    ("ellipsis", "…"),
    ("minus", "−"),
    ("multiply", "×"),
    ("divide", "÷"),
    ("degree", "°"),
    ("copyright", "©"),
    ("registered", "®"),
    ("trademark", "™"),
    ("periodcentered", "·"),
    ("exclamdown", "¡"),
    ("questiondown", "¿"),
    ("guillemotleft", "«"),
    ("guillemotright", "»"),
    ("sterling", "£"),
    ("yen", "¥"),
    ("Euro", "€"),
    ("cent", "¢"),
    ("fi", "fi"),
    ("fl", "fl"),
    ("ff", "ff"),
    ("ffi", "ffi"),
    ("ffl", "ffl"),
    ("dotlessi", "ı"),
    ("dotlessj", "ȷ"),
    ("germandbls", "ß"),
    ("ae", "æ"),
    ("AE", "Æ"),
    ("oe", "œ"),
    ("OE", "Œ"),
    ("oslash", "ø"),
    ("Oslash", "Ø"),
    ("aring", "å"),
    ("Aring", "Å"),
    ("aacute", "á"),
    ("eacute", "é"),
    ("iacute", "í"),
    ("oacute", "ó"),
    ("uacute", "ú"),
    ("Eacute", "É"),
    ("agrave", "à"),
    ("egrave", "è"),
    ("ugrave", "ù"),
    ("acircumflex", "â"),
    ("ecircumflex", "ê"),
    ("icircumflex", "î"),
    ("ocircumflex", "ô"),
    ("adieresis", "ä"),
    ("edieresis", "ë"),
    ("idieresis", "ï"),
    ("odieresis", "ö"),
    ("udieresis", "ü"),
    ("Adieresis", "Ä"),
    ("Odieresis", "Ö"),
    ("Udieresis", "Ü"),
    ("ntilde", "ñ"),
    ("ccedilla", "ç"),
    ("scaron", "š"),
    ("zcaron", "ž"),
    ("ccaron", "č"),
    ("arrowright", "→"),
    ("arrowleft", "←"),
    ("lessequal", "≤"),
    ("greaterequal", "≥"),
    ("notequal", "≠"),
    ("infinity", "∞"),
    ("plusminus", "±"),
    ("mu", "µ"),
    // Greek (TeX's math italic and text fonts) and the math symbols of running formulas.
    ("alpha", "α"), ("beta", "β"), ("gamma", "γ"), ("delta", "δ"), ("epsilon", "ε"),
    ("epsilon1", "ϵ"), ("zeta", "ζ"), ("eta", "η"), ("theta", "θ"), ("theta1", "ϑ"),
    ("iota", "ι"), ("kappa", "κ"), ("lambda", "λ"), ("nu", "ν"), ("xi", "ξ"), ("pi", "π"),
    ("pi1", "ϖ"), ("rho", "ρ"), ("rho1", "ϱ"), ("sigma", "σ"), ("sigma1", "ς"), ("tau", "τ"),
    ("upsilon", "υ"), ("phi", "φ"), ("phi1", "ϕ"), ("chi", "χ"), ("psi", "ψ"), ("omega", "ω"),
    ("Gamma", "Γ"), ("Delta", "Δ"), ("Theta", "Θ"), ("Lambda", "Λ"), ("Xi", "Ξ"), ("Pi", "Π"),
    ("Sigma", "Σ"), ("Upsilon", "Υ"), ("Phi", "Φ"), ("Psi", "Ψ"), ("Omega", "Ω"),
    ("element", "∈"), ("notelement", "∉"), ("equivalence", "≡"), ("approxequal", "≈"),
    ("similar", "∼"), ("proportional", "∝"), ("bardbl", "‖"), ("angbracketleft", "⟨"),
    ("angbracketright", "⟩"), ("universal", "∀"), ("existential", "∃"), ("summation", "∑"),
    ("product", "∏"), ("integral", "∫"), ("partialdiff", "∂"), ("nabla", "∇"),
    ("propersubset", "⊂"), ("propersuperset", "⊃"), ("reflexsubset", "⊆"),
    ("reflexsuperset", "⊇"), ("union", "∪"), ("intersection", "∩"), ("logicaland", "∧"),
    ("logicalor", "∨"), ("logicalnot", "¬"), ("emptyset", "∅"), ("asteriskmath", "∗"),
    ("circlemultiply", "⊗"), ("circleplus", "⊕"), ("prime", "′"), ("radical", "√"),
    ("dotmath", "⋅"), ("arrowdblright", "⇒"), ("arrowdblleft", "⇐"), ("arrowboth", "↔"),
    ("arrowdblboth", "⇔"), ("arrowup", "↑"), ("arrowdown", "↓"), ("mapsto", "↦"),
    ("lessmuch", "≪"), ("greatermuch", "≫"), ("ceilingleft", "⌈"), ("ceilingright", "⌉"),
    ("floorleft", "⌊"), ("floorright", "⌋"), ("openbullet", "◦"),
];

/// Bytes a Type 1 font program may inflate to for its encoding to be read.
const MAX_PROGRAM_BYTES: usize = 4 << 20;

/// The text of a glyph name, when it is one running text uses.
pub(crate) fn text_of(name: &str) -> Option<String> {
    let base = name.split('.').next().unwrap_or(name);
    if base.chars().count() == 1 && base.chars().all(|c| c.is_ascii_alphabetic()) {
        return Some(base.to_string());
    }
    if let Some((_, t)) = NAMES.iter().find(|(n, _)| *n == base) {
        return Some((*t).to_string());
    }
    let hex = base.strip_prefix("uni").or_else(|| base.strip_prefix('u'))?;
    if hex.len() < 4 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    // `uniXXXXYYYY` names a sequence of four-digit codes; `uXXXXX` one code.
    let codes: Vec<u32> = if base.starts_with("uni") {
        hex.as_bytes()
            .chunks(4)
            .map(|c| u32::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
            .collect::<Option<_>>()?
    } else {
        vec![u32::from_str_radix(hex, 16).ok()?]
    };
    codes.into_iter().map(char::from_u32).collect()
}

/// Code → text for a simple font without ToUnicode: its Type 1 program's built-in encoding,
/// then its `/Differences` on top. Only names [`text_of`] knows are kept.
pub(crate) fn simple_font_names(doc: &Document, font: &lopdf::Dictionary) -> HashMap<u32, String> {
    let mut map = HashMap::new();
    let descriptor =
        font.get(b"FontDescriptor").ok().and_then(|o| deref(doc, o)).and_then(|o| o.as_dict().ok());
    if let Some(Object::Stream(program)) =
        descriptor.and_then(|d| d.get(b"FontFile").ok()).and_then(|o| deref(doc, o))
    {
        // The cleartext is at the start; a font program over the limit is not read.
        let bytes = program.decompressed_content_with_limit(MAX_PROGRAM_BYTES).unwrap_or_default();
        // The cleartext part ends at `eexec` (`Length1` says where, when it is right).
        let length1 =
            program.dict.get(b"Length1").ok().and_then(|o| o.as_i64().ok()).unwrap_or(0).max(0) as usize;
        let clear = &bytes[..if length1 > 0 { length1.min(bytes.len()) } else { bytes.len().min(1 << 16) }];
        let end = find(clear, b"eexec").unwrap_or(clear.len());
        builtin(&clear[..end], &mut map);
    }
    let differences = font
        .get(b"Encoding")
        .ok()
        .and_then(|o| deref(doc, o))
        .and_then(|o| o.as_dict().ok())
        .and_then(|e| e.get(b"Differences").ok())
        .and_then(|o| deref(doc, o))
        .and_then(|o| o.as_array().ok());
    if let Some(diffs) = differences {
        let mut code = 0u32;
        for o in diffs {
            match o {
                Object::Integer(n) => code = (*n).clamp(0, 255) as u32,
                Object::Name(n) => {
                    if let Some(t) = text_of(&String::from_utf8_lossy(n)) {
                        map.insert(code, t);
                    }
                    code += 1;
                }
                _ => {}
            }
        }
    }
    map
}

/// `dup CODE /NAME put` entries of a Type 1 program's cleartext.
fn builtin(clear: &[u8], map: &mut HashMap<u32, String>) {
    let text = String::from_utf8_lossy(clear);
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w != "dup" {
            continue;
        }
        let (Some(code), Some(name)) = (words.next(), words.next()) else { break };
        if let (Ok(code), Some(name)) = (code.parse::<u32>(), name.strip_prefix('/')) {
            if code < 256 && words.peek() == Some(&"put") {
                if let Some(t) = text_of(name) {
                    map.insert(code, t);
                }
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_spell_text() {
        assert_eq!(text_of("fi").as_deref(), Some("fi"));
        assert_eq!(text_of("quotedblleft").as_deref(), Some("“"));
        assert_eq!(text_of("a.sc").as_deref(), Some("a"));
        assert_eq!(text_of("uni00660069").as_deref(), Some("fi"));
        assert_eq!(text_of("u1F600").as_deref(), Some("😀"));
        assert_eq!(text_of("g123"), None);
    }

    #[test]
    fn builtin_encodings_are_read_from_the_cleartext() {
        let mut map = HashMap::new();
        builtin(b"/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 12 /fi put\ndup 92 /quotedblleft put\nreadonly def", &mut map);
        assert_eq!(map.get(&12).map(String::as_str), Some("fi"));
        assert_eq!(map.get(&92).map(String::as_str), Some("“"));
    }
}
