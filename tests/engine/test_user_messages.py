"""Failures a user causes get a message naming the cause, never "Internal error", "Spark
stopped unexpectedly" or a server path (issue 25, item 14): time travel on a dorisql table,
text that is not UTF-8, s3()/hdfs() against a file system Spark lacks, a wrong endpoint or an
unknown host. Spark keeps working after each."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from dorisql.errors import DorisqlError, ExecutionError, InvalidCharacterStringError, NotSupportedError
from dorisql.session import failures

from .conftest import rows, run

DORISQL = str(Path(sys.executable).with_name("dorisql"))


def _message(engine, sql: str) -> DorisqlError:
    with pytest.raises(DorisqlError) as caught:
        run(engine, sql)
    err = caught.value
    text = str(err)
    for leak in ("Internal error", "Spark stopped", "Traceback", "dorisql.log", "Exception", "/tmp", "__dorisql"):
        assert leak not in text, text
    return err


@pytest.fixture(scope="module")
def table(engine):
    run(engine, "CREATE TABLE tt (k INT, v VARCHAR(10)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1")
    run(engine, "INSERT INTO tt VALUES (1, 'a'), (2, 'b')")
    return "tt"


@pytest.mark.parametrize(
    "clause", ["FOR VERSION AS OF 0", "VERSION AS OF 1", "FOR TIMESTAMP AS OF '2020-01-01'", "TIMESTAMP AS OF '2020'"]
)
def test_time_travel_is_not_supported_on_a_dorisql_table(engine, table, clause):
    for sql in (f"SELECT * FROM {table} {clause}", f"SELECT k FROM (SELECT * FROM {table} {clause}) x"):
        err = _message(engine, sql)
        assert isinstance(err, NotSupportedError) and err.code == 1235
        assert str(err) == (
            "not supported: time travel (FOR VERSION AS OF / FOR TIME AS OF) on table 'tt': "
            "Doris reads older versions of external Iceberg, Paimon and Hudi tables only"
        )
    assert sorted(rows(engine, f"SELECT * FROM {table}")) == [(1, "a"), (2, "b")]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        (b"SELECT 'a\xffb'", "FF"),
        (b"SELECT * FROM tt WHERE v = '\xc3'", "C3"),
        (b"INSERT INTO tt VALUES (3, 'x\xfe\xffy')", "FEFF"),
        (b"ALTER TABLE tt MODIFY COMMENT '\x80'", "80"),
    ],
)
def test_text_that_is_not_utf8_is_refused_by_name(engine, table, raw, shown):
    """Bytes a client sent that are not UTF-8 arrive as surrogates (``surrogateescape``): refused
    with MySQL's 1300 before anything runs; nothing changes and Spark keeps working."""
    err = _message(engine, raw.decode("utf-8", "surrogateescape"))
    assert isinstance(err, InvalidCharacterStringError) and err.code == 1300 and err.sqlstate == "HY000"
    assert str(err) == f"Invalid utf8mb4 character string: '{shown}'"
    assert sorted(rows(engine, f"SELECT * FROM {table}")) == [(1, "a"), (2, "b")]
    assert rows(engine, "SELECT 'still' ") == [("still",)]
    # A lone surrogate written any other way is refused the same way.
    assert str(_message(engine, "SELECT '\ud800'")) == "Invalid utf8mb4 character string: 'U+D800'"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_hdfs_against_a_closed_port_or_an_unknown_host(engine):
    port = _free_port()
    uri = f"hdfs://127.0.0.1:{port}/x.csv"
    err = _message(engine, f"SELECT * FROM hdfs('uri' = '{uri}', 'format' = 'csv')")
    assert isinstance(err, ExecutionError)
    assert str(err).startswith(f"hdfs(): cannot read '{uri}': cannot connect to "), err
    assert str(err).endswith(f":{port}: Connection refused"), err
    uri = "hdfs://no-such-host.invalid:8020/x.csv"
    err = _message(engine, f"SELECT * FROM hdfs('uri' = '{uri}', 'format' = 'csv')")
    assert str(err) == f"hdfs(): cannot read '{uri}': unknown host no-such-host.invalid"
    assert rows(engine, "SELECT 1") == [(1,)]  # Spark is fine


def test_s3_without_the_s3a_file_system_or_with_a_wrong_endpoint(engine):
    uri = "s3://bucket/x.csv"
    err = _message(
        engine,
        f"SELECT * FROM s3('uri' = '{uri}', 'format' = 'csv', 's3.endpoint' = 'http://127.0.0.1:{_free_port()}',"
        " 's3.access_key' = 'a', 's3.secret_key' = 'b')",
    )
    # The pyspark wheel has no hadoop-aws: then that is the cause; with it, the endpoint is.
    assert str(err) in (
        f"s3(): cannot read '{uri}': org.apache.hadoop.fs.s3a.S3AFileSystem is not on Spark's classpath "
        "(add hadoop-aws to Spark's jars)",
    ) or str(err).startswith(f"s3(): cannot read '{uri}': cannot connect"), err
    assert rows(engine, "SELECT 1") == [(1,)]


# ---------------------------------------------------------------------- the rules, without Spark

_TRACE = """An error occurred while calling o45.csv.
: java.net.ConnectException: Call From vm/10.1.2.3 to namenode:8020 failed on connection exception: \
java.net.ConnectException: Connection refused; For more details see:  http://wiki.apache.org/hadoop/ConnectionRefused
\tat org.apache.hadoop.net.NetUtils.wrapException(NetUtils.java:875)
Caused by: java.net.ConnectException: Connection refused
\tat java.base/sun.nio.ch.Net.pollConnect(Native Method)
"""


@pytest.mark.parametrize(
    ("trace", "cause"),
    [
        (_TRACE, "cannot connect to namenode:8020: Connection refused"),
        (
            ": java.lang.RuntimeException: java.lang.ClassNotFoundException: Class "
            "org.apache.hadoop.fs.s3a.S3AFileSystem not found\nCaused by: java.lang.ClassNotFoundException: "
            "Class org.apache.hadoop.fs.s3a.S3AFileSystem not found",
            "org.apache.hadoop.fs.s3a.S3AFileSystem is not on Spark's classpath (add hadoop-aws to Spark's jars)",
        ),
        (
            ': org.apache.hadoop.fs.UnsupportedFileSystemException: No FileSystem for scheme "oss"',
            "no file system for 'oss://' in this Spark (its Hadoop connector is not on Spark's classpath)",
        ),
        (": java.net.UnknownHostException: nn.example: Name or service not known", "unknown host nn.example"),
        (
            ": org.apache.hadoop.fs.s3a.AWSClientIOException: getFileStatus on s3a://b/k: "
            "software.amazon.awssdk.core.exception.SdkClientException: Unable to execute HTTP request: "
            "Connect to localhost:9 [localhost/127.0.0.1] failed: Connection refused\n"
            "Caused by: java.net.ConnectException: Connection refused",
            "cannot connect to localhost:9: Connection refused",
        ),
        (
            ": java.nio.file.AccessDeniedException: s3a://b/k: getFileStatus on s3a://b/k: 403 Forbidden",
            "access denied",
        ),
        (": java.io.IOException: cannot open /etc/hadoop/conf/core-site.xml for x", "cannot open <path> for x"),
        (
            ": java.io.IOException: Mkdirs failed to create file:/srv/wh/x (exists=false)",
            "Mkdirs failed to create <path> (exists=false)",
        ),
    ],
)
def test_external_failures_name_their_cause(trace, cause):
    err = failures.external_failure(RuntimeError(trace), "hdfs", "hdfs://nn/x")
    assert err is not None and str(err) == f"hdfs(): cannot read 'hdfs://nn/x': {cause}"


def test_unrelated_java_failures_are_not_dressed_up():
    # Outside a table function's read, only causes that cannot be dorisql's own are named.
    assert failures.external_failure(RuntimeError(": java.io.IOException: disk trouble")) is None
    assert failures.external_failure(RuntimeError(": java.io.FileNotFoundException: /wh/x.parquet")) is None
    refused = failures.external_failure(RuntimeError(_TRACE))
    assert refused is not None and str(refused) == "cannot connect to namenode:8020: Connection refused"
    assert failures.external_failure(RuntimeError("java.lang.IllegalStateException: boom"), "s3", "s3://b") is None
    assert failures.external_failure(RuntimeError("no Java here"), "s3", "s3://b") is None


def test_spark_feature_not_supported_is_not_supported():
    err = failures.spark_error(
        "UNSUPPORTED_FEATURE.TIME_TRAVEL",
        {},
        "0A000",
        "[UNSUPPORTED_FEATURE.TIME_TRAVEL] The feature is not supported: Time travel on the relation: "
        "`__dorisql_scan_0`. SQLSTATE: 0A000",
        views={"__dorisql_scan_0": "d.t"},
    )
    assert isinstance(err, NotSupportedError)
    assert str(err) == "not supported: The feature is not supported: Time travel on the relation: `d.t`"


def test_the_dorisql_command_names_invalid_utf8_and_time_travel(spark_process_env, tmp_path):
    """Through the real command: argv bytes that are not UTF-8 (Python keeps them as
    surrogates) and time travel, each one line with its code, exit code 1, no traceback."""
    warehouse = str(tmp_path / "wh")
    made = subprocess.run(
        [
            DORISQL,
            "--warehouse",
            warehouse,
            "-e",
            "CREATE DATABASE d; CREATE TABLE d.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1",
        ],
        env=spark_process_env,
        capture_output=True,
        timeout=300,
    )
    assert made.returncode == 0, made.stderr
    bad = subprocess.run(
        [DORISQL.encode(), b"--warehouse", warehouse.encode(), b"-e", b"SELECT 'caf\xe9'"],
        env=spark_process_env,
        capture_output=True,
        timeout=300,
    )
    assert bad.returncode == 1
    assert bad.stderr.decode().strip() == "ERROR 1300 (HY000) at line 1: Invalid utf8mb4 character string: 'E9'"
    travel = subprocess.run(
        [DORISQL, "--warehouse", warehouse, "-e", "SELECT * FROM d.t FOR VERSION AS OF 0"],
        env=spark_process_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert travel.returncode == 1
    assert travel.stderr.strip().startswith("ERROR 1235 (42000) at line 1: not supported: time travel"), travel.stderr
