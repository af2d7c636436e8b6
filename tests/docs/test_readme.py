"""The README and the docs cannot drift from the code: the settings table and the API reference
name every field of the dataclasses they describe; the architecture tree names every module; the
README's first screen holds exactly two commands and one example, and it is at most 200 lines.
(Every block of the README and the docs runs in tests/docs/test_docs_blocks.py.)"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from loopmetric import Finding, LoadedTrace, LoopReport, LoopSettings, detect_loops

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SCORING = (ROOT / "docs" / "scoring.md").read_text(encoding="utf-8")
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_first_screen_is_two_commands_and_one_example():
    first = README[:README.index("\n---\n")]
    languages = [m.group(1) for m in FENCE.finditer(first)]
    assert languages == ["bash", "bash", "python"]
    install, tests = [m.group(2).strip() for m in FENCE.finditer(first)][:2]
    assert install.startswith("pip install -e . && loopmetric score examples/")  # the core: what the CLI needs
    assert tests == 'pip install -e ".[test]" && python -m pytest -n 2 --dist loadgroup'


def _settings_table() -> dict[str, str]:
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", _section(SCORING, "Settings"), re.M)
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
                                                                              "verbose_mode", "flaky"}
    assert {f.name for f in dataclasses.fields(LoopSettings)} <= arguments


@pytest.mark.parametrize("cls", [LoopReport, Finding, LoadedTrace], ids=lambda c: c.__name__)
def test_api_reference_names_every_field(cls):
    reference = API
    entry = reference[reference.index(f"**`{cls.__name__}`**"):]
    entry = entry[:entry.find("\n\n**`", 1) if "\n\n**`" in entry[1:] else None]
    public = {f.name for f in dataclasses.fields(cls)} | {
        name for name, value in vars(cls).items() if isinstance(value, property) or name == "to_dict"}
    missing = sorted(name for name in public if f"`{name}`" not in entry and f"`{name}()`" not in entry)
    assert missing == []


def test_api_reference_names_every_pattern():
    from typing import get_args

    from loopmetric._findings import Pattern

    entry = API
    assert [p for p in get_args(Pattern) if f"`{p}`" not in entry] == []


def _architecture_tree() -> set[str]:
    """The module paths the README's architecture tree names (folders by indentation; a line
    indented deeper than its folder's entries but with no name of its own continues a comment)."""
    block = ARCHITECTURE.split("```")[1]
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


def test_readme_is_one_screen_or_two():
    assert README.count("\n") <= 200
