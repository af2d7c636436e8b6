"""A Spark job that scores a day of traces: `spark-submit examples/spark_job.py INPUT OUTPUT`.

INPUT is JSON files (a glob, a folder, s3a://...), one trace per file in any
format loopmetric reads; JSON Lines, one trace per line, are read with
`spark.read.text(INPUT)`. OUTPUT gets a row per trace as Parquet: the file and
the loop columns. Runs as it is on `--master "local[*]"`; on a cluster the executors need
loopmetric too (see the README, "Millions of traces").
"""

import sys

from pyspark.sql import SparkSession

from loopmetric.spark import score_traces

source, target = sys.argv[1:3]
spark = SparkSession.builder.appName("loopmetric").getOrCreate()
spark.sparkContext.setLogLevel("ERROR")  # else Spark logs a glob INPUT's metadata look-up as a FileNotFoundException
traces = spark.read.text(source, wholetext=True).selectExpr("_metadata.file_path AS file", "value AS trace")
scored = score_traces(traces, "trace", window=30)  # any LoopSettings keyword, as for detect_loops
scored.drop("trace").write.mode("overwrite").parquet(target)
looping = spark.read.parquet(target).filter("NOT loop_success")
print(f"{looping.count()} of {spark.read.parquet(target).count()} traces looped or could not be read")
