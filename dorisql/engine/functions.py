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
(:mod:`dorisql.engine.tvf`), not this list's.

Adding a function: it must be a pure function of its arguments (no I/O, no JVM access, no
session or machine state beyond the clock and random numbers), and a Doris function or the
Spark name sqlglot gives one.
"""

from __future__ import annotations

from sqlglot import exp

from dorisql.errors import AnalysisError
from dorisql.syntax.dialect import call_name

__all__ = ["ALLOWED_FUNCTIONS", "check_functions", "is_table_position", "translate_functions"]

_MATH = """
abs acos asin atan atan2 bin bit_count bitand bitnot bitor bitxor bit_shift_left bit_shift_right
cbrt ceil ceiling conv cos cosh cot csc degrees div e exp factorial floor fmod gcd greatest lcm
least ln log log10 log2 mod negative pi pmod positive pow power radians rand random round
round_bankers sec sign signbit sin sinh sqrt tan tanh truncate uuid uuid_numeric
"""

_STRING = """
append_trailing_char_if_absent ascii bit_length char char_length character_length chr concat
concat_ws crc32 elt ends_with field find_in_set format format_number from_base64 hex initcap instr
lcase left length locate lower lpad ltrim mask mask_first_n mask_last_n md5 md5sum mid money_format
not_null_or_empty null_or_empty overlay parse_url position printf quote regexp regexp_count
regexp_extract regexp_extract_all regexp_extract_or_null regexp_like regexp_replace
regexp_replace_one repeat replace replace_empty reverse right rlike rpad rtrim sha sha1 sha2 sm3
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
json_contains json_exists_path json_extract json_extract_bigint json_extract_bool
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
ALLOWED_FUNCTIONS: frozenset[str] = frozenset(
    " ".join([_MATH, _STRING, _DATE, _CONDITIONAL, _CONVERSION, _JSON, _COLLECTIONS, _AGGREGATE, _WINDOW]).split()
)


def is_table_position(node: exp.Expr) -> bool:
    """Whether `node` is called in FROM (``FROM local(...)``): a table function."""
    return isinstance(node.parent, exp.Table) and node.arg_key == "this"


def check_functions(tree: exp.Expression) -> None:
    """Refuse the query if it calls a function that is not allowed (table functions aside)."""
    for node in tree.find_all(exp.Func):
        name = call_name(node)
        if name is None or is_table_position(node):
            continue
        if isinstance(node.parent, exp.Dot) and node.arg_key == "expression":
            qualifier = node.parent.this.sql(dialect="doris").replace("`", "")
            raise AnalysisError(f"Can not found function '{qualifier}.{name}'")
        if name not in ALLOWED_FUNCTIONS:
            raise AnalysisError(f"Can not found function '{name}'")


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


def _int_count(node: exp.Expression) -> exp.Expression:
    """A day/month count as Spark's DATE_ADD / ADD_MONTHS want it: an INT (Doris takes any
    integer expression, e.g. ``id % 366`` of a BIGINT ``id``)."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return node
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return node
    return exp.cast(node, exp.DataType.build("INT"))


def _date_arith(node: exp.Expression, unit: str, subtract: bool, value: exp.Expression, count) -> exp.Expression:
    if unit in _TIME_UNITS:  # sqlglot's Spark output drops sub-day units: say it explicitly
        if subtract:
            count = exp.Neg(this=exp.Paren(this=count))
        return exp.Anonymous(this="TIMESTAMPADD", expressions=[exp.var(unit), count, value])
    cls = exp.DateSub if subtract else exp.DateAdd
    return cls(this=value, expression=_int_count(count), unit=exp.var(unit))


def translate_functions(tree: exp.Expression) -> exp.Expression:
    """Rewrite, in place, the Doris calls that Spark lacks or types differently into Spark's
    equivalents (the rest sqlglot's Doris → Spark translation already handles); returns the tree.

    - ``ndv(x)`` → ``approx_count_distinct(x)``;
    - ``date_add`` / ``date_sub`` / ``days_add`` ... ``years_sub`` with a count that is not a
      literal: the count cast to INT (Spark's DATE_ADD and ADD_MONTHS refuse a BIGINT);
    - ``hours_add`` / ``minutes_add`` / ``seconds_add`` (and ``_sub``) → ``TIMESTAMPADD``;
    - ``from_unixtime(ts, format)`` → Spark's ``FROM_UNIXTIME(ts, pattern)`` (a string).
    """
    for node in list(tree.find_all(exp.Func)):
        if is_table_position(node):
            continue
        name = call_name(node)
        if isinstance(node, exp.Anonymous) and name in _RENAMED:
            node.set("this", _RENAMED[name])
        elif isinstance(node, exp.Anonymous) and name in _UNIT_ARITHMETIC and len(node.expressions) == 2:
            unit, op = _UNIT_ARITHMETIC[name]
            value, count = node.expressions
            node.replace(_date_arith(node, unit, op == "sub", value, count))
        elif isinstance(node, (exp.DateAdd, exp.DateSub)) and node.expression is not None:
            unit = (node.text("unit") or "DAY").upper()
            if unit in _TIME_UNITS:
                node.replace(_date_arith(node, unit, isinstance(node, exp.DateSub), node.this, node.expression))
            else:
                node.set("expression", _int_count(node.expression))
        elif isinstance(node, exp.AddMonths) and node.expression is not None:
            node.set("expression", _int_count(node.expression))
        elif isinstance(node, exp.UnixToTime) and node.args.get("format") is not None:
            # from_unixtime(ts, '%Y-%m-%d'): a formatted string (sqlglot's Spark output drops the format)
            node.replace(exp.UnixToStr(this=node.this, format=node.args["format"]))
    return tree
