"""The documentation as the tests read it: the README and every page of docs/ (the MkDocs site)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES: dict[str, str] = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8")} | {
    str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md"))}
ALL = "\n".join(PAGES.values())  # every page, for claims that may sit on any of them


def page(name: str) -> str:
    """One page's text, by its path in the repository (`README.md`, `docs/cli.md`)."""
    return PAGES[name]
