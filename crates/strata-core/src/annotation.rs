//! What the annotate stage records of each annotator that ran on a document: its name, how
//! it came to run, and the fields it filled. `strata docs --json` shows it, so a user can
//! tell why a document carries an issuer or parties, and which annotator to turn off
//! (`[ingest] annotators`).

use serde::{Deserialize, Serialize};

/// One annotator that ran on a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Annotation {
    /// The annotator (`sec`, …).
    pub annotator: String,
    /// How surely its detector found the document follows its convention, 0 to 1.
    pub confidence: f32,
    /// Why it ran: detected (the confidence against its threshold, and the evidence), or
    /// named in `[ingest] annotators`.
    pub why: String,
    /// The fields it filled: metadata keys, and `title` when it named the document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filled: Vec<String>,
}
