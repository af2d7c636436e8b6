"""Detector and scoring settings, validated once with errors that say what is wrong."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, fields
from typing import Any, Callable, Literal, Optional, get_args

__all__ = ["ALIASES", "LoopSettings"]

Aggregation = Literal["geometric", "arithmetic"]


@dataclass(frozen=True)
class LoopSettings:
    """Every setting of the detectors and the scorer.

    The severity ladder (documented in the README):

    * ``repeated_call``: the same call (name + canonical arguments) made
      ``repeated_call_threshold`` times within ``window`` tool calls without a new
      result is mild; twice that is severe.
    * ``repeated_result``: the same call returning the same result
      ``repeated_result_threshold - 1`` times in a row is mild,
      ``repeated_result_threshold`` times severe; for errors (texts compared
      with numbers masked) the two rungs are ``repeated_error_threshold - 1``
      and ``repeated_error_threshold``.
    * ``fruitless_changes``: the same check (a call with the same arguments)
      answering the same failure ``fruitless_changes_threshold`` times in a row
      while changes were made between (edits, files written) is severe, one
      fewer mild: the changes made no difference the check could see.
    * ``alternating_calls``: a block of 2 to 4 calls with the same results
      repeated ``alternating_calls_threshold - 1`` times back to back is mild,
      ``alternating_calls_threshold`` times severe.
    * ``repeated_text`` / ``reasoning_stagnation``: LLM outputs that repeat an
      output among the previous ``text_window`` ones (exactly, or with
      similarity >= ``similarity_threshold``) with no new tool result between:
      2 outputs are mild, ``repeated_text_threshold`` severe.
    * ``call_graph_cycles``: a span that re-enters itself (same type, name and
      full input on its own ancestry path) is severe.
    * ``conversation_loop`` (only with ``semantic=True``): 4 conversation
      replies in a row of the same meaning (embeddings from ``embedder``, or
      the wordllama model of ``loopmetric[semantic]``), each with a cosine of
      at least ``semantic_threshold`` to one before it (0.35 when both
      decline: say something cannot be done), no tool run and no new fact
      from either side between: severe. Five prose instructions in a
      row to one tool, each at ``semantic_instruction_threshold`` or more to
      one of the two before, are a severe ``similar_attempts``. The two
      cut-offs are the default embedder's; another model's cosines live on
      another scale (benchmarks/results/meaning.md).
    """

    threshold: float = 0.5
    repeated_call_threshold: int = 3
    similarity_threshold: float = 0.85
    reply_similarity_threshold: float = 0.6
    check_tool_repetition: bool = True
    check_reasoning_stagnation: bool = True
    check_call_graph_cycles: bool = True
    strict_mode: bool = False
    window: Optional[int] = 20
    repeated_result_threshold: Optional[int] = 3
    repeated_error_threshold: Optional[int] = 3
    alternating_calls_threshold: Optional[int] = 3
    repeated_text_threshold: Optional[int] = 3
    similar_attempts_threshold: Optional[int] = 3
    fruitless_changes_threshold: Optional[int] = 7
    revisited_calls_threshold: Optional[int] = 6
    rejected_output_threshold: Optional[int] = 3
    text_window: int = 4
    min_similarity_words: int = 8
    aggregation: Aggregation = "geometric"
    semantic: bool = False
    embedder: Optional[Callable[[list[str]], Any]] = None
    semantic_threshold: float = 0.75
    semantic_instruction_threshold: float = 0.9

    def __post_init__(self) -> None:
        _check_unit("threshold", self.threshold, allow_zero=True)
        _check_unit("similarity_threshold", self.similarity_threshold, allow_zero=False)
        _check_unit("reply_similarity_threshold", self.reply_similarity_threshold, allow_zero=False)
        _check_unit("semantic_threshold", self.semantic_threshold, allow_zero=False)
        _check_unit("semantic_instruction_threshold", self.semantic_instruction_threshold, allow_zero=False)
        for name in ("check_tool_repetition", "check_reasoning_stagnation",
                     "check_call_graph_cycles", "strict_mode", "semantic"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"Expected argument `{name}` to be a bool, but got {value!r}.")
        _check_int("repeated_call_threshold", self.repeated_call_threshold, minimum=2)
        _check_int("text_window", self.text_window, minimum=1)
        _check_int("min_similarity_words", self.min_similarity_words, minimum=1)
        if self.window is not None:
            _check_int("window", self.window, minimum=2, optional=True)
        for name in ("repeated_result_threshold", "repeated_error_threshold",
                     "alternating_calls_threshold", "repeated_text_threshold", "similar_attempts_threshold",
                     "fruitless_changes_threshold", "revisited_calls_threshold",
                     "rejected_output_threshold"):
            value = getattr(self, name)
            if value is not None:
                _check_int(name, value, minimum=2, optional=True)
        if self.embedder is not None and not callable(self.embedder):
            raise ValueError(
                "Expected argument `embedder` to be None or a callable taking a list of texts and returning "
                f"one vector per text, but got {self.embedder!r}."
            )
        if self.aggregation not in get_args(Aggregation):
            raise ValueError(
                "Expected argument `aggregation` to be " + " or ".join(map(repr, get_args(Aggregation))) + ", "
                f"but got {self.aggregation!r}."
            )
        if self.window is not None:
            _check_fits(self.window, (
                ("repeated_call_threshold", self.repeated_call_threshold, 1, "repeated_call_threshold x 1"),
                ("repeated_result_threshold", self.repeated_result_threshold, 1, "repeated_result_threshold x 1"),
                ("repeated_error_threshold", self.repeated_error_threshold, 1, "repeated_error_threshold x 1"),
                ("alternating_calls_threshold", self.alternating_calls_threshold, 2,
                 "alternating_calls_threshold x 2"),
                ("similar_attempts_threshold", self.similar_attempts_threshold, 1,
                 "similar_attempts_threshold x 1"),
                ("revisited_calls_threshold", self.revisited_calls_threshold, 1,
                 "revisited_calls_threshold x 1"),
            ))

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> "LoopSettings":
        return settings_from_kwargs(cls, kwargs, aliases=ALIASES)

    @property
    def repetition_threshold(self) -> int:
        """deepeval's name for `repeated_call_threshold`."""
        return self.repeated_call_threshold

    @property
    def effective_threshold(self) -> float:
        return 1.0 if self.strict_mode else self.threshold


# Other names a setting answers to: deepeval's metric calls `repeated_call_threshold`
# `repetition_threshold`. Accepted wherever settings are given by name.
ALIASES = {"repetition_threshold": "repeated_call_threshold"}


def _accept_aliases(cls: Any) -> None:
    """Let `cls(...)` take each alias in `ALIASES` for its field (one of the two, not both),
    and name the alias in the errors it raises when the alias was given."""
    generated = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        given = [alias for alias in ALIASES if alias in kwargs]
        for alias in given:
            field = ALIASES[alias]
            if field in kwargs:
                raise ValueError(f"Expected one of `{alias}` and `{field}` (the same setting), but got both.")
            kwargs[field] = kwargs.pop(alias)
        try:
            generated(self, *args, **kwargs)
        except ValueError as error:
            message = str(error)
            for alias in given:
                message = message.replace(ALIASES[alias], alias)
            raise ValueError(message) from None

    __init__.__doc__ = generated.__doc__
    __init__.__signature__ = inspect.signature(generated)  # type: ignore[attr-defined]
    cls.__init__ = __init__


_accept_aliases(LoopSettings)


def settings_from_kwargs(cls: Any, kwargs: dict[str, Any], aliases: Optional[dict[str, str]] = None) -> Any:
    """`cls(**kwargs)` for a settings dataclass, naming any keyword it does not know."""
    known = {f.name for f in fields(cls)} | set(aliases or ())
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise ValueError(
            f"Expected settings among {sorted(known)}, but got unknown {unknown}."
        )
    return cls(**kwargs)


def _check_fits(window: int, fits: tuple[tuple[str, Optional[int], int, str], ...]) -> None:
    """Each (name, value, calls per repeat, how to write the product) must fit in `window`."""
    for name, value, calls_per_repeat, product in fits:
        if value is not None and value * calls_per_repeat > window:
            raise ValueError(
                f"Expected argument `{name}` to fit in `window` ({product} <= window={window}), but got {value}."
            )


def _check_unit(name: str, value: Any, *, allow_zero: bool) -> None:
    low = "[0, 1]" if allow_zero else "(0, 1]"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        ok = (0.0 <= value <= 1.0) if allow_zero else (0.0 < value <= 1.0)
    if not ok:
        raise ValueError(f"Expected argument `{name}` to be a float in {low}, but got {value!r}.")


def _check_int(name: str, value: Any, *, minimum: int, optional: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        allowed = f"an int >= {minimum}" + (" or None" if optional else "")
        raise ValueError(f"Expected argument `{name}` to be {allowed}, but got {value!r}.")
