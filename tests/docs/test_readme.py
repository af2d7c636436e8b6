"""The README cannot drift from the code: every Python block in it runs offline as
pasted (from the root of a clone) and prints what its `# prints:` lines say; the
settings table and the API reference name every field of the dataclasses they
describe; the first screen holds exactly two commands and one example."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from loopmetric import Finding, LoadedTrace, LoopReport, LoopSettings, detect_loops

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _blocks(language: str) -> dict[str, str]:
    """Code blocks of one language, keyed by the section they are in and their place."""
    found: dict[str, str] = {}
    for match in FENCE.finditer(README):
        if match.group(1) != language:
            continue
        heading = re.findall(r"^## (.+)$", README[:match.start()], re.M)
        section = heading[-1] if heading else "first screen"
        number = sum(1 for key in found if key.startswith(section)) + 1
        found[f"{section} #{number}"] = match.group(2)
    return found


PYTHON = _blocks("python")
EXTRAS = {"deepeval": "deepeval", "pydantic_ai": "pydantic_ai", "loopmetric.guard": "pydantic_ai",
          "loopmetric.plot": "matplotlib", "loopmetric.integrations.mlflow": "mlflow.genai",
          "langchain": "langchain.agents", "agents": "agents", "smolagents": "smolagents",  # the guard's adapters
          "pydantic_evals": "pydantic_evals", "logfire": "logfire", "inspect_ai": "inspect_ai"}  # issue 22


def expected_lines(code: str) -> list[str]:
    return [line.split("# prints:", 1)[1].strip() for line in code.splitlines() if "# prints:" in line]


def test_every_python_block_says_what_it_prints():
    assert PYTHON and all(expected_lines(code) for code in PYTHON.values()), \
        [name for name, code in PYTHON.items() if not expected_lines(code)]


@pytest.mark.parametrize("code", PYTHON.values(), ids=PYTHON.keys())
def test_python_block_runs_as_pasted(code, tmp_path):
    for module, package in EXTRAS.items():
        if re.search(rf"^\s*(from|import) {re.escape(module)}\b", code, re.M):
            pytest.importorskip(package)
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # the block runs from a clone's root
    env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "NO_COLOR": "1", "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    printed = [line.strip() for line in done.stdout.splitlines()]
    position = 0
    for expected in expected_lines(code):  # each in order, within one printed line
        matches = [i for i in range(position, len(printed)) if expected in printed[i]]
        assert matches, f"{expected!r} not printed after line {position}:\n{done.stdout[-3000:]}"
        position = matches[0] + 1


def test_first_screen_is_two_commands_and_one_example():
    first = README[:README.index("\n---\n")]
    languages = [m.group(1) for m in FENCE.finditer(first)]
    assert languages == ["bash", "bash", "python"]
    install, tests = [m.group(2).strip() for m in FENCE.finditer(first)][:2]
    assert install.startswith("pip install -e . && loopmetric score examples/")  # the core: what the CLI needs
    assert tests == 'pip install -e ".[test]" && python -m pytest -n 2 --dist loadfile'


def _settings_table() -> dict[str, str]:
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", _section(README, "Settings"), re.M)
    return {name: default.strip() for name, default in rows}


def test_settings_table_is_every_loop_setting_with_its_default():
    table = _settings_table()
    fields = {f.name: f.default for f in dataclasses.fields(LoopSettings)}
    assert list(table) == list(fields)
    assert {name: str(value) if not isinstance(value, str) else f'"{value}"' for name, value in fields.items()} \
        == table


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(LoopSettings)])
def test_every_setting_is_a_keyword_of_detect_loops(name):
    trace = {"type": "agent", "name": "a", "children": [{"type": "tool", "name": "t", "input": {}, "output": "x"}]}
    default = getattr(LoopSettings(), name)
    assert detect_loops(trace, **{name: default}).success


def test_every_setting_is_an_argument_of_the_metric():
    pytest.importorskip("deepeval")
    import inspect

    from loopmetric import AgentLoopDetectionMetric

    arguments = set(inspect.signature(AgentLoopDetectionMetric).parameters)
    assert arguments - {f.name for f in dataclasses.fields(LoopSettings)} == {"include_reason", "async_mode", "settings",
                                                                              "repetition_threshold",
                                                                              "verbose_mode"}
    assert {f.name for f in dataclasses.fields(LoopSettings)} <= arguments


@pytest.mark.parametrize("cls", [LoopReport, Finding, LoadedTrace], ids=lambda c: c.__name__)
def test_api_reference_names_every_field(cls):
    reference = _section(README, "API reference")
    entry = reference[reference.index(f"**`{cls.__name__}`**"):]
    entry = entry[:entry.find("\n\n**`", 1) if "\n\n**`" in entry[1:] else None]
    public = {f.name for f in dataclasses.fields(cls)} | {
        name for name, value in vars(cls).items() if isinstance(value, property) or name == "to_dict"}
    missing = sorted(name for name in public if f"`{name}`" not in entry and f"`{name}()`" not in entry)
    assert missing == []


def test_api_reference_names_every_pattern():
    from typing import get_args

    from loopmetric._findings import Pattern

    entry = _section(README, "API reference")
    assert [p for p in get_args(Pattern) if f"`{p}`" not in entry] == []


def _architecture_tree() -> set[str]:
    """The module paths the README's architecture tree names (folders by indentation; a line
    indented deeper than its folder's entries but with no name of its own continues a comment)."""
    block = _section(README, "Architecture").split("```")[1]
    folders: list[tuple[int, str]] = []
    named: set[str] = set()
    for line in block.splitlines()[1:]:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        first = line.split()[0]
        while folders and folders[-1][0] >= indent:
            folders.pop()
        if first.endswith("/"):
            folders.append((indent, first))
            named.add("".join(folder for _, folder in folders) + "__init__.py")  # a folder is a package
        if not folders:  # a continuation line of a comment
            continue
        where = "".join(folder for _, folder in folders)
        for module in re.findall(r"(?<![\w.])(_{0,2}\w+\.py)\b", line):
            named.add(where + module)
    return named


def test_architecture_tree_names_every_module_and_only_real_ones():
    package = {str(path.relative_to(ROOT)) for path in (ROOT / "loopmetric").rglob("*.py")}
    named = _architecture_tree()
    assert named - package == set(), "the README names modules that do not exist"
    assert package - named == set(), "modules missing from the README's architecture tree"


# -- bash blocks: every `loopmetric` line on the example files runs as pasted (issue 21) ----------
def _bash_commands() -> list[tuple[str, str, list[str], int]]:
    """(block id, command, the `# prints:` lines after it, the exit code its comment says) of each
    `loopmetric` line of a bash block that reads `examples/` (Spark's lines run in tests/spark)."""
    found = []
    for block, code in _blocks("bash").items():
        lines = code.splitlines()
        for number, line in enumerate(lines):
            command = line.split("&&")[-1].strip()
            if not command.startswith("loopmetric ") or "examples" not in command or command.startswith(
                    "loopmetric spark"):
                continue
            prints = []
            for after in lines[number + 1:]:
                if not after.startswith("# prints:"):
                    break
                prints.append(after.split("# prints:", 1)[1].strip())
            said = re.search(r"exits (\d)", command.partition("#")[2])
            found.append((block, command, prints, int(said.group(1)) if said else 0))
    return found


BASH = _bash_commands()


def test_bash_blocks_use_example_paths():
    """Each `loopmetric` command line of the README runs on files of `examples/`, not placeholders."""
    lines = [line.split("&&")[-1].strip() for code in _blocks("bash").values() for line in code.splitlines()]
    commands = [line for line in lines if line.startswith("loopmetric ") and line != "loopmetric --version"]
    assert len(BASH) >= 8 and [c for c in commands if "examples" not in c.partition("#")[0]] == []


@pytest.mark.parametrize(("command", "prints", "code"), [(c, p, e) for _, c, p, e in BASH],
                         ids=[f"{b}:{c.split('#')[0].strip()[:60]}" for b, c, _, _ in BASH])
def test_bash_command_runs_as_pasted(command, prints, code):
    bindir = Path(sys.executable).parent  # the `loopmetric` of this interpreter's environment
    env = {**os.environ, "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "NO_COLOR": "1",
           "PATH": os.pathsep.join([str(bindir), os.environ.get("PATH", "")]),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    shell = command.replace("loopmetric ", f"{sys.executable} -m loopmetric.cli ", 1)
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == code, done.stderr[-2000:]
    assert done.stdout.strip(), "printed nothing"
    printed = done.stdout.splitlines()
    for expected in prints:
        assert any(expected in line for line in printed), f"{expected!r} not printed:\n{done.stdout[-2000:]}"
