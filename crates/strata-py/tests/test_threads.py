"""Searches from several Python threads on one ``Index``: the same answers as one at a time,
and the GIL released while the engine works (bench/python-threads.py measures the speed-up)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

QUERIES = [
    "petition to order arbitration",
    "section 4",
    "what does Bureau mean",
    "confidential information census",
    "stay of proceedings where issue referable to arbitration",
    "namespace review",
    "award confirmed by the court",
    "penalty for refusing to answer questions",
]


def _answer(index, query):
    data = index.search(query, k=5, budget=400).to_dict()
    return [(h["chunk_id"], h["score"]) for h in data["hits"]], data["context"]["text"]


def test_threads_get_the_answers_of_sequential_searches(index):
    expected = {q: _answer(index, q) for q in QUERIES}
    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(3):
            got = dict(zip(QUERIES, pool.map(lambda q: _answer(index, q), QUERIES)))
            assert got == expected


def test_the_gil_is_released_during_a_search(index):
    """While one thread searches, the main thread keeps waking up.

    The main thread sleeps a millisecond at a time and notes how late each wake-up is. To run
    Python again it needs the GIL: if a search held it, every search would make one wake-up
    as late as the search is long (tens of milliseconds). Released, wake-ups are late only by
    the scheduler's delays. Sleeping, the main thread takes no CPU from the searches.
    """
    done = threading.Event()
    durations = []

    def searches():
        for _ in range(2):
            for q in QUERIES:
                t0 = time.perf_counter()
                index.search(q, mode="hybrid", k=10, budget=1000, dense_highlights=True)
                durations.append(time.perf_counter() - t0)
        done.set()

    worker = threading.Thread(target=searches)
    gaps = []
    worker.start()
    last = time.perf_counter()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    typical = sorted(durations)[len(durations) // 2]
    assert typical > 0.01, "searches long enough to tell a held GIL from a released one"
    late = [g for g in gaps if g > typical / 2]
    assert len(late) < len(durations) / 4, (
        f"{len(late)} of {len(gaps)} wake-ups were later than {typical / 2 * 1000:.0f} ms "
        f"({len(durations)} searches): the GIL was held through searches"
    )
