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

/// Every setting a strategy may change, in the order the help lists them. Each one's error
/// reads after its key: `dense takes a number, got "x"`.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "keyword",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.keyword = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "exact",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.exact = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "dense",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.dense = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "headings",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.headings = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "sections",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.sections = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "documents",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.documents = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "documents_dense",
        takes: Takes::Number,
        apply: |c, v| {
            c.weights.documents_dense = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "fusion",
        takes: Takes::Names(FusionKind::NAMES),
        apply: |c, v| {
            c.fusion = named(v, FusionKind::NAMES)?;
            Ok(())
        },
    },
    Setting {
        key: "rrf_k",
        takes: Takes::Number,
        apply: |c, v| {
            c.rrf_k = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "document_k",
        takes: Takes::Number,
        apply: |c, v| {
            c.document_k = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "per_section",
        takes: Takes::Number,
        apply: |c, v| {
            c.chunks_per_section = number(v)? as usize;
            Ok(())
        },
    },
    Setting {
        key: "capped_span",
        takes: Takes::Number,
        apply: |c, v| {
            c.capped_span = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "heading_span",
        takes: Takes::Number,
        apply: |c, v| {
            c.heading_span = number(v)?;
            Ok(())
        },
    },
    Setting {
        key: "heading_scope",
        takes: Takes::Names(HeadingScope::NAMES),
        apply: |c, v| {
            c.heading_scope = named(v, HeadingScope::NAMES)?;
            Ok(())
        },
    },
    Setting {
        key: "title_phrases",
        takes: Takes::Names(&["0", "1"]),
        apply: |c, v| {
            c.title_phrases = number(v)? != 0.0;
            Ok(())
        },
    },
    Setting {
        key: "name_evidence",
        takes: Takes::Names(NameEvidence::NAMES),
        apply: |c, v| {
            c.name_evidence = named(v, NameEvidence::NAMES)?;
            Ok(())
        },
    },
    Setting {
        key: "leg_evidence",
        takes: Takes::Names(LegEvidence::NAMES),
        apply: |c, v| {
            c.leg_evidence = named(v, LegEvidence::NAMES)?;
            Ok(())
        },
    },
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
    Setting {
        key: "highlight_sentences",
        takes: Takes::Number,
        apply: |c, v| {
            c.dense_highlight_sentences = number(v)? as usize;
            Ok(())
        },
    },
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
