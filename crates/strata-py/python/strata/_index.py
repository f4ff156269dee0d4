""":class:`Index`: an index on this machine, searched and written in this process."""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, List, Mapping, Optional, Union

from . import _native, _progress
from ._options import PageFilter, PathLike, paths_of, search_options
from ._progress import ProgressArg
from ._results import (
    CitedDefinition,
    DocumentInfo,
    IngestReport,
    Outline,
    Pages,
    Refs,
    SearchResponse,
    Section,
)

__all__ = ["Index"]


class Index:
    """A strata index in a folder, opened with its models, or created when absent.

    ``config`` is a strata.toml path, or a dict of its sections; without it
    ``./strata.toml`` is read when there is one, as the CLI does. The ``STRATA_*``
    environment applies next, and keyword settings last, each a section of strata.toml::

        Index(".strata", search={"k": 5}, dense={"enabled": False})

    ``model`` is the embedding model (a name in the cache, or a folder), as ``--model``.
    Searches release the GIL: one ``Index`` serves many threads. Use it as a context manager,
    or call :meth:`close`, to free its models.
    """

    def __init__(
        self,
        path: PathLike = ".strata",
        config: Union[PathLike, Mapping[str, Any], None] = None,
        *,
        model: Optional[str] = None,
        **settings: Mapping[str, Any],
    ) -> None:
        self._native = _open(path, config, model, settings, create=True)

    @classmethod
    def open(
        cls,
        path: PathLike = ".strata",
        config: Union[PathLike, Mapping[str, Any], None] = None,
        *,
        model: Optional[str] = None,
        **settings: Mapping[str, Any],
    ) -> "Index":
        """Opens an index that exists; raises :class:`strata.IndexUnusable` when there is none."""
        index = cls.__new__(cls)
        index._native = _open(path, config, model, settings, create=False)
        return index

    @property
    def path(self) -> str:
        """The index folder."""
        return os.fspath(self._native.path)

    @property
    def dense_model(self) -> Optional[str]:
        """The query embedder's model, when the dense leg can run."""
        return self._native.dense_model

    def close(self) -> None:
        """Frees the index's models; calls after this raise :class:`strata.UserError`."""
        self._native.close()

    def __enter__(self) -> "Index":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Index({self.path!r})"

    def ingest(
        self,
        paths: Union[PathLike, Iterable[PathLike]],
        *,
        contextualize: Optional[str] = None,
        meta: Optional[Mapping[str, Any]] = None,
        progress: ProgressArg = True,
        force: bool = False,
    ) -> IngestReport:
        """Ingests files, folders (recursively) and glob patterns, as ``strata ingest``.

        Unchanged files are skipped (``force=True`` re-reads them); a bad file is reported in
        ``outcomes`` without stopping the others. ``contextualize`` chooses what writes each
        chunk's context (``structural``, ``anthropic``, ``openai``, ``none``); ``meta`` is
        metadata for every file. ``progress=True`` draws strata's progress bar when standard
        error is a terminal, and a tqdm bar in a notebook; a callable is called instead with
        ``(files_done, files_in_all, message)``. The GIL is released while it runs.
        """
        shown, observer = _progress.choose(progress)
        meta = {str(k): str(v) for k, v in (meta or {}).items()}
        try:
            answer = self._native.ingest(paths_of(paths), force, shown, contextualize, meta, observer)
        finally:
            _progress.finish(observer)
        return IngestReport(json.loads(answer))

    def search(
        self,
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
    ) -> SearchResponse:
        """Searches the index, as ``strata search`` does.

        ``mode`` is ``keyword``, ``exact``, ``dense``, ``hybrid`` or ``hierarchical``
        (default: ``[search] mode``, hierarchical). ``doc`` keeps one document (id or part of
        its path) or one subtree (``DOC#NODE``); ``where`` keeps documents whose metadata
        holds every pair; ``kind`` one chunk kind; ``pages`` the hits on a page (``12``), a
        range (``"5-7"`` or ``(5, 7)``). ``budget`` is the context block's size in tokens;
        ``rerank=False`` skips a configured reranker. ``whole_pages=N`` returns whole pages
        around each hit, ``refs=True`` attaches the sections hits refer to. ``definitions``
        bounds the definitions attached (default: as many as the hits); the rest are named in
        ``more_definitions``. The GIL is released while it runs.
        """
        options = search_options(
            query,
            mode=mode,
            k=k,
            doc=doc,
            where=where,
            kind=kind,
            pages=pages,
            budget=budget,
            rerank=rerank,
            whole_pages=whole_pages,
            refs=refs,
            merge=merge,
            order=order,
            highlights=highlights,
            dense_highlights=dense_highlights,
            definitions=definitions,
        )
        return SearchResponse(json.loads(self._native.search(json.dumps(options))))

    def outline(self, doc: str, depth: Optional[int] = None) -> Outline:
        """A document's outline (node ids, numbers, titles, pages), ``depth`` levels deep."""
        return Outline(json.loads(self._native.outline(doc, depth)))

    def section(self, doc: str, node: Optional[str] = None) -> Section:
        """A section with its subsections, by node id (``0042``) or section number (``102(b)``);
        the whole document when ``node`` is None."""
        return Section(json.loads(self._native.section(doc, node)))

    def read_pages(self, doc: str, first: int, last: Optional[int] = None) -> Pages:
        """Pages ``first`` to ``last`` (physical numbers from 1; ``last`` defaults to ``first``)."""
        return Pages(json.loads(self._native.pages(doc, first, first if last is None else last)))

    def define(self, term: str, doc: Optional[str] = None) -> List[CitedDefinition]:
        """Every definition of ``term`` (in one document when ``doc`` is given), with citations."""
        return [CitedDefinition(d) for d in json.loads(self._native.define(term, doc))]

    def references(self, doc: str, node: Optional[str] = None) -> Refs:
        """The references out of and into a section (the whole document when ``node`` is None)."""
        return Refs(json.loads(self._native.references(doc, node)))

    def documents(self) -> List[DocumentInfo]:
        """The indexed documents."""
        return [DocumentInfo(d) for d in json.loads(self._native.documents())]

    def remove(self, doc: str) -> str:
        """Removes a document (id or part of its path) and everything derived from it; returns
        its id."""
        return json.loads(self._native.remove(doc))


def _open(
    path: PathLike,
    config: Union[PathLike, Mapping[str, Any], None],
    model: Optional[str],
    settings: Mapping[str, Any],
    create: bool,
) -> "_native.NativeIndex":
    file: Optional[str] = None
    layers: dict = {}
    if isinstance(config, Mapping):
        layers = _merged({}, config)
    elif config is not None:
        file = os.fspath(config)
    layers = _merged(layers, settings)
    return _native.NativeIndex(os.fspath(path), file, json.dumps(layers), model, create)


def _merged(base: dict, over: Mapping[str, Any]) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    return out

