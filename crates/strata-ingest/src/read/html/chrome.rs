//! What the walk drops as chrome: non-text elements, page banners and footers, hidden and
//! navigation elements, navigation classes, and self-links that only decorate.

use scraper::{node::Element, ElementRef, Node};

use super::walk::Walker;

/// Elements whose content is never text a reader sees.
const DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "nav", "title", "iframe", "object", "embed",
    "canvas", "audio", "video", "button", "select", "textarea", "datalist", "map",
];

/// Classes of navigation chrome: texinfo's per-node navigation and table of contents, and
/// content marked as not for print.
const CHROME_CLASSES: &[&str] = &["nav-panel", "region-contents", "noprint"];

/// Classes of self-links that decorate headings and paragraphs.
const SELF_LINK_CLASSES: &[&str] =
    &["self", "self-link", "copiable-link", "headerlink", "anchor-link", "pilcrow"];

impl Walker {
    /// True for elements whose whole subtree is chrome.
    pub(super) fn is_dropped(&self, node: ElementRef<'_>, element: &Element) -> bool {
        let name = element.name();
        if DROPPED.contains(&name) {
            return true;
        }
        // Page banners and footers; a header inside an article or section holds its heading.
        if matches!(name, "header" | "footer") && self.sectioning_depth == 0 {
            return true;
        }
        if element.attr("hidden").is_some() || element.attr("role") == Some("navigation") {
            return true;
        }
        if element.classes().any(|c| CHROME_CLASSES.contains(&c)) {
            return true;
        }
        name == "a" && is_self_link(node, element)
    }
}

/// A link that only decorates: a self-link class, or a same-page link whose text is a
/// pilcrow, a section sign, a `#`, or nothing.
fn is_self_link(node: ElementRef<'_>, element: &Element) -> bool {
    if element.classes().any(|c| SELF_LINK_CLASSES.contains(&c)) {
        return true;
    }
    if !element.attr("href").is_some_and(|h| h.starts_with('#')) {
        return false;
    }
    let mut text = String::new();
    for child in node.descendants().take(8) {
        if let Node::Text(t) = child.value() {
            text.push_str(t);
            if text.len() > 16 {
                return false;
            }
        }
    }
    matches!(text.trim(), "¶" | "§" | "#" | "🔗" | "")
}
