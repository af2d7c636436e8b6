"""A scripted Anthropic Messages API on 127.0.0.1, for running the real Claude Code offline.

`ScriptedServer(script)` answers `POST /v1/messages` (SSE when the request says `stream: true`,
JSON otherwise): a request that offers tools gets the script's next turn, anything else (a side
request for a title, a quota probe) a short text. A script turn is `("tool", name, input)` or
`("text", words)`; the script is asked with the request's messages, so it can end the session
once a call was refused. Every request body is kept (`requests`), to read what the model was sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Turn = tuple  # ("tool", name, input) | ("text", words)
Script = Callable[[list[dict[str, Any]]], Turn]


def texts_of(messages: list[dict[str, Any]]) -> str:
    """All the text the model was sent (tool results, hook messages, system reminders), joined."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key in ("text", "content"):
                if key in value:
                    walk(value[key])
    walk(messages)
    return "\n".join(out)


def _events(turn: Turn, number: int) -> list[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    start = {"type": "message_start", "message": {"id": f"msg_{number:04d}", "type": "message", "role": "assistant",
                                                   "model": "claude-scripted", "content": [], "stop_reason": None,
                                                   "stop_sequence": None, "usage": usage}}
    if turn[0] == "tool":
        block = {"type": "tool_use", "id": f"toolu_{number:04d}", "name": turn[1], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(turn[2])}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": turn[1]}
        stop = "end_turn"
    return [("message_start", start),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": 20}}),
            ("message_stop", {"type": "message_stop"})]


def _message(turn: Turn, number: int) -> dict[str, Any]:
    content = ([{"type": "tool_use", "id": f"toolu_{number:04d}", "name": turn[1], "input": turn[2]}]
               if turn[0] == "tool" else [{"type": "text", "text": turn[1]}])
    return {"id": f"msg_{number:04d}", "type": "message", "role": "assistant", "model": "claude-scripted",
            "content": content, "stop_reason": "tool_use" if turn[0] == "tool" else "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 20}}


class ScriptedServer:
    """The server, on a free port of 127.0.0.1, in a thread; `with ScriptedServer(script) as s: s.url`."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.turns = 0
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                self._json({})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._json({"input_tokens": 100})
                    return
                with outer._lock:
                    outer.requests.append(body)
                    if body.get("tools"):
                        outer.turns += 1
                        number = outer.turns
                        turn = outer.script(body.get("messages") or [])
                    else:
                        number, turn = 9000 + len(outer.requests), ("text", "ok")
                if body.get("stream"):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    for event, data in _events(turn, number):
                        self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                else:
                    self._json(_message(turn, number))

            def _json(self, data: dict[str, Any]) -> None:
                payload = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "ScriptedServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()


def looping_script(command: str = "cat /nonexistent", limit: int = 12) -> Script:
    """A model that repeats one failing Bash call until a call is refused (or `limit` turns)."""
    state = {"turns": 0}

    def script(messages: list[dict[str, Any]]) -> Turn:
        state["turns"] += 1
        last = texts_of(messages[-1:]) if messages else ""
        if "loopmetric refused" in last or state["turns"] > limit:
            return ("text", "I cannot read the file; stopping here.")
        return ("tool", "Bash", {"command": command, "description": "Read the file"})
    return script


def healthy_script(steps: int = 4) -> Script:
    """A model that runs `steps` different commands, then answers."""
    state = {"turns": 0}

    def script(messages: list[dict[str, Any]]) -> Turn:
        state["turns"] += 1
        if state["turns"] > steps:
            return ("text", "All steps done.")
        return ("tool", "Bash", {"command": f"echo step-{state['turns']}", "description": "A step"})
    return script
