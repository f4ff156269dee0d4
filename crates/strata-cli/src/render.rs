//! Human-readable output. JSON output is the serde form of the same library types.

use strata_core::{LineRange, PageRange};
use strata_index::DocSummary;
use strata_search::navigate::{self, CitedDefinition, Outline, OutlineNode, Refs, Section};
use strata_search::{SearchResponse, Unit};

use strata_engine::ingest::Summary;

fn snippet(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    }
}

/// Where a passage is: `p. 12` in a document with pages, `lines 40–52` in one cited by
/// line, nothing in HTML (its heading path says it).
fn place(pages: Option<PageRange>, lines: Option<LineRange>) -> Option<String> {
    pages.map(|p| p.to_string()).or_else(|| lines.map(|l| l.to_string()))
}

pub fn search(r: &SearchResponse) {
    for w in &r.warnings {
        say_err!("warning: {w}");
    }
    if r.hits.is_empty() {
        say!("no results for {:?}", r.query);
        return;
    }
    for (i, h) in r.hits.iter().enumerate() {
        let ranks: Vec<String> =
            h.legs.iter().map(|(leg, r)| format!("{} #{}", leg.name(), r.rank)).collect();
        let unit = match h.unit {
            Unit::Chunk => String::new(),
            Unit::Section => format!(" · whole section, merged from {} hits", h.merged.len()),
            Unit::Pages => format!(" · whole pages around {} hit(s)", h.merged.len().max(1)),
        };
        say!(
            "{:>2}. {} — {}",
            i + 1,
            h.doc_title,
            h.heading_path.last().map(String::as_str).unwrap_or("(start)")
        );
        let at = place(h.pages, h.lines).map(|at| format!("{at} · ")).unwrap_or_default();
        say!(
            "    {} · {} · {at}bytes {} · {} · score {:.4} ({}){unit}",
            h.chunk_id,
            h.source_path,
            h.span,
            h.kind.name(),
            h.score,
            ranks.join(", ")
        );
        match &h.context {
            Some(context) => say!("    context: {}", snippet(context, 200)),
            None if h.heading_path.len() > 1 => say!("    {}", h.heading_path.join(" > ")),
            None => {}
        }
        // A heading the title line does not show gets a line of its own, above the text.
        if let Some(heading) = h.heading_apart() {
            say!("    ┃ {}", snippet(heading, 200));
        }
        if h.highlights.is_empty() && !h.text.trim().is_empty() {
            say!("    {}", snippet(&h.text, 280));
        }
        for hl in h.highlights.iter().take(2) {
            say!("    » {}", snippet(&hl.text, 240));
        }
    }
    if !r.definitions.is_empty() {
        say!();
        say!("definitions:");
        for d in &r.definitions {
            let conflict = if d.conflict { " (defined differently elsewhere)" } else { "" };
            say!("  {} — {}{conflict}", d.term, d.citation);
            say!("    {}", snippet(&d.text, 300));
        }
    }
    if !r.more_definitions.is_empty() {
        if r.definitions.is_empty() {
            say!();
            say!("definitions:");
        }
        let terms: Vec<&str> = r.more_definitions.iter().map(|d| d.term.as_str()).collect();
        say!("  also defined: {} (strata define TERM)", terms.join(", "));
    }
    if !r.references.is_empty() {
        say!();
        say!("referenced sections:");
        for x in &r.references {
            say!("  {:?} in {} → {}", x.raw, x.from_chunk, x.citation);
        }
    }
    if let Some(c) = &r.context {
        say!();
        say!(
            "context: {} of {} tokens ({}), {} hits, {} definitions, {} references; print it with --context",
            c.tokens,
            c.budget,
            c.tokenizer,
            c.hits.len(),
            c.definitions.len(),
            c.references.len()
        );
    }
}

/// The assembled context block alone, ready to paste into a prompt.
pub fn context(r: &SearchResponse) {
    match &r.context {
        Some(c) => say!("{}", c.text),
        None => say_err!(
            "no context block was assembled: the index's tokenizer was not found; set [tokenizer] model to its tokenizer.json"
        ),
    }
}

pub fn ingest(s: &Summary) {
    for o in &s.outcomes {
        if o.status == "failed" {
            for m in &o.messages {
                say_err!("error: {m}");
            }
        } else {
            for m in &o.messages {
                say_err!("warning: {}: {m}", o.path);
            }
        }
    }
    say!(
        "{} files: {} ingested, {} unchanged, {} failed; {} chunks in {:.2}s",
        s.files,
        s.ingested,
        s.unchanged,
        s.failed,
        s.chunks,
        s.seconds
    );
    if !s.ocr.is_empty() {
        say!("scanned pages: {} OCR'd, {} read from the index's OCR cache", s.ocr.read, s.ocr.cached);
    }
    let c = &s.contexts;
    if let (Some(id), true) = (&s.context, c.usage.calls > 0 || c.cached > 0 || c.fallbacks > 0) {
        say!(
            "contexts by {id}: {} written, {} from the cache, {} structural fallbacks, {} chunks of cut documents",
            c.written, c.cached, c.fallbacks, c.truncated
        );
        say!("  {}", strata_providers::cost::describe(&c.usage, c.cost_usd));
    }
    if let Some(why) = &c.stopped {
        say_err!("error: the context model refused the requests, so the chunks after it got structural contexts: {why}");
    }
    if let Some(model) = s.model.as_ref().filter(|_| s.embedded + s.reused > 0) {
        let rate = (s.embedded + s.sections_embedded) as f64 / s.embed_seconds.max(1e-9);
        let truncated = match s.truncated {
            0 => String::new(),
            n => format!("; {n} truncated at the model's window"),
        };
        say!(
            "vectors of {} chunks: {} computed with {model}, {} reused from the index's vector cache; \
             {} sections embedded; {:.2}s ({rate:.1} texts/s){truncated}",
            s.embedded + s.reused,
            s.embedded,
            s.reused,
            s.sections_embedded,
            s.embed_seconds,
        );
    }
}

/// What `ingest --dry-run` predicts.
pub fn estimate(e: &strata_engine::estimate::Estimate) {
    for m in &e.messages {
        say_err!("error: {m}");
    }
    say!(
        "{} files ({} unreadable), {} chunks, {} of them with a cached context",
        e.files,
        e.failed,
        e.chunks,
        e.cached
    );
    if e.truncated_documents > 0 {
        say!(
            "{} documents are longer than the model's window and would be cut (beginning and end kept)",
            e.truncated_documents
        );
    }
    say!("{}: {}", e.context, strata_providers::cost::describe(&e.usage, e.cost_usd));
    say!("(an estimate: input counted with the index tokenizer, output at most max_tokens per call)");
}

/// What `strata distill` made.
pub fn distilled(d: &strata_engine::models::Distilled) {
    say!(
        "{}: {} token rows of {} ({} tokens encoded in {:.1} s, PCA keeps {:.1} % of their variance), {:.1} s in all",
        d.folder.display(),
        d.vocabulary,
        d.dims,
        d.tokens,
        d.encode_seconds,
        d.explained * 100.0,
        d.seconds
    );
    let name = d.folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    say!("use it with --model {name} (or --model {})", d.folder.display());
}

pub fn tree(outline: &Outline) {
    // Iterative, so that deep outlines print without recursion.
    let mut stack: Vec<(&OutlineNode, usize)> = vec![(&outline.root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let at = place(n.pages, n.lines).map(|at| format!("  [{at}]")).unwrap_or_default();
        say!("{}{}  {}{at}", "  ".repeat(depth.min(40)), n.id, n.title);
        for c in n.children.iter().rev() {
            stack.push((c, depth + 1));
        }
    }
}

pub fn section(s: &Section) {
    let at = place(s.pages, s.lines).map(|at| format!("{at}, ")).unwrap_or_default();
    say!("{} — {} ({at}bytes {})", s.doc_title, s.heading_path.join(" > "), s.span);
    say!();
    say!("{}", s.text.trim_end());
}

pub fn pages(p: &navigate::Pages) {
    for (i, page) in p.pages.iter().enumerate() {
        if i > 0 {
            say!();
        }
        let label = page.label.as_deref().filter(|l| *l != page.number.to_string());
        let label = label.map(|l| format!(" (printed {l})")).unwrap_or_default();
        let path = if page.heading_path.is_empty() {
            String::new()
        } else {
            format!(" — {}", page.heading_path.join(" > "))
        };
        say!("── {}, page {} of {}{label}{path}", p.doc_title, page.number, p.page_count);
        say!();
        say!("{}", page.text.trim_end());
    }
}

pub fn define(term: &str, defs: &[CitedDefinition]) {
    if defs.is_empty() {
        say!("no definition of {term:?} in the index");
        return;
    }
    let docs: std::collections::BTreeSet<_> = defs.iter().map(|d| d.definition.doc.clone()).collect();
    if docs.len() > 1 {
        say!("{term:?} is defined in {} documents:", docs.len());
    }
    for d in defs {
        let at = place(d.pages, d.definition.lines).map(|at| format!(" ({at})")).unwrap_or_default();
        say!("{} — {}{at}", d.doc_title, d.heading_path.join(" > "));
        say!("    {}", snippet(&d.definition.text, 600));
    }
}

pub fn refs(r: &Refs) {
    say!("outgoing ({}):", r.outgoing.len());
    for c in &r.outgoing {
        let to = match (&c.reference.resolved, &c.to_title, &c.reference.external) {
            (Some(id), Some(t), _) => {
                format!("→ {id} {t}{}", if c.reference.exact { "" } else { " (nearest)" })
            }
            (_, _, Some(ext)) => format!("→ external: {ext}"),
            _ => "→ unresolved".to_string(),
        };
        say!("  {:>4} {}  {}", c.reference.from, c.reference.raw, to);
    }
    say!("incoming ({}):", r.incoming.len());
    for c in &r.incoming {
        say!("  {} {}  ← {}", c.reference.from, c.from_title, c.reference.raw);
    }
}

/// `strata check`: sound, or the damaged files and the repair.
pub fn check(check: &strata_engine::Check) {
    let index = check.index.display();
    let (segments, vectors) = (check.segments, check.vectors);
    if check.is_sound() {
        say!("{index}: sound ({segments} segments, every checksum matches; {vectors} vectors, all unit length)");
        return;
    }
    say!("{index}: damaged ({segments} segments, {vectors} vectors):");
    for d in &check.damaged {
        say!("  {d}");
    }
    say!(
        "repair: ingest the same documents into a new index (strata --index NEW ingest PATH...), \
         or remove {index} and ingest again"
    );
}

pub fn docs(docs: &[DocSummary]) {
    if docs.is_empty() {
        say!("the index is empty; add documents with `strata ingest PATH`");
        return;
    }
    for d in docs {
        let pages = if d.has_pages() { format!("{} pages, ", d.pages) } else { String::new() };
        say!(
            "{}  {}  [{}; {pages}{} sections, {} chunks, {} terms, {} refs]\n    {}",
            d.id,
            d.title,
            d.format.name(),
            d.nodes,
            d.chunks,
            d.definitions,
            d.references,
            d.path
        );
        let shown: Vec<String> = d
            .metadata
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k}: {s}"),
                other => format!("{k}: {other}"),
            })
            .collect();
        if !shown.is_empty() {
            say!("    {}", shown.join("; "));
        }
        for a in &d.annotations {
            say!("    annotated by {}: {}", a.annotator, a.why);
        }
    }
}
