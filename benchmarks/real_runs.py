"""The real recorded runs of `../shared/trajectories`: sources, run ids, the split, a viewer.

    python -m benchmarks.real_runs list SOURCE           # run ids of a source, in order
    python -m benchmarks.real_runs split SOURCE          # design / held-out half of each run id
    python -m benchmarks.real_runs show RUN [RUN...]     # a run's steps, numbered, for labelling
    python -m benchmarks.real_runs show RUN --full       # the same without shortening

The viewer reads the raw files itself (never loopmetric), so a label cannot be
steered by what loopmetric says. Step numbers are the source's own: SWE-agent
trajectory index, chat message index (tau-bench, tau2-bench, MINT), InterCode
turn, Magentic-One history index. Labels live in `labels/<source>.csv`
(rubric: `labels/README.md`). The data stays in `../shared`.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "trajectories"
LABELS = Path(__file__).resolve().parent / "labels"
SPLIT_SEED = 20261201  # fixed: the design / held-out halves never change
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

    @property
    def available(self) -> bool:
        return (SHARED / self.folder).is_dir()


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


SOURCES: dict[str, Source] = {
    "swe": Source("swe", _SWE, "SWE-agent on SWE-bench-java (deepseek-coder-v2, gpt-4o-mini)", _swe_runs, _swe_lines),
    "tau": Source("tau", _TAU, "tau-bench airline, gpt-4o", _tau_runs, _tau_lines),
    "ctf": Source("ctf", _CTF, "InterCode-CTF, GPT-4 in bash", _ctf_runs, _ctf_lines),
    "tau2": Source("tau2", _TAU2, "tau2-bench telecom, gpt-4.1 and its SFT", _tau2_runs, _tau2_lines),
    "m1": Source("m1", _M1, "Who&When Magentic-One logs", _m1_runs, _m1_lines),
    "mint": Source("mint", _MINT, "MINT ALFWorld, gpt-4 writing Python tool calls", _mint_runs, _mint_lines),
}


@lru_cache(maxsize=None)
def runs(source: str) -> tuple[Run, ...]:
    """Every run of a source (empty when its folder is absent)."""
    spec = SOURCES[source]
    return tuple(spec.runs()) if spec.available else ()


def run_by_id(run_id: str) -> Run:
    source = run_id.split("/", 1)[0]
    for run in runs(source):
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
        path = LABELS / f"{name}.csv"
        if path.is_file():
            with path.open(newline="", encoding="utf-8") as handle:
                rows.extend(csv.DictReader(handle))
    return rows


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
            show(run_id, width=0 if full else 240)
    else:
        print(__doc__)


if __name__ == "__main__":
    main()
