"""The ``dorisql`` command: option parsing and the choice between batch and interactive mode.

    dorisql                         interactive shell (stdin is a terminal)
    dorisql -e "SHOW DATABASES"     run statements, print TSV (table on a terminal)
    dorisql -f script.sql           run a script; stop at the first error unless --force (on a
                                    terminal, or with -t: each statement, its table and status, as
                                    mysql -t -vvv; otherwise TSV, or -B on a terminal too)
    dorisql < script.sql            the same, from stdin
    dorisql scheduler [--once]      run the dynamic-partition / compaction scheduler
    dorisql server                  serve Doris's MySQL protocol (port 9030) and HTTP API (8030)
    dorisql catalog migrate --from sqlite:///w/_catalog/catalog.db --to postgresql://u@h/db

Exit status: 0 success, 1 a statement failed, 2 usage error.

This module imports neither prompt_toolkit nor pyspark: batch runs stay light and the shell's
prompt appears before Spark has started.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys

from dorisql import __version__
from dorisql.config import ConfigError, load_config, parse_assignment, remote_url, state_dir
from dorisql.engine import Engine
from dorisql.errors import DorisqlError
from dorisql.jobs import scheduler
from dorisql.shell.batch import BatchRunner, run_batch
from dorisql.shell.execute import use_statement
from dorisql.shell.formatting import format_error
from dorisql.shell.script import decode_script, read_script
from dorisql.storage.jvm_stderr import divert_jvm_stderr

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dorisql",
        description="Apache Doris SQL on Spark + Delta Lake: an interactive shell and a script runner.",
        epilog="Config file: $XDG_CONFIG_HOME/dorisql/config.toml (see `python -m pydoc dorisql.config`). "
        "Environment: DORISQL_WAREHOUSE, DORISQL_MASTER, DORISQL_CATALOG, DORISQL_REMOTE, DORISQL_CONFIG, NO_COLOR, "
        "DORISQL_CLASS_ARCHIVE=off (no JVM class archive in $XDG_CACHE_HOME/dorisql/jvm). "
        "History and Spark's own log (spark.log) are in $XDG_STATE_HOME/dorisql/.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"dorisql {__version__}")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("-e", "--execute", metavar="SQL", help="run these statements and exit")
    source.add_argument("-f", "--file", metavar="FILE", help="run the statements in FILE and exit")
    parser.add_argument("--force", action="store_true", help="continue after a failing statement")
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="scripts: print each statement's status line (Query OK, N rows affected / N rows in set), "
        "as mysql -vvv does in batch mode",
    )
    shape = parser.add_mutually_exclusive_group()
    shape.add_argument(
        "-t",
        "--table",
        action="store_true",
        help="scripts: echo each statement, then its result as a table and its status line, as "
        "mysql -t -vvv does (the default when -f or standard input writes to a terminal)",
    )
    shape.add_argument(
        "-B", "--batch", action="store_true", help="scripts: tab-separated output, also on a terminal (mysql -B)"
    )
    shape.add_argument(
        "--format",
        choices=("table", "tsv", "csv", "json", "jsonl"),
        help="output format (default: table on a terminal, tsv with a header otherwise; "
        "jsonl: one JSON object per statement, errors included)",
    )
    parser.add_argument("-D", "--database", metavar="DB", help="the database to USE first")
    parser.add_argument("--warehouse", metavar="PATH", help="warehouse folder (overrides DORISQL_WAREHOUSE)")
    parser.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    parser.add_argument("--catalog", metavar="URL", help=_CATALOG_HELP)
    parser.add_argument(
        "--remote", metavar="URL", help="a Spark Connect server (sc://host:15002) instead of starting Spark"
    )
    parser.add_argument(
        "--conf", metavar="KEY=VALUE", action="append", default=[], help="a Spark configuration setting (repeatable)"
    )
    parser.add_argument("--config", metavar="FILE", help="config file (default $XDG_CONFIG_HOME/dorisql/config.toml)")
    sub = parser.add_subparsers(dest="command", metavar="{scheduler,server,catalog}")
    sched = sub.add_parser(
        "scheduler",
        help="run the background scheduler (dynamic partitions, compaction)",
        description="Run dorisql's FE background work (dynamic partitions, compaction) for cron or as a daemon.",
    )
    sched.add_argument("--once", action="store_true", help="run every enabled job once and exit")
    sched.add_argument("--job", metavar="NAME", help="run only this job (e.g. dynamic_partition)")
    sched.add_argument("--now", metavar="'YYYY-MM-DD HH:MM:SS'", help="pretend the current time is this")
    # Also accepted after the subcommand (`dorisql scheduler --once --warehouse DIR`).
    sched.add_argument("--warehouse", dest="scheduler_warehouse", metavar="PATH", help="warehouse folder")
    sched.add_argument("--master", dest="scheduler_master", metavar="URL", help="Spark master")
    sched.add_argument("--catalog", dest="scheduler_catalog", metavar="URL", help=_CATALOG_HELP)
    sched.add_argument("--remote", dest="scheduler_remote", metavar="URL", help="Spark Connect server")
    server = sub.add_parser(
        "server",
        help="serve the MySQL protocol and Doris's HTTP API",
        description="Run dorisql as a Doris frontend: the MySQL protocol (mysql -h 127.0.0.1 -P 9030 -u root) "
        "and Doris's HTTP API, over one Spark session; the background jobs run inside it. "
        "Config file: the [server] table (host, query_port, http_port). Stops cleanly on SIGTERM.",
    )
    server.add_argument("--warehouse", dest="server_warehouse", metavar="PATH", help="warehouse folder")
    server.add_argument("--master", dest="server_master", metavar="URL", help="Spark master")
    server.add_argument("--catalog", dest="server_catalog", metavar="URL", help=_CATALOG_HELP)
    server.add_argument("--remote", dest="server_remote", metavar="URL", help="Spark Connect server")
    server.add_argument("--host", metavar="ADDRESS", help="address to listen on (default 127.0.0.1)")
    server.add_argument("--query-port", type=int, metavar="PORT", help="MySQL protocol port (default 9030)")
    server.add_argument("--http-port", type=int, metavar="PORT", help="HTTP API port (default 8030)")
    catalog = sub.add_parser(
        "catalog",
        help="manage the catalog (copy a warehouse's catalog to PostgreSQL)",
        description="Catalog maintenance. `catalog migrate` copies a catalog into an empty one.",
    )
    catalog_sub = catalog.add_subparsers(dest="catalog_command", metavar="{migrate}", required=True)
    migrate = catalog_sub.add_parser(
        "migrate",
        help="copy a catalog into an empty one",
        description="Copy every database, table, partition, colocation group, user, setting, load label and "
        "recycle-bin entry (with the id sequence) from one catalog to another, which must be empty. "
        "Stop the warehouse's dorisql processes first; afterwards start them with --catalog <to>.",
    )
    migrate.add_argument("--from", dest="source", required=True, metavar="URL", help="sqlite:///path/catalog.db")
    migrate.add_argument("--to", dest="target", required=True, metavar="URL", help="postgresql://user@host:port/db")
    return parser


_CATALOG_HELP = (
    "catalog URL: postgresql://user@host:port/db to share one catalog between machines "
    "(default: the SQLite catalog in the warehouse; env DORISQL_CATALOG)"
)


def make_config(args):
    """Config file, then environment, then flags."""

    config = load_config(args.config)
    if args.warehouse:
        config.warehouse = os.path.expanduser(args.warehouse)
    if args.master:
        config.master = args.master
    if args.catalog:
        config.catalog = args.catalog
    remote = args.remote or getattr(args, "scheduler_remote", None) or getattr(args, "server_remote", None)
    if remote:
        config.remote = remote_url(remote, "--remote")
    for item in args.conf:
        key, value = parse_assignment(item)
        config.spark_conf[key] = value
    if args.database:
        config.database = args.database
    return config


def _stdout_is_tty() -> bool:
    try:
        return sys.stdout is not None and sys.stdout.isatty()
    except (ValueError, AttributeError):
        return False


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, AttributeError):
        return False


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE

    try:
        config = make_config(args)
    except DorisqlError as err:
        print(f"dorisql: {err}", file=sys.stderr)
        return EXIT_USAGE

    if args.command == "scheduler":
        return run_scheduler(args, config)
    if args.command == "server":
        return run_server(args, config)
    if args.command == "catalog":
        return run_catalog(args)

    interactive = args.execute is None and args.file is None and _stdin_is_tty()
    if interactive:
        # Imported here, not at the top: batch mode (-e, -f, a pipe) never loads prompt-toolkit.
        from dorisql.shell.repl import run_repl  # noqa: PLC0415

        return run_repl(config, fmt=args.format or ("tsv" if args.batch else None))

    try:
        if args.file is not None:
            try:
                text = read_script(args.file)
            except OSError as exc:
                print(f"dorisql: cannot open file '{args.file}': {exc.strerror}", file=sys.stderr)
                return EXIT_USAGE
            filename = args.file
        elif args.execute is not None:
            text, filename = args.execute, None
        else:
            text, filename = decode_script(sys.stdin.buffer.read(), "standard input"), None
    except DorisqlError as err:  # not UTF-8
        print(f"ERROR {err.code} ({err.sqlstate}): {err}", file=sys.stderr)
        return EXIT_FAILED

    on_terminal = _stdout_is_tty()
    # A script on a terminal tells its story (mysql -t -vvv); -e keeps mysql's plain table there.
    echo = args.table or (on_terminal and args.execute is None and not args.batch and args.format is None)
    fmt = args.format or ("table" if args.table or (on_terminal and not args.batch) else "tsv")
    return run_script(config, text, filename=filename, fmt=fmt, force=args.force, verbose=args.verbose, echo=echo)


def open_engine(config):
    return Engine(config)


def run_script(
    config, text: str, *, filename: str | None, fmt: str, force: bool, verbose: bool = False, echo: bool = False
) -> int:
    divert_jvm_stderr(state_dir() / "spark.log")
    try:
        engine = open_engine(config)
    except DorisqlError as err:
        print(format_error(err), file=sys.stderr)
        return EXIT_FAILED
    except Exception as exc:  # a broken install or warehouse: one line, not a traceback
        print(
            f"ERROR 1105 (HY000): cannot open warehouse {config.warehouse}: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    try:
        if config.database and getattr(engine, "current_db", None) != config.database:
            runner = BatchRunner(engine, fmt=fmt)
            if not runner.run_command(use_statement(config.database), None):
                return EXIT_FAILED
        return run_batch(engine, text, filename=filename, fmt=fmt, force=force, verbose=verbose, echo=echo)
    finally:
        close = getattr(engine, "close", None)
        if close:
            close()


def run_scheduler(args, config) -> int:
    """``dorisql scheduler``: hand over to the engine's scheduler."""

    if args.scheduler_warehouse:
        config.warehouse = args.scheduler_warehouse
    if args.scheduler_master:
        config.master = args.scheduler_master
    if args.scheduler_catalog:
        config.catalog = args.scheduler_catalog
    sched_argv = (
        (["--once"] if args.once else [])
        + (["--job", args.job] if args.job else [])
        + (["--now", args.now] if args.now else [])
    )
    main = scheduler.main
    try:
        takes_config = "config" in inspect.signature(main).parameters
    except (TypeError, ValueError):
        takes_config = False
    code = main(sched_argv, config=config) if takes_config else main(sched_argv)
    return int(code or 0)


_SERVER_KEYS = ("host", "query_port", "http_port")


def server_options(args, config):
    """`dorisql server`'s address and ports: flags, then the config file's [server] table."""
    # Imported here, not at the top: mysql-mimic loads only for `dorisql server`.
    from dorisql.server.main import DEFAULT_HOST, DEFAULT_HTTP_PORT, DEFAULT_QUERY_PORT, ServerOptions  # noqa: PLC0415

    unknown = sorted(set(config.server) - set(_SERVER_KEYS))
    if unknown:
        raise ConfigError(f"[server]: unknown setting(s): {', '.join(unknown)} (expected: {', '.join(_SERVER_KEYS)})")

    def port(flag: int | None, key: str, default: int) -> int:
        value = flag if flag is not None else config.server.get(key, default)
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ConfigError(f"[server] {key}: expected a port number, got '{value}'") from None
        if not 0 <= number <= 65535:
            raise ConfigError(f"{key} {number} is not a port number (0-65535)")
        return number

    return ServerOptions(
        host=args.host or config.server.get("host") or DEFAULT_HOST,
        query_port=port(args.query_port, "query_port", DEFAULT_QUERY_PORT),
        http_port=port(args.http_port, "http_port", DEFAULT_HTTP_PORT),
    )


def run_server(args, config) -> int:
    """``dorisql server``: hand over to dorisql.server.main (imports mysql-mimic only here)."""

    if args.server_warehouse:
        config.warehouse = os.path.expanduser(args.server_warehouse)
    if args.server_master:
        config.master = args.server_master
    if args.server_catalog:
        config.catalog = args.server_catalog
    try:
        options = server_options(args, config)
    except DorisqlError as err:
        print(f"dorisql server: {err}", file=sys.stderr)
        return EXIT_USAGE
    from dorisql.server.main import run_server as serve  # noqa: PLC0415  (see server_options)

    return serve(config, options)


def run_catalog(args) -> int:
    """``dorisql catalog migrate --from URL --to URL`` (dorisql.catalog.migrate)."""

    try:
        # Imported here, not at the top: psycopg loads only when a catalog is migrated.
        from dorisql.catalog.migrate import migrate  # noqa: PLC0415

        counts = migrate(args.source, args.target)
    except DorisqlError as err:
        print(f"dorisql catalog migrate: {err}", file=sys.stderr)
        return EXIT_FAILED
    print("copied " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
