"""The harness's turn in an LLM call's input messages: `harness_turn`, kept under its
old name; the rule lives in `_inference.other_side_turn`."""

from __future__ import annotations

from ._inference import other_side_turn as harness_turn

__all__ = ["harness_turn"]
