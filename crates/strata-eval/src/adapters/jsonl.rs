//! strata's own data set format: one JSON object per line,
//!
//! ```json
//! {"id": "q1", "query": "What does OPTIONS return?", "gold": [
//!   {"doc": "rfc9110.txt", "section": "9.3.7"},
//!   {"doc": "rfc9110.txt", "path": ["Methods", "OPTIONS"], "grade": 2},
//!   {"doc": "notes.md", "start": 120, "end": 480},
//!   {"doc": "notes.md", "start": 120, "end": 480, "unit": "byte"},
//!   {"doc": "manual.pdf", "page": 12},
//!   {"doc": "policy.md"},
//!   {"chunk": "policy:7"}
//! ]}
//! ```
//!
//! Documents are files under a folder (`--docs`, else the JSONL file's folder), named by
//! their path relative to it; gold may also name a document by file name or stem when that
//! is unambiguous. `section` is a node id (`0042`) or a section number; `start`/`end` count
//! code points of the file's text unless `unit` is `byte`; `grade` defaults to 1.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use strata_core::{ChunkId, Error, Format, Result};

use super::{char_span, parse_line, read_to_string};
use crate::align::CharIndex;
use crate::dataset::{Content, Dataset, DocInput, Gold, Query, Target};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    id: Option<String>,
    query: String,
    #[serde(default)]
    gold: Vec<GoldLine>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GoldLine {
    doc: Option<String>,
    section: Option<String>,
    path: Option<Vec<String>>,
    chunk: Option<ChunkId>,
    start: Option<usize>,
    end: Option<usize>,
    unit: Option<String>,
    page: Option<u32>,
    grade: Option<f64>,
}

/// Loads a JSONL file; documents come from `docs` or the file's folder.
pub fn load(path: &Path, docs: Option<&Path>) -> Result<Dataset> {
    let root: PathBuf = match docs {
        Some(d) => d.to_path_buf(),
        // A bare file name's parent is "", which is the current folder.
        None => match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let mut documents = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    collect(&root, &mut files)?;
    files.sort();
    // Every way gold may name a document → the documents it could be.
    let mut names: HashMap<String, Vec<String>> = HashMap::new();
    for file in files {
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        if Format::from_extension(ext).is_none() {
            continue;
        }
        let rel = file.strip_prefix(&root).unwrap_or(&file).to_string_lossy().replace('\\', "/");
        let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stem = file.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        for alias in [rel.clone(), file_name, stem] {
            let entry = names.entry(alias).or_default();
            if !entry.contains(&rel) {
                entry.push(rel.clone());
            }
        }
        documents.push(DocInput { name: rel, content: Content::File(file), given_chunks: None });
    }
    if documents.is_empty() {
        return Err(Error::user(format!(
            "{}: no documents (Markdown, HTML, text, PDF or DOCX files) under it; pass --docs DIR",
            root.display()
        )));
    }
    let mut texts: HashMap<String, (String, CharIndex)> = HashMap::new();
    let mut queries = Vec::new();
    for (n, line) in read_to_string(path)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line: Line = parse_line(path, n, line)?;
        let at = format!("{}:{}", path.display(), n + 1);
        let mut gold = Vec::new();
        for g in line.gold {
            let grade = g.grade.unwrap_or(1.0);
            let doc = match &g.doc {
                Some(name) => Some(match names.get(name).map(Vec::as_slice) {
                    Some([one]) => one.clone(),
                    Some(many) => {
                        return Err(Error::user(format!(
                            "{at}: document {name:?} is ambiguous ({}); use its path under {}",
                            many.join(", "),
                            root.display()
                        )))
                    }
                    None => {
                        return Err(Error::user(format!(
                            "{at}: document {name:?} is not under {} (pass --docs DIR)",
                            root.display()
                        )))
                    }
                }),
                None => None,
            };
            let target = target(doc, g, &at, &root, &mut texts)?;
            gold.push(Gold { target, grade });
        }
        queries.push(Query { id: line.id.unwrap_or_else(|| format!("{}", n + 1)), text: line.query, gold });
    }
    let name = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "jsonl".into());
    Ok(Dataset { name, documents, queries, published: Vec::new(), notes: Vec::new() })
}

/// The target a gold entry names; a combination that says two things, or half of one, is an
/// error rather than a guess.
fn target(
    doc: Option<String>,
    g: GoldLine,
    at: &str,
    root: &Path,
    texts: &mut HashMap<String, (String, CharIndex)>,
) -> Result<Target> {
    let mut named: Vec<&str> = Vec::new();
    if g.section.is_some() {
        named.push("section");
    }
    if g.path.is_some() {
        named.push("path");
    }
    if g.page.is_some() {
        named.push("page");
    }
    if g.start.is_some() || g.end.is_some() {
        named.push("start/end");
    }
    if g.chunk.is_some() {
        named.push("chunk");
    }
    if named.len() > 1 {
        return Err(Error::user(format!(
            "{at}: a gold entry names one of {}, not several",
            named.join(", ")
        )));
    }
    if g.unit.is_some() && g.start.is_none() {
        return Err(Error::user(format!("{at}: \"unit\" goes with \"start\" and \"end\"")));
    }
    Ok(match (doc, g) {
        (None, GoldLine { chunk: Some(chunk), .. }) => Target::Chunk(chunk),
        (Some(_), GoldLine { chunk: Some(_), .. }) => {
            return Err(Error::user(format!("{at}: a chunk id already names its document; drop \"doc\"")))
        }
        (Some(doc), GoldLine { section: Some(node), .. }) => Target::Node { doc, node },
        (Some(doc), GoldLine { path: Some(path), .. }) => Target::Path { doc, path },
        (Some(doc), GoldLine { page: Some(page), .. }) => Target::Page { doc, page },
        (Some(doc), GoldLine { start: Some(start), end: Some(end), unit, .. }) => {
            if !texts.contains_key(&doc) {
                let text = read_to_string(&root.join(&doc))?;
                let chars = CharIndex::new(&text);
                texts.insert(doc.clone(), (text, chars));
            }
            let (text, chars) = &texts[&doc];
            let span = match unit.as_deref() {
                None | Some("char") => char_span(text, chars, start, end, at)?,
                Some("byte") => {
                    let fits = start <= end
                        && end <= text.len()
                        && text.is_char_boundary(start)
                        && text.is_char_boundary(end);
                    if !fits {
                        return Err(Error::user(format!(
                            "{at}: byte span {start}..{end} is outside {doc} ({} bytes) or splits a character; \
                             use \"unit\": \"char\" for character offsets",
                            text.len()
                        )));
                    }
                    strata_core::Span::new(start, end)
                }
                Some(other) => return Err(Error::user(format!("{at}: unit {other:?} is not char or byte"))),
            };
            Target::Span { doc, span }
        }
        (Some(_), GoldLine { start: Some(_), .. } | GoldLine { end: Some(_), .. }) => {
            return Err(Error::user(format!("{at}: a span needs both \"start\" and \"end\"")))
        }
        (Some(doc), _) => Target::Doc(doc),
        (None, _) => {
            return Err(Error::user(format!(
                "{at}: a gold entry needs \"doc\" (with section, path, start/end or page) or \"chunk\""
            )))
        }
    })
}

/// Files under `dir`, skipping hidden folders and what `strata eval` itself writes (reports
/// under `eval-out`, index folders), so a second run does not ingest the first one's output.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("listing {}", dir.display()), e))?;
        let path = entry.path();
        if path.is_dir() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let own_output = name == "eval-out"
                || path.join("manifest.json").exists()
                || path.join("report.json").exists();
            if !name.starts_with('.') && !own_output {
                collect(&path, out)?;
            }
        } else {
            out.push(path);
        }
    }
    Ok(())
}
