//! The search settings a strategy may change (`hybrid@dense=2`), in one table: the strategy
//! parser applies them, and its error, `strata eval --help` and the README's list of
//! `--strategies` are written from it (a test holds the README to it).

use std::str::FromStr;

use strata_core::config::{FusionKind, HeadingScope, LegEvidence, NameDrop, NameEvidence, SearchConfig};
use strata_core::Error;

/// What a setting's value is.
#[derive(Debug, Clone, Copy)]
pub enum Takes {
    /// A number.
    Number,
    /// One of these names.
    Names(&'static [&'static str]),
    /// Free text, described.
    Described(&'static str),
}

/// One setting a strategy may change.
pub struct Setting {
    /// Its key, `@key=value`.
    pub key: &'static str,
    /// What its value is.
    pub takes: Takes,
    /// Sets it in a config; the error says what the value should have been.
    apply: fn(&mut SearchConfig, &str) -> Result<(), String>,
}

impl Setting {
    /// `key=N`, `key=a|b|c` or `key=…`.
    pub fn usage(&self) -> String {
        match self.takes {
            Takes::Number => format!("{}=N", self.key),
            Takes::Names(names) => format!("{}={}", self.key, names.join("|")),
            Takes::Described(what) => format!("{}={what}", self.key),
        }
    }

    /// Sets `value` in `config`.
    pub fn apply(&self, config: &mut SearchConfig, value: &str) -> Result<(), String> {
        (self.apply)(config, value)
    }
}

fn number(value: &str) -> Result<f64, String> {
    value.parse().map_err(|_| format!("takes a number, got {value:?}"))
}

fn named<T: FromStr<Err = Error>>(value: &str, names: &[&str]) -> Result<T, String> {
    value.parse().map_err(|_: Error| format!("takes one of {}, got {value:?}", names.join(", ")))
}

/// A setting that takes a number into `c.$field` (`as usize` when given).
macro_rules! number {
    ($key:literal, $($field:ident).+ $(as $cast:ty)?) => {
        Setting {
            key: $key,
            takes: Takes::Number,
            apply: |c, v| {
                c.$($field).+ = number(v)? $(as $cast)?;
                Ok(())
            },
        }
    };
}

/// A setting that takes one of the names of the config enum `$kind` into `c.$field`.
macro_rules! named {
    ($key:literal, $field:ident: $kind:ty) => {
        Setting {
            key: $key,
            takes: Takes::Names(<$kind>::NAMES),
            apply: |c, v| {
                c.$field = named(v, <$kind>::NAMES)?;
                Ok(())
            },
        }
    };
}

/// Every setting a strategy may change, in the order the help lists them. Each one's error
/// reads after its key: `dense takes a number, got "x"`.
pub const SETTINGS: &[Setting] = &[
    number!("keyword", weights.keyword),
    number!("exact", weights.exact),
    number!("dense", weights.dense),
    number!("headings", weights.headings),
    number!("sections", weights.sections),
    number!("documents", weights.documents),
    number!("documents_dense", weights.documents_dense),
    named!("fusion", fusion: FusionKind),
    number!("rrf_k", rrf_k),
    number!("document_k", document_k),
    number!("per_section", chunks_per_section as usize),
    number!("capped_span", capped_span),
    number!("heading_span", heading_span),
    named!("heading_scope", heading_scope: HeadingScope),
    Setting {
        key: "title_phrases",
        takes: Takes::Names(&["0", "1"]),
        apply: |c, v| {
            c.title_phrases = number(v)? != 0.0;
            Ok(())
        },
    },
    named!("name_evidence", name_evidence: NameEvidence),
    named!("leg_evidence", leg_evidence: LegEvidence),
    Setting {
        key: "drop_names",
        takes: Takes::Described("off|titles|all (0 is off, 1 all)"),
        apply: |c, v| {
            c.drop_names = match v {
                "0" => NameDrop::Off,
                "1" => NameDrop::All,
                _ => named(v, &["off", "titles", "all", "0", "1"])?,
            };
            Ok(())
        },
    },
    Setting {
        key: "highlights",
        takes: Takes::Names(&["dense", "lexical"]),
        apply: |c, v| {
            c.dense_highlights = match v {
                "dense" => true,
                "lexical" => false,
                _ => return Err(format!("takes one of dense, lexical, got {v:?}")),
            };
            Ok(())
        },
    },
    number!("highlight_sentences", dense_highlight_sentences as usize),
];

/// The setting `key`, if a strategy may change it.
pub fn setting(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

/// Every setting's usage, comma-separated (`keyword=N, …, heading_scope=all|named|distinct, …`).
pub fn usage() -> String {
    SETTINGS.iter().map(Setting::usage).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_enum_setting_lists_its_names_and_applies_each() {
        for s in SETTINGS {
            if let Takes::Names(names) = s.takes {
                for name in names {
                    let mut config = SearchConfig::default();
                    s.apply(&mut config, name).unwrap_or_else(|e| panic!("{}={name}: {e}", s.key));
                }
            }
            assert!(s.apply(&mut SearchConfig::default(), "nonsense").is_err(), "{}", s.key);
        }
        assert!(usage().contains("heading_scope=all|named|distinct"), "{}", usage());
    }

    /// The README's `--strategies` row names every setting (they had drifted: the help said
    /// `heading_scope` was "all or named").
    #[test]
    fn the_readme_lists_every_setting() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
        let row = readme.lines().find(|l| l.starts_with("| `--strategies`")).expect("the --strategies row");
        for s in SETTINGS {
            assert!(
                row.contains(&format!("`{}", s.usage())),
                "README's --strategies row lacks `{}`",
                s.usage()
            );
        }
    }
}
