"""Where a command hook keeps a session between its calls: one small JSON file per session.

The folder is `$LOOPMETRIC_HOOK_DIR`, else `$XDG_CACHE_HOME/loopmetric/hooks`, else
`~/.cache/loopmetric/hooks`; the log, `hook.log`, is beside the states. A state file written by
another version of loopmetric, at other settings, or that does not parse, is dropped and the
session judged from scratch (a line in the log says so). Calls of one session may come at once
(parallel tool calls): each holds the session's lock while it reads and writes its state, and a
state is replaced whole (written aside, then renamed), never left half-written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Optional

from .._version import __version__

__all__ = ["STATE_VERSION", "log_line", "session_lock", "read_state", "state_dir", "write_state"]

STATE_VERSION = 2  # 2: the loops nudged are kept by each guard (`GuardSettings.escalate`)
ENV_DIR = "LOOPMETRIC_HOOK_DIR"


def state_dir(override: Optional[str] = None) -> Path:
    """The folder of the states and the log."""
    if override:
        return Path(override)
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "loopmetric" / "hooks"


def _file(folder: Path, session: str) -> Path:
    """A session's state file: its id as it is when it is a plain name, else a hash of it."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", session) or session.startswith("."):
        session = hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:32]
    return folder / f"{session}.json"


@contextlib.contextmanager
def session_lock(folder: Path, session: str, timeout: float = 5.0) -> Iterator[None]:
    """Hold the session's lock (POSIX `flock`; elsewhere none) for at most `timeout` seconds of
    waiting: a lock never had is waited for no longer, the call then judged without it."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        yield
        return
    with open(_file(folder, session).with_suffix(".lock"), "a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"session {session}: its lock is held by another call") from None
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_state(folder: Path, session: str, settings_key: str) -> tuple[Optional[dict[str, Any]], str]:
    """(the session's state, or None to start from scratch; why it was dropped, or '')."""
    path = _file(folder, session)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, ""
    try:
        data = json.loads(text)
    except ValueError as error:
        return None, f"state of session {session} does not parse ({error}): starting again"
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION or data.get("loopmetric") != __version__:
        found = data.get("loopmetric") if isinstance(data, dict) else None
        return None, f"state of session {session} is from another version ({found!r}): starting again"
    if data.get("settings") != settings_key:
        return None, f"state of session {session} was written at other settings: starting again"
    state = data.get("state")
    return (state, "") if isinstance(state, dict) else (None, f"state of session {session} has no state")


def write_state(folder: Path, session: str, settings_key: str, state: dict[str, Any]) -> None:
    """Replace the session's state whole."""
    path = _file(folder, session)
    data = {"version": STATE_VERSION, "loopmetric": __version__, "settings": settings_key, "state": state}
    handle, temporary = tempfile.mkstemp(prefix=path.stem, suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, separators=(",", ":")))  # dumps encodes in C; dump, piece by piece in Python
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def log_line(folder: Optional[Path], line: str) -> None:
    """Append one line to `hook.log` (beside the states, else in the temp folder); never raises."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    text = f"{stamp} {' '.join(line.split())}\n"
    for where in ([folder] if folder is not None else []) + [Path(tempfile.gettempdir()) / "loopmetric"]:
        try:
            where.mkdir(parents=True, exist_ok=True)
            with open(where / "hook.log", "a", encoding="utf-8") as file:
                file.write(text)
            return
        except OSError:
            continue
