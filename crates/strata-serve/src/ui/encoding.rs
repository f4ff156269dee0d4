//! `Accept-Encoding`: which of the copies made at startup a client gets.

/// The encodings the assets are kept in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Br,
    Gzip,
    Identity,
}

impl Encoding {
    /// The best encoding `accept` (an `Accept-Encoding` value) allows: brotli, then gzip;
    /// an encoding listed with `q=0`, or not listed (`*` counts), is not used.
    pub fn choose(accept: &str) -> Encoding {
        if Encoding::accepts(accept, "br") {
            Encoding::Br
        } else if Encoding::accepts(accept, "gzip") {
            Encoding::Gzip
        } else {
            Encoding::Identity
        }
    }

    /// Whether `accept` allows `coding` with a q-value above 0, by name or by `*`.
    pub fn accepts(accept: &str, coding: &str) -> bool {
        let mut star = None;
        for item in accept.split(',') {
            let mut parts = item.split(';');
            let name = parts.next().unwrap_or("").trim();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or_else(|| p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            if name.eq_ignore_ascii_case(coding) {
                return q > 0.0;
            }
            if name == "*" {
                star = Some(q > 0.0);
            }
        }
        star.unwrap_or(false)
    }

    /// The `Content-Encoding` value, none for the file as it is.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Br => Some("br"),
            Encoding::Gzip => Some("gzip"),
            Encoding::Identity => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Encoding::{self, *};

    #[test]
    fn negotiation_follows_accept_encoding() {
        for (accept, want) in [
            ("gzip, deflate, br, zstd", Br),
            ("gzip, deflate", Gzip),
            ("br;q=0, gzip", Gzip),
            ("BR;q=0.5", Br),
            ("gzip;q=0", Identity),
            ("", Identity),
            ("identity", Identity),
            ("*", Br),
            ("*;q=0", Identity),
            ("br;q=0, *", Gzip),
            ("deflate", Identity),
        ] {
            assert_eq!(Encoding::choose(accept), want, "{accept:?}");
        }
    }
}
