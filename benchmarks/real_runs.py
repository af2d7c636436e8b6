"""The real recorded runs of `../shared/trajectories`: sources, run ids, the split, a viewer.

    python -m benchmarks.real_runs list SOURCE           # run ids of a source, in order
    python -m benchmarks.real_runs split SOURCE          # design / held-out half of each run id
    python -m benchmarks.real_runs show RUN [RUN...]     # a run's steps, numbered, for labelling
    python -m benchmarks.real_runs show RUN --full       # the same without shortening

The viewer reads the raw files itself (never loopmetric), so a label cannot be
steered by what loopmetric says. Step numbers are the source's own: SWE-agent
trajectory index, chat message index (tau-bench, tau2-bench, MINT), InterCode
turn, Magentic-One history index, mini-swe-agent message index (A<n> is the n-th
assistant message, the labels' numbering), ReAct HotpotQA step n, ReAct WebShop
action index (0 = reset). Labels live in `labels/<source>.csv` (rubric:
`labels/README.md`), for the three sources an independent reader labelled in
their folder's `labels.json`. The data stays in `../shared`.

ReAct HotpotQA and WebShop are text logs loopmetric does not read; each run is
read as the OpenAI chat messages a tracer would have recorded (`document`):
the prompt, the model's text replies, the harness's observations as the next
turn, and no tool-call structure the log does not hold.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "trajectories"
LABELS = Path(__file__).resolve().parent / "labels"
SPLIT_SEED = 20261201
# Public runs of coding agents (OpenHands, Gemini CLI, Claude Code, Codex, exported chats of Claude Code
# and Codex sessions), as their own tools wrote them (provenance and licences in
# the folder's PROVENANCE.md); labelled blind in labels/coding.csv. Kept out of the repo: the folder
# named by LOOPMETRIC_CODING_RUNS, or ../shared/trajectories/coding-agents once it is there.
CODING = Path(os.environ.get("LOOPMETRIC_CODING_RUNS") or SHARED / "coding-agents")
CODING_FAMILIES = ("openhands", "gemini_cli", "claude_code", "codex", "openai_chat_export")  # fixed: the design / held-out halves never change
# Public runs of customer-service agents talking to a simulated customer (tau-bench airline and retail
# with Qwen3-4B, tau2-bench telecom with gpt-4o, tau2-bench airline and telecom-workflow with grok-3), as
# their tools wrote them (provenance and licences in labels/service_provenance.md); labelled blind in
# labels/service.csv. Kept out of the repo (one repository has no licence): the folder named by
# LOOPMETRIC_SERVICE_RUNS, or ../shared/trajectories/service-agents once it is there.
SERVICE = Path(os.environ.get("LOOPMETRIC_SERVICE_RUNS") or SHARED / "service-agents")
SERVICE_FOLDERS = ("tau-bench-qwen3-4b-fc-airline", "tau-bench-qwen3-4b-fc-retail", "tau2-bench-telecom-gpt4o",
                   "tau2-bench-grok3")  # fixed: the design / held-out halves never change
LABEL_VALUES = ("loop", "no_loop", "unsure")


@dataclass(frozen=True)
class Run:
    """One recorded run: its id, the file it is in and its record index there
    (the order `loopmetric.load_traces` yields it in)."""

    id: str
    source: str
    path: Path
    record: int  # index among the traces load_traces yields for `path`


@dataclass(frozen=True)
class Source:
    name: str
    folder: str
    title: str
    runs: Callable[[], list[Run]]
    lines: Callable[[Run, int], Iterator[str]]
    # A source recorded as text (a log, a notebook's output) that loopmetric does not read: the
    # run as the chat messages a tracer would have recorded (`document(run)`), read from a file
    # of its own. None: `run.path` is read as it is.
    document: Optional[Callable[[Run], Any]] = None
    # Labels kept beside the data (`labels.json` of an independent reader): the file's name in
    # the source's folder; None: `labels/<source>.csv`.
    shared_labels: Optional[str] = None
    # Where the data is, when not in `../shared/trajectories` (`CODING`: runs collected for the issue).
    root: Optional[Path] = None

    @property
    def available(self) -> bool:
        return ((self.root or SHARED) / self.folder).is_dir()


# -- reading the raw files (cached: several runs share one file) ----------------------------
@lru_cache(maxsize=16)
def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=4)
def _jsonl(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def raw_record(run: Run) -> Any:
    """The run's record as the file holds it."""
    source = run.source
    if source == "swe":
        return _json(run.path)
    if source == "tau":
        return _json(run.path)[run.record]
    if source == "ctf":
        data = _json(run.path)
        return list(data.values())[run.record]
    if source == "tau2":
        return _json(run.path)["simulations"][run.record]
    if source == "m1":
        return _json(run.path)
    if source == "mint":
        return _jsonl(run.path)[run.record]
    if source == "hotpotqa":
        return _hotpot_file(run.path)[run.record]
    if source == "webshop":
        return _webshop_notebook()[1][run.record]
    if source == "service":
        return _service_records(run.path)[run.record]
    if source in ("miniswe", "coding"):
        return _json(run.path) if run.path.suffix == ".json" else _jsonl(run.path)
    raise KeyError(source)


def _short(text: Any, width: int) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    text = text.replace("\n", " | ")
    return text if width <= 0 or len(text) <= width else text[:width] + f" ...(+{len(text) - width})"


def _digest(text: Any) -> str:
    return hashlib.sha1(str(text).encode()).hexdigest()[:6]


# -- SWE-agent ---------------------------------------------------------------------------------
_SWE = "sweagent-java-multi-swe-bench"


def _swe_runs() -> list[Run]:
    runs = []
    for model in sorted(p for p in (SHARED / _SWE).iterdir() if p.is_dir()):
        short = model.name.split("_", 2)[-1]
        for path in sorted(model.rglob("*.traj")):
            runs.append(Run(f"swe/{short}/{path.stem}", "swe", path, 0))
    return runs


def _swe_lines(run: Run, width: int) -> Iterator[str]:
    steps = raw_record(run).get("trajectory", [])
    for n, step in enumerate(steps):
        thought = step.get("thought") or step.get("response") or ""
        yield f"{n:>3} THINK {_short(thought, width)}"
        yield f"{n:>3} ACT   [{_digest(str(step.get('action', '')).strip())}] {_short(str(step.get('action', '')).strip(), width)}"
        yield f"{n:>3} OBS   [{_digest(step.get('observation'))}] {_short(step.get('observation'), width)}"


# -- chat lists (tau-bench, and the shape tau2 / MINT share) -------------------------------------
def _chat_lines(messages: list, width: int) -> Iterator[str]:
    for n, m in enumerate(messages):
        if not isinstance(m, dict):
            yield f"{n:>3} ?     {_short(m, width)}"
            continue
        role = str(m.get("role"))
        calls = m.get("tool_calls") or []
        content = m.get("content")
        if content:
            yield f"{n:>3} {role.upper()[:5]:<5} {_short(content, width)}"
        for call in calls:
            function = call.get("function") or call
            args = function.get("arguments")
            who = f" by {call['requestor']}" if call.get("requestor") else ""
            yield f"{n:>3} CALL{who} {function.get('name')} {_short(args, width)}"
        if role == "tool" and not content:
            yield f"{n:>3} TOOL  (empty)"
        if m.get("error") is True:
            yield f"{n:>3}       (error: true)"


_TAU = "tau-bench-gpt4o-airline"


def _tau_runs() -> list[Run]:
    path = SHARED / _TAU / "gpt-4o-airline.json"
    return [Run(f"tau/{i}", "tau", path, i) for i in range(len(_json(path)))]


def _tau_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    yield f"    (task {record.get('task_id')}, trial {record.get('trial')}, reward {record.get('reward')})"
    yield from _chat_lines(record.get("traj") or [], width)


# -- tau2-bench ----------------------------------------------------------------------------------
_TAU2 = "tau2-bench-telecom-gpt41"
_TAU2_FILES = {
    "gpt41-default": "gpt-4.1_telecom_default_gpt-4.1_1trials.json",
    "gpt41-solo": "gpt-4.1_telecom_no-user_gpt-4.1_1trials.json",
    "ft-default": "ft_gpt-4.1-2025-04-14_sierra_tau2-full-sft_BzrYdMNm_telecom_default_gpt-4.1_1trials.json",
    "ft-solo": "ft_gpt-4.1-2025-04-14_sierra_tau2-full-sft_BzrYdMNm_telecom_no-user_gpt-4.1_1trials.json",
}


def _tau2_runs() -> list[Run]:
    runs = []
    for short, file in _TAU2_FILES.items():
        path = SHARED / _TAU2 / file
        for i in range(len(_json(path)["simulations"])):
            runs.append(Run(f"tau2/{short}/{i}", "tau2", path, i))
    return runs


def _tau2_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    reward = (record.get("reward_info") or {}).get("reward")
    yield f"    (task {record.get('task_id')}, ended: {record.get('termination_reason')}, reward {reward})"
    yield from _chat_lines(record.get("messages") or [], width)


# -- InterCode-CTF ---------------------------------------------------------------------------------
_CTF = "intercode-ctf-gpt4"


def _ctf_runs() -> list[Run]:
    path = SHARED / _CTF / "ic_ctf_multiturn_gpt-4_10_turns.json"
    return [Run(f"ctf/{key}", "ctf", path, i) for i, key in enumerate(_json(path))]


def _ctf_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    yield f"    TASK {_short(record.get('query'), width)}"
    history = record.get("turn_history") or {}
    actions, observations = history.get("actions") or [], history.get("observations") or []
    valid, rewards = history.get("valid_action") or [], history.get("rewards") or []
    for n, action in enumerate(actions):
        ok = "" if n >= len(valid) or valid[n] else " (invalid)"
        yield f"{n:>3} ACT   [{_digest(action)}] {_short(action, width)}"
        obs = observations[n] if n < len(observations) else None
        reward = rewards[n] if n < len(rewards) else None
        yield f"{n:>3} OBS   [{_digest(obs)}]{ok} reward={reward} {_short(obs, width)}"


# -- Magentic-One (Who&When) --------------------------------------------------------------------
_M1 = "whoandwhen-magentic-one"


def _m1_runs() -> list[Run]:
    folder = SHARED / _M1 / "Hand-Crafted"
    paths = sorted(folder.glob("*.json"), key=lambda p: int(p.stem))
    return [Run(f"m1/{p.stem}", "m1", p, 0) for p in paths]


def _m1_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    yield f"    QUESTION {_short(record.get('question'), width)}"
    for n, m in enumerate(record.get("history") or []):
        yield f"{n:>3} {str(m.get('role'))[:36]:<36} [{_digest(m.get('content'))}] {_short(m.get('content'), width)}"


# -- MINT ALFWorld ----------------------------------------------------------------------------------
_MINT = "mint-alfworld-gpt4"


def _mint_runs() -> list[Run]:
    path = SHARED / _MINT / "results.sample100.seed0.jsonl"
    return [Run(f"mint/{i}", "mint", path, i) for i in range(len(_jsonl(path)))]


def _mint_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    state = record.get("state") or {}
    yield f"    (task {record.get('task', {}).get('task_name')}, ended: {state.get('terminate_reason')})"
    history = state.get("history") or []
    for n, m in enumerate(history):
        if n == 0:
            yield f"{n:>3} USER  (instructions and an in-context example; {len(str(m.get('content')))} chars)"
            continue
        yield f"{n:>3} {str(m.get('role')).upper()[:5]:<5} [{_digest(m.get('content'))}] {_short(m.get('content'), width)}"


# -- ReAct on HotpotQA (Reflexion logs): plain text ------------------------------------------------
_HOTPOT = "react-hotpotqa-reflexion"
_HOTPOT_FILES = {"base": "base_100_questions_5_trials.txt", "reflexion": "reflexion_100_questions_7_trials.txt"}
_STEP_LINE = re.compile(r"^(Thought|Action|Observation) (\d+): ?(.*)$")
# The log does not record the prompt; the run's actions are the ones the README names and the
# harness's own "Invalid Action" answer lists. A tracer would record the prompt that declares them:
_HOTPOT_SYSTEM = ("Answer the question with interleaved Thought, Action and Observation steps. An Action is one of: "
                  "Search[entity] (search Wikipedia for the entity), Lookup[keyword] (the next sentence holding "
                  "the keyword in the current page), Finish[answer] (give the answer and end).")


@lru_cache(maxsize=4)
def _hotpot_file(path: Path) -> tuple[dict, ...]:
    """Every `Question:` block of a log with its trial, position in the trial and steps,
    the ones without steps (solved before, listed only) included."""
    blocks: list[dict[str, Any]] = []
    block: Optional[dict[str, Any]] = None
    last: Optional[str] = None
    trial, position = 0, -1
    for line in path.read_text(encoding="utf-8").splitlines():
        begin = re.match(r"^BEGIN TRIAL (\d+)", line)
        if begin:
            trial, position, block, last = int(begin.group(1)), -1, None, None
            continue
        if line.startswith("Question:"):
            position += 1
            block = {"trial": trial, "k": position, "question": line[len("Question:"):].strip(), "steps": [],
                     "answer": None}
            blocks.append(block)
            last = "question"
            continue
        if block is None:
            continue
        if line.startswith("Correct answer:"):
            block["answer"] = line[len("Correct answer:"):].strip()
            block, last = None, None
            continue
        step = _STEP_LINE.match(line)
        if step:
            kind, n, text = step.group(1).lower(), int(step.group(2)), step.group(3)
            if not block["steps"] or block["steps"][-1]["n"] != n:
                block["steps"].append({"n": n, "thought": None, "action": None, "observation": None})
            block["steps"][-1][kind] = text
            last = kind
        elif last == "question":
            block["question"] += "\n" + line
        elif last is not None and block["steps"]:
            block["steps"][-1][last] = (block["steps"][-1][last] or "") + "\n" + line
    return tuple(blocks)


def _hotpot_runs() -> list[Run]:
    runs = []
    for short, file in _HOTPOT_FILES.items():
        path = SHARED / _HOTPOT / file
        for index, block in enumerate(_hotpot_file(path)):
            if block["steps"]:  # a question listed without steps (solved in an earlier trial) is no run
                runs.append(Run(f"hotpotqa/{short}/t{block['trial']}/{block['k']}", "hotpotqa", path, index))
    return runs


def _hotpot_document(run: Run) -> list[dict]:
    """The run as OpenAI chat messages: the prompt that declares the actions, the question (with any
    reflections, as recorded), then per step the model's `Thought n` / `Action n` and the harness's
    `Observation n`. Nothing more: the log records no tool-call structure."""
    block = raw_record(run)
    messages = [{"role": "system", "content": _HOTPOT_SYSTEM},
                {"role": "user", "content": f"Question: {block['question']}"}]
    for step in block["steps"]:
        reply = [f"{kind.capitalize()} {step['n']}: {step[kind]}" for kind in ("thought", "action")
                 if step[kind] is not None]
        if reply:
            messages.append({"role": "assistant", "content": "\n".join(reply)})
        if step["observation"] is not None:
            messages.append({"role": "user", "content": f"Observation {step['n']}: {step['observation']}"})
    return messages


def _hotpot_lines(run: Run, width: int) -> Iterator[str]:
    block = raw_record(run)
    yield f"    QUESTION {_short(block['question'], width)}"
    for step in block["steps"]:
        n = step["n"]
        yield f"{n:>3} THINK {_short(step['thought'] or '', width)}"
        yield f"{n:>3} ACT   [{_digest(step['action'])}] {_short(step['action'] or '', width)}"
        if step["observation"] is not None:
            yield f"{n:>3} OBS   [{_digest(step['observation'])}] {_short(step['observation'], width)}"
    yield f"    (correct answer: {block['answer']})"


# -- ReAct on WebShop (the ReAct notebook's printed output) -----------------------------------------
_WEBSHOP = "react-webshop"
_EPISODE = re.compile(r"^-----------------\n(\d+)\n", re.M)


@lru_cache(maxsize=1)
def _webshop_notebook() -> tuple[str, tuple[tuple[tuple[str, str], ...], ...]]:
    """(the few-shot prompt the agent was given, each episode's (action, observation) pairs):
    cell 4 holds `prompt1`, cell 7 prints `run_episodes(prompt1, 500)`."""
    notebook = _json(SHARED / _WEBSHOP / "WebShop.ipynb")
    source = "".join(notebook["cells"][4]["source"])
    prompt = source.split('prompt1 = """', 1)[1].split('"""', 1)[0]
    text = "".join("".join(out.get("text", "")) for out in notebook["cells"][7]["outputs"]
                   if out.get("name") == "stdout")
    starts = list(_EPISODE.finditer(text))
    episodes = []
    for i, start in enumerate(starts):
        body = text[start.end(): starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        body = re.split(r"^\d+ [\d.]+ [\d.]+ [\d.]+\n-------------", body, maxsplit=1, flags=re.M)[0]
        pairs = []
        for chunk in re.split(r"^(?=Action: )", body, flags=re.M):
            if not chunk.startswith("Action: "):
                continue
            action, _, rest = chunk.partition("\n")
            observation = rest[len("Observation:"):] if rest.startswith("Observation:") else rest
            pairs.append((action[len("Action: "):], observation.strip()))
        episodes.append(tuple(pairs))
    return prompt, tuple(episodes)


def _webshop_runs() -> list[Run]:
    path = SHARED / _WEBSHOP / "WebShop.ipynb"
    return [Run(f"webshop/{i}", "webshop", path, i) for i in range(len(_webshop_notebook()[1]))]


def _webshop_document(run: Run) -> list[dict]:
    """The run as OpenAI chat messages: the few-shot prompt the notebook gives the model, the
    page after `reset`, then per action the model's `Action: ...` and the harness's
    `Observation: ...` (the harness answers a `think[...]` with "OK.")."""
    prompt, episodes = _webshop_notebook()
    pairs = episodes[run.record]
    messages = [{"role": "system", "content": prompt}]
    for n, (action, observation) in enumerate(pairs):
        if n:  # action 0 is the harness's reset: its page is the task
            messages.append({"role": "assistant", "content": f"Action: {action}"})
            messages.append({"role": "user", "content": f"Observation: {observation}"})
        else:
            messages.append({"role": "user", "content": observation})
    return messages


def _webshop_lines(run: Run, width: int) -> Iterator[str]:
    for n, (action, observation) in enumerate(raw_record(run)):
        yield f"{n:>3} ACT   [{_digest(action)}] {_short(action, width)}"
        yield f"{n:>3} OBS   [{_digest(observation)}] {_short(observation, width)}"


# -- mini-swe-agent with Gemini 3 Pro -------------------------------------------------------------
_MINISWE = "mini-swe-agent-gemini3-pro"


def _miniswe_runs() -> list[Run]:
    paths = sorted((SHARED / _MINISWE).glob("*.traj.json"))
    return [Run(f"miniswe/{p.name[: -len('.traj.json')]}", "miniswe", p, 0) for p in paths]


def _miniswe_lines(run: Run, width: int) -> Iterator[str]:
    record = raw_record(run)
    yield f"    (exit: {(record.get('info') or {}).get('exit_status')})"
    reply = 0
    for n, m in enumerate(record.get("messages") or []):
        role = str(m.get("role"))
        if role == "assistant":
            reply += 1
            yield f"{n:>3} A{reply:<4} [{_digest(m.get('content'))}] {_short(m.get('content'), width)}"
        else:
            yield f"{n:>3} {role.upper()[:5]:<5} [{_digest(m.get('content'))}] {_short(m.get('content'), width)}"


def _coding_runs() -> list[Run]:
    return [Run(f"coding/{family}/{path.stem}", "coding", path, 0)
            for family in CODING_FAMILIES if (CODING / family).is_dir()
            for path in sorted((CODING / family).iterdir()) if path.is_file()]


def _coding_lines(run: Run, width: int) -> Iterator[str]:
    from . import _coding_view

    yield from _coding_view.lines(run.path)


def _service_records(path: Path) -> list:
    """The runs a file holds: a tau-bench result list, a tau2-bench record's simulations, or one run."""
    data = _json(path)
    if isinstance(data, dict) and "simulations" in data:
        return data["simulations"]
    return data if isinstance(data, list) else [data]


def _service_runs() -> list[Run]:
    runs = []
    for folder in SERVICE_FOLDERS:
        paths = sorted((SERVICE / folder).glob("*.json")) if (SERVICE / folder).is_dir() else []
        for path in paths:
            records = _service_records(path)
            whole = isinstance(_json(path), dict) and "simulations" not in _json(path)
            for i in range(len(records)):
                runs.append(Run(f"service/{folder}/{path.name}" + ("" if whole else f"#{i}"), "service", path, i))
    return runs


def _service_lines(run: Run, width: int) -> Iterator[str]:
    # tau-bench keeps the conversation under "traj", tau2-bench under "messages"
    yield from (_tau_lines if "traj" in raw_record(run) else _tau2_lines)(run, width)


SOURCES: dict[str, Source] = {
    "swe": Source("swe", _SWE, "SWE-agent on SWE-bench-java (deepseek-coder-v2, gpt-4o-mini)", _swe_runs, _swe_lines),
    "tau": Source("tau", _TAU, "tau-bench airline, gpt-4o", _tau_runs, _tau_lines),
    "ctf": Source("ctf", _CTF, "InterCode-CTF, GPT-4 in bash", _ctf_runs, _ctf_lines),
    "tau2": Source("tau2", _TAU2, "tau2-bench telecom, gpt-4.1 and its SFT", _tau2_runs, _tau2_lines),
    "m1": Source("m1", _M1, "Who&When Magentic-One logs", _m1_runs, _m1_lines),
    "mint": Source("mint", _MINT, "MINT ALFWorld, gpt-4 writing Python tool calls", _mint_runs, _mint_lines),
    "hotpotqa": Source("hotpotqa", _HOTPOT, "ReAct on HotpotQA (Reflexion logs, text)", _hotpot_runs, _hotpot_lines,
                       document=_hotpot_document, shared_labels="labels.json"),
    "webshop": Source("webshop", _WEBSHOP, "ReAct on WebShop (notebook output, text)", _webshop_runs,
                      _webshop_lines, document=_webshop_document, shared_labels="labels.json"),
    "miniswe": Source("miniswe", _MINISWE, "mini-swe-agent, Gemini 3 Pro, SWE-bench Verified", _miniswe_runs,
                      _miniswe_lines, shared_labels="labels.json"),
    "coding": Source("coding", ".", "coding agents' own recordings (OpenHands, Gemini CLI, Claude Code, Codex)",
                     _coding_runs, _coding_lines, root=CODING),
    "service": Source("service", ".", "customer-service agents' own recordings (tau-bench, tau2-bench; Qwen3-4B, "
                      "gpt-4o, grok-3)", _service_runs, _service_lines, root=SERVICE),
}


@lru_cache(maxsize=None)
def runs(source: str) -> tuple[Run, ...]:
    """Every run of a source (empty when its folder is absent)."""
    spec = SOURCES[source]
    return tuple(spec.runs()) if spec.available else ()


def run_by_id(run_id: str) -> Run:
    source = run_id.split("/", 1)[0]
    for run in runs(source) if source in SOURCES else ():
        if run.id == run_id:
            return run
    raise KeyError(run_id)


def design_half(source: str) -> frozenset[str]:
    """The run ids of a source's design half: a seeded shuffle of its ids, first half.

    Rules are tuned on this half only; the other half is held out and reported apart.
    """
    ids = sorted(run.id for run in runs(source))
    random.Random(f"{SPLIT_SEED}/{source}").shuffle(ids)
    return frozenset(ids[: (len(ids) + 1) // 2])


def half_of(run_id: str) -> str:
    return "design" if run_id in design_half(run_id.split("/", 1)[0]) else "held-out"


def labels(source: Optional[str] = None) -> list[dict[str, str]]:
    """Rows of `labels/<source>.csv` (run, label, steps, reason, labeller), every source when None."""
    rows: list[dict[str, str]] = []
    for name in ([source] if source else list(SOURCES)):
        spec = SOURCES[name]
        if spec.shared_labels is not None:
            if spec.available:
                rows.extend(_shared_label_rows(spec))
            continue
        path = LABELS / f"{name}.csv"
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as handle:
                rows.extend(csv.DictReader(handle))
    return rows


_SHARED_LABELS = {"loop": "loop", "clean": "no_loop", "unsure": "unsure"}


def _shared_label_rows(spec: Source) -> list[dict[str, str]]:
    """An independent reader's `labels.json` rows ({id, label, pattern, steps, confidence}) in the
    columns of `labels/<source>.csv`: `clean` is `no_loop`."""
    rows = []
    for item in _json(SHARED / spec.folder / str(spec.shared_labels)):
        rows.append({"run": f"{spec.name}/{item['id']}", "label": _SHARED_LABELS[item["label"]],
                     "steps": item.get("steps") or "",
                     "reason": f"{item.get('pattern') or '(no pattern)'} (confidence {item.get('confidence')})",
                     "labeller": "independent"})
    return rows


def read_runs(members: list[Run]) -> Iterator[tuple[Run, Any]]:
    """(run, the `LoadedTrace` of it, or None when its file holds no such record), read the way
    the command line reads a file: `load_traces` once per file; a run of a text source from a
    file holding its `document`."""
    import tempfile

    from loopmetric import load_traces

    by_path: dict[Path, list[Run]] = {}
    for run in members:
        if SOURCES[run.source].document is None:
            by_path.setdefault(run.path, []).append(run)
    for path, group in by_path.items():
        loaded = list(load_traces(str(path)))
        for run in group:
            yield run, loaded[run.record] if run.record < len(loaded) else None
    with tempfile.TemporaryDirectory() as folder:
        for run in members:
            document = SOURCES[run.source].document
            if document is not None:
                path = Path(folder) / (run.id.replace("/", "_") + ".json")
                path.write_text(json.dumps(document(run), ensure_ascii=False), encoding="utf-8")
                loaded = list(load_traces(str(path)))
                yield run, loaded[0] if loaded else None


def show(run_id: str, *, width: int = 240, out: Any = sys.stdout) -> None:
    run = run_by_id(run_id)
    print(f"=== {run.id}  ({run.path.name}, record {run.record}; {half_of(run.id)} half)", file=out)
    for line in SOURCES[run.source].lines(run, width):
        print(line, file=out)


def main(argv: Optional[list[str]] = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not SHARED.is_dir():
        print(f"{SHARED} is not present; nothing to do.")
        return
    command, rest = (argv[0], argv[1:]) if argv else ("", [])
    if "--help" in argv or "-h" in argv:
        command = ""
    unknown = [name for name in rest if command in ("list", "split") and name not in SOURCES]
    if unknown:
        sys.exit(f"no source {unknown[0]!r}; the sources: {', '.join(SOURCES)}")
    if command == "list":
        for name in rest or list(SOURCES):
            print("\n".join(run.id for run in runs(name)))
    elif command == "split":
        for name in rest or list(SOURCES):
            for run in runs(name):
                print(run.id, half_of(run.id))
    elif command == "show":
        full = "--full" in rest
        for run_id in (r for r in rest if r != "--full"):
            try:
                show(run_id, width=0 if full else 240)
            except KeyError:
                sys.exit(f"no run {run_id!r}: `python -m benchmarks.real_runs list SOURCE` lists a source's run ids "
                         f"(sources: {', '.join(SOURCES)})")
    else:
        print(__doc__)


if __name__ == "__main__":
    main()
