"""The documentation site builds offline with `mkdocs build --strict` (a broken link, a page left
out of the build or a docstring mkdocstrings cannot read fails it), and its first page is the README."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("material")
pytest.importorskip("mkdocstrings")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_every_docs_page_is_in_the_site(site):
    pages = {path.stem for path in (ROOT / "docs").glob("*.md")}
    assert [page for page in pages if not (site / page / "index.html").is_file()] == []


@pytest.mark.parametrize(("page", "expected"), [
    pytest.param("index.html", "loopmetric tells when an LLM agent got stuck.", id="readme-is-the-first-page"),
    pytest.param("api/index.html", 'id="loopmetric.detect_loops"', id="api-from-docstrings"),
    pytest.param("results/accuracy/index.html", "Accuracy: loopmetric vs deepeval", id="benchmark-results"),
    pytest.param("changelog/index.html", "Changelog", id="changelog"),
])
def test_site_page_holds(site, page, expected):
    assert expected in (site / page).read_text(encoding="utf-8")


def test_the_site_loads_nothing_from_the_network(site):
    """No web fonts, scripts or styles from another host: the pages open offline."""
    import re

    remote = set()
    for html in site.rglob("*.html"):
        remote |= set(re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', html.read_text("utf-8")))
    assert remote == set()
