"""Ready to publish: `python -m build` makes a wheel and an sdist of a clean copy of the
repository, `twine check` passes them, and the wheel installed alone in a fresh venv (not this
environment's packages) runs the first command of the README on the bundled examples.

Building and installing fetch setuptools, pydantic and rapidfuzz from the package index (an isolated
build, a real install); without it the test skips."""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

pytest.importorskip("build")
pytest.importorskip("twine")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (ROOT / name).is_file():  # a clean copy: only what git tracks, so nothing is built into the clone
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], capture_output=True,
                          text=True, timeout=900)
    if done.returncode != 0 and "Could not" in done.stdout + done.stderr:
        pytest.skip("the package index cannot be reached: " + done.stderr[-300:])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out


def test_build_makes_a_wheel_and_an_sdist_that_twine_passes(dist):
    from loopmetric import __version__

    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"loopmetric-{__version__}-py3-none-any.whl", f"loopmetric-{__version__}.tar.gz"]
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.count("PASSED") == 2, done.stdout + done.stderr


def test_the_wheel_in_a_fresh_venv_runs_the_first_command(dist, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)  # no --system-site-packages: only what the wheel brings
    python = env_dir / "bin" / "python"
    [wheel] = dist.glob("*.whl")
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    first = subprocess.run([str(env_dir / "bin" / "loopmetric"), "score", "examples/looping_agent.json",
                            "examples/healthy_agent.json"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1].startswith("2 traces, 1 failed; patterns: repeated_call 1, repeated_text 1")
    where = subprocess.run([str(python), "-c", "import loopmetric; print(loopmetric.__file__)"], capture_output=True,
                           text=True, cwd=tmp_path, timeout=120)
    assert where.stdout.startswith(str(env_dir)), where.stdout  # the installed wheel, not this checkout
    helped = subprocess.run([str(env_dir / "bin" / "loopmetric"), "guard-replay", "--help"], capture_output=True,
                            text=True, cwd=tmp_path, timeout=120)
    assert helped.returncode == 0 and "loopmetric[pydantic-ai]" in helped.stdout  # the core install: no pydantic-ai
