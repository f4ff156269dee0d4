"""strata's errors as Python exceptions.

Every error strata raises is a :class:`StrataError` carrying strata's own message (what was
wrong, the value, and how to fix it). Its class says whose fault it was, as strata's error
kinds do; the classes that match a built-in family also derive from it, so ``except
LookupError`` catches :class:`NotFound` and ``except ValueError`` catches :class:`UserError`.
:class:`strata.Client` raises the same classes from the server's error codes.
"""

from __future__ import annotations

__all__ = [
    "StrataError",
    "UserError",
    "NotFound",
    "ReadError",
    "StrataIOError",
    "IndexUnusable",
    "RemoteError",
    "InternalError",
    "AccessDenied",
]


class StrataError(Exception):
    """Any error of strata. ``str(e)`` is strata's message."""


class UserError(StrataError, ValueError):
    """A bad value given by the caller: an argument, a setting, a query option."""


class NotFound(StrataError, LookupError):
    """What was asked for (a document, a section, a page) is not in the index."""


class ReadError(StrataError):
    """A file could not be read as a document."""


class StrataIOError(StrataError, OSError):
    """Reading or writing a file failed."""


class IndexUnusable(StrataError):
    """The index on disk cannot be used as asked (absent, damaged, built with another model)."""


class RemoteError(StrataError):
    """A remote service (an embedding, chat or rerank API, or a strata server) failed."""


class InternalError(StrataError):
    """A bug or an unexpected state in strata itself."""


class AccessDenied(StrataError, PermissionError):
    """A strata server refused the API key (missing, wrong, or read-only for a write)."""
