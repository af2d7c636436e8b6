"""Importing an adapter's framework, with an error that names the extra to install."""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["require"]


def require(module: str, extra: str, what: str) -> Any:
    """`import module`, or an ImportError naming `loopmetric[extra]`."""
    try:
        return import_module(module)
    except ImportError as error:
        raise ImportError(f"loopmetric.guard.{extra.replace('-', '_')} needs {what}: "
                          f'pip install "loopmetric[{extra}]" ({error})') from error
