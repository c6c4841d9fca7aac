"""Doris table functions in FROM: local(...), s3(...), hdfs(...), read by Spark.

`SELECT * FROM local("file_path" = "data.csv", "format" = "csv")` becomes a temporary view over
`spark.read`; the query text is rewritten to name that view. Options follow Doris's names:
format (csv | csv_with_names | json | parquet | orc), column_separator (default "\\t", as in
Doris), line_delimiter, skip_lines, trim_double_quotes, read_json_by_line, strip_outer_array.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from pathlib import Path

from dorisql import ast
from dorisql.errors import AnalysisError, NotSupportedError

_FUNCTION = re.compile(
    r"\b(?P<name>local|s3|hdfs)\s*\((?P<args>(?:\s*(?:\"[^\"]*\"|'[^']*')\s*=\s*(?:\"[^\"]*\"|'[^']*')\s*,?)+)\s*\)",
    re.IGNORECASE,
)
_ARG = re.compile(r"(\"[^\"]*\"|'[^']*')\s*=\s*(\"[^\"]*\"|'[^']*')")


def parse_arguments(text: str) -> dict[str, str]:
    return {k[1:-1].lower(): v[1:-1] for k, v in _ARG.findall(text)}


def register_table_functions(spark, query: ast.Query, base_dir: Path | None = None) -> ast.Query:
    """Replace each table function in the query by a temp view reading its files.

    A relative local() file_path is taken from `base_dir` (the running script's folder), else
    from the current directory."""
    sql = query.sql

    def replace(match: re.Match) -> str:
        view = f"__tvf_{uuid.uuid4().hex[:12]}"
        read_table_function(spark, match.group("name").lower(), parse_arguments(match.group("args")), base_dir) \
            .createOrReplaceTempView(view)
        return view

    rewritten = _FUNCTION.sub(replace, sql)
    if rewritten == sql:
        return query
    return dataclasses.replace(query, sql=rewritten)


def read_table_function(spark, name: str, args: dict[str, str], base_dir: Path | None = None):
    fmt = args.get("format", "").lower()
    if not fmt:
        raise AnalysisError(f"{name}(): property 'format' is required (csv, json, parquet, orc)")
    if name == "local":
        path = args.get("file_path")
        if not path:
            raise AnalysisError("local(): property 'file_path' is required")
        location = str(((base_dir or Path.cwd()) / Path(path).expanduser()).resolve())
        if not Path(location).exists() and not any(ch in path for ch in "*?["):
            raise AnalysisError(f"local(): file not found: {path}")
    elif name == "s3":
        location = args.get("uri") or ""
        if not location:
            raise AnalysisError("s3(): property 'uri' is required")
        location = re.sub(r"^s3://", "s3a://", location)
        for key, conf in (("s3.access_key", "fs.s3a.access.key"), ("s3.secret_key", "fs.s3a.secret.key"),
                          ("s3.endpoint", "fs.s3a.endpoint")):
            if key in args:
                spark.sparkContext._jsc.hadoopConfiguration().set(conf, args[key])
    else:
        location = args.get("uri") or ""
        if not location:
            raise AnalysisError("hdfs(): property 'uri' is required")
    reader = spark.read
    if fmt in ("csv", "csv_with_names", "csv_with_names_and_types"):
        separator = args.get("column_separator", "\t")
        reader = reader.option("sep", separator).option("header", fmt != "csv")
        if args.get("trim_double_quotes", "false").lower() == "true":
            reader = reader.option("quote", '"')
        else:
            reader = reader.option("quote", "\u0000")
        if "line_delimiter" in args and args["line_delimiter"] not in ("\n", "\\n"):
            reader = reader.option("lineSep", args["line_delimiter"])
        frame = reader.csv(location)
        skip = int(args.get("skip_lines", "0") or 0)
        if skip:
            frame = frame.rdd.zipWithIndex().filter(lambda pair: pair[1] >= skip).keys().toDF(frame.schema)
        if fmt == "csv":
            frame = frame.toDF(*[f"c{i + 1}" for i in range(len(frame.columns))])
        return frame
    if fmt == "json":
        multiline = args.get("strip_outer_array", "false").lower() == "true"
        return reader.option("multiLine", multiline).json(location)
    if fmt in ("parquet", "orc"):
        return reader.format(fmt).load(location)
    raise NotSupportedError(f"table function format '{fmt}'")
