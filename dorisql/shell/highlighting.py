"""Syntax highlighting for the shell: Pygments' MySQL lexer plus Doris's DDL words (as litecli)."""

from __future__ import annotations

from pygments.lexer import inherit, words
from pygments.lexers.sql import MySqlLexer
from pygments.token import Keyword

#: Doris words Pygments' MySQL lexer does not know as keywords.
DORIS_KEYWORDS = (
    "AGGREGATE",
    "AUTO",
    "BUCKETS",
    "COLOCATE",
    "DISTRIBUTED",
    "DUPLICATE",
    "DYNAMIC",
    "FRONTEND",
    "HLL",
    "BITMAP",
    "LARGEINT",
    "MAXVALUE",
    "PARTITIONS",
    "PROC",
    "PROPERTIES",
    "RANDOM",
    "REPLACE_IF_NOT_NULL",
    "ROLLUP",
    "STRING",
    "TABLETS",
    "TEMPORARY",
    "QUANTILE_STATE",
    "BACKENDS",
    "FRONTENDS",
)


class DorisLexer(MySqlLexer):
    """MySQL highlighting that also knows PARTITION BY RANGE ... DISTRIBUTED BY ... BUCKETS AUTO."""

    name = "Doris"
    aliases = ["doris"]

    tokens = {
        "root": [
            (words(DORIS_KEYWORDS, prefix=r"\b", suffix=r"\b"), Keyword),
            inherit,
        ],
    }
