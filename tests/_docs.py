"""The documentation as the tests read it: the README and every page of docs/ (the MkDocs site), and
how a block's `# prints:` lines are compared with what it printed (whole lines, in order)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES: dict[str, str] = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")} | {
    str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))}
ALL = "\n".join(PAGES.values())  # every page, for claims that may sit on any of them


def page(name: str) -> str:
    """One page's text, by its path in the repository (`README.md`, `docs/cli.md`)."""
    return PAGES[name]


def expected_lines(code: str) -> list[str]:
    """The `# prints:` lines of a block's code, without the marker."""
    return [line.split("# prints:", 1)[1].strip() for line in code.splitlines() if "# prints:" in line]


def printed_lines(printed: str) -> list[str]:
    """The lines a block printed, as a `# prints:` line says them: without leading or trailing spaces."""
    return [line.strip() for line in printed.splitlines()]


def in_order(expected: list[str], printed: list[str]) -> str | None:
    """None when each expected line is printed, as a whole line (trailing spaces aside), after the one
    before; else what is missing. `...` stands for any lines."""
    position = 0
    for line in expected:
        if line == "...":
            continue
        matches = [i for i in range(position, len(printed)) if printed[i].rstrip() == line.rstrip()]
        if not matches:
            return f"{line!r} not printed after line {position}"
        position = matches[0] + 1
    return None
