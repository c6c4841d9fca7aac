"""Where table functions may read (pure: paths and URIs, no Spark)."""

from __future__ import annotations

import os

import pytest

from dorisql.errors import AnalysisError, NotSupportedError
from dorisql.query.table_functions import hdfs_location, local_paths, s3_location, table_function_properties
from dorisql.syntax.dialect import parse_query


@pytest.fixture
def tree(tmp_path):
    """secure/{a.csv, sub/b.csv, parquet/part-0.parquet}, outside/secret.csv, scripts/c.csv"""
    secure, outside, scripts = tmp_path / "secure", tmp_path / "outside", tmp_path / "scripts"
    for folder in (secure / "sub", secure / "parquet", outside, scripts):
        folder.mkdir(parents=True)
    for f in (
        secure / "a.csv",
        secure / "sub" / "b.csv",
        secure / "parquet" / "part-0.parquet",
        outside / "secret.csv",
        scripts / "c.csv",
    ):
        f.write_text("1\n")
    return tmp_path


def test_relative_and_absolute_paths_inside_the_secure_path(tree):
    secure = str(tree / "secure")
    assert local_paths("a.csv", None, secure) == [tree / "secure" / "a.csv"]
    assert local_paths("sub/b.csv", None, secure) == [tree / "secure" / "sub" / "b.csv"]
    assert local_paths(str(tree / "secure" / "a.csv"), None, secure) == [tree / "secure" / "a.csv"]
    assert local_paths("*/*.csv", None, secure) == [tree / "secure" / "sub" / "b.csv"]
    assert local_paths("parquet", None, secure) == [tree / "secure" / "parquet"]
    with pytest.raises(AnalysisError, match="file not found: nope.csv"):
        local_paths("nope.csv", None, secure)
    with pytest.raises(AnalysisError, match="file not found"):
        local_paths("*.json", None, secure)


@pytest.mark.parametrize("path", ["../outside/secret.csv", "sub/../../outside/secret.csv", "..", "a..csv"])
def test_dot_dot_is_refused_as_doris_does(tree, path):
    with pytest.raises(AnalysisError, match=r"^can not contain '\.\.' in path$"):
        local_paths(path, None, str(tree / "secure"))


def test_nothing_outside_the_secure_path(tree):
    secure = str(tree / "secure")
    for path in ("/etc/passwd", str(tree / "outside" / "secret.csv"), str(tree / "outside" / "*.csv"), "~/x"):
        with pytest.raises(AnalysisError, match="file path is not allowed"):
            local_paths(path, None, secure)
    # Symbolic links are followed before the check, also inside a folder read whole.
    os.symlink(tree / "outside" / "secret.csv", tree / "secure" / "link.csv")
    with pytest.raises(AnalysisError, match=f"file path is not allowed: {tree / 'outside' / 'secret.csv'}"):
        local_paths("link.csv", None, secure)
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        local_paths("*.csv", None, secure)
    os.symlink(tree / "outside", tree / "secure" / "parquet" / "more")
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        local_paths("parquet", None, secure)


def test_default_is_the_warehouse_user_files_and_scripts_read_beside_themselves(tree, monkeypatch):
    """Unset, user_files_secure_path is the default folder given (the engine gives
    <warehouse>/_user_files), never the current directory."""
    default = tree / "secure"
    monkeypatch.chdir(tree / "scripts")
    assert local_paths("a.csv", None, None, default) == [tree / "secure" / "a.csv"]
    assert local_paths("a.csv", None, "", default) == [tree / "secure" / "a.csv"]
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        local_paths(str(tree / "scripts" / "c.csv"), None, None, default)  # the current directory
    with pytest.raises(AnalysisError, match="user_files_secure_path is not set"):
        local_paths("a.csv", None, None)
    scripts = tree / "scripts"
    assert local_paths("c.csv", scripts, None, default) == [scripts / "c.csv"]  # relative: the script's folder
    assert local_paths(str(tree / "secure" / "a.csv"), scripts, None, default) == [tree / "secure" / "a.csv"]
    with pytest.raises(AnalysisError, match="file path is not allowed"):
        local_paths(str(tree / "outside" / "secret.csv"), scripts, None, default)
    with pytest.raises(AnalysisError, match="file not found: a.csv"):  # a default folder not made yet
        local_paths("a.csv", None, None, tree / "missing")


def test_s3_uris_and_endpoints():
    location, options = s3_location(
        {
            "uri": "s3://bucket/dir/*.csv",
            "s3.access_key": "ak",
            "s3.secret_key": "sk",
            "s3.endpoint": "http://minio:9000",
            "use_path_style": "true",
        }
    )
    assert location == "s3a://bucket/dir/*.csv"
    assert options == {
        "fs.s3a.access.key": "ak",
        "fs.s3a.secret.key": "sk",
        "fs.s3a.endpoint": "http://minio:9000",
        "fs.s3a.path.style.access": "true",
        "fs.s3a.impl.disable.cache": "true",
    }
    assert s3_location({"uri": "S3N://b/k", "s3.endpoint": "s3.us-east-1.amazonaws.com"})[0] == "s3a://b/k"
    for uri in ("file:///etc/passwd", "/etc/passwd", "hdfs://nn/x", "jar:file:/x!/y"):
        with pytest.raises(AnalysisError, match=f"^Invalid scheme: {uri}$"):
            s3_location({"uri": uri})
    with pytest.raises(NotSupportedError, match="https"):
        s3_location({"uri": "https://bucket.s3.amazonaws.com/k"})
    for endpoint in ("file:///etc", "file://localhost/etc", "jar:file:/x", "http://host/some/path", "ftp://h"):
        with pytest.raises(AnalysisError, match="Invalid s3.endpoint"):
            s3_location({"uri": "s3://b/k", "s3.endpoint": endpoint})
    with pytest.raises(AnalysisError, match="'uri' is required"):
        s3_location({})


def test_hdfs_uris():
    assert hdfs_location({"uri": "hdfs://nn:8020/user/x/*.csv"}) == "hdfs://nn:8020/user/x/*.csv"
    assert hdfs_location({"uri": "viewfs://cluster/x", "fs.defaultfs": "viewfs://cluster"}) == "viewfs://cluster/x"
    for args in (
        {"uri": "file:///etc/passwd"},
        {"uri": "s3a://b/k"},
        {"uri": "hdfs://nn/x", "fs.defaultfs": "file:///"},
    ):
        with pytest.raises(
            AnalysisError, match=r"^Invalid export path\. please use valid 'HDFS://' or 'viewfs://' path\.$"
        ):
            hdfs_location(args)
    with pytest.raises(AnalysisError, match="there is no schema of URI found"):
        hdfs_location({"uri": "/etc/passwd"})


def test_properties_are_string_pairs():
    call = parse_query('SELECT * FROM local("File_Path" = "a.csv", \'format\' = "csv")').args["from_"].this.this
    assert table_function_properties(call) == {"file_path": "a.csv", "format": "csv"}
    for text in ('local(file_path = "a.csv")', 'local("file_path")', 'local("a" = concat("x", "y"))'):
        call = parse_query(f"SELECT * FROM {text}").args["from_"].this.this
        with pytest.raises(AnalysisError, match="properties must be written"):
            table_function_properties(call)
