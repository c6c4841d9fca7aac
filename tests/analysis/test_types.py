import datetime as dt
from decimal import Decimal

import pytest

from dorisql import types as T
from dorisql.ast import DataType, StructField
from dorisql.errors import AnalysisError, NotSupportedError


def D(name, *params, args=(), fields=()):
    return DataType(name, tuple(params), tuple(args), tuple(fields))


@pytest.mark.parametrize(
    "alias,canon",
    [
        (D("DATEV2"), D("DATE")),
        (D("DATETIMEV2", 3), D("DATETIME", 3)),
        (D("DATETIME"), D("DATETIME", 0)),
        (D("INTEGER"), D("INT")),
        (D("DECIMALV3", 27, 9), D("DECIMAL", 27, 9)),
        (D("DECIMAL"), D("DECIMAL", 9, 0)),
        (D("VARCHAR"), D("VARCHAR", 65533)),
        (D("CHAR"), D("CHAR", 1)),
        (D("TEXT"), D("STRING")),
        (D("ARRAY", args=(D("DATEV2"),)), D("ARRAY", args=(D("DATE"),))),
    ],
)
def test_canonical(alias, canon):
    assert T.canonical(alias) == canon


def test_type_roles():
    assert T.valid_for_range_partition(D("DATEV2"))
    for n in ["DATE", "DATETIME", "TINYINT", "SMALLINT", "INT", "BIGINT", "LARGEINT"]:
        assert T.valid_for_range_partition(D(n)) and T.valid_for_list_partition(D(n))
    for n in ["BOOLEAN", "CHAR", "VARCHAR"]:
        assert not T.valid_for_range_partition(D(n)) and T.valid_for_list_partition(D(n))
    for n in ["FLOAT", "DOUBLE", "STRING", "DECIMAL", "JSON"]:
        assert not T.valid_for_range_partition(D(n)) and not T.valid_for_list_partition(D(n))
    for n in ["FLOAT", "DOUBLE", "STRING", "JSON", "HLL", "BITMAP", "ARRAY", "MAP", "STRUCT"]:
        assert not T.valid_for_distribution(D(n)) and not T.valid_as_key(D(n))
    assert T.valid_for_distribution(D("VARCHAR", 10)) and T.valid_as_key(D("DECIMAL", 10, 2))
    assert (
        T.partition_type_error(D("BOOLEAN"), "b", "RANGE") == "Column[b] type[BOOLEAN] cannot be a range partition key."
    )
    assert T.partition_type_error(D("STRING"), "s", "LIST") == "String Type should not be used in partition column[s]."
    assert T.partition_type_error(D("DOUBLE"), "d", "LIST") == "Floating point type column can not be partition column"


def test_spark_and_arrow_types():
    import pyarrow as pa

    assert T.spark_type(D("DATETIME")) == "TIMESTAMP_NTZ"
    assert T.spark_type(D("LARGEINT")) == "DECIMAL(38,0)"
    assert T.spark_type(D("DECIMAL", 27, 9)) == "DECIMAL(27,9)"
    assert T.spark_type(D("VARCHAR", 20)) == "STRING" and T.spark_type(D("JSON")) == "STRING"
    assert T.spark_type(D("MAP", args=(D("STRING"), D("ARRAY", args=(D("INT"),))))) == "MAP<STRING,ARRAY<INT>>"
    assert T.spark_type(D("STRUCT", fields=(StructField("a", D("INT")),))) == "STRUCT<`a`:INT>"
    assert T.arrow_type(D("DATETIME")) == pa.timestamp("us") and T.arrow_type(D("DATETIME")).tz is None
    assert T.arrow_type(D("DATE")) == pa.date32()
    assert T.arrow_type(D("LARGEINT")) == pa.decimal128(38, 0)
    # the sketch types' stored forms (docs/storage.md "BITMAP, HLL and QUANTILE_STATE")
    assert T.spark_type(D("BITMAP")) == "ARRAY<STRUCT<bucket: BIGINT, bits: BINARY>>"
    assert T.arrow_type(D("BITMAP")) == pa.list_(pa.struct([("bucket", pa.int64()), ("bits", pa.binary())]))
    for n in ["HLL", "QUANTILE_STATE"]:
        assert T.spark_type(D(n)) == "BINARY" and T.arrow_type(D(n)) == pa.binary()
    with pytest.raises(NotSupportedError, match="AGG_STATE"):
        T.spark_type(D("AGG_STATE"))
    with pytest.raises(NotSupportedError, match="AGG_STATE"):
        T.arrow_type(D("AGG_STATE"))
    with pytest.raises(NotSupportedError, match="DECIMAL256|precision above 38"):
        T.spark_type(D("DECIMAL", 50, 2))
    with pytest.raises(AnalysisError, match="Precision of decimal"):
        T.check_type(D("DECIMAL", 80, 2))


@pytest.mark.parametrize(
    "name,lo,hi",
    [
        ("TINYINT", -128, 127),
        ("SMALLINT", -32768, 32767),
        ("INT", -(2**31), 2**31 - 1),
        ("BIGINT", -(2**63), 2**63 - 1),
    ],
)
def test_int_ranges(name, lo, hi):
    assert T.parse_value(str(lo), D(name)) == lo
    assert T.parse_value(str(hi), D(name)) == hi
    with pytest.raises(AnalysisError, match=rf"^Number out of range\[{hi + 1}\]. type: {name}$"):
        T.parse_value(str(hi + 1), D(name))
    with pytest.raises(AnalysisError, match=r"Number out of range"):
        T.parse_value(str(lo - 1), D(name))


def test_int_errors():
    with pytest.raises(AnalysisError, match=r"^Invalid number format: abc$"):
        T.parse_value("abc", D("INT"))
    with pytest.raises(AnalysisError, match="Number out of range\\[300\\]. type: TINYINT"):
        T.parse_value("300", D("TINYINT"))
    with pytest.raises(AnalysisError, match="Invalid number format: 1.5"):
        T.parse_value("1.5", D("INT"))


def test_largeint_storage_range():
    big = 10**38 - 1
    assert T.parse_value(str(big), D("LARGEINT")) == big
    assert T.parse_value(str(-big), D("LARGEINT")) == -big
    with pytest.raises(AnalysisError, match="DECIMAL\\(38,0\\)"):
        T.parse_value(str(10**38), D("LARGEINT"))
    with pytest.raises(AnalysisError, match="Number out of range"):
        T.parse_value(str(2**127), D("LARGEINT"))
    # a catalog value (partition bound, list value) takes Doris's whole range
    top, bottom = 2**127 - 1, -(2**127)
    assert T.parse_value(str(top), D("LARGEINT"), full_range=True) == top
    assert T.parse_value(str(bottom), D("LARGEINT"), full_range=True) == bottom
    for beyond in (str(2**127), str(bottom - 1)):
        with pytest.raises(AnalysisError, match="Number out of range"):
            T.parse_value(beyond, D("LARGEINT"), full_range=True)
    assert [T.beyond_storage(v, D("LARGEINT")) for v in (big + 1, big, 0, -big, -big - 1)] == [1, 0, 0, 0, -1]
    assert T.beyond_storage(top, D("BIGINT")) == 0  # only LARGEINT's storage is narrower than the type
    # such a value never becomes a Spark literal (its cast would be NULL)
    assert T.spark_literal(big, D("LARGEINT")) == f"CAST('{big}' AS DECIMAL(38,0))"
    with pytest.raises(AnalysisError, match=f"LARGEINT value \\[{top}\\].*DECIMAL\\(38,0\\)"):
        T.spark_literal(top, D("LARGEINT"))


def test_dates():
    assert T.parse_value("2017-02-01", D("DATE")) == dt.date(2017, 2, 1)
    assert T.parse_value("20170201", D("DATE")) == dt.date(2017, 2, 1)
    assert T.parse_value("2017-2-1", D("DATEV2")) == dt.date(2017, 2, 1)
    assert T.parse_value("2017-02-01 10:00:00", D("DATE")) == dt.date(2017, 2, 1)
    with pytest.raises(AnalysisError, match=r"^date literal \[2017-13-01\] is invalid$"):
        T.parse_value("2017-13-01", D("DATE"))
    with pytest.raises(AnalysisError, match="date literal \\[2017-02-30\\] is invalid"):
        T.parse_value("2017-02-30", D("DATE"))
    with pytest.raises(AnalysisError, match="date literal \\[hello\\] is invalid"):
        T.parse_value("hello", D("DATE"))
    with pytest.raises(NotSupportedError):
        T.parse_value("0000-02-01", D("DATE"))


def test_datetimes():
    assert T.parse_value("2017-02-01", D("DATETIME")) == dt.datetime(2017, 2, 1)
    assert T.parse_value("2017-02-01 10:11:12", D("DATETIME")) == dt.datetime(2017, 2, 1, 10, 11, 12)
    assert T.parse_value("2017-02-01 10:11:12.123456", D("DATETIME", 6)) == dt.datetime(2017, 2, 1, 10, 11, 12, 123456)
    assert T.parse_value("2017-02-01 10:11:12.5", D("DATETIME")) == dt.datetime(2017, 2, 1, 10, 11, 13)
    assert T.parse_value("2017-12-31 23:59:59.9996", D("DATETIME", 3)) == dt.datetime(2018, 1, 1)
    assert T.parse_value("20170201101112", D("DATETIME")) == dt.datetime(2017, 2, 1, 10, 11, 12)
    with pytest.raises(AnalysisError, match="date literal \\[2017-02-01 25:00:00\\] is invalid"):
        T.parse_value("2017-02-01 25:00:00", D("DATETIME"))
    assert T.format_value(dt.datetime(2017, 2, 1, 1, 2, 3, 450000), D("DATETIME", 3)) == "2017-02-01 01:02:03.450"
    assert T.format_value(dt.datetime(2017, 2, 1), D("DATETIME")) == "2017-02-01 00:00:00"


def test_bool_string_decimal():
    assert T.parse_value("TRUE", D("BOOLEAN")) is True and T.parse_value("0", D("BOOLEAN")) is False
    with pytest.raises(AnalysisError, match="Invalid BOOLEAN literal: yes"):
        T.parse_value("yes", D("BOOLEAN"))
    assert T.parse_value("Beijing", D("VARCHAR", 7)) == "Beijing"
    with pytest.raises(AnalysisError, match="too long for VARCHAR\\(6\\)"):
        T.parse_value("Beijing", D("VARCHAR", 6))
    with pytest.raises(AnalysisError, match="too long"):
        T.parse_value("北京", D("VARCHAR", 5))  # 6 UTF-8 bytes
    assert T.parse_value("1.005", D("DECIMAL", 5, 2)) == Decimal("1.01")
    with pytest.raises(AnalysisError, match="Number out of range"):
        T.parse_value("1000", D("DECIMAL", 5, 2))
    assert T.parse_value(None, D("INT")) is None


def test_min_texts():
    assert T.min_text(D("DATE")) == "0000-01-01"
    assert T.min_text(D("DATETIME")) == "0000-01-01 00:00:00"
    assert T.min_text(D("TINYINT")) == "-128"
    assert T.min_text(D("INT")) == "-2147483648"
    assert T.min_text(D("BIGINT")) == "-9223372036854775808"
    assert T.min_text(D("LARGEINT")) == "-170141183460469231731687303715884105728"


def test_spark_literals():
    assert T.spark_literal(dt.date(2017, 1, 1), D("DATE")) == "DATE'2017-01-01'"
    assert T.spark_literal(dt.datetime(2017, 1, 1, 1), D("DATETIME")) == "TIMESTAMP_NTZ'2017-01-01 01:00:00.000000'"
    assert T.spark_literal(5, D("LARGEINT")) == "CAST('5' AS DECIMAL(38,0))"
    assert T.spark_literal("it's \\ x", D("VARCHAR", 20)) == "'it\\'s \\\\ x'"


def test_string_lengths_are_utf8_bytes():
    assert T.max_byte_length(D("VARCHAR", 6)) == 6 and T.max_byte_length(D("CHAR")) == 1
    assert T.max_byte_length(D("VARCHAR")) == 65533
    assert T.max_byte_length(D("STRING")) is None and T.max_byte_length(D("INT")) is None
    assert T.byte_length("北京") == 6 and T.byte_length("abc") == 3
    assert T.parse_value("北京", D("VARCHAR", 6)) == "北京"
    with pytest.raises(AnalysisError, match=r"too long for CHAR\(3\): 4 bytes > 3"):
        T.parse_value("éé", D("CHAR", 3))  # 2 characters
