"""Install sizes: the core and each extra, each in a fresh venv.

    python -m benchmarks.install_sizes [core langchain ... test]    # writes results/install_sizes.md

For each name: a new venv, `pip install` of a snapshot of HEAD (`git archive`,
so an edit in progress is never installed) with that extra, then the size of
its `site-packages` (`du -sm`). Slow: it downloads every package.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
import venv
from io import BytesIO
from pathlib import Path
from typing import Optional

from ._common import markdown_table, parser

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("core", "langchain", "openai-agents", "smolagents", "semantic", "report", "test")


def size_mb(extra: str, snapshot: Path, folder: Path) -> tuple[int, bool]:
    """MB of site-packages after installing `snapshot` with `extra` into a new venv in `folder`."""
    venv.create(folder, with_pip=True)
    spec = str(snapshot) if extra == "core" else f"{snapshot}[{extra}]"
    done = subprocess.run([str(folder / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", spec],
                          capture_output=True, text=True)
    site = next(folder.glob("lib/python3*/site-packages"))
    du = subprocess.run(["du", "-sm", str(site)], capture_output=True, text=True, check=True)
    return int(du.stdout.split()[0]), done.returncode == 0


def main(argv: Optional[list[str]] = None) -> str:
    p = parser("Install size of the core and of each extra.")
    p.add_argument("extras", nargs="*", default=list(EXTRAS))
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        snapshot = Path(tmp) / "snap"
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(snapshot)  # noqa: S202 - our own repository's archive
        for extra in ["core"] if args.smoke else args.extras:
            mb, ok = size_mb(extra, snapshot, Path(tmp) / f"venv-{extra}")
            rows.append([extra, f"{mb} MB" + ("" if ok else " (pip failed)")])
            print(*rows[-1], flush=True)
    text = ("# Install sizes\n\n`du -sm` of `site-packages` in a fresh venv after `pip install` of a snapshot of "
            f"HEAD (Python {sys.version_info.major}.{sys.version_info.minor}), one venv per line. Command: "
            "`python -m benchmarks.install_sizes`.\n\n" + markdown_table(["install", "site-packages"], rows) + "\n")
    if not args.smoke:
        (args.out / "install_sizes.md").write_text(text)
    return text


if __name__ == "__main__":  # pragma: no cover
    main()
