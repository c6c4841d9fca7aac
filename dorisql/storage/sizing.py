"""How many rows go in one data file: the target file size over an estimate of a row's size.

Pure arithmetic on numbers and an Arrow schema (no Spark), used by the writer
(`dorisql.storage.delta.DeltaStore`) to cap each file at about the target size: Spark rolls
over to a new file every `rows_per_file` rows (its ``maxRecordsPerFile`` write option).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pyarrow loads when a function needs it, not at start-up
    import pyarrow as pa


#: The default target size of one data file (setting ``target_file_size_bytes``): a tablet gets
#: one file per load up to this size, then one more per further ~256 MiB. Doris flushes a
#: memtable of up to 200 MB (BE ``write_buffer_size``) into one segment; Delta and Iceberg
#: writers aim at a few hundred MB too.
DEFAULT_TARGET_FILE_SIZE = 256 * 2**20

#: The table's own files give the size of a row once it has at least this many rows (fewer are
#: dominated by each file's footer); before that, the schema does.
MIN_SAMPLE_ROWS = 1000

#: Bytes assumed for a value whose width varies (strings, binaries, nested values).
_VARIABLE_WIDTH_BYTES = 16


def rows_per_file(target_bytes: int, row_bytes: float) -> int:
    """Rows that fill one file of about ``target_bytes`` with rows of ``row_bytes`` each (at least 1)."""
    if target_bytes < 1:
        raise ValueError("the target file size must be at least 1 byte")
    return max(1, int(target_bytes / max(row_bytes, 1.0)))


def row_bytes(total_bytes: int, total_rows: int, schema: pa.Schema) -> float:
    """The size of one stored row: the table's average when it holds `MIN_SAMPLE_ROWS` rows
    or more (compressed, as written), else an estimate from the column types (uncompressed,
    so a first load's files come out at or below the target)."""
    if total_rows >= MIN_SAMPLE_ROWS:
        return total_bytes / total_rows
    return float(schema_row_bytes(schema))


def schema_row_bytes(schema: pa.Schema) -> int:
    """A row's width from its column types: fixed widths as they are, variable ones
    `_VARIABLE_WIDTH_BYTES` each (at least 1 byte a row)."""
    return max(1, sum(_type_bytes(f.type) for f in schema))


def _type_bytes(t: pa.DataType) -> int:
    import pyarrow as pa

    if pa.types.is_struct(t):
        return sum(_type_bytes(t.field(i).type) for i in range(t.num_fields))
    try:
        return max(1, t.bit_width // 8)
    except ValueError:  # variable width: strings, binaries, lists, maps
        return _VARIABLE_WIDTH_BYTES


#: Spark's `Utils.bytesToString` units, as EXPLAIN COST prints a plan's ``sizeInBytes``.
_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50, "EiB": 2**60}
_SIZE = re.compile(r"sizeInBytes=([0-9.]+)\s*(B|KiB|MiB|GiB|TiB|PiB|EiB)\b")


def explained_bytes(explain_cost: str) -> float | None:
    """The estimated size of a query's result from Spark's ``EXPLAIN COST`` text: the first
    ``sizeInBytes`` of the optimized logical plan (its root). None when there is none."""
    plan = explain_cost.split("== Optimized Logical Plan ==", 1)[-1]
    m = _SIZE.search(plan)
    if m is None:
        return None
    return float(m.group(1)) * _UNITS[m.group(2)]
