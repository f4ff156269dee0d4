""":class:`Client`: the methods of :class:`strata.Index` against a running ``strata serve``,
over its HTTP API, with the standard library only."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from ._options import PageFilter, PathLike, paths_of, search_options
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
from .errors import (
    AccessDenied,
    InternalError,
    NotFound,
    ReadError,
    RemoteError,
    StrataError,
    UserError,
)

__all__ = ["Client"]

# The server's error codes (`{"error": {"code", "message"}}`) as exception classes.
_ERRORS = {
    "bad_request": UserError,
    "payload_too_large": UserError,
    "unsupported_media_type": UserError,
    "not_found": NotFound,
    "unreadable": ReadError,
    "conflict": ReadError,
    "unauthorized": AccessDenied,
    "forbidden": AccessDenied,
    "upstream": RemoteError,
    "too_many_jobs": RemoteError,
    "internal": InternalError,
}


class Client:
    """A remote index: ``strata serve`` at ``url`` (``http://127.0.0.1:7700``).

    ``api_key`` is sent as ``Authorization: Bearer KEY`` (``STRATA_API_KEYS`` on the
    server). The methods and results are those of :class:`strata.Index`; the server's errors
    become the same exception classes, with its messages. ``ingest`` reads paths on the
    server's machine, under its ``--root`` folders, and waits for the job to finish.
    """

    def __init__(self, url: str = "http://127.0.0.1:7700", api_key: Optional[str] = None, *, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"Client({self.url!r})"

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        """Nothing to free (each call is its own request); here to match :class:`strata.Index`."""

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
        """``POST /v1/search``; the arguments are those of :meth:`strata.Index.search`."""
        body = search_options(
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
        return SearchResponse(self._call("POST", "/v1/search", body=body))

    def ingest(
        self,
        paths: Union[PathLike, Iterable[PathLike]],
        *,
        contextualize: Optional[str] = None,
        meta: Optional[Mapping[str, Any]] = None,
        progress: Any = True,
        force: bool = False,
        poll: float = 0.25,
    ) -> IngestReport:
        """Ingests paths on the server (under its ``--root`` folders) as a job, and waits for it.

        The server's jobs take the server's own ``[context]`` and ``[ingest] metadata``:
        ``contextualize`` and ``meta`` are refused here. ``progress`` is accepted for
        symmetry with :meth:`strata.Index.ingest` and draws nothing.
        """
        if contextualize is not None or meta:
            raise UserError(
                "a strata server ingests with its own [context] and [ingest] metadata settings; "
                "contextualize and meta apply to strata.Index only"
            )
        accepted = self._call("POST", "/v1/documents", body={"paths": paths_of(paths), "force": force})
        job = accepted["job"]
        while job["state"] in ("queued", "running"):
            time.sleep(poll)
            job = self._call("GET", f"/v1/jobs/{_part(job['id'])}")
        if job["state"] != "done":
            raise StrataError(f"ingest job {job['id']} failed: {job.get('error', job['state'])}")
        return IngestReport(job["summary"])

    def outline(self, doc: str, depth: Optional[int] = None) -> Outline:
        """``GET /v1/documents/{doc}/tree``."""
        return Outline(self._call("GET", f"/v1/documents/{_part(doc)}/tree", query={"depth": depth}))

    def section(self, doc: str, node: Optional[str] = None) -> Section:
        """``GET /v1/documents/{doc}/sections/{node}``; the whole document when ``node`` is None."""
        if node is None:
            node = self.outline(doc, depth=0).id
        return Section(self._call("GET", f"/v1/documents/{_part(doc)}/sections/{_part(node)}"))

    def read_pages(self, doc: str, first: int, last: Optional[int] = None) -> Pages:
        """``GET /v1/documents/{doc}/pages?from=&to=``."""
        query = {"from": first, "to": first if last is None else last}
        return Pages(self._call("GET", f"/v1/documents/{_part(doc)}/pages", query=query))

    def define(self, term: str, doc: Optional[str] = None) -> List[CitedDefinition]:
        """``GET /v1/definitions?term=&doc=``."""
        found = self._call("GET", "/v1/definitions", query={"term": term, "doc": doc})
        return [CitedDefinition(d) for d in found]

    def references(self, doc: str, node: Optional[str] = None) -> Refs:
        """``GET /v1/references?doc=&node=``."""
        return Refs(self._call("GET", "/v1/references", query={"doc": doc, "node": node}))

    def documents(self) -> List[DocumentInfo]:
        """``GET /v1/documents``."""
        return [DocumentInfo(d) for d in self._call("GET", "/v1/documents")]

    def remove(self, doc: str) -> str:
        """``DELETE /v1/documents/{doc}``; returns the removed document's id."""
        return self._call("DELETE", f"/v1/documents/{_part(doc)}")["removed"]

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Dict[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
    ) -> Any:
        url = self.url + path
        present = {k: v for k, v in (query or {}).items() if v is not None}
        if present:
            url += "?" + urllib.parse.urlencode(present)
        headers = {"accept": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["content-type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as e:
            raise _error(e) from None
        except urllib.error.URLError as e:
            raise RemoteError(f"strata server {self.url}: cannot reach it ({e.reason})") from None


def _part(text: str) -> str:
    """``text`` as one segment of a URL path."""
    return urllib.parse.quote(str(text), safe="")


def _error(e: "urllib.error.HTTPError") -> StrataError:
    """The exception for an error answer: its class by the server's code, its message."""
    try:
        detail = json.loads(e.read())["error"]
        code, message = detail["code"], detail["message"]
    except (ValueError, KeyError, TypeError):
        code, message = "", f"HTTP {e.code} {e.reason}"
    return _ERRORS.get(code, RemoteError)(message)
