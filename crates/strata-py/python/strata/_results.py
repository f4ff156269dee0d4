"""The typed results of an index: what ``strata search --json`` and the HTTP API print, as
classes.

Each class reads the JSON shape of the library type it is named after (the Rust structs of
``strata-search`` and ``strata-engine``) and keeps it: ``to_dict()`` gives it back as strata
printed it. Fields a shape leaves out when empty read as ``[]``, ``{}`` or ``None``.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Mapping, NamedTuple, Optional

__all__ = [
    "PageRange",
    "Span",
    "LegRank",
    "Highlight",
    "Hit",
    "Definition",
    "Reference",
    "MoreDefinition",
    "Context",
    "SearchResponse",
    "FileOutcome",
    "IngestReport",
    "DocumentInfo",
    "OutlineNode",
    "Outline",
    "Section",
    "PageText",
    "Pages",
    "LineRange",
    "CitedDefinition",
    "CitedReference",
    "Refs",
]


class PageRange(NamedTuple):
    """Physical pages, from 1, both inclusive."""

    first: int
    last: int


class LineRange(NamedTuple):
    """Source lines, from 1, both inclusive: where a passage of a document without pages
    (Markdown, plain text) is."""

    first: int
    last: int


class Span(NamedTuple):
    """Byte offsets in the document's text, ``start`` inclusive, ``end`` exclusive."""

    start: int
    end: int


class LegRank(NamedTuple):
    """A result's rank (from 1) and score in one leg of the search."""

    rank: int
    score: float


Convert = Callable[[Any], Any]


def _pages(v: Any) -> Optional[PageRange]:
    return None if v is None else PageRange(v["first"], v["last"])


def _lines(v: Any) -> Optional[LineRange]:
    return None if v is None else LineRange(v["first"], v["last"])


def _span(v: Any) -> Optional[Span]:
    return None if v is None else Span(v["start"], v["end"])


def _many(convert: Convert) -> Convert:
    return lambda v: [convert(x) for x in (v or [])]


def _one(convert: Convert) -> Convert:
    return lambda v: None if v is None else convert(v)


def _listed(v: Any) -> List[Any]:
    return list(v or [])


def _mapping(v: Any) -> Dict[str, Any]:
    return dict(v or {})


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 72 else text[:69] + "...'"


class Record:
    """A result read from strata's JSON. ``to_dict()`` gives that JSON back."""

    # Field name -> converter of its JSON value; fields not named here are kept as they are.
    _convert: ClassVar[Dict[str, Convert]] = {}
    # Attribute name -> JSON key, where the key is a Python keyword.
    _keys: ClassVar[Dict[str, str]] = {}
    # The fields __repr__ shows.
    _repr: ClassVar[tuple] = ()
    _fields: ClassVar[tuple] = ()

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        fields: List[str] = []
        for klass in reversed(cls.__mro__):
            for name in getattr(klass, "__annotations__", {}):
                if not name.startswith("_") and name not in fields:
                    fields.append(name)
        cls._fields = tuple(fields)

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = dict(data)
        for name in self._fields:
            value = data.get(self._keys.get(name, name))
            convert = self._convert.get(name)
            setattr(self, name, convert(value) if convert else value)

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object strata printed for this result (a copy)."""
        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={_short(getattr(self, name))}" for name in self._repr)
        return f"{type(self).__name__}({shown})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._data == self._data  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


class Highlight(Record):
    """A sentence of a hit that answers the query."""

    span: Span
    text: str
    score: float
    _convert = {"span": _span}
    _repr = ("text", "score")


class Hit(Record):
    """One result: a chunk (or a merged section, or whole pages) with its place and citation."""

    chunk_id: str
    unit: str
    merged: List[str]
    doc_id: str
    doc_title: str
    source_path: str
    node_id: str
    heading_path: List[str]
    section_number: Optional[str]
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    span: Span
    kind: str
    score: float
    document_rank: Optional[int]
    section_rank: Optional[int]
    legs: Dict[str, LegRank]
    heading: Optional[str]
    text: str
    citation: str
    context: Optional[str]
    highlights: List[Highlight]
    terms: List[str]
    _convert = {
        "merged": _listed,
        "heading_path": _listed,
        "pages": _pages,
        "lines": _lines,
        "span": _span,
        "legs": lambda v: {k: LegRank(x["rank"], x["score"]) for k, x in (v or {}).items()},
        "highlights": _many(Highlight),
        "terms": _listed,
    }
    _repr = ("citation", "score", "kind")


class Definition(Record):
    """The definition of a defined term the query or a hit uses, with where it is written."""

    term: str
    normalized: str
    text: str
    doc_id: str
    doc_title: str
    node_id: str
    heading_path: List[str]
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    citation: str
    span: Span
    in_query: bool
    used_by: List[str]
    conflict: bool
    _convert = {"heading_path": _listed, "pages": _pages, "lines": _lines, "span": _span, "used_by": _listed}
    _repr = ("term", "text", "doc_id")


class MoreDefinition(Record):
    """A defined term whose definition was left out past the bound: where to read it
    (``Index.define(term)``, or ``Index.section(doc_id, node_id)``)."""

    term: str
    doc_id: str
    node_id: str
    used_by: int
    in_query: bool
    _repr = ("term", "doc_id", "used_by")


class Reference(Record):
    """A section a hit refers to (attached with ``refs=True``)."""

    raw: str
    from_chunk: str
    doc_id: str
    doc_title: str
    node_id: str
    heading_path: List[str]
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    citation: str
    span: Span
    text: str
    exact: bool
    _convert = {"heading_path": _listed, "pages": _pages, "lines": _lines, "span": _span}
    _repr = ("raw", "doc_id", "node_id")


class Context(Record):
    """The hits, definitions and references packed into one cited block within a token budget."""

    text: str
    tokens: int
    budget: int
    tokenizer: str
    hits: List[int]
    truncated: List[int]
    definitions: List[int]
    references: List[int]
    _convert = {"hits": _listed, "truncated": _listed, "definitions": _listed, "references": _listed}
    _repr = ("tokens", "budget", "hits")

    def __str__(self) -> str:
        return self.text


class SearchResponse(Record):
    """What a search returns. Iterating it, or indexing it, goes over the hits."""

    query: str
    mode: str
    plan: Dict[str, Any]
    hits: List[Hit]
    definitions: List[Definition]
    more_definitions: List[MoreDefinition]
    references: List[Reference]
    context: Optional[Context]
    warnings: List[str]
    took_ms: float
    timings: Dict[str, float]
    _convert = {
        "plan": _mapping,
        "hits": _many(Hit),
        "definitions": _many(Definition),
        "more_definitions": _many(MoreDefinition),
        "references": _many(Reference),
        "context": _one(Context),
        "warnings": _listed,
        "timings": _mapping,
    }
    _repr = ("query", "mode", "hits")

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    def __getitem__(self, i: int) -> Hit:
        return self.hits[i]


class FileOutcome(Record):
    """What an ingest did with one file: ``ingested``, ``unchanged`` or ``failed`` (and why)."""

    path: str
    status: str
    doc_id: Optional[str]
    chunks: int
    messages: List[str]
    _convert = {"messages": _listed}
    _repr = ("path", "status", "chunks")


class IngestReport(Record):
    """The ingest summary, with one outcome per file."""

    files: int
    ingested: int
    unchanged: int
    failed: int
    chunks: int
    model: Optional[str]
    embedded: int
    reused: int
    sections_embedded: int
    embed_seconds: float
    truncated: int
    context: Optional[str]
    contexts: Dict[str, Any]
    seconds: float
    outcomes: List[FileOutcome]
    _convert = {"contexts": _mapping, "outcomes": _many(FileOutcome)}
    _repr = ("files", "ingested", "unchanged", "failed", "chunks")


class DocumentInfo(Record):
    """An indexed document: its id, title, source, counts and metadata."""

    id: str
    title: str
    path: str
    format: str
    content_hash: str
    pages: int
    """Pages in a document with pages; 0 in one without (Markdown, HTML)."""
    nodes: int
    chunks: int
    definitions: int
    references: int
    metadata: Dict[str, Any]
    profile: Dict[str, Any]
    _convert = {"metadata": _mapping, "profile": _mapping, "pages": lambda v: v or 0}
    _repr = ("id", "title", "chunks")


class OutlineNode(Record):
    """A section in an outline, with its children."""

    id: str
    title: str
    number: Optional[str]
    level: int
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    children: List["OutlineNode"]
    hidden: int
    _repr = ("id", "number", "title")

    def walk(self) -> Iterator["OutlineNode"]:
        """This node and every node below it, in document order."""
        yield self
        for child in self.children:
            yield from child.walk()


OutlineNode._convert = {
    "pages": _pages,
    "lines": _lines,
    "children": _many(OutlineNode),
    "hidden": lambda v: v or 0,
}


class Outline(OutlineNode):
    """A document's outline: the root node (the document) with the document's id and title."""

    doc_id: str
    doc_title: str
    _repr = ("doc_id", "doc_title")


class Section(Record):
    """A section's text with its subsections, and where it is."""

    doc_id: str
    doc_title: str
    node_id: str
    heading_path: List[str]
    number: Optional[str]
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    span: Span
    text: str
    children: List[str]
    _convert = {"heading_path": _listed, "pages": _pages, "lines": _lines, "span": _span, "children": _listed}
    _repr = ("doc_id", "node_id", "heading_path")


class PageText(Record):
    """One page as read: its number, printed label, headings and text."""

    number: int
    label: Optional[str]
    heading_path: List[str]
    span: Span
    text: str
    _convert = {"heading_path": _listed, "span": _span}
    _repr = ("number", "label")


class Pages(Record):
    """Pages of a document."""

    doc_id: str
    doc_title: str
    page_count: int
    pages: List[PageText]
    _convert = {"pages": _many(PageText)}
    _repr = ("doc_id", "page_count", "pages")


class CitedDefinition(Record):
    """A definition of a term, with the section and pages that hold it."""

    term: str
    normalized: str
    text: str
    span: Span
    doc_id: str
    node_id: str
    doc_title: str
    heading_path: List[str]
    pages: Optional[PageRange]
    lines: Optional[LineRange]
    _convert = {"span": _span, "heading_path": _listed, "pages": _pages, "lines": _lines}
    _repr = ("term", "doc_id", "heading_path")


class CitedReference(Record):
    """A cross-reference (``Section 203(a)``) between two sections, resolved when it can be."""

    raw: str
    span: Span
    target: str
    via: Optional[str]
    external: Optional[str]
    resolved: Optional[str]
    exact: bool
    from_: str
    from_node_id: str
    from_title: str
    to_node_id: Optional[str]
    to_title: Optional[str]
    _keys = {"from_": "from"}
    _convert = {"span": _span, "exact": bool}
    _repr = ("raw", "from_node_id", "to_node_id")


class Refs(Record):
    """The references out of and into a section."""

    doc_id: str
    node_id: str
    outgoing: List[CitedReference]
    incoming: List[CitedReference]
    _convert = {"outgoing": _many(CitedReference), "incoming": _many(CitedReference)}
    _repr = ("doc_id", "node_id", "outgoing", "incoming")
