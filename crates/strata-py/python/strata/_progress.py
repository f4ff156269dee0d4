"""What ``Index.ingest(progress=...)`` shows: strata's own bar on a terminal, a tqdm bar in a
notebook (an IPython kernel, when tqdm is installed), or a callable of the caller's."""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Optional, Tuple, Union

Observer = Callable[[int, int, str], None]
ProgressArg = Union[bool, Observer]


def choose(progress: ProgressArg) -> Tuple[bool, Optional[Observer]]:
    """Whether strata draws its bar on stderr, and the observer to call, for ``progress``."""
    if callable(progress):
        return False, progress
    if not progress:
        return False, None
    if _stderr_is_terminal():
        return True, None
    if "ipykernel" in sys.modules:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return False, None
        return False, TqdmObserver(tqdm)
    return False, None


def finish(observer: Optional[Observer]) -> None:
    """Closes a bar the ingest drew."""
    close = getattr(observer, "close", None)
    if close is not None:
        close()


class TqdmObserver:
    """Draws an ingest's progress (files done of all, what it does now) on a tqdm bar."""

    def __init__(self, tqdm: Callable[..., Any], **options: Any) -> None:
        self._tqdm = tqdm
        self._options = options
        self.bar: Any = None

    def __call__(self, done: int, total: int, message: str) -> None:
        if self.bar is None:
            self.bar = self._tqdm(total=total, unit="file", desc="strata ingest", **self._options)
        self.bar.n = done
        if message:
            self.bar.set_postfix_str(message[-60:], refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _stderr_is_terminal() -> bool:
    try:
        return os.isatty(2) and sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError, OSError):
        return False
