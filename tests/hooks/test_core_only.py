"""The hooks run on loopmetric's core alone: no pydantic-ai (`loopmetric.guard` names its
pydantic-ai parts lazily), and `hook install` warns about what the hook would miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.hooks._events import ROOT, failing_call

BLOCK = """
import sys

class Block:
    def find_spec(self, name, path=None, target=None):
        if any(name == m or name.startswith(m + ".") for m in BLOCKED):
            raise ModuleNotFoundError(f"No module named {name!r}")

sys.meta_path.insert(0, Block())
"""


def _blocked(modules, code, *, stdin="", cwd=ROOT, env=None):
    program = f"BLOCKED = {list(modules)!r}\n" + BLOCK + code
    return subprocess.run([sys.executable, "-c", program], input=stdin, capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=60)


HOOK = "from loopmetric.cli import main\nimport sys\ncode = main(['hook', 'claude-code'])\n" \
       "assert 'pydantic_ai' not in sys.modules\nsys.exit(code)\n"


def test_the_hook_nudges_then_refuses_without_pydantic_ai(tmp_path):
    kinds = []
    for found in [e for n in range(1, 8) for e in failing_call(n)]:
        done = _blocked(["pydantic_ai"], HOOK, stdin=json.dumps(found), env={"LOOPMETRIC_HOOK_DIR": str(tmp_path)})
        assert done.returncode == 0 and done.stderr == "", done.stderr
        decision = json.loads(done.stdout) if done.stdout else None
        if decision is None:
            kinds.append("-")
        elif "hookSpecificOutput" in decision and "permissionDecision" in decision["hookSpecificOutput"]:
            kinds.append("deny")
        else:
            kinds.append("nudge")
    assert kinds == ["-", "-", "-", "-", "-", "nudge", "-", "-", "-", "-", "-", "nudge", "deny", "-"]
    assert "failed open" not in (tmp_path / "hook.log").read_text()


def test_the_guard_core_imports_without_pydantic_ai_and_detect_loops_names_the_extra():
    done = _blocked(["pydantic_ai"], """
import sys
import loopmetric.guard
from loopmetric.guard.core import LoopGuard
from loopmetric.hooks import HookSettings, run_hook
guard = LoopGuard(repeated_result_threshold=2)
print([guard.before_call("read", {"p": 1}).action for _ in range(1)], 'pydantic_ai' in sys.modules)
try:
    from loopmetric.guard import DetectLoops
except ImportError as error:
    print("ImportError:", error)
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "['allow'] False", 'ImportError: loopmetric.guard needs pydantic-ai: pip install "loopmetric[pydantic-ai]"']


INSTALL = "from loopmetric.cli import main\nimport sys\nsys.exit(main(['hook', 'install', 'claude-code', *sys.argv[1:]]))\n"


def _install(tmp_path, *args, blocked=("pydantic_ai",)):
    program = f"BLOCKED = {list(blocked)!r}\n" + BLOCK + INSTALL
    return subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)


def test_install_warns_about_nothing_when_the_hook_can_run(tmp_path):
    done = _install(tmp_path, "--command", f"{sys.executable} -m loopmetric")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert json.loads(done.stdout)["hooks"]["PreToolUse"][0]["hooks"][0]["command"].endswith("hook claude-code")


def test_install_warns_when_the_hook_would_fail_open(tmp_path):
    # its command not on PATH
    done = _install(tmp_path, "--command", "no-such-loopmetric-here")
    assert done.returncode == 0 and json.loads(done.stdout)
    assert "warning: `no-such-loopmetric-here` is not on PATH" in done.stderr
    # a module the hook needs missing
    done = _install(tmp_path, "--command", f"{sys.executable} -m loopmetric", blocked=("loopmetric.guard._core",))
    assert done.returncode == 0 and "warning: the hook cannot run in this Python" in done.stderr
    # the TOML parser missing (tomli on Python 3.10): the hook runs while there is no config file to read
    done = _install(tmp_path, "--command", f"{sys.executable} -m loopmetric", blocked=("tomllib", "tomli"))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    (tmp_path / ".loopmetric.toml").write_text("[guard]\naction = \"nudge\"\n")
    done = _install(tmp_path, "--command", f"{sys.executable} -m loopmetric", blocked=("tomllib", "tomli"))
    assert done.returncode == 0 and "warning: the hook cannot read the config file in this Python" in done.stderr
    # a config file with a wrong setting: written anyway, and said
    (tmp_path / ".loopmetric.toml").write_text("[guard]\nwindow = 0\n")
    done = _install(tmp_path, "--command", f"{sys.executable} -m loopmetric", "--write")
    assert done.returncode == 0 and done.stdout.startswith("installed the loopmetric hook")
    assert "warning: the hook would fail open on the config file" in done.stderr and "window" in done.stderr
