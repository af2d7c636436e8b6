"""What a session's loops cost, read from its Claude Code transcript a piece at a time.

`loop_tokens` reads only the lines added since the last call (the byte offset and a hash of the
file's first line are kept in the session's state), so a call on a 50 MB transcript reads what
was written since. A transcript that shrank or whose first line changed is read again from its
start. It counts the tokens (input, cache and output) of each assistant message that made a call
inside a loop, once per message. A loop whose calls were read before it was found (one that
spans the `Stop` of an earlier turn) counts only its calls read after.

This is the one place that reads the transcript's lines: when loopmetric's Claude Code reader
(`loopmetric.readers`) lands, it can read them here instead.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Optional

__all__ = ["loop_tokens"]

_CHUNK = 1 << 20


def _head(handle: Any) -> str:
    handle.seek(0)
    return hashlib.sha256(handle.readline(4096)).hexdigest()[:16]


def loop_tokens(path: Optional[str], kept: dict[str, Any], loop_ids: set[str]) -> Optional[int]:
    """Tokens of the turns that made loop calls, counting the lines added since the last call
    (what is kept between calls is in `kept`, updated); None when there is no transcript."""
    if not path:
        return None
    try:
        handle = open(path, "rb")
    except OSError:
        return None
    with handle:
        handle.seek(0, 2)
        size = handle.tell()
        head = _head(handle)
        offset = int(kept.get("offset", 0))
        if size < offset or kept.get("head") != head:  # a new file, or one rewritten: from its start
            offset, kept["tokens"], kept["message"] = 0, 0, None
        handle.seek(offset)
        tokens = int(kept.get("tokens", 0))
        last = kept.get("message")
        rest = b""
        while True:
            chunk = handle.read(_CHUNK)
            if not chunk:
                break
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()  # a line still being written is read next time
            for line in lines:
                offset += len(line) + 1
                counted, last = _line_tokens(line, loop_ids, last)
                tokens += counted
        kept.update(offset=offset, head=head, tokens=tokens, message=last)
        return tokens


def _line_tokens(line: bytes, loop_ids: set[str], last: Optional[str]) -> tuple[int, Optional[str]]:
    """(tokens, message id) of one transcript line: an assistant message with a loop call, once."""
    if b'"tool_use"' not in line:
        return 0, last
    try:
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            return 0, last
        calls = {block.get("id") for block in message.get("content") or [] if isinstance(block, dict)
                 and block.get("type") == "tool_use"}
        if not calls & loop_ids or message.get("id") == last:
            return 0, last
        usage = message.get("usage") or {}
        counted = sum(int(usage.get(key) or 0) for key in ("input_tokens", "output_tokens",
                                                            "cache_creation_input_tokens", "cache_read_input_tokens"))
        return counted, message.get("id")
    except (ValueError, TypeError, AttributeError):
        return 0, last
