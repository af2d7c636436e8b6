"""What a hook event loads beyond `import loopmetric`: it runs as a process on every tool call, so
the command line's parser (argparse) is loaded only when the call has flags to read, and the TOML
parser only when a config file is found. Each row's twin has the flag or the file, and the answer
follows it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from loopmetric.cli._config import CONFIG_FILES
from tests.hooks._events import ROOT, failing_call

# Six events of a failing call made three times: the hook nudges after the third (`test_hook_command`).
PROGRAM = """
import io, json, sys
from loopmetric.cli import main
events, flags = json.loads(sys.argv[1]), json.loads(sys.argv[2])
answered = []
for found in events:
    sys.stdin, sys.stdout, kept = io.StringIO(json.dumps(found)), io.StringIO(), sys.stdout
    main(["hook", "claude-code", *flags])
    answered.append(bool(sys.stdout.getvalue()))
    sys.stdout = kept
print(json.dumps({"loaded": sorted(m for m in ("argparse", "tomllib") if m in sys.modules), "answered": answered}))
"""

NUDGED = [False, False, False, False, False, True]


@pytest.mark.parametrize(("flags", "config", "loaded", "answered"), [
    pytest.param([], None, [], NUDGED, id="no-flags-no-config-loads-neither-parser"),
    pytest.param(["--action", "log"], None, ["argparse"], [False] * 6, id="a-flag-loads-argparse-and-applies"),
    pytest.param([], 'action = "log"\n', ["tomllib"], [False] * 6, id="a-config-file-loads-tomllib-and-applies"),
    pytest.param([], "", ["tomllib"], NUDGED, id="a-config-file-without-settings-is-read-and-changes-nothing"),
    pytest.param(["--bogus"], None, ["argparse"], [False] * 6, id="a-wrong-flag-fails-open"),
])
def test_a_hook_event_loads_a_parser_only_for_what_it_has_to_read(tmp_path, flags, config, loaded, answered):
    project = tmp_path / "project"
    project.mkdir()
    assert not any((folder / name).exists() for folder in project.parents for name in CONFIG_FILES)
    if config is not None:
        (project / ".loopmetric.toml").write_text(f"[guard]\n{config}" if config else "")
    events = [found for n in range(1, 4) for found in failing_call(n, cwd=str(project))]
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(events), json.dumps(flags)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "LOOPMETRIC_HOOK_DIR": str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"loaded": loaded, "answered": answered}
