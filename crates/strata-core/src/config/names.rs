//! Closed sets of names: the config keys that take one of a few words (`[search] mode`,
//! `[store] kind`, …), as enums.
//!
//! [`named!`] declares each one. Its names are written once, in the declaration; serde
//! (TOML, JSON, the OpenAPI schema), [`std::str::FromStr`] (the environment overrides, the
//! command line) and `Display` all read and write those. Deserializing goes through
//! `FromStr`, so an unknown name is refused the same way wherever it comes from, with the
//! key and the names it takes:
//!
//! ```
//! use strata_core::config::FusionKind;
//! assert_eq!("weighted".parse::<FusionKind>().unwrap(), FusionKind::Weighted);
//! let err = "rfr".parse::<FusionKind>().unwrap_err().to_string();
//! assert_eq!(err, "[search] fusion = \"rfr\" is not one of rrf, weighted");
//! ```

use std::str::FromStr;

use crate::{Error, Result};

/// The value among `all` whose name in `names` (the same order) is `text`.
pub(crate) fn lookup<T: Copy>(all: &[T], names: &[&str], text: &str) -> Option<T> {
    names.iter().position(|name| *name == text).map(|i| all[i])
}

/// The error for a name `key` does not take.
pub(crate) fn unknown(key: &str, text: &str, names: &[&str]) -> Error {
    Error::user(format!("{key} = {text:?} is not one of {}", names.join(", ")))
}

/// Reads `text` as one of `T`'s names (its `FromStr`); the error adds where the text came
/// from, e.g. `[rerank] kind = "cohear" is not one of none, …, openai (in --rerank)`.
pub fn parse_in<T: FromStr<Err = Error>>(text: &str, origin: &str) -> Result<T> {
    text.parse().map_err(|e| Error::user(format!("{e} (in {origin})")))
}

/// Declares a config enum: `named! { pub enum Mode in "[search] mode" { Keyword = "keyword", … } }`.
///
/// The enum gets serde (each variant renamed to its name; deserialized through `FromStr`),
/// `ToSchema` with the `openapi` feature, `FromStr` (error: the key, the value and the
/// names), `Display` (the name), and `KEY`, `ALL`, `NAMES` and `name()`.
macro_rules! named {
    (
        $(#[$meta:meta])*
        pub enum $name:ident in $key:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:tt, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(try_from = "String")]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            /// The config key, as `[section] key`.
            pub const KEY: &'static str = $key;
            /// Every value, in the order of [`Self::NAMES`].
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The names, as `strata.toml`, the environment and JSON spell them.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The name of this value.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::Error;

            fn from_str(text: &str) -> $crate::Result<$name> {
                $crate::config::names::lookup(Self::ALL, Self::NAMES, text)
                    .ok_or_else(|| $crate::config::names::unknown(Self::KEY, text, Self::NAMES))
            }
        }

        impl TryFrom<String> for $name {
            type Error = $crate::Error;

            fn try_from(text: String) -> $crate::Result<$name> {
                text.parse()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named;

#[cfg(test)]
pub(crate) mod tests {
    use std::fmt::Debug;
    use std::str::FromStr;

    use serde::{de::DeserializeOwned, Serialize};

    /// Every name parses to its value, prints as itself, and serde writes and reads it as
    /// that string; a made-up name is refused with the key and every name.
    pub(crate) fn round_trips<T>(all: &[T], names: &[&str], key: &str, name: fn(T) -> &'static str)
    where
        T: Copy + Debug + PartialEq + FromStr<Err = crate::Error> + Serialize + DeserializeOwned + ToString,
    {
        assert_eq!(all.len(), names.len(), "{key}");
        for (&value, &text) in all.iter().zip(names) {
            assert_eq!(text.parse::<T>().unwrap(), value, "{key}");
            assert_eq!((name(value), value.to_string()), (text, text.to_string()), "{key}");
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("{text:?}"), "{key}");
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value, "{key}");
        }
        let err = "nonsense".parse::<T>().unwrap_err().to_string();
        assert_eq!(err, format!("{key} = \"nonsense\" is not one of {}", names.join(", ")));
        assert!(serde_json::from_str::<T>("\"nonsense\"").unwrap_err().to_string().contains(key));
    }
}
