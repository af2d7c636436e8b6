"""The loop columns `score_traces` adds: one definition, as Spark and as Arrow types."""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

__all__ = ["FINDING_FIELDS", "LOOP_ARROW_FIELDS", "LOOP_COLUMNS", "LOOP_SCHEMA", "to_arrow"]

_FINDING = StructType([
    StructField("pattern", StringType()),
    StructField("severity", StringType()),
    StructField("count", IntegerType()),
    StructField("steps", ArrayType(IntegerType())),
    StructField("tools", ArrayType(StringType())),
    StructField("fingerprints", ArrayType(StringType())),
])

LOOP_SCHEMA = StructType([
    StructField("loop_score", DoubleType()),  # null when the row could not be read
    StructField("loop_success", BooleanType()),  # never null; False when the row could not be read
    StructField("loop_patterns", ArrayType(StringType())),
    StructField("loop_reason", StringType()),
    StructField("loop_steps", IntegerType()),
    StructField("loop_tokens", DoubleType()),
    StructField("loop_cost", DoubleType()),
    StructField("loop_findings", ArrayType(_FINDING)),
    StructField("loop_error", StringType()),
])
"""The columns `score_traces` adds, in order (every field nullable as Spark declares it)."""

LOOP_COLUMNS = tuple(LOOP_SCHEMA.fieldNames())
FINDING_FIELDS = tuple(_FINDING.fieldNames())

_ARROW_ATOMS: dict[type, pa.DataType] = {
    DoubleType: pa.float64(),
    BooleanType: pa.bool_(),
    IntegerType: pa.int32(),
    StringType: pa.string(),
}


def to_arrow(spark_type: DataType) -> pa.DataType:
    """The Arrow type Spark exchanges a column of `spark_type` as (for the types above)."""
    if isinstance(spark_type, ArrayType):
        return pa.list_(to_arrow(spark_type.elementType))
    if isinstance(spark_type, StructType):
        return pa.struct([pa.field(f.name, to_arrow(f.dataType)) for f in spark_type.fields])
    return _ARROW_ATOMS[type(spark_type)]


LOOP_ARROW_FIELDS = tuple(pa.field(f.name, to_arrow(f.dataType)) for f in LOOP_SCHEMA.fields)
