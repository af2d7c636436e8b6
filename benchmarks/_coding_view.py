"""The coding-agent runs' viewer (stdlib only, never loopmetric): what the blind labels were read with.

    python -m benchmarks.real_runs show coding/<family>/<run>
Prints a run as numbered steps: one number per user message, assistant message,
tool call and tool result, in file order. Handles: Aider .aider.chat.history.md
sessions (.md), OpenAI-chat style exports ({"messages":[...]}), Claude Code session
.jsonl, Codex rollout .jsonl, Gemini CLI chat JSON ({"messages":[{type:user|gemini}]}),
Harbor ATIF trajectory.json ({"steps":[...]}), Gemini CLI JSONL sessions,
OpenHands event streams (JSON list of events, or output.jsonl line with "history"),
SWE-agent .traj ({"trajectory":[...]}); falls back to raw text."""

import json
import sys

N = [0]


def short(s, n=600):
    s = s if isinstance(s, str) else json.dumps(s, ensure_ascii=False)
    s = s.strip()
    return s if len(s) <= n else s[:n] + f" ...[+{len(s) - n} chars]"


def step(kind, text, n=600):
    N[0] += 1
    print(f"[{N[0]}] {kind}: {short(text, n)}\n")


def view_aider(text):
    # Aider history: '#### ' = user prompt lines, '> ' = tool/console output, other = assistant
    cur, buf = None, []

    def flush():
        if cur and "".join(buf).strip():
            step(
                {"user": "USER", "tool": "TOOL_RESULT", "asst": "ASSISTANT"}[cur],
                "\n".join(buf),
                600 if cur != "asst" else 800,
            )

    for line in text.split("\n"):
        if line.startswith("# aider chat started"):
            print(line + "\n")
            continue
        k = "user" if line.startswith("#### ") else "tool" if (line.startswith(">")) else "asst"
        if k == "asst" and not line.strip() and cur:
            buf.append(line)
            continue
        if k != cur:
            flush()
            cur, buf = k, []
        buf.append(line[5:] if k == "user" else line[1:].lstrip() if k == "tool" else line)
    flush()


def content_text(c):
    if isinstance(c, str):
        return c
    out = []
    for p in c or []:
        if isinstance(p, dict):
            out.append(
                p.get("text") or p.get("content")
                if isinstance(p.get("text") or p.get("content"), str)
                else json.dumps(p, ensure_ascii=False)
            )
        else:
            out.append(str(p))
    return "\n".join(x for x in out if x)


def view_messages(msgs):
    for m in msgs:
        role = m.get("role") or m.get("type")
        if role in ("tool", "function"):
            step("TOOL_RESULT", content_text(m.get("content")))
            continue
        c = m.get("content")
        if isinstance(c, list) and any(
            isinstance(p, dict) and p.get("type") in ("tool_use", "tool_result", "tool_call") for p in c
        ):
            for p in c:
                t = p.get("type")
                if t == "text":
                    step(role.upper(), p.get("text", ""), 800 if role == "assistant" else 600)
                elif t in ("tool_use", "tool_call"):
                    step("TOOL_CALL", f"{p.get('name')} {short(p.get('input', p.get('arguments')), 1000)}", 1200)
                elif t == "tool_result":
                    step("TOOL_RESULT", content_text(p.get("content")))
                elif t == "thinking":
                    step("THINKING", p.get("thinking", ""), 300)
            continue
        txt = content_text(c)
        if txt and txt != "None":
            step((role or "?").upper(), txt, 800 if role == "assistant" else 600)
        for tc in m.get("tool_calls") or []:
            f = tc.get("function", tc)
            step("TOOL_CALL", f"{f.get('name')} {short(f.get('arguments'), 1000)}", 1200)


def view_claude_jsonl(lines):
    msgs = []
    for o in lines:
        if o.get("type") in ("user", "assistant") and isinstance(o.get("message"), dict):
            m = dict(o["message"])
            m.setdefault("role", o["type"])
            msgs.append(m)
    view_messages(msgs)


def view_codex(lines):
    for o in lines:
        if o.get("type") != "response_item":
            continue
        p = o.get("payload", {})
        t = p.get("type")
        if t == "message":
            step(p.get("role", "?").upper(), content_text([{"text": c.get("text")} for c in p.get("content", [])]))
        elif t in ("function_call", "custom_tool_call", "local_shell_call"):
            step("TOOL_CALL", f"{p.get('name')} {p.get('arguments') or p.get('input') or p.get('action')}", 1200)
        elif t in ("function_call_output", "custom_tool_call_output"):
            step("TOOL_RESULT", p.get("output"))
        elif t == "reasoning":
            pass


def view_gemini(d):
    for m in d["messages"]:
        if m.get("type") == "user":
            step("USER", content_text(m.get("content")))
        elif m.get("type") in ("info", "error", "warning"):
            step(m["type"].upper(), content_text(m.get("content")))
        else:
            if m.get("content"):
                step("ASSISTANT", content_text(m.get("content")), 800)
            for tc in m.get("toolCalls") or []:
                step("TOOL_CALL", f"{tc.get('name')} {short(tc.get('args'), 1000)}", 1200)
                r = tc.get("result") or []
                step(
                    "TOOL_RESULT",
                    "\n".join(str(x.get("functionResponse", {}).get("response", {}).get("output", x)) for x in r)
                    if isinstance(r, list)
                    else r,
                )


def view_atif(d):
    for s in d["steps"]:
        src = s.get("source")
        if s.get("message"):
            step("USER" if src == "user" else "ASSISTANT" if src == "agent" else src.upper(), s["message"], 800)
        for tc in s.get("tool_calls") or []:
            step("TOOL_CALL", f"{tc.get('function_name')} {short(tc.get('arguments'), 1000)}", 1200)
        for r in (s.get("observation") or {}).get("results", []):
            step("TOOL_RESULT", r.get("content"))


def view_gemini_jsonl(lines):
    # Gemini CLI JSONL session: header line {sessionId, projectHash, ...}, message lines {id,type,content,...}, {"$set":...} updates
    msgs = [o for o in lines if isinstance(o, dict) and o.get("type") in ("user", "gemini", "info", "error", "warning")]
    view_gemini({"messages": msgs})


def view_openhands(events):
    # OpenHands event stream: list of events; action events have "action", observation events have "observation"
    for e in events:
        if not isinstance(e, dict):
            continue
        src = e.get("source", "")
        if e.get("observation"):
            step(
                "TOOL_RESULT",
                f"[{e['observation']}] "
                + str(e.get("content") if e.get("content") is not None else e.get("message", "")),
            )
        elif e.get("action"):
            a = e["action"]
            args = e.get("args") or {
                k: v
                for k, v in e.items()
                if k not in ("action", "id", "timestamp", "source", "tool_call_metadata", "llm_metrics")
            }
            if a == "message" or a == "system":
                step(
                    "USER" if src == "user" else "ASSISTANT" if src == "agent" else (src or a).upper(),
                    args.get("content") or e.get("message", ""),
                    800,
                )
            elif a in ("recall",):
                step("USER", f"[recall] {args.get('query', '')}")
            else:
                th = args.get("thought") or ""
                if th:
                    step("ASSISTANT", th, 800)
                body = (
                    args.get("command")
                    or args.get("code")
                    or args.get("path")
                    or args.get("final_thought")
                    or args.get("content")
                    or args
                )
                step("TOOL_CALL", f"{a} {short(body, 1000)}", 1200)


def view_swe_agent(d):
    # SWE-agent .traj: {"trajectory":[{thought, action, observation, response, state}], "history":[...], "info":{...}}
    for h in d.get("history", [])[:3]:
        if h.get("role") in ("system", "user"):
            step(h["role"].upper(), h.get("content", ""))
    for t in d.get("trajectory", []):
        if t.get("thought"):
            step("ASSISTANT", t["thought"], 800)
        step("TOOL_CALL", t.get("action", ""), 1200)
        step("TOOL_RESULT", t.get("observation", ""))


def main(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    if path.endswith(".md"):
        return view_aider(raw)
    try:
        d = json.loads(raw)
    except ValueError:
        lines = [json.loads(line) for line in raw.splitlines() if line.strip().startswith("{")]
        if any(o.get("type") in ("session_meta", "response_item") for o in lines):
            return view_codex(lines)
        if any("projectHash" in o or o.get("type") == "gemini" for o in lines):
            return view_gemini_jsonl(lines)
        return view_claude_jsonl(lines)
    if isinstance(d, dict) and "steps" in d:
        return view_atif(d)
    if isinstance(d, dict) and "trajectory" in d and isinstance(d["trajectory"], list):
        return view_swe_agent(d)
    if isinstance(d, dict) and isinstance(d.get("history"), list):
        return view_openhands(d["history"])
    if isinstance(d, list) and d and isinstance(d[0], dict) and ("action" in d[0] or "observation" in d[0]):
        return view_openhands(d)
    if (
        isinstance(d, dict)
        and d.get("messages")
        and isinstance(d["messages"][0], dict)
        and "type" in d["messages"][0]
        and "role" not in d["messages"][0]
    ):
        return view_gemini(d)
    if isinstance(d, dict) and "messages" in d:
        return view_messages(d["messages"])
    if isinstance(d, list):
        return view_messages(d)
    print(raw[:5000])


def lines(path) -> list:
    """The numbered steps `main` prints, as lines (the step counter restarts for each run)."""
    import contextlib
    import io

    N[0] = 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(str(path))
    return out.getvalue().splitlines()


if __name__ == "__main__":
    main(sys.argv[1])
