"""loopmetric on Apache Spark: score every trace of a DataFrame where the data is.

    >>> from loopmetric.spark import score_traces
    >>> scored = score_traces(spark.read.text("traces/*.jsonl"), "value", window=30)
    >>> scored.filter(~scored.loop_success).select("loop_score", "loop_reason", "loop_error")

Needs PySpark 3.5+ (or 4.x) with pandas and PyArrow: `pip install "loopmetric[spark]"`.
The executors need loopmetric too (see the README, "Millions of traces").
"""

from __future__ import annotations

try:
    import pandas  # noqa: F401  (PySpark's mapInArrow asks for it)
    import pyarrow  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as _missing:  # pragma: no cover - exercised in a subprocess without pyspark
    raise ImportError(
        f"loopmetric.spark needs PySpark 3.5+ with pandas and PyArrow, but {_missing.name or 'one'} is not installed: "
        'pip install "loopmetric[spark]"'
    ) from _missing

from ._schema import LOOP_SCHEMA
from ._score import score_traces

__all__ = ["LOOP_SCHEMA", "score_traces"]
