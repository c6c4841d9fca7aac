"""The functions a query may call: an allow-list, checked on the parsed query before Spark sees it.

Queries run on Spark, whose SQL has functions Doris does not, and some of them reach outside the
data: ``reflect`` / ``java_method`` call any Java method (``reflect('java.lang.System', 'exit', 3)``
stops the JVM), others read the environment or the files a query scans (``current_user``,
``input_file_name``, ``version``). A deny-list would miss the next such function, so dorisql
allows only the functions listed here: Doris functions (and the Spark spellings sqlglot gives
them) that compute on their arguments and nothing else — math, string, date and time,
conditional, type conversion, JSON, array, map and struct, aggregate and window functions.
Anything else is refused the way Doris refuses an unknown function::

    Can not found function 'reflect'

The check judges the name each function was *called by* (:func:`dorisql.syntax.dialect.call_name`),
so ``IFNULL(a, b)`` is judged as ``ifnull`` although sqlglot reads it as ``COALESCE``. Nodes that
sqlglot builds from operators rather than calls (``a DIV b``, ``x->>'$.k'``, the branches of a
CASE) carry no call name and compute nothing beyond their operands; they pass. A qualified call
(``db.f(x)``, Spark's ``builtin.reflect(...)``) is a user-defined function in Doris: dorisql has
none, so every qualified call is refused.

Table functions in ``FROM`` (``local()``, ``s3()``, ``hdfs()``) are the planner's business
(:mod:`dorisql.query.table_functions`), not this list's.

Adding a function: it must be a pure function of its arguments (no I/O, no JVM access, no
session or machine state beyond the clock and random numbers), and a Doris function or the
Spark name sqlglot gives one.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark

from dorisql.errors import AnalysisError, InvalidValueError, NotSupportedError
from dorisql.syntax.cancel import checked
from dorisql.syntax.dialect import call_name, fill_placeholders, replace_node
from dorisql.translate.sketch_functions import SKETCH_FUNCTIONS, translate_sketch_functions

__all__ = [
    "ALLOWED_FUNCTIONS",
    "MAX_STRING_BYTES",
    "check_functions",
    "expression_limit_failure",
    "is_table_position",
    "translate_functions",
]

_MATH = """
abs acos asin atan atan2 bin bit_count bitand bitnot bitor bitxor bit_shift_left bit_shift_right
cbrt ceil ceiling conv cos cosh cot csc degrees div e exp factorial floor fmod gcd greatest lcm
least ln log log10 log2 mod negative pi pmod positive pow power radians rand random round
round_bankers sec sign signbit sin sinh sqrt tan tanh truncate uuid
"""

_STRING = """
append_trailing_char_if_absent ascii bit_length char char_length character_length chr concat
concat_ws crc32 elt ends_with field find_in_set format format_number from_base64 hex initcap instr
lcase left length locate lower lpad ltrim mask mask_first_n mask_last_n md5 md5sum mid money_format
not_null_or_empty null_or_empty overlay parse_url position printf quote regexp regexp_count
regexp_extract regexp_extract_all regexp_extract_or_null regexp_like regexp_replace
regexp_replace_one repeat replace replace_empty reverse right rlike rpad rtrim sha sha1 sha2
soundex space split split_by_regexp split_by_string split_part starts_with strcmp strleft strright
substr substring substring_index to_base64 translate trim trim_in ucase unhex upper url_decode
url_encode
"""

_DATE = """
add_months adddate convert_tz curdate current_date current_time current_timestamp curtime date
date_add date_format date_sub date_trunc datediff datetime day dayname dayofmonth dayofweek
dayofyear days_add days_diff days_sub extract from_days from_second from_unixtime hour
hours_add hours_diff hours_sub last_day localtime localtimestamp makedate microsecond
microseconds_add minute minutes_add minutes_diff minutes_sub month monthname months_add
months_between months_diff months_sub next_day now quarter sec_to_time second seconds_add
seconds_diff seconds_sub str_to_date time_to_sec timediff timestamp timestampadd timestampdiff
to_date to_days to_monday unix_timestamp utc_timestamp week weekday weekofyear weeks_add
weeks_diff weeks_sub year years_add years_diff years_sub yearweek
"""

_CONDITIONAL = """
case coalesce if ifnull isnotnull isnull nullif nvl nvl2
"""

_CONVERSION = """
cast convert try_cast
"""

_JSON = """
get_json_bigint get_json_double get_json_int get_json_object get_json_string json_array
json_exists_path json_extract json_extract_bigint json_extract_bool
json_extract_double json_extract_int json_extract_isnull json_extract_string json_keys
json_length json_object json_quote json_type json_unquote json_valid
"""

_COLLECTIONS = """
array array_avg array_compact array_concat array_contains array_count array_cum_sum
array_difference array_distinct array_enumerate array_except array_exists array_filter
array_first array_first_index array_flatten array_intersect array_join array_last
array_last_index array_map array_max array_min array_popback array_popfront array_position
array_product array_pushback array_pushfront array_range array_remove array_repeat
array_reverse_sort array_shuffle array_size array_slice array_sort array_sortby array_sum
array_union array_with_constant array_zip arrays_overlap arrays_zip cardinality element_at
flatten map map_contains_key map_contains_value map_keys map_size map_values named_struct
sequence size slice sort_array struct struct_element
explode explode_outer posexplode posexplode_outer
"""

_AGGREGATE = """
any any_value approx_count_distinct array_agg avg avg_weighted bit_and bit_or bit_xor bool_and
bool_or collect_list collect_set corr count count_by_enum covar covar_pop covar_samp every first
group_array group_concat group_uniq_array last max max_by median min min_by ndv percentile
percentile_approx percentile_array stddev stddev_pop stddev_samp std sum var_pop var_samp
variance variance_pop variance_samp
"""

_WINDOW = """
cume_dist dense_rank first_value lag last_value lead nth_value ntile percent_rank rank row_number
"""

#: Every function a query may call, by the name it is called by (lower case).
ALLOWED_FUNCTIONS: frozenset[str] = (
    frozenset(
        " ".join([_MATH, _STRING, _DATE, _CONDITIONAL, _CONVERSION, _JSON, _COLLECTIONS, _AGGREGATE, _WINDOW]).split()
    )
    | SKETCH_FUNCTIONS  # BITMAP, HLL and QUANTILE_STATE (dorisql.translate.sketch_functions)
)


def is_table_position(node: exp.Expr) -> bool:
    """Whether `node` is called in FROM (``FROM local(...)``): a table function."""
    return isinstance(node.parent, exp.Table) and node.arg_key == "this"


def check_functions(tree: exp.Expr) -> None:
    """Refuse the query if it calls a function that is not allowed (table functions aside)."""
    for node in checked(tree.find_all(exp.Func)):
        name = call_name(node)
        if name is None or is_table_position(node):
            continue
        if isinstance(node.parent, exp.Dot) and node.arg_key == "expression":
            qualifier = node.parent.this.sql(dialect="doris").replace("`", "")
            raise AnalysisError(f"Can not found function '{qualifier}.{name}'")
        if name not in ALLOWED_FUNCTIONS:
            raise AnalysisError(f"Can not found function '{name}'")
        arities = _DORIS_ARITIES.get(name)
        if arities is not None and isinstance(node, exp.Anonymous) and len(node.expressions) not in arities:
            # Doris's FunctionRegistry: the name is known, not with this many arguments
            candidates = ", ".join(f"{name}({', '.join(['Expression'] * n)})" for n in sorted(arities))
            raise AnalysisError(
                f"Can not found function '{name}' which has {len(node.expressions)} arity. "
                f"Candidate functions are: [{candidates}]"
            )


# --------------------------------------------------------------------------- translation to Spark

#: Doris functions Spark has under another name, same arguments (sqlglot's Doris dialect reads
#: them as plain calls and would pass the Doris name through).
_RENAMED = {"ndv": "approx_count_distinct"}

#: Doris's ``<unit>s_add`` / ``<unit>s_sub`` (time_round.cpp / date_time_add): the unit they move by.
_UNIT_ARITHMETIC = {
    f"{unit.lower()}s_{op}": (unit, op)
    for unit in ("YEAR", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND")
    for op in ("add", "sub")
}
_TIME_UNITS = ("HOUR", "MINUTE", "SECOND")


def _int_count(node: exp.Expr) -> exp.Expr:
    """A day/month count as Spark's DATE_ADD / ADD_MONTHS want it: an INT (Doris takes any
    integer expression, e.g. ``id % 366`` of a BIGINT ``id``)."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return node
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return node
    return exp.cast(node, exp.DataType.build("INT"))


def _date_arith(node: exp.Expr, unit: str, subtract: bool, value: exp.Expr, count) -> exp.Expr:
    if unit in _TIME_UNITS:  # sqlglot's Spark output drops sub-day units: say it explicitly
        if subtract:
            count = exp.Neg(this=exp.Paren(this=count))
        return exp.Anonymous(this="TIMESTAMPADD", expressions=[exp.var(unit), count, value])
    cls = exp.DateSub if subtract else exp.DateAdd
    return cls(this=value, expression=_int_count(count), unit=exp.var(unit))


def translate_functions(tree: exp.Expr) -> exp.Expr:
    """Rewrite, in place, the Doris calls that Spark lacks or types differently into Spark's
    equivalents (the rest sqlglot's Doris → Spark translation already handles); returns the tree.

    - ``ndv(x)`` → ``approx_count_distinct(x)``;
    - ``date_add`` / ``date_sub`` / ``days_add`` ... ``years_sub`` with a count that is not a
      literal: the count cast to INT (Spark's DATE_ADD and ADD_MONTHS refuse a BIGINT);
    - ``hours_add`` / ``minutes_add`` / ``seconds_add`` (and ``_sub``) → ``TIMESTAMPADD``;
    - ``from_unixtime(ts, format)`` → Spark's ``FROM_UNIXTIME(ts, pattern)`` (a string);
    - the calls whose result can be far larger than their arguments are bounded (`_bound_sizes`);
    - division by zero, failed casts and invalid dates give NULL, as in Doris (`_null_semantics`);
    - BITMAP, HLL and QUANTILE_STATE functions on Spark's sketches (`translate_sketch_functions`).
    """
    translate_sketch_functions(tree)
    _doris_only_functions(tree)
    _null_semantics(tree)
    for node in checked(list(tree.find_all(exp.Func))):
        if is_table_position(node):
            continue
        name = call_name(node)
        if isinstance(node, exp.Count) and node.this is None and not node.expressions:
            # Doris's count() is count(*) (Nereids Count's argument-less signature); Spark needs one
            node.set("this", exp.Star())
        elif isinstance(node, exp.Anonymous) and name in _RENAMED:
            node.set("this", _RENAMED[name])
        elif isinstance(node, exp.Anonymous) and name in _UNIT_ARITHMETIC and len(node.expressions) == 2:
            unit, op = _UNIT_ARITHMETIC[name]
            value, count = node.expressions
            replace_node(node, _date_arith(node, unit, op == "sub", value, count))
        elif isinstance(node, (exp.DateAdd, exp.DateSub)) and node.expression is not None:
            unit = (node.text("unit") or "DAY").upper()
            if unit in _TIME_UNITS:
                replace_node(node, _date_arith(node, unit, isinstance(node, exp.DateSub), node.this, node.expression))
            else:
                node.set("expression", _int_count(node.expression))
        elif isinstance(node, exp.AddMonths) and node.expression is not None:
            node.set("expression", _int_count(node.expression))
        elif isinstance(node, exp.UnixToTime) and node.args.get("format") is not None:
            # from_unixtime(ts, '%Y-%m-%d'): a formatted string (sqlglot's Spark output drops the format)
            replace_node(node, exp.UnixToStr(this=node.this, format=node.args["format"]))
    _bound_sizes(tree)
    return tree


# --------------------------------------------------------------------------- Doris's own functions

#: Doris functions Spark lacks, by (name, number of arguments): their Spark SQL, over
#: ``__dorisql_arg0`` ... (docs/compatibility.md, "Functions"). Each computes Doris's documented
#: result exactly; a function Spark cannot compute exactly is not here.
_DORIS_ONLY: dict[tuple[str, int], str] = {
    # math
    ("bitand", 2): "__dorisql_arg0 & __dorisql_arg1",
    ("bitor", 2): "__dorisql_arg0 | __dorisql_arg1",
    ("bitxor", 2): "__dorisql_arg0 ^ __dorisql_arg1",
    ("bitnot", 1): "~__dorisql_arg0",
    ("bit_shift_left", 2): "shiftleft(CAST(__dorisql_arg0 AS BIGINT), __dorisql_arg1)",
    # Doris shifts the BIGINT's bits, sign bit included: bit_shift_right(-1, 1) = 2^63 - 1
    ("bit_shift_right", 2): "shiftrightunsigned(CAST(__dorisql_arg0 AS BIGINT), __dorisql_arg1)",
    ("fmod", 2): "try_mod(CAST(__dorisql_arg0 AS DOUBLE), CAST(__dorisql_arg1 AS DOUBLE))",
    ("round_bankers", 1): "bround(__dorisql_arg0)",
    ("round_bankers", 2): "bround(__dorisql_arg0, __dorisql_arg1)",
    # string
    ("append_trailing_char_if_absent", 2): (
        "CASE WHEN char_length(__dorisql_arg1) <> 1 THEN NULL WHEN endswith(__dorisql_arg0, __dorisql_arg1) "
        "THEN __dorisql_arg0 ELSE concat(__dorisql_arg0, __dorisql_arg1) END"
    ),
    ("mask_first_n", 1): "mask(__dorisql_arg0)",
    ("mask_first_n", 2): (
        "concat(mask(left(__dorisql_arg0, __dorisql_arg1)), substring(__dorisql_arg0, greatest(__dorisql_arg1, 0) + 1))"
    ),
    ("mask_last_n", 1): "mask(__dorisql_arg0)",
    ("mask_last_n", 2): (
        "concat(left(__dorisql_arg0, greatest(char_length(__dorisql_arg0) - greatest(__dorisql_arg1, 0), 0)), "
        "mask(right(__dorisql_arg0, __dorisql_arg1)))"
    ),
    ("mid", 2): "substring(__dorisql_arg0, __dorisql_arg1)",
    ("mid", 3): "substring(__dorisql_arg0, __dorisql_arg1, __dorisql_arg2)",
    ("money_format", 1): "format_number(CAST(__dorisql_arg0 AS DECIMAL(38, 9)), 2)",
    ("not_null_or_empty", 1): "coalesce(__dorisql_arg0 <> '', false)",
    ("null_or_empty", 1): "coalesce(__dorisql_arg0 = '', true)",
    ("regexp_extract_or_null", 3): (
        "IF(regexp_instr(__dorisql_arg0, __dorisql_arg1) > 0, "
        "regexp_extract(__dorisql_arg0, __dorisql_arg1, __dorisql_arg2), NULL)"
    ),
    ("split_by_regexp", 2): "split(__dorisql_arg0, __dorisql_arg1)",
    ("strcmp", 2): (
        "CASE WHEN __dorisql_arg0 < __dorisql_arg1 THEN -1 WHEN __dorisql_arg0 > __dorisql_arg1 THEN 1 "
        "WHEN __dorisql_arg0 = __dorisql_arg1 THEN 0 END"
    ),
    ("strleft", 2): "left(__dorisql_arg0, __dorisql_arg1)",
    ("strright", 2): "right(__dorisql_arg0, __dorisql_arg1)",
    ("trim_in", 1): "trim(__dorisql_arg0)",
    ("trim_in", 2): "trim(BOTH __dorisql_arg1 FROM __dorisql_arg0)",
    # date and time
    # Doris's day numbers (MySQL's): TO_DAYS('1970-01-01') is 719528
    ("from_days", 1): "date_add(DATE'1970-01-01', CAST(__dorisql_arg0 - 719528 AS INT))",
    ("from_second", 1): "timestamp_seconds(__dorisql_arg0)",
    ("makedate", 2): (
        "IF(__dorisql_arg1 > 0, date_add(make_date(__dorisql_arg0, 1, 1), CAST(__dorisql_arg1 - 1 AS INT)), NULL)"
    ),
    ("microsecond", 1): "CAST(date_format(TRY_CAST(__dorisql_arg0 AS TIMESTAMP), 'SSSSSS') AS INT)",
    ("microseconds_add", 2): "timestampadd(MICROSECOND, __dorisql_arg1, __dorisql_arg0)",
    ("to_monday", 1): "CAST(date_trunc('WEEK', TRY_CAST(__dorisql_arg0 AS DATE)) AS DATE)",
    # <unit>s_diff(end, start): whole units from start to end
    **{
        (f"{unit.lower()}s_diff", 2): f"timestampdiff({unit}, __dorisql_arg1, __dorisql_arg0)"
        for unit in ("YEAR", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND")
    },
    # JSON: the value at a path, typed as the function says (NULL if it is not one)
    **{
        (name, 2): f"TRY_CAST(get_json_object(__dorisql_arg0, __dorisql_arg1) AS {spark_type})"
        for names, spark_type in (
            (("get_json_int", "json_extract_int"), "INT"),
            (("get_json_bigint", "json_extract_bigint"), "BIGINT"),
            (("get_json_double", "json_extract_double"), "DOUBLE"),
            (("json_extract_bool",), "BOOLEAN"),
        )
        for name in names
    },
    ("get_json_string", 2): "get_json_object(__dorisql_arg0, __dorisql_arg1)",
    ("json_extract_string", 2): "get_json_object(__dorisql_arg0, __dorisql_arg1)",
    ("json_valid", 1): "IF(__dorisql_arg0 IS NULL, NULL, IF(try_parse_json(__dorisql_arg0) IS NULL, 0, 1))",
}

#: One value as JSON text (what to_json writes for it inside a struct): Doris's JSON of a value.
#: (Doris writes a DATETIME in JSON as text without the T; NULL members are kept.)
_TO_JSON_OPTIONS = "map('ignoreNullFields', 'false', 'timestampFormat', 'yyyy-MM-dd HH:mm:ss')"
_JSON_VALUE = (
    f"regexp_extract(to_json(named_struct('v', __dorisql_arg0), {_TO_JSON_OPTIONS}), '^[{{]\"v\":(.*)[}}]$', 1)"
)
_DORIS_ONLY[("json_quote", 1)] = _JSON_VALUE
#: A json_object / json_array member's JSON text. Doris hands DECIMAL, FLOAT and DOUBLE values to
#: its JSON writer as DOUBLE (FunctionCallExpr.computeJsonDataType: type 3), which prints them
#: with "%.15g" (JsonbOutStream): DECIMAL(18,6) 1.1 is 1.1, 2.000 is 2, 1E20 is 1e+20. Java's
#: %g keeps the zeros C's drops, so they are cut. DECIMAL(38,0) is dorisql's LARGEINT, an integer
#: in Doris's JSON (type 5), so it keeps its digits.
_JSON_DOUBLE_TEXT = (
    "regexp_replace(regexp_replace(format_string('%.15g', CAST(__dorisql_text AS DOUBLE)), "
    "'([.][0-9]*?)0+(e|$)', '$1$2'), '[.](e|$)', '$1')"
)
_JSON_MEMBER = (
    "CASE WHEN __dorisql_arg0 IS NULL THEN 'null' "
    "WHEN typeof(__dorisql_arg0) IN ('double', 'float') OR (typeof(__dorisql_arg0) LIKE 'decimal%' "
    "AND typeof(__dorisql_arg0) != 'decimal(38,0)') THEN "
    + _JSON_DOUBLE_TEXT.replace("__dorisql_text", _JSON_VALUE)
    + f" ELSE {_JSON_VALUE} END"
)

#: Euclid's steps on DECIMAL(38,0) (LARGEINT's values): no pair below 10^38 needs more than 185
#: (consecutive Fibonacci numbers are the worst case), so a bounded fold computes gcd exactly.
_GCD_FOLD = (
    "aggregate(sequence(1, 185), named_struct('a', CAST(__dorisql_arg0 AS DECIMAL(38, 0)), "
    "'b', CAST(__dorisql_arg1 AS DECIMAL(38, 0))), "
    "(__dorisql_s, __dorisql_i) -> IF(__dorisql_s.b = 0, __dorisql_s, "
    "named_struct('a', __dorisql_s.b, 'b', __dorisql_s.a % __dorisql_s.b)), __dorisql_s -> {finish})"
)
#: The JSON value at a path as Spark's VARIANT: SQL NULL when the text is not JSON or the path
#: is missing, a VARIANT null for a JSON null (Doris's JSON type tells the two apart; Spark's
#: get_json_object does not).
_AT_PATH = "try_variant_get(try_parse_json(__dorisql_arg0), __dorisql_arg1)"
#: JSON_LENGTH of a JSON text `{j}`: an array's elements, an object's members, 1 for a scalar.
_JSON_LENGTH = "IF(try_parse_json({j}) IS NULL, NULL, coalesce(json_array_length({j}), size(json_object_keys({j})), 1))"
_TIMEDIFF_RANGE = "[E-218]The function timediff result of "
#: One JSON string, whole (RFC 8259: no bare quote, backslash or control character inside)
_JSON_STRING = r"""'^"([^"\\\\\\u0000-\\u001f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4})*"$'"""
#: Doris's TIME (Doris shows it as 'HH:MM:SS' text; dorisql's value is that text): from seconds,
#: clamped to TIME's range [-838:59:59, 838:59:59]; a fractional type shows six digits.
_TIME_OF_SECONDS = (
    "element_at(transform(array(CAST({secs} AS DECIMAL(38, 6))), __dorisql_x -> "
    "IF(__dorisql_x IS NULL, NULL, concat(IF(__dorisql_x < 0, '-', ''), "
    "format_string('%02d', CAST(floor(least(abs(__dorisql_x), 3020399) / 3600) AS BIGINT)), ':', "
    "format_string('%02d', CAST(floor(least(abs(__dorisql_x), 3020399) / 60) % 60 AS BIGINT)), ':', "
    "IF({whole}, format_string('%02d', CAST(floor(least(abs(__dorisql_x), 3020399) % 60) AS BIGINT)), "
    "lpad(CAST(CAST(least(abs(__dorisql_x), 3020399) % 60 AS DECIMAL(8, 6)) AS STRING), 9, '0'))))), 1)"
)
#: Spark's names of the types whose values are whole numbers (LARGEINT is a DECIMAL(38,0))
_WHOLE_TYPE = "'^(tinyint|smallint|int|bigint|void|decimal[(][0-9]+,0[)])$'"
#: MySQL's week modes (Doris's week / yearweek, MySQL's calc_week), for a date `D` and a mode
#: `M`: bit 0 a week starting on Monday, and a first week that is the first one starting in the
#: year ("F") or the first one with 4 days in it; `X` is the day that decides a week's year
#: (its first day, or its fourth).
_WEEK_F = "((({M} & 7) & 4) <> 0) <> (({M} & 7) % 2 = 0)"
_WEEK_X = (
    "date_add(date_sub({D}, IF(({M} & 7) % 2 = 1, (dayofweek({D}) + 5) % 7, dayofweek({D}) - 1)), "
    f"IF({_WEEK_F}, 0, 3))"
)
_YEARWEEK = "year({X}) * 100 + (dayofyear({X}) - 1) DIV 7 + 1"
#: week() counts from the date's own year (week 0: days before its first week) unless bit 1 of
#: the mode says weeks belong to the year they are counted in (then as yearweek).
_WEEK = (
    "IF((({M} & 7) & 2) <> 0, (dayofyear({X}) - 1) DIV 7 + 1, "
    "IF({X} < make_date(year({D}), 1, 1), 0, datediff({X}, make_date(year({D}), 1, 1)) DIV 7 + 1))"
)


def _week_sql(template: str, mode: str = "__dorisql_arg1") -> str:
    # D and X are each computed once and bound as a lambda's parameter: written out in place,
    # one week() held the date's cast a dozen times, and planning it (the casts' own rewrites,
    # then Spark's parser) took seconds
    day = _WEEK_X.replace("{D}", "__dorisql_d").replace("{M}", mode)
    body = template.replace("{X}", "__dorisql_x").replace("{D}", "__dorisql_d").replace("{M}", mode)
    return (
        "element_at(transform(array(TRY_CAST(__dorisql_arg0 AS DATE)), __dorisql_d -> "
        f"element_at(transform(array({day}), __dorisql_x -> {body}), 1)), 1)"
    )


_DORIS_ONLY.update(
    {
        # math: Doris's integer gcd / lcm (any sign; gcd(0, 0) = 0)
        ("gcd", 2): _GCD_FOLD.format(finish="abs(__dorisql_s.a)"),
        ("lcm", 2): _GCD_FOLD.format(
            finish="IF(__dorisql_s.a = 0, 0, abs(try_multiply("
            "CAST(__dorisql_arg0 AS DECIMAL(38, 0)) DIV __dorisql_s.a, CAST(__dorisql_arg1 AS DECIMAL(38, 0)))))"
        ),
        # the sign bit of a DOUBLE, set for -0.0 too: Java writes it ('-0.0'; Spark's arithmetic
        # and atan2 turn -0.0 into 0.0)
        ("signbit", 1): "startswith(CAST(CAST(__dorisql_arg0 AS DOUBLE) AS STRING), '-')",
        # JSON
        ("json_length", 1): _JSON_LENGTH.format(j="__dorisql_arg0"),
        ("json_length", 2): _JSON_LENGTH.format(j=f"to_json({_AT_PATH})"),
        ("json_exists_path", 2): (
            f"IF(try_parse_json(__dorisql_arg0) IS NULL OR __dorisql_arg1 IS NULL, NULL, {_AT_PATH} IS NOT NULL)"
        ),
        ("json_extract_isnull", 2): f"IF({_AT_PATH} IS NULL, NULL, is_variant_null({_AT_PATH}))",
        ("json_unquote", 1): (
            "IF(char_length(__dorisql_arg0) >= 2 AND startswith(__dorisql_arg0, '\"') "
            "AND endswith(__dorisql_arg0, '\"'), "
            # (Spark's parser stops after a leading JSON value: the whole text must be a JSON string)
            f"coalesce(IF(__dorisql_arg0 RLIKE {_JSON_STRING}, "
            "try_variant_get(try_parse_json(__dorisql_arg0), '$', 'string'), NULL), "
            "raise_error(concat('[RUNTIME_ERROR]Invalid JSON text in argument 1 to function json_unquote: ', "
            "__dorisql_arg0))), __dorisql_arg0)"
        ),
        # string
        ("split_by_regexp", 3): "split(__dorisql_arg0, __dorisql_arg1, CAST(__dorisql_arg2 AS INT))",
        # old = '': new before each character and at the end (Presto's REPLACE)
        ("replace_empty", 3): (
            "IF(__dorisql_arg1 = '', IF(__dorisql_arg0 = '', __dorisql_arg2, concat(__dorisql_arg2, "
            "array_join(transform(split(__dorisql_arg0, ''), "
            "__dorisql_c -> concat(__dorisql_c, __dorisql_arg2)), ''))), "
            "replace(__dorisql_arg0, __dorisql_arg1, __dorisql_arg2))"
        ),
        # date and time (TIME values as Doris shows them: 'HH:MM:SS' text)
        ("sec_to_time", 1): _TIME_OF_SECONDS.format(
            secs="__dorisql_arg0", whole=f"typeof(__dorisql_arg0) RLIKE {_WHOLE_TYPE}"
        ),
        # a TIME text ('-02:30:00', '10:15:30.123456': the fraction ignored, NULL out of range) or a
        # DATETIME's time of day; a DATETIME written as text is not a TIME: NULL, as in Doris
        ("time_to_sec", 1): (
            "IF(typeof(__dorisql_arg0) IN ('timestamp', 'timestamp_ntz', 'date'), "
            "hour(TRY_CAST(__dorisql_arg0 AS TIMESTAMP)) * 3600 + minute(TRY_CAST(__dorisql_arg0 AS TIMESTAMP)) * 60 "
            "+ second(TRY_CAST(__dorisql_arg0 AS TIMESTAMP)), "
            "element_at(transform(array(regexp_extract(CAST(__dorisql_arg0 AS STRING), "
            "'^-?[0-9]{1,3}:[0-5]?[0-9]:[0-5]?[0-9]([.][0-9]*)?$', 0)), "
            "__dorisql_t -> IF(__dorisql_t = '' OR abs(CAST(split(__dorisql_t, ':')[0] AS INT)) > 838, NULL, "
            "IF(startswith(__dorisql_t, '-'), -1, 1) * (abs(CAST(split(__dorisql_t, ':')[0] AS INT)) * 3600 "
            "+ CAST(split(__dorisql_t, ':')[1] AS INT) * 60 "
            "+ CAST(split(split(__dorisql_t, ':')[2], '[.]')[0] AS INT)))), 1))"
        ),
        # end - start as a TIME; out of TIME's range it is Doris's error, not a clamped value
        ("timediff", 2): (
            "element_at(transform(array(named_struct("
            "'d', CAST(timestampdiff(MICROSECOND, TRY_CAST(__dorisql_arg1 AS TIMESTAMP_NTZ), "
            "TRY_CAST(__dorisql_arg0 AS TIMESTAMP_NTZ)) AS DECIMAL(38, 6)) / 1000000, "
            "'a', TRY_CAST(__dorisql_arg0 AS TIMESTAMP_NTZ), 'b', TRY_CAST(__dorisql_arg1 AS TIMESTAMP_NTZ))), "
            "__dorisql_t -> IF(__dorisql_t.d IS NULL, NULL, IF(abs(__dorisql_t.d) > 3020399, "
            f"raise_error(concat('{_TIMEDIFF_RANGE}', date_format(__dorisql_t.a, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), "
            "', ', date_format(__dorisql_t.b, 'yyyy-MM-dd HH:mm:ss.SSSSSS'), ' is out of range')), "
            "concat(IF(__dorisql_t.d < 0, '-', ''), "
            "format_string('%02d', CAST(floor(abs(__dorisql_t.d) / 3600) AS BIGINT)), ':', "
            "format_string('%02d', CAST(floor(abs(__dorisql_t.d) / 60) % 60 AS BIGINT)), ':', "
            "format_string('%02d', CAST(floor(abs(__dorisql_t.d) % 60) AS BIGINT)), "
            # the fraction's digits as far as they are not 0 (Doris: a scale when not whole seconds)
            "regexp_replace(substring(CAST(CAST(abs(__dorisql_t.d) % 1 AS DECIMAL(7, 6)) AS STRING), 2), "
            "'[.]?0*$', ''))))), 1)"
        ),
        ("yearweek", 1): _week_sql(_YEARWEEK, mode="0"),
        ("yearweek", 2): _week_sql(_YEARWEEK),
    }
)


def _replace_one(value: exp.Expr, pattern: exp.Expr, replacement: exp.Expr) -> exp.Expr:
    """``regexp_replace_one(s, p, r)``: the first match of `p` replaced (RE2::Replace). Spark
    replaces every match, so the pattern is anchored at the start behind the shortest prefix
    (``^(prefix)(p)``: one match, where Java's find() meets the first) and the prefix put back.
    The replacement's ``\\0`` ... ``\\9`` (RE2's groups) become Java's, shifted past the two added
    groups, and its other characters are taken literally; it must be a literal."""
    if not (isinstance(replacement, exp.Literal) and replacement.is_string):
        raise NotSupportedError("regexp_replace_one with a replacement that is not a string literal")
    text, java, i = replacement.this, ["$1"], 0
    while i < len(text):
        char, following = text[i], text[i + 1 : i + 2]
        if char == "\\" and following.isdigit():
            java.append(f"${int(following) + 2}")
            i += 2
            continue
        if char == "\\" and following == "\\":
            i += 1
        # (a digit escaped too: after a group it would be read as part of the group's number)
        java.append("\\" + char if char in "\\$" or char.isdigit() else char)
        i += 1
    anchored = exp.Concat(expressions=[exp.Literal.string("^([\\s\\S]*?)("), pattern, exp.Literal.string(")")])
    return exp.Anonymous(this="REGEXP_REPLACE", expressions=[value, anchored, exp.Literal.string("".join(java))])


def _inside_json_call(node: exp.Expr) -> bool:
    """Whether `node` is an argument of a (not yet rewritten) json_object or json_array."""
    parent = node.parent.parent if isinstance(node.parent, exp.JSONKeyValue) else node.parent
    return isinstance(parent, exp.JSONObject) or (
        isinstance(parent, exp.Anonymous) and call_name(parent) == "json_array"
    )


def _json_joined(form: str, members: list[exp.Expr]) -> exp.Expr:
    """`form` ('{%s}' or '[%s]') around the members' JSON texts joined by commas."""
    joined = exp.Anonymous(
        this="ARRAY_JOIN", expressions=[exp.Anonymous(this="ARRAY", expressions=members), exp.Literal.string(",")]
    )
    return exp.Anonymous(this="FORMAT_STRING", expressions=[exp.Literal.string(form), joined])


def _doris_only_functions(tree: exp.Expr) -> None:
    """Rewrite, in place, the calls of `_DORIS_ONLY`, ``json_object`` and ``json_array`` into
    Spark SQL; innermost first, so that an argument a template repeats is already Spark's.

    ``json_object('k', v, ...)`` and ``json_array(a, ...)`` join each member's JSON text (what
    to_json writes for it; DECIMAL, FLOAT and DOUBLE as Doris prints them: `_JSON_MEMBER`), so
    values of different types keep theirs; json_object's keys must be string literals. A
    json_object or json_array inside another is embedded as JSON (``parse_json``), not as a
    quoted string."""
    for node in checked(reversed(list(tree.find_all(exp.Func, bfs=False)))):
        if is_table_position(node):
            continue
        name = call_name(node)
        built: exp.Expr | None = None
        if isinstance(node, exp.JSONObject) and name == "json_object":
            pairs = [(kv.this, kv.expression) for kv in node.expressions if isinstance(kv, exp.JSONKeyValue)]
            if len(pairs) != len(node.expressions) or not all(
                isinstance(k, exp.Literal) and k.is_string for k, _ in pairs
            ):
                raise NotSupportedError("json_object with a key that is not a string literal")
            members: list[exp.Expr] = []
            for key, value in pairs:
                key_text, value_text = _template(_JSON_VALUE), _template(_JSON_MEMBER)
                fill_placeholders(key_text, {"__dorisql_arg0": key})
                fill_placeholders(value_text, {"__dorisql_arg0": value})
                members.append(exp.Concat(expressions=[key_text, exp.Literal.string(":"), value_text]))
            built = _json_joined("{%s}", members)
        elif isinstance(node, exp.Anonymous) and name == "json_array":
            members = []
            for item in node.expressions:
                member = _template(_JSON_MEMBER)
                fill_placeholders(member, {"__dorisql_arg0": item})
                members.append(member)
            built = _json_joined("[%s]", members)
        elif isinstance(node, exp.Anonymous) and name == "field" and node.expressions:
            # the 1-based place of the first argument among the others, 0 when absent (or NULL)
            value, *among = node.expressions
            position = exp.Anonymous(this="ARRAY_POSITION", expressions=[exp.Array(expressions=among), value])
            built = exp.Coalesce(this=position, expressions=[exp.Literal.number(0)])
        elif isinstance(node, exp.Anonymous) and name == "md5sum" and node.expressions:
            built = exp.Anonymous(this="MD5", expressions=[exp.Concat(expressions=list(node.expressions))])
        elif isinstance(node, exp.Anonymous) and name == "regexp_replace_one" and len(node.expressions) == 3:
            built = _replace_one(*node.expressions)
        elif isinstance(node, exp.Week) and name == "week":
            mode = node.args.get("mode")
            built = _template(_week_sql(_WEEK, mode="0" if mode is None else "__dorisql_arg1"))
            fill_placeholders(built, {"__dorisql_arg0": node.this} | ({} if mode is None else {"__dorisql_arg1": mode}))
        elif name is not None and isinstance(node, exp.Anonymous):
            sql = _DORIS_ONLY.get((name, len(node.expressions)))
            if sql is not None:
                built = _template(sql)
                fill_placeholders(built, {f"__dorisql_arg{i}": a for i, a in enumerate(node.expressions)})
        if built is None:
            continue
        if name in ("json_object", "json_array") and _inside_json_call(node):
            built = exp.Anonymous(this="PARSE_JSON", expressions=[built])
        replace_node(node, built)


#: The arities of the Doris functions dorisql writes itself (Spark knows none of these names,
#: so a call with another number of arguments is refused with Doris's message, not Spark's).
_DORIS_ARITIES: dict[str, frozenset[int]] = {
    name: frozenset(n for other, n in _DORIS_ONLY if other == name) for name, _ in _DORIS_ONLY
} | {"regexp_replace_one": frozenset({3})}


# --------------------------------------------------------------------------- NULL, not an error

#: Spark's Java pattern of a Doris date format (``'%Y-%m-%d'`` → ``'yyyy-M-d'``), as sqlglot's
#: Spark output writes it.
_SPARK_FORMAT = Spark().generator()


def _try_cast(node: exp.Expr, to: str) -> exp.Expr:
    return exp.TryCast(this=node, to=exp.DataType.build(to), safe=True)


def _null_semantics(tree: exp.Expr) -> None:
    """Where Spark (in ANSI mode, which the loads' strict-mode checks and the pyarrow residual of
    a colocate join rely on) raises an error, Doris returns NULL: rewrite those expressions, in
    place, into Spark's ``try_*`` forms (docs/compatibility.md, "NULL instead of an error").

    - ``a / b`` → ``try_divide(a, b)``; ``a % b`` and ``mod(a, b)`` → ``try_mod(a, b)``;
      ``a DIV b`` → ``a DIV nullif(b, 0)``; ``pmod(a, b)`` → ``pmod(a, nullif(b, 0))``
      (Doris: division by zero is NULL);
    - ``CAST(x AS t)`` / ``CONVERT(x, t)`` → ``TRY_CAST``: a value that is not a ``t`` or does
      not fit it (``CAST('abc' AS INT)``, ``CAST(1000 AS TINYINT)``, ``CAST('2020-02-30' AS
      DATE)``) is NULL (Doris's non-strict cast, its default);
    - ``str_to_date`` → ``try_to_date`` / ``try_to_timestamp``; ``to_date`` / ``date`` →
      ``try_to_date``; ``timestamp(x)`` and the value of ``date_format`` / the days of
      ``datediff`` read through ``TRY_CAST``: an invalid date is NULL."""
    for node in checked(list(tree.find_all(exp.Div, exp.Mod, exp.IntDiv, exp.Cast, exp.Func))):
        if isinstance(node, exp.Div):
            replace_node(node, exp.Anonymous(this="TRY_DIVIDE", expressions=[node.this, node.expression]))
        elif isinstance(node, exp.Mod):
            replace_node(node, exp.Anonymous(this="TRY_MOD", expressions=[node.this, node.expression]))
        elif isinstance(node, exp.IntDiv):
            node.set("expression", exp.Nullif(this=node.expression, expression=exp.Literal.number(0)))
        elif isinstance(node, exp.Cast):
            if not isinstance(node, exp.TryCast):
                replace_node(node, exp.TryCast(**{**node.args, "safe": True}))
        elif isinstance(node, exp.Anonymous) and call_name(node) == "pmod" and len(node.expressions) == 2:
            dividend, divisor = node.expressions
            node.set("expressions", [dividend, exp.Nullif(this=divisor, expression=exp.Literal.number(0))])
        elif isinstance(node, (exp.StrToDate, exp.StrToTime)) and node.args.get("format") is not None:
            name = "TRY_TO_DATE" if isinstance(node, exp.StrToDate) else "TRY_TO_TIMESTAMP"
            pattern = sqlglot.parse_one(_SPARK_FORMAT.format_time(node) or "''", read="spark")
            replace_node(node, exp.Anonymous(this=name, expressions=[node.this, pattern]))
        elif isinstance(node, exp.TsOrDsToDate) and node.args.get("format") is None:
            replace_node(node, exp.Anonymous(this="TRY_TO_DATE", expressions=[node.this]))
        elif isinstance(node, exp.TsOrDsToTimestamp) or (
            isinstance(node, exp.Timestamp) and node.this is not None and node.args.get("zone") is None
        ):  # the value of date_format, timestamp(x) ...: sqlglot's Spark output casts it
            replace_node(node, _try_cast(node.this, "TIMESTAMP"))
        elif isinstance(node, exp.DateDiff) and node.args.get("unit") is None:
            node.set("this", _try_cast(node.this, "DATE"))
            node.set("expression", _try_cast(node.expression, "DATE"))


# --------------------------------------------------------------------------- what one value may take

#: The most bytes one string value may have: Doris's ``string_type_length_soft_limit_bytes``
#: (1 MiB by default: the longest STRING Doris stores). Spark builds a value whole in the
#: memory of the JVM that evaluates it (the driver, for a constant or a local master), so one
#: ``repeat('ab', 1e9)`` could stop the server's Spark for everyone: such a value is refused.
MAX_STRING_BYTES = 1024 * 1024

#: What every refusal's message starts with (Doris's words for a string over its limit).
LIMIT_MESSAGE = "string column length is too large"

_VALUE = "__dorisql_v"

#: The Doris errors a rewritten expression raises (raise_error) while Spark evaluates it.
_RAISED = (LIMIT_MESSAGE, "[RUNTIME_ERROR]Invalid JSON text in argument 1 to function json_unquote", _TIMEDIFF_RANGE)


def _size_of(*sizes: str) -> str:
    return " * ".join(f"CAST({size} AS DOUBLE)" for size in sizes)


#: The calls whose result size is not bounded by their arguments' sizes: their argument slots,
#: which argument is the count, and how many bytes (or, for arrays, elements) the result
#: takes, in Spark SQL over the arguments (``{a0}``, ``{a1}`` ... in slot order), known before
#: the call runs.
_GROWTH: dict[str, tuple[tuple[str, ...], int, str]] = {
    # repeat(s, n): n copies of s
    "repeat": (("this", "times"), 1, _size_of("octet_length({a0})", "greatest({a1}, 0)")),
    # space(n): n blanks
    "space": (("this",), 0, _size_of("greatest({a0}, 0)")),
    # lpad / rpad(s, n, pad): n characters, each at least a byte
    "lpad": (("this", "expression", "fill_pattern"), 1, _size_of("greatest({a1}, 0)")),
    "rpad": (("this", "expression", "fill_pattern"), 1, _size_of("greatest({a1}, 0)")),
    # array_repeat(x, n) / array_with_constant(n, x): n elements
    "array_repeat": (("expressions",), 1, _size_of("greatest({a1}, 0)")),
    "array_with_constant": (("expressions",), 0, _size_of("greatest({a0}, 0)")),
}

#: Calls whose result is at most the sum of their arguments (each bounded itself), checked
#: once built: a chain of them (a CTE concatenating its own rows' values) grows no further.
_CHECKED_AFTER = frozenset({"concat", "concat_ws"})

_GUARDED = frozenset(_GROWTH) | _CHECKED_AFTER


def _bound_sizes(tree: exp.Expr) -> None:
    """Each call of `_GROWTH` becomes one that refuses, before it runs, a result over
    MAX_STRING_BYTES (Doris's limit; an array: that many elements); each of `_CHECKED_AFTER`
    refuses a result over it once built. A refusal is Spark's ``raise_error`` with LIMIT_MESSAGE,
    which `expression_limit_failure` turns into Doris's error while Spark stays up.

    The check is the call's count argument: ``repeat(s, IF(size > limit, raise_error(...), n))``
    (``concat(...)``: ``IF(octet_length(c) > limit, raise_error(...), c)``). It sits inside the
    call, so Spark's constant folding, which evaluates constant calls while planning, meets
    the refusal before it could build a constant ``repeat('ab', 1e9)`` on the driver. The
    size reads the arguments again, which costs nothing for columns and literals; when an
    argument holds another bounded call, evaluating it twice at each level of nesting would
    double the work per level, so there the arguments are evaluated once, bound to a lambda
    variable (``transform(array(struct of the arguments), v -> IF(..., call(v.a0, ...)))[1]``;
    such an expression cannot be matched by ORDER BY or GROUP BY text, a rare case)."""
    for node in checked(list(tree.find_all(exp.Func))):
        if is_table_position(node):
            continue
        name = call_name(node)
        if name not in _GUARDED:
            continue
        args = _arguments(node, _GROWTH[name][0] if name in _GROWTH else ("expressions",))
        if not args or any(isinstance(a, exp.Star) for a in args):
            continue
        nested = any(call_name(inner) in _GUARDED for a in args for inner in a.find_all(exp.Func) if call_name(inner))
        if name in _GROWTH:
            slots, count, size = _GROWTH[name]
            if count >= len(args):  # fewer arguments than the call needs: Spark refuses it anyway
                continue
            if nested:
                _guard_once(node, name, slots, args, size)
            else:
                _guard_count(node, name, slots, args, count, size)
        elif nested:
            _guard_once(node, name, ("expressions",), args, None)
        else:
            _guard_result(node, name)


def _arguments(node: exp.Expr, slots: tuple[str, ...]) -> list[exp.Expr]:
    args: list[exp.Expr] = []
    for slot in slots:
        value = node.args.get(slot)
        if isinstance(value, list):
            args.extend(value)
        elif value is not None:
            args.append(value)
    return args


def _refusal(name: str, size_sql: str, unit: str) -> str:
    limit = (
        f"more than the {MAX_STRING_BYTES} bytes a string may hold (string_type_length_soft_limit_bytes)"
        if unit == "bytes"
        else f"more than the {MAX_STRING_BYTES} elements an array may hold"
    )
    return (
        f"raise_error(concat('{LIMIT_MESSAGE}: {name}() would return ', format_string('%.0f', {size_sql}), "
        f"' {unit}, {limit}'))"
    )


def _unit(name: str) -> str:
    return "elements" if name.startswith("array") else "bytes"


def _guard_count(
    node: exp.Expr, name: str, slots: tuple[str, ...], args: list[exp.Expr], count: int, size: str
) -> None:
    """``call(..., IF(size > limit, raise_error(...), n), ...)``: the arguments are leaves.
    (Built node by node, not from a template: a statement may hold a great many such calls.)"""
    count_node = args[count]
    guard = exp.If(
        this=exp.GT(this=_size_node(name, args, count), expression=exp.Literal.number(MAX_STRING_BYTES)),
        true=_refusal_node(name, _size_node(name, args, count), _unit(name)),
    )
    replace_node(count_node, guard)
    guard.set("false", count_node)


def _size_node(name: str, args: list[exp.Expr], count: int) -> exp.Expr:
    """The size `_GROWTH` writes for `name`, over copies of the (leaf) arguments."""

    def double(e: exp.Expr) -> exp.Expr:
        return exp.Cast(this=e, to=exp.DataType.build("DOUBLE"))

    size = double(exp.Anonymous(this="GREATEST", expressions=[args[count].copy(), exp.Literal.number(0)]))
    if name == "repeat":  # n copies of s: n times s's bytes
        size = exp.Mul(this=double(exp.Anonymous(this="OCTET_LENGTH", expressions=[args[0].copy()])), expression=size)
    return size


def _refusal_node(name: str, size: exp.Expr, unit: str) -> exp.Expr:
    """`_refusal` as a tree."""
    limit = (
        f"more than the {MAX_STRING_BYTES} bytes a string may hold (string_type_length_soft_limit_bytes)"
        if unit == "bytes"
        else f"more than the {MAX_STRING_BYTES} elements an array may hold"
    )
    shown = exp.Anonymous(this="FORMAT_STRING", expressions=[exp.Literal.string("%.0f"), size])
    text = [
        exp.Literal.string(f"{LIMIT_MESSAGE}: {name}() would return "),
        shown,
        exp.Literal.string(f" {unit}, {limit}"),
    ]
    return exp.Anonymous(this="RAISE_ERROR", expressions=[exp.Anonymous(this="CONCAT", expressions=text)])


def _guard_result(node: exp.Expr, name: str) -> None:
    """``IF(octet_length(call) > limit, raise_error(...), call)``: the arguments are leaves."""

    def size() -> exp.Expr:
        built = exp.Anonymous(this="OCTET_LENGTH", expressions=[node.copy()])
        return exp.Cast(this=built, to=exp.DataType.build("DOUBLE"))

    guard = exp.If(
        this=exp.GT(this=size(), expression=exp.Literal.number(MAX_STRING_BYTES)),
        true=_refusal_node(name, size(), "bytes"),
    )
    replace_node(node, guard)
    guard.set("false", node)


def _guard_once(node: exp.Expr, name: str, slots: tuple[str, ...], args: list[exp.Expr], size: str | None) -> None:
    """The call on its arguments bound to a lambda variable (each evaluated once): checked
    before it runs (`size`) or, without one, its result once built."""
    if size is not None:
        size_sql = size.format(**{f"a{i}": f"{_VALUE}.a{i}" for i in range(len(args))})
        body = f"IF({size_sql} > {MAX_STRING_BYTES}, {_refusal(name, size_sql, _unit(name))}, __dorisql_call)"
    else:
        built = "CAST(octet_length(__dorisql_call) AS DOUBLE)"
        body = f"IF({built} > {MAX_STRING_BYTES}, {_refusal(name, built, 'bytes')}, __dorisql_call)"
    fields = ", ".join(f"'a{i}', __dorisql_arg{i}" for i in range(len(args)))
    guarded = _template(f"element_at(transform(array(named_struct({fields})), {_VALUE} -> {body}), 1)")
    replace_node(node, guarded)
    i = 0
    for slot in slots:  # the call reads its arguments from the lambda variable
        value = node.args.get(slot)
        if isinstance(value, list):
            fresh = []
            for _ in value:
                fresh.append(exp.column(f"a{i}", table=_VALUE))
                i += 1
            node.set(slot, fresh)
        elif value is not None:
            node.set(slot, exp.column(f"a{i}", table=_VALUE))
            i += 1
    fill_placeholders(guarded, {f"__dorisql_arg{i}": a for i, a in enumerate(args)} | {"__dorisql_call": node})


def _template(sql: str) -> exp.Expr:
    """The Spark SQL `sql` as a new tree (each template is parsed once, then copied: a statement
    may hold a great many bounded calls)."""
    return _parsed(sql).copy()


@functools.lru_cache(maxsize=256)
def _parsed(sql: str) -> exp.Expr:
    import sqlglot

    return sqlglot.parse_one(sql, read="spark")


def expression_limit_failure(exc: BaseException) -> InvalidValueError | None:
    """The Doris error for a Spark failure raised by a bound of `_bound_sizes` or another of
    `_RAISED` (json_unquote of text that is not JSON), else None."""
    import sys

    errors = sys.modules.get("pyspark.errors")
    if errors is None or not isinstance(exc, errors.PySparkException):
        return None
    try:
        condition = exc.getCondition() or ""
        message = (exc.getMessageParameters() or {}).get("errorMessage", "")
    except Exception:  # the JVM is gone: not a refusal of ours
        return None
    if condition != "USER_RAISED_EXCEPTION" or not message.startswith(_RAISED):
        return None
    return InvalidValueError(message)
