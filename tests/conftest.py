"""Shared test setup: no telemetry, no network, the real traces when present."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("DEEPEVAL_DISABLE_DOTENV", "1")
os.environ.setdefault("CONFIDENT_TRACE_FLUSH", "NO")
os.environ.setdefault("ERROR_REPORTING", "NO")
# MLflow writes a finished trace to its store from a background queue by default, and
# `flush_trace_async_logging` then waits about a second for it; written as the trace ends
# instead, the store holds the same trace (the tests read it back) and no test waits.
os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """What collecting made is kept for the whole session (the libraries the test modules import, their
    tables of cases): it is frozen as each module is collected (`gc.freeze`), so that the collector no
    longer walks it, neither in the full collections that the next imports set off nor in the five that
    pytest runs at the session's end. Without this, a process's collection took about twice as long."""
    gc.freeze()


@pytest.fixture
def global_tracer_provider_as_found():
    """OpenTelemetry's global tracer provider, put back as the test found it: for the tests that run
    deepeval's pydantic-ai instrumentation, which sets the global provider (once a process, with an
    exporter to its cloud), so that every later test of the process traced into it: pydantic-evals read
    its span tree from the wrong provider (two of its tests failed after `tests/readers/test_readers_agree.py`
    in one process) and the spans went to deepeval's exporter, which tried the network. (Not for every
    test: logfire sets the global provider the pydantic-evals tests read, in the first of them.)
    OpenTelemetry keeps the global in a private, set-once slot: the slot is read and written here as its
    own tests reset it."""
    try:
        from opentelemetry import trace
    except ImportError:
        yield
        return
    provider, once = trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done
    yield
    if trace._TRACER_PROVIDER is not provider:
        trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = provider, once


SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A file under ../shared; the test is skipped when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not present (../shared is only beside the repo on dev machines and CI)")
    return path


def load_shared_trace(name: str) -> dict:
    return json.loads(shared_path("traces", name).read_text())


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example_module(name: str):
    """A script of `examples/` imported as a module (its folder is on the path only while importing)."""
    import importlib
    import sys

    sys.path.insert(0, str(EXAMPLES))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(EXAMPLES))
