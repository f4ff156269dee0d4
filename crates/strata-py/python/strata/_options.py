"""The arguments of ``search`` and ``ingest`` as strata's request shapes, shared by
:class:`strata.Index` and :class:`strata.Client` so both send the same thing."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple, Union

from .errors import UserError

PathLike = Union[str, "os.PathLike[str]"]
PageFilter = Union[int, str, Tuple[int, int]]


def search_options(
    query: str,
    *,
    mode: Optional[str] = None,
    k: Optional[int] = None,
    doc: Optional[str] = None,
    where: Optional[Mapping[str, Any]] = None,
    kind: Optional[str] = None,
    pages: Optional[PageFilter] = None,
    budget: Optional[int] = None,
    rerank: Optional[bool] = None,
    whole_pages: Optional[int] = None,
    refs: bool = False,
    merge: Optional[float] = None,
    order: Optional[str] = None,
    highlights: Optional[int] = None,
    dense_highlights: Optional[bool] = None,
    definitions: Optional[int] = None,
) -> Dict[str, Any]:
    """The ``SearchOptions`` JSON (the body of ``POST /v1/search``) for these arguments."""
    if not isinstance(query, str):
        raise UserError(f"the query must be a string, got {type(query).__name__}")
    options: Dict[str, Any] = {"query": query}
    named = {
        "mode": mode,
        "k": k,
        "doc": doc,
        "kind": kind,
        "page_range": page_range(pages),
        "budget": budget,
        "rerank": rerank,
        "pages": whole_pages,
        "merge": merge,
        "order": order,
        "highlights": highlights,
        "dense_highlights": dense_highlights,
        "definitions": definitions,
    }
    options.update({key: value for key, value in named.items() if value is not None})
    if refs:
        options["refs"] = True
    if where:
        options["where"] = {str(key): str(value) for key, value in where.items()}
    return options


def page_range(pages: Optional[PageFilter]) -> Optional[str]:
    """``12``, ``"5-7"`` or ``(5, 7)`` as strata's page range text."""
    if pages is None or isinstance(pages, str):
        return pages
    if isinstance(pages, int) and not isinstance(pages, bool):
        return str(pages)
    if isinstance(pages, tuple) and len(pages) == 2:
        return f"{int(pages[0])}-{int(pages[1])}"
    raise UserError(f"pages must be a page (12), a range ('5-7') or a pair (5, 7), got {pages!r}")


def paths_of(paths: Union[PathLike, Iterable[PathLike]]) -> list:
    """One path, or several, as the list of strings an ingest takes."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]
