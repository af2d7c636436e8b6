"""The same limits for every file, whichever process reads it: each file's work runs in one
work thread per process, with a fixed stack size and recursion limit.

A worker process of `--jobs N` calls its function from deeper in its own stack than the
main process does, and may start with another recursion limit (a spawned worker imports
afresh): anything that depends on how deep Python may still go (the C JSON parser does)
would then differ between `--jobs 1` and `--jobs 2`. In the work thread every file starts
at the same depth, with the same limit and the same stack, in every process.
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import Any, Callable, Optional, TypeVar

__all__ = ["RECURSION_LIMIT", "STACK_BYTES", "in_work_thread", "work_in_thread"]

STACK_BYTES = 64 * 1024 * 1024  # room for RECURSION_LIMIT frames of C code calling Python calling C
RECURSION_LIMIT = 1_000  # Python's default, set explicitly: the same in the main process and every worker

T = TypeVar("T")
_Job = tuple[Callable[[Any], Any], Any, "queue.SimpleQueue[tuple[bool, Any]]"]


class _WorkThread:
    """One daemon thread that runs the jobs given to it, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self.pid = os.getpid()
        before = threading.stack_size()
        threading.stack_size(STACK_BYTES)
        try:
            self.thread = threading.Thread(target=self._loop, name="loopmetric-work", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(before)

    def _loop(self) -> None:
        while True:
            fn, arg, answer = self.jobs.get()
            before = sys.getrecursionlimit()  # an import may have changed it (jedi sets 3000): set for each job
            sys.setrecursionlimit(RECURSION_LIMIT)
            try:
                answer.put((True, fn(arg)))
            except BaseException as error:  # handed back to the caller, who raises it
                answer.put((False, error))
            finally:
                sys.setrecursionlimit(before)  # as the caller (waiting meanwhile) had it


_THREAD: Optional[_WorkThread] = None
_LOCK = threading.Lock()


def in_work_thread(fn: Callable[[Any], T], arg: Any) -> T:
    """`fn(arg)`, run in this process's work thread (started on first use, again after a fork)."""
    global _THREAD
    with _LOCK:
        if _THREAD is None or _THREAD.pid != os.getpid() or not _THREAD.thread.is_alive():
            _THREAD = _WorkThread()
        worker = _THREAD
    if threading.current_thread() is worker.thread:  # already there (a job that runs another)
        return fn(arg)
    answer: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    worker.jobs.put((fn, arg, answer))
    ok, value = answer.get()
    if not ok:
        raise value
    return value


class work_in_thread:  # noqa: N801 (a function to the pool: picklable, so a class)
    """`fn` as a function of one argument that runs in the work thread; picklable when `fn` is,
    so it can be handed to a process pool."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn

    def __call__(self, arg: Any) -> Any:
        return in_work_thread(self.fn, arg)
