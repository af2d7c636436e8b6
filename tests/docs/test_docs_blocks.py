"""Every code block of the README and the docs pages runs as pasted, and prints what the page says.

Each block runs in a scratch folder of its own (the clone's `examples/` linked in, so the paths
read as from a clone's root; nothing is written into the clone), with this checkout on PYTHONPATH:

- `python`: run; its `# prints:` lines must each be printed, in order, each a whole line as printed
  (leading and trailing spaces aside), as the README's are;
- `bash`: each command line runs (`loopmetric` is this checkout's command line); the `# prints:`
  lines after it must be printed, each a whole line, and it exits 0 unless its comment says `exits N`;
- `console`: each `$ command` runs; the lines shown after it (`...`: any lines) are what it
  prints, exactly and in order (stdout then stderr);
- `text`, `yaml`, ...: data, not run.

A block that cannot run here says why in a `<!-- skip: reason -->` line right above it; a block
that goes on from an earlier one of its page says so with `<!-- continues: ... -->` and runs after
it. A block importing an extra's module sits on a page that names the extra (`loopmetric[otel]`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests._docs import PAGES, ROOT, expected_lines, in_order, printed_lines

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
MARKER = re.compile(r"<!-- (skip|continues): ([^>]*) -->\n$")
RUN = ("python", "bash", "console")
DATA = ("text", "yaml", "json", "toml")

# module a block imports -> the extras that install it, as pyproject.toml names them
PYDANTIC_AI = ("pydantic-ai", "pydantic-evals", "langchain", "openai-agents", "smolagents", "otel")
EXTRA_OF = {"deepeval": ("deepeval",), "pydantic_ai": PYDANTIC_AI, "loopmetric.guard": PYDANTIC_AI,
            "loopmetric.guard.langchain": ("langchain",), "langchain": ("langchain",),
            "langchain_core": ("langchain",), "loopmetric.guard.openai_agents": ("openai-agents",),
            "agents": ("openai-agents",), "loopmetric.guard.smolagents": ("smolagents",),
            "smolagents": ("smolagents",), "opentelemetry": ("otel",), "loopmetric.otel": ("otel",),
            "mlflow": ("mlflow",), "loopmetric.integrations.mlflow": ("mlflow",),
            "pydantic_evals": ("pydantic-evals",), "logfire": ("pydantic-evals",),
            "loopmetric.integrations.pydantic_evals": ("pydantic-evals",), "inspect_ai": ("inspect",),
            "loopmetric.integrations.inspect_ai": ("inspect",), "loopmetric.html": ("report",),
            "loopmetric.plot": ("plot",), "matplotlib": ("plot",), "pyspark": ("spark",),
            "loopmetric.spark": ("spark",), "claude_agent_sdk": ("claude-agent-sdk",),
            "loopmetric.hooks.claude_agent_sdk": ("claude-agent-sdk",)}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    skip: str | None  # why it does not run here
    before: str  # code of the earlier blocks it continues, run first

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for name, text in PAGES.items():
        chain: list[str] = []
        for match in FENCE.finditer(text):
            marker = MARKER.search(text[:match.start()])
            kind, why = marker.groups() if marker else (None, None)
            language, code = match.group(1), match.group(2)
            if language == "python" and kind != "continues":
                chain = []
            found.append(Block(name, text[:match.start()].count("\n") + 1, language, code,
                               why if kind == "skip" else None, "".join(chain)))
            if language == "python":
                chain.append(code)
    return found


BLOCKS = blocks()
RUNNABLE = [b for b in BLOCKS if b.language in RUN and b.skip is None]
SKIPPED = [b for b in BLOCKS if b.skip is not None]


def _env() -> dict[str, str]:
    return {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "NO_COLOR": "1", "COLUMNS": "200",
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _scratch(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # read as from a clone's root
    return tmp_path


def _examples_state() -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in (ROOT / "examples").rglob("*")}


# `loopmetric` in a shell block is this checkout's command line, as after `pip install -e .`
SHELL_PRELUDE = f'loopmetric() {{ "{sys.executable}" -m loopmetric.cli "$@"; }}\n'


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", SHELL_PRELUDE + command], capture_output=True, text=True, cwd=cwd,
                          env=_env(), timeout=600)


def shell_commands(code: str) -> list[tuple[str, list[str], int]]:
    """(command, the `# prints:` lines after it, the exit code its comment says) of a bash block."""
    found: list[tuple[str, list[str], int]] = []
    for line in code.replace("\\\n", " ").splitlines():
        if line.startswith("# prints:") and found:
            found[-1][1].append(line.split("# prints:", 1)[1].strip())
        elif line.strip() and not line.lstrip().startswith("#"):
            line = re.sub(r"^pip install .*? && ", "", line)  # the test run has every extra installed
            said = re.search(r"exits (\d)", line.partition(" #")[2])
            found.append((line, [], int(said.group(1)) if said else 0))
    return found


def console_commands(code: str) -> list[tuple[str, list[str]]]:
    """(command, the lines shown after it) of a console block."""
    found: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        elif found:
            found[-1][1].append(line)
    return found


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_block_runs_as_pasted_and_prints_what_the_page_says(block, tmp_path):
    for module in EXTRA_OF:
        if block.language == "python" and re.search(rf"^\s*(from|import) {re.escape(module)}\b", block.code, re.M):
            pytest.importorskip(module)
    cwd = _scratch(tmp_path)
    examples = _examples_state()
    if block.language == "python":
        done = subprocess.run([sys.executable, "-c", block.before + block.code], capture_output=True, text=True,
                              cwd=cwd, env=_env(), timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        missing = in_order(expected_lines(block.code), printed_lines(done.stdout))
        assert missing is None, f"{missing}:\n{done.stdout[-3000:]}"
    elif block.language == "bash":
        for command, prints, code in shell_commands(block.code):
            done = _shell(command, cwd)
            assert done.returncode == code, f"{command}: exit {done.returncode}\n{done.stderr[-2000:]}"
            missing = in_order(prints, printed_lines(done.stdout))
            assert missing is None, f"{command}: {missing}:\n{done.stdout[-3000:]}"
    else:
        for command, shown in console_commands(block.code):
            done = _shell(command, cwd)
            missing = in_order(shown, done.stdout.splitlines() + done.stderr.splitlines())
            assert missing is None, f"{command}: {missing}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
    assert _examples_state() == examples, "the block changed examples/ in the clone"


def test_every_block_is_run_data_or_skipped_with_a_reason():
    unknown = [b.id for b in BLOCKS if b.language not in RUN + DATA]
    assert unknown == [], "a block with no language (or an unknown one): say `text` for output, or what it is"
    assert all(b.skip.strip() for b in SKIPPED)
    assert len(RUNNABLE) >= 30 and len(SKIPPED) <= 12, (len(RUNNABLE), [b.id for b in SKIPPED])


def test_every_block_with_a_printed_line_is_run_and_compared():
    """What a block says it prints is a `# prints:` line (never prose such as `# prints one object`),
    and a block that has one runs here, or where its skip reason says it is compared (Spark's, on the
    suite's shared session in tests/spark/test_spark.py)."""
    assert [b.id for b in BLOCKS if re.search(r"#\s*prints(?!:)", b.code)] == []
    unrun = [b.id for b in SKIPPED if expected_lines(b.code) and not b.skip.endswith("which compares what it prints")]
    assert unrun == []


def test_every_readme_python_block_says_what_it_prints():
    readme = [b for b in RUNNABLE if b.page == "README.md" and b.language == "python"]
    assert readme and all(expected_lines(b.code) for b in readme)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.language == "python"],
                         ids=[b.id for b in BLOCKS if b.language == "python"])
def test_a_block_that_needs_an_extra_is_on_a_page_that_names_it(block):
    page = PAGES[block.page]
    above = page[:page.index(block.code)]
    for module, extras in EXTRA_OF.items():
        if re.search(rf"^\s*(from|import) {re.escape(module)}\b", block.code, re.M):
            named = [e for e in extras if re.search(rf"\[[\w,-]*(?<![\w-]){re.escape(e)}(?![\w-])[\w,-]*\]", above)]
            assert named, f"{block.id} imports {module}: name `loopmetric[{extras[0]}]` above it"


# -- the runner itself ------------------------------------------------------------------------------
@pytest.mark.parametrize(("expected", "printed", "ok"), [
    pytest.param(["a", "b"], ["a", "x", "b"], True, id="in-order"),
    pytest.param(["b", "a"], ["a", "b"], False, id="out-of-order"),
    pytest.param(["a", "...", "c"], ["a", "b", "c"], True, id="ellipsis"),
    pytest.param(["ab"], ["abc"], False, id="the-start-of-a-line-is-not-the-line"),
    pytest.param(["bc"], ["abc"], False, id="the-end-of-a-line-is-not-the-line"),
    pytest.param(["abc"], ["abc"], True, id="twin-the-whole-line"),
    pytest.param(["a  "], ["a"], True, id="trailing-space"),
])
def test_in_order(expected, printed, ok):
    assert (in_order(expected, printed) is None) is ok


@pytest.mark.parametrize(("printed", "prints", "ok"), [
    pytest.param("  healthy 1.0 True\n", "healthy 1.0 True", True, id="indented"),
    pytest.param("» Pass Rate: 50.0%\n", "Pass Rate: 50.0%", False, id="a-prefix-is-part-of-the-line"),
    pytest.param("0.0 no Loop score 0.00. Severe: Tool 'x' called 5 times with identic\n",
                 "0.0 no Loop score 0.00. Severe: Tool 'x' called 5 times", False, id="a-cut-line-is-not-its-start"),
])
def test_every_docs_blocks_printed_lines_compared_as_the_readmes_are(printed, prints, ok):
    """A `# prints:` line is a whole line the block prints, on every page as in the README: the
    start or the middle of a line no longer passes for it."""
    assert (in_order([prints], printed_lines(printed)) is None) is ok


@pytest.mark.parametrize(("code", "expected"), [
    pytest.param("loopmetric score x  # a gate: exits 1\n# prints: 2 traces\n", [("loopmetric score x  # a gate: exits 1", ["2 traces"], 1)], id="exit-and-prints"),
    pytest.param("# a comment\nloopmetric a \\\n  --b\n", [("loopmetric a    --b", [], 0)], id="continued-line"),
])
def test_shell_commands(code, expected):
    assert shell_commands(code) == expected


def test_markers_attach_to_the_block_below():
    text = "x\n<!-- skip: needs a server -->\n```python\nprint(1)\n```\n\n```python\nprint(2)  # prints: 2\n```\n"
    marker = MARKER.search(text[:text.index("```python")])
    assert marker and marker.groups() == ("skip", "needs a server")
    second = text.index("```python", text.index("```python") + 1)
    assert MARKER.search(text[:second]) is None
