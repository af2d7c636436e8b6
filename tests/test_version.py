"""The version is written once (`loopmetric/_version.py`); the package metadata reads it from there."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import loopmetric
from loopmetric._version import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_one_version_everywhere():
    assert loopmetric.__version__ == __version__ == importlib.metadata.version("loopmetric")
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.\w+)?", __version__)


def test_no_other_file_writes_the_version():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and f'version = "{__version__}"' not in pyproject
    written = [str(p.relative_to(ROOT)) for p in (ROOT / "loopmetric").rglob("*.py")
               if re.search(r"^__version__ = ", p.read_text(), re.M)]
    assert written == ["loopmetric/_version.py"]
