"""Doris table functions in FROM: local(...), s3(...), hdfs(...), numbers(...), read by Spark.

The query planner finds them in the parsed query (:mod:`dorisql.query.planner`), never in the
text: ``SELECT * FROM local("file_path" = "data.csv", "format" = "csv")`` is an `exp.Table`
whose ``this`` is the call; `table_function_properties` reads its ``"key" = "value"`` pairs and
`read_table_function` turns them into a DataFrame. Options follow Doris's names: format (csv |
csv_with_names | json | parquet | orc), column_separator (default "\\t", as in Doris),
line_delimiter, skip_lines, trim_double_quotes, read_json_by_line, strip_outer_array.

Where they may read (Doris's rules, see docs/security.md):

- ``local()`` reads files under ``user_files_secure_path`` only (frontend config; default:
  ``<warehouse>/_user_files``, a folder that holds nothing else) and, while a script runs, under that script's folder. A
  relative path starts at the script's folder, else at the secure path. A path containing
  ``..`` is refused, and so is any file that resolves (symlinks followed) outside those folders.
  Each file is opened once, without the kernel following any link, and Spark reads a private
  copy of what was opened (dorisql.storage.local_files): no swap can change what is read.
- ``s3()`` takes ``s3://``, ``s3a://`` or ``s3n://`` URIs; an ``s3.endpoint`` must be a host or an
  ``http(s)://`` address, never a local file. Credentials apply to that read only.
- ``hdfs()`` takes ``hdfs://`` and ``viewfs://`` URIs only.

``numbers("number" = "n"[, "backend_num" = "m"])`` generates one BIGINT column ``number`` with
the rows 0 .. n-1, spread over m Spark partitions (Doris: m backends).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from sqlglot import exp

from dorisql.errors import AnalysisError, DorisqlError, NotSupportedError
from dorisql.session import failures
from dorisql.storage import local_files

__all__ = [
    "TABLE_FUNCTIONS",
    "table_function_properties",
    "read_table_function",
    "local_paths",
    "secure_roots",
    "s3_location",
    "hdfs_location",
    "numbers",
]

#: The table functions dorisql reads in FROM.
TABLE_FUNCTIONS = frozenset({"local", "s3", "hdfs", "numbers"})

#: URI schemes Doris's s3() accepts (S3URI.VALID_SCHEMES); dorisql reads the S3 ones via s3a.
_S3_DORIS_SCHEMES = {"http", "https", "s3", "s3a", "s3n", "bos", "oss", "cos", "cosn", "obs"}
_S3_SCHEMES = {"s3", "s3a", "s3n"}
_HDFS_SCHEMES = {"hdfs", "viewfs"}
#: s3() properties and the Hadoop S3A settings they become (per read, never global).
_S3_OPTIONS = {
    "s3.access_key": "fs.s3a.access.key",
    "s3.secret_key": "fs.s3a.secret.key",
    "s3.session_token": "fs.s3a.session.token",
    "s3.endpoint": "fs.s3a.endpoint",
    "s3.region": "fs.s3a.endpoint.region",
    "use_path_style": "fs.s3a.path.style.access",
}


def table_function_properties(call: exp.Expression) -> dict[str, str]:
    """The ``"key" = "value"`` properties of a table function call (keys lower case)."""
    name = call.name.lower()
    properties: dict[str, str] = {}
    for arg in call.expressions:
        key, value = (arg.this, arg.expression) if isinstance(arg, exp.EQ) else (None, None)
        if not (isinstance(key, exp.Literal) and key.is_string and isinstance(value, exp.Literal)):
            raise AnalysisError(f'{name}(): properties must be written "key" = "value", got {arg.sql(dialect="doris")}')
        properties[key.this.lower()] = value.this
    return properties


#: The default ``user_files_secure_path``: a folder of the warehouse that holds nothing else
#: (Doris's ``user_files``); dorisql's own names start with '_', so no database can take it.
USER_FILES_DIR = "_user_files"


def default_secure_path(warehouse: Path) -> Path:
    """``<warehouse>/_user_files``: where local() reads when user_files_secure_path is not set."""
    return Path(warehouse) / USER_FILES_DIR


def secure_roots(secure_path: str | None, base_dir: Path | None, default: Path | None = None) -> list[Path]:
    """The folders local() may read: the secure path (`default` when it is not set: see
    `default_secure_path`) and the running script's folder."""
    if not secure_path and default is None:
        raise AnalysisError("local(): user_files_secure_path is not set")
    roots = [Path(secure_path).expanduser() if secure_path else Path(default or "")]
    if base_dir is not None:
        roots.append(base_dir)
    return [r.resolve() for r in roots]


def _wanted(file_path: str, base_dir: Path | None, roots: Sequence[Path]) -> Path:
    """The absolute path (glob patterns kept) a local() ``file_path`` names, checked to lie in a
    secure root as written. Raises Doris's ``can not contain '..' in path``."""
    if ".." in file_path:
        raise AnalysisError("can not contain '..' in path")
    start = base_dir.resolve() if base_dir is not None else roots[0]
    wanted = Path(os.path.abspath(start / Path(file_path).expanduser()))
    if not any(wanted == root or wanted.is_relative_to(root) for root in roots):
        raise local_files.outside(wanted)
    return wanted


def local_paths(
    file_path: str, base_dir: Path | None, secure_path: str | None, default: Path | None = None
) -> list[Path]:
    """The real paths of the files (or folders) a local() ``file_path`` names, each opened and
    checked to lie in a secure root (symbolic links followed by the check, never by the kernel;
    see dorisql.storage.local_files). Only for checks: Spark reads what `LocalFiles.stage` copies.

    Raises Doris's errors: ``can not contain '..' in path``, ``file path is not allowed: ...``."""
    roots = secure_roots(secure_path, base_dir, default)
    walk = local_files.Walk(roots)
    try:
        matches = local_files.find(_wanted(file_path, base_dir, roots), roots, walk)
        if not matches:
            raise AnalysisError(f"local(): file not found: {file_path}")
        for opened in matches:
            local_files.check(opened, walk)
        return [opened.path for opened in matches]
    finally:
        walk.close()


def s3_location(args: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The s3a:// location of an s3() call and the per-read Hadoop options for it."""
    uri = args.get("uri") or ""
    if not uri:
        raise AnalysisError("s3(): property 'uri' is required")
    scheme = urlsplit(uri).scheme.lower()
    if scheme not in _S3_DORIS_SCHEMES:
        raise AnalysisError(f"Invalid scheme: {uri}")
    if scheme not in _S3_SCHEMES:
        raise NotSupportedError(f"s3() uri scheme '{scheme}' (use s3://bucket/key)")
    endpoint = args.get("s3.endpoint")
    if endpoint is not None:
        parts = urlsplit(endpoint if "://" in endpoint else f"http://{endpoint}")
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
            raise AnalysisError(f"Invalid s3.endpoint: {endpoint} (a host[:port] or an http(s):// address)")
    options = {conf: args[key] for key, conf in _S3_OPTIONS.items() if key in args}
    # These credentials are for this read only: never reuse a cached S3A client made with others.
    options["fs.s3a.impl.disable.cache"] = "true"
    return "s3a" + uri[len(scheme) :], options


def hdfs_location(args: dict[str, str]) -> str:
    """The URI of an hdfs() call, checked to be an HDFS one (Doris's StorageBackend.checkUri)."""
    uri = args.get("uri") or ""
    if not uri:
        raise AnalysisError("hdfs(): property 'uri' is required")
    for value in (uri, args.get("fs.defaultfs")):
        if value is None:
            continue
        scheme = urlsplit(value).scheme.lower()
        if not scheme:
            raise AnalysisError("Invalid export path, there is no schema of URI found. please check your path.")
        if scheme not in _HDFS_SCHEMES:
            raise AnalysisError("Invalid export path. please use valid 'HDFS://' or 'viewfs://' path.")
    return uri


def numbers(spark, args: dict[str, str]):
    """``numbers("number" = "n", "backend_num" = "m")``: BIGINT ``number`` 0 .. n-1 (Doris's checks)."""
    for key in args:
        if key not in ("number", "backend_num"):
            raise AnalysisError(f"{key} is invalid property")
    if not args.get("number"):
        raise AnalysisError('can not find `number` param, please specify `number`, like: numbers("number" = "10")')
    count, slices = _natural(args["number"], "number"), _natural(args.get("backend_num", "1"), "backend_num")
    return spark.range(0, count, 1, max(slices, 1)).withColumnRenamed("id", "number")


def _natural(text: str, key: str) -> int:
    if not text.strip().isdigit():
        raise AnalysisError(f"can not parse `{key}` param to natural number")
    return int(text)


def _skip_rows(frame, skip: int):
    """`frame` without its first `skip` rows (in file order). The ids of a file scan grow with the
    file and the row, so the rows to skip are the `skip` smallest; a DataFrame-only plan, which
    Spark Connect runs too (it has no RDDs)."""
    from pyspark.sql import functions as F

    numbered = frame.withColumn("__dorisql_row", F.monotonically_increasing_id())
    first = numbered.select("__dorisql_row").orderBy("__dorisql_row").limit(skip)
    return numbered.join(F.broadcast(first), "__dorisql_row", "left_anti").drop("__dorisql_row")


def read_table_function(
    spark,
    name: str,
    args: dict[str, str],
    base_dir: Path | None = None,
    secure_path: str | None = None,
    staging: local_files.LocalFiles | None = None,
):
    """A DataFrame over the files a table function names (nothing is read until it runs).

    local() files are read from private copies made in `staging` (the statement's, released by
    the engine when the statement ends); without one, local() is refused."""
    if name == "numbers":
        return numbers(spark, args)
    fmt = args.get("format", "").lower()
    if not fmt:
        raise AnalysisError(f"{name}(): property 'format' is required (csv, json, parquet, orc)")
    options: dict[str, str] = {}
    if name == "local":
        path = args.get("file_path")
        if not path:
            raise AnalysisError("local(): property 'file_path' is required")
        if staging is None:
            raise NotSupportedError("local() here")
        default = default_secure_path(staging.warehouse)
        if not secure_path:
            with contextlib.suppress(OSError):  # made for the user to put files in (not on a read-only warehouse)
                default.mkdir(mode=0o755, exist_ok=True)
        roots = secure_roots(secure_path, base_dir, default)
        copies = staging.stage(_wanted(path, base_dir, roots), roots, path)
        location: str | list[str] = [f"file://{p}" for p in copies]
    elif name == "s3":
        location, options = s3_location(args)
    elif name == "hdfs":
        location = hdfs_location(args)
    else:  # pragma: no cover - the planner only passes TABLE_FUNCTIONS
        raise AnalysisError(f"Could not find table function {name}")
    try:
        return _read(spark.read.options(**options), fmt, location, args)
    except DorisqlError:
        raise
    except Exception as exc:
        if name in ("s3", "hdfs"):  # the endpoint, the file system, the file: say which
            err = failures.translate_external(exc, name, args.get("uri", ""))
            if err is not None:
                raise err from exc
        raise


def _from_latin1(name: str) -> str:
    """A header name read as ISO-8859-1, as the UTF-8 text it was."""
    return name.encode("latin-1").decode("utf-8", "replace")


def _read(reader, fmt: str, location: str | list[str], args: dict[str, str]):
    if fmt in ("csv", "csv_with_names", "csv_with_names_and_types"):
        separator = args.get("column_separator", "\t")
        reader = reader.option("sep", separator).option("header", fmt != "csv")
        if args.get("trim_double_quotes", "false").lower() == "true":
            reader = reader.option("quote", '"')
        else:
            reader = reader.option("quote", "\u0000")
        if "line_delimiter" in args and args["line_delimiter"] not in ("\n", "\\n"):
            reader = reader.option("lineSep", args["line_delimiter"])
        # Every byte read as one ISO-8859-1 character, each value then turned back into the bytes
        # it was: text that is not UTF-8 reaches a load as it is and the load filters its row
        # (Spark's UTF-8 reading would turn it into U+FFFD silently). Only with ASCII separators,
        # which are the same bytes in both encodings.
        as_bytes = (separator + args.get("line_delimiter", "\n")).isascii()
        if as_bytes:
            reader = reader.option("encoding", "ISO-8859-1")
        frame = reader.csv(location)
        skip = int(args.get("skip_lines", "0") or 0)
        if skip:
            frame = _skip_rows(frame, skip)
        if fmt == "csv":
            names = [f"c{i + 1}" for i in range(len(frame.columns))]
        else:
            names = [_from_latin1(n) if as_bytes else n for n in frame.columns]
        if not as_bytes:
            return frame.toDF(*names)
        from pyspark.sql import functions as F

        frame = frame.toDF(*[f"__dorisql_c{i}" for i in range(len(names))])
        return frame.select(
            *[F.encode(F.col(f"__dorisql_c{i}"), "ISO-8859-1").cast("string").alias(n) for i, n in enumerate(names)]
        )
    if fmt == "json":
        return _read_json(reader, location, args)
    if fmt in ("parquet", "orc"):
        return reader.format(fmt).load(location)
    raise NotSupportedError(f"table function format '{fmt}'")


#: local()'s JSON reader keeps a line that is not JSON in this column (never shown to the user).
_CORRUPT = "__dorisql_corrupt"


def _read_json(reader, location: str | list[str], args: dict[str, str]):
    """JSON with every top-level field as STRING (as Doris's JSON reader reports them; the load
    casts them), each value the bytes it was in the file.

    As for CSV, the bytes are read as ISO-8859-1 and each value turned back into its bytes: a
    value that is not UTF-8 reaches the load as it is and the load filters its row, with the same
    reason as CSV's. A line that is not JSON at all has no values to carry: each of its fields
    holds the line behind a 0xFF byte (which no UTF-8 text has) and "not valid JSON: ", so the
    load filters that row too (and counts it), instead of an all-NULL row plus Spark's
    `_corrupt_record` column. One read path for both cases, no change to the load's checks."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType, StructField, StructType

    multiline = args.get("strip_outer_array", "false").lower() == "true"
    reader = reader.option("multiLine", multiline).option("encoding", "ISO-8859-1")
    if not multiline:  # Spark wants it with that encoding; "\r\n" lines end in "\r", which JSON skips
        delimiter = args.get("line_delimiter", "\n")
        reader = reader.option("lineSep", "\n" if delimiter == "\\n" else delimiter)
    inferred = reader.option("columnNameOfCorruptRecord", _CORRUPT).json(location)
    names = [n for n in inferred.columns if n != _CORRUPT]
    schema = StructType([StructField(n, StringType()) for n in names] + [StructField(_CORRUPT, StringType())])
    frame = reader.schema(schema).option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", _CORRUPT)
    frame = frame.json(location)

    def as_bytes(column):
        return F.encode(column, "ISO-8859-1").cast("string")

    def field(name: str):
        return F.col("`" + name.replace("`", "``") + "`")

    marked = F.concat(F.expr("CAST(X'FF' AS STRING)"), F.lit("not valid JSON: "), as_bytes(F.col(_CORRUPT)))
    return frame.select(
        *[F.when(F.col(_CORRUPT).isNull(), as_bytes(field(n))).otherwise(marked).alias(_from_latin1(n)) for n in names]
    )
