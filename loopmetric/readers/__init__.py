"""Readers: each turns one recorded format into loopmetric's `Trace`."""

from ._deepeval import read_deepeval_trace

__all__ = ["read_deepeval_trace"]
