"""What each install gives: the core (pydantic and rapidfuzz) runs the engine,
the readers and the command line; each extra adds one frontend and says so
when missing; the `test` extra holds every other extra; the licence matches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
EXAMPLES = ROOT / "examples"

# Modules an extra brings, blocked as if never installed (None in sys.modules).
WITHOUT_EXTRAS = ("import sys\nfor m in ('deepeval', 'rich', 'matplotlib', 'pydantic_ai', 'mlflow', 'pydantic_evals', "
                  "'inspect_ai', 'opentelemetry'): sys.modules[m] = None\n")


def run_core(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS + code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def _names(requirements: list[str]) -> set[str]:
    return {r.split(";")[0].split(">")[0].split("=")[0].split("[")[0].strip().lower() for r in requirements}


def test_core_dependencies_are_pydantic_and_rapidfuzz():
    unconditional = [r for r in PYPROJECT["dependencies"] if ";" not in r]
    assert _names(unconditional) == {"pydantic", "rapidfuzz"}
    # and tomli where the standard library has no tomllib (the hooks' config file)
    assert [r for r in PYPROJECT["dependencies"] if ";" in r] == ["tomli>=1.1; python_version<'3.11'"]


def test_test_extra_holds_every_other_extra():
    extras = PYPROJECT["optional-dependencies"]
    own = next(r for r in extras["test"] if r.startswith("loopmetric["))
    held = set(own[own.index("[") + 1:own.index("]")].split(","))
    assert held == set(extras) - {"test"}


def test_licence_file_matches_pyproject():
    assert PYPROJECT["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


CORE_USES = {
    "engine": ("from loopmetric import detect_loops\n"
               "print(detect_loops({'type': 'agent', 'name': 'a', 'children': []}).success)"),
    "readers": ("from loopmetric import load_traces\n"
                f"print(len([t for t in load_traces({str(EXAMPLES / 'sweagent_run.traj')!r}) if t.trace]))"),
    "score": ("from loopmetric.cli import main\n"
              f"code = main(['score', {str(EXAMPLES / 'looping_agent.json')!r}, "
              f"{str(EXAMPLES / 'healthy_agent.json')!r}])\nprint('exit', code)"),
    "explain": ("from loopmetric.cli import main\n"
                f"print('exit', main(['explain', {str(EXAMPLES / 'looping_agent.json')!r}]))"),
    # the guard's core and the coding agents' hooks (no pydantic-ai needed)
    "guard core": ("from loopmetric.guard.core import LoopGuard\n"
                   "guard = LoopGuard(repeated_call_threshold=2)\n"
                   "print([guard.before_call('t', {}).action for _ in range(2)])"),
    "hooks": ("import io\nfrom loopmetric.hooks import Session, HookSettings\n"
              "session = Session(HookSettings())\n"
              "print([session.before('Bash', {'c': 1}, str(n)).action + '/' + "
              "session.after('Bash', 'no', str(n), error=True).action for n in range(3)])"),
}
CORE_PRINTS = {
    "engine": "True",
    "readers": "1",
    "score": "FAIL",
    "explain": "score 0.00 (FAIL)",
    "guard core": "['allow', 'nudge']",
    "hooks": "['allow/allow', 'allow/allow', 'allow/nudge']",
}


@pytest.mark.parametrize("use", CORE_USES, ids=CORE_USES.keys())
def test_core_works_without_any_extra(use):
    done = run_core(CORE_USES[use])
    assert done.returncode == 0, done.stderr
    assert CORE_PRINTS[use] in done.stdout, done.stdout
    assert "[red]" not in done.stdout and "\x1b[" not in done.stdout


EXTRA_MISSING = {
    "deepeval": ("from loopmetric import AgentLoopDetectionMetric",
                 'AgentLoopDetectionMetric needs deepeval, which is not installed: pip install "loopmetric[deepeval]"'),
    "pydantic-ai": ("from loopmetric.guard import DetectLoops",
                    'loopmetric.guard needs pydantic-ai: pip install "loopmetric[pydantic-ai]"'),
    # -- evaluation frameworks --
    "pydantic-evals": ("import loopmetric.integrations.pydantic_evals",
                       'loopmetric.integrations.pydantic_evals needs pydantic-evals: '
                       'pip install "loopmetric[pydantic-evals]"'),
    "inspect": ("import loopmetric.integrations.inspect_ai",
                'loopmetric.integrations.inspect_ai needs Inspect AI: pip install "loopmetric[inspect]"'),
    # -- the span processor --
    "otel": ("import loopmetric.otel",
             'loopmetric.otel needs the OpenTelemetry SDK: pip install "loopmetric[otel]"'),
}


@pytest.mark.parametrize("extra", EXTRA_MISSING, ids=EXTRA_MISSING.keys())
def test_a_missing_extra_is_an_import_error_naming_it(extra):
    statement, message = EXTRA_MISSING[extra]
    done = run_core(f"try:\n    {statement}\nexcept ImportError as error:\n    print(error)\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(message), done.stdout
