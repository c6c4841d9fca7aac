"""Doris's FE HTTP API (port 8030): Stream Load, its error logs, and the health check.

    PUT  /api/{db}/{table}/_stream_load     Stream Load (curl --location-trusted -u user:pw -T file ...)
    GET  /api/_load_error_log?file=<name>   the rows a load left out (a response's ErrorURL)
    GET  /api/health                        {"msg": "success", "code": 0, "data": {...}, "count": 0}
    GET  /api/show_proc?path=/dbs           SHOW PROC's rows as "data" (ADMIN)
    GET  /api/colocate                      the colocation groups (ADMIN)
    POST / DELETE /api/colocate/group_stable?db_id=&group_id=
                                            mark a group unstable / stable (ADMIN)

Doris's FE redirects a Stream Load to a backend; here the same listener loads it, so curl's
``--location-trusted`` has nothing to follow. Every request is authenticated with HTTP Basic
against the catalog's users (dorisql.session.access) and a Stream Load needs LOAD on its table. A
bad request (unknown path, malformed header, a body cut short) gets an error response and the
listener goes on serving the others: each request runs on its own thread, and nothing a request
does escapes it as an exception.

`HttpListener(engine_factory, host, port)`: `engine_factory()` gives a fresh Engine for one
request (sharing the server's SparkSession); `start()` binds and serves on a daemon thread
(port 0: a free port, then `port` tells which), `stop()` stops and waits.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from dorisql import ast, logfile
from dorisql.auth import privileges
from dorisql.engine import Engine
from dorisql.errors import AuthenticationError, DorisqlError
from dorisql.session import failures
from dorisql.session.access import authenticate_password
from dorisql.session.committed import DISK_FULL_MESSAGE, disk_full
from dorisql.session.visibility import Visibility, grants_of
from dorisql.statements.ddl.colocation_groups import group_by_ids
from dorisql.statements.load.stream_load import error_log_dir, stream_load
from dorisql.statements.load.stream_load_options import Outcome, parse_options, response
from dorisql.warehouse import validate_name

__all__ = ["HttpListener", "DEFAULT_MAX_BODY_BYTES"]

#: Doris's streaming_load_max_mb default: 10240 MB.
DEFAULT_MAX_BODY_BYTES = 10240 * 1024 * 1024
#: A refused request's body is read and dropped up to this size (so the client sees the answer
#: rather than a reset connection); a larger one closes the connection.
_DRAIN_LIMIT = 64 * 1024 * 1024
_CHUNK = 1024 * 1024
_STREAM_LOAD = re.compile(r"/api/([^/]+)/([^/]+)/_stream_load/?")
_ERROR_LOG_NAME = re.compile(r"error_log_[0-9]+_[0-9a-f]+")


def _stream_load_failure(exc: Exception) -> str:
    """A Stream Load's unexpected failure as its response's Message: a full disk in Doris's
    words, a dorisql error as it is, anything else without its Python text (that is logged)."""

    if isinstance(exc, DorisqlError):
        return str(exc)
    shown = DISK_FULL_MESSAGE if disk_full(exc) else "[INTERNAL_ERROR]the load failed; the server log has the details"
    logfile.record_failure(exc, shown=f"(Stream Load) {shown}")
    return shown


class BodyError(DorisqlError):
    """The request body is malformed or cut short (the load fails with this message)."""


class HttpListener:
    """Serves Doris's HTTP API on host:port until stop()."""

    def __init__(
        self,
        engine_factory: Callable[[], Engine],
        host: str = "127.0.0.1",
        port: int = 8030,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        socket_timeout: float = 300.0,
    ):
        self.engine_factory = engine_factory
        self.host = host
        self.port = port
        self.max_body_bytes = max_body_bytes
        self.socket_timeout = socket_timeout
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        listener = self

        class Handler(_Handler):
            owner = listener
            timeout = listener.socket_timeout

        server = ThreadingHTTPServer((self.host, self.port), Handler)
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(target=server.serve_forever, name="dorisql-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> HttpListener:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _proc_text(value: Any) -> str:
    """A proc row's cell: Doris's rows are strings."""
    return "\\N" if value is None else str(value)


def _group_id(text: str) -> dict[str, int]:
    """``dbId.grpId`` (SHOW PROC's GroupId) as Doris's GroupId JSON."""
    db_id, _, group_id = text.partition(".")
    return {"dbId": int(db_id), "grpId": int(group_id)}


def _rest(code: int, msg: str, data: Any = None) -> dict:
    """The FE REST shape (ResponseEntityBuilder): {"msg", "code", "data", "count"}."""
    return {"msg": msg, "code": code, "data": data, "count": 0}


class _Handler(BaseHTTPRequestHandler):
    owner: HttpListener
    protocol_version = "HTTP/1.1"  # keep-alive and Expect: 100-continue
    server_version = "dorisql"

    # ------------------------------------------------------------------ plumbing

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        pass  # no access log on the terminal

    def handle_expect_100(self) -> bool:
        # 100 Continue is sent once the request is authenticated and its label claimed
        # (`_receive`), so a refused load's body is never sent.
        self._continue_pending = True
        return True

    def _send_json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode("utf-8")
        self._finish_unread_body()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _send_text(self, status: int, text: str) -> None:
        data = text.encode("utf-8")
        self._finish_unread_body()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _finish_unread_body(self) -> None:
        """Before answering: a body the client sends anyway is read and dropped (small), or the
        connection is closed after the answer (large, or announced with 100-continue)."""
        if getattr(self, "_body_done", False):
            return
        self._body_done = True
        if getattr(self, "_continue_pending", False):
            self.close_connection = True  # the client waits for 100 or our answer
            return
        length = self.headers.get("Content-Length")
        chunked = "chunked" in (self.headers.get("Transfer-Encoding") or "").lower()
        if chunked:
            self.close_connection = True
            return
        try:
            remaining = int(length) if length else 0
        except ValueError:
            self.close_connection = True
            return
        if remaining > _DRAIN_LIMIT:
            self.close_connection = True
            return
        try:
            while remaining > 0:
                piece = self.rfile.read(min(_CHUNK, remaining))
                if not piece:
                    break
                remaining -= len(piece)
        except OSError:
            self.close_connection = True

    def _client_host(self) -> str:
        return str(self.client_address[0])

    def _authenticate(self, engine: Engine):
        """The request's user (HTTP Basic), or None after answering 401."""

        header = self.headers.get("Authorization") or ""
        scheme, _, encoded = header.partition(" ")
        user = password = None
        if scheme.lower() == "basic":
            try:
                user, sep, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
                if not sep:
                    user = None
            except (binascii.Error, UnicodeDecodeError):
                user = None
        if user is None:
            self._send_json(HTTPStatus.UNAUTHORIZED, _rest(401, "Unauthorized", "Need auth information."))
            return None
        try:
            return authenticate_password(engine.catalog, user, self._client_host(), password or "")
        except AuthenticationError as exc:
            self._send_json(HTTPStatus.UNAUTHORIZED, _rest(401, "Unauthorized", str(exc)))
            return None

    # ------------------------------------------------------------------ routes

    def do_GET(self) -> None:
        self._guarded(self._get)

    def do_PUT(self) -> None:
        self._guarded(self._put)

    def do_POST(self) -> None:
        self._guarded(self._post_or_delete)

    def do_DELETE(self) -> None:
        self._guarded(self._post_or_delete)

    def _guarded(self, route: Callable[[], None]) -> None:
        """Run a route; nothing it raises stops the listener or reaches the client as a trace."""
        self._body_done = False
        self._continue_pending = getattr(self, "_continue_pending", False)
        try:
            route()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:
            logfile.record_failure(exc, shown="(HTTP API request)")
            self.close_connection = True
            try:
                self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, _rest(500, "Internal Error", "see the server log"))
            except OSError:
                pass
        finally:
            self._continue_pending = False

    def _not_found(self) -> None:
        path = urlsplit(self.path).path
        if _STREAM_LOAD.fullmatch(path):
            self._send_json(HTTPStatus.METHOD_NOT_ALLOWED, _rest(405, "Method Not Allowed", "use PUT"))
            return
        self._send_json(HTTPStatus.NOT_FOUND, _rest(404, "Not Found", f"no API at {path}"))

    def _get(self) -> None:
        url = urlsplit(self.path)
        if url.path.rstrip("/") == "/api/health":
            self._send_json(HTTPStatus.OK, _rest(0, "success", {"online_backend_num": 1, "total_backend_num": 1}))
            return
        if url.path.rstrip("/") == "/api/_load_error_log":
            self._error_log(parse_qs(url.query).get("file", [""])[0])
            return
        if url.path.rstrip("/") == "/api/show_proc":
            self._as_user(lambda engine: self._show_proc(engine, parse_qs(url.query).get("path", [""])[0]))
            return
        if url.path.rstrip("/") == "/api/colocate":
            self._as_user(self._colocate)
            return
        self._not_found()

    def _post_or_delete(self) -> None:
        url = urlsplit(self.path)
        if url.path.rstrip("/") == "/api/colocate/group_stable":
            query = parse_qs(url.query)
            stable = self.command == "DELETE"  # Doris: DELETE marks stable, POST unstable
            self._as_user(lambda engine: self._group_stable(engine, query, stable))
            return
        self._not_found()

    # ------------------------------------------------------------------ admin APIs

    def _as_user(self, action: Callable[[Engine], None]) -> None:
        """Authenticate (HTTP Basic), then run `action` with an engine acting as that user:
        its statements are checked against the user's grants like any session's."""
        engine = self.owner.engine_factory()
        try:
            identity = self._authenticate(engine)
            if identity is None:
                return
            engine.user = identity
            try:
                action(engine)
            except DorisqlError as exc:
                if exc.code in (1224, 1225, 1227):  # checkGlobalAuth(ADMIN) failed
                    self._send_json(HTTPStatus.UNAUTHORIZED, _rest(401, "Unauthorized", str(exc)))
                else:  # ResponseEntityBuilder.okWithCommonError: the UserException's message
                    shown = failures.for_remote_client(str(exc))
                    self._send_json(HTTPStatus.OK, _rest(1, "Error", f"errCode = 2, detailMessage = {shown}"))
        finally:
            engine.close()

    def _show_proc(self, engine: Engine, path: str) -> None:
        """Doris's ShowProcAction: the proc node's rows (an empty path is '/')."""

        result = engine.execute(ast.ShowProc(path or "/"))
        rows = [[_proc_text(value) for value in row] for row in result.rows]
        self._send_json(HTTPStatus.OK, _rest(0, "success", rows))

    def _colocate(self, engine: Engine) -> None:
        """Doris's ColocateMetaService GET /api/colocate: the groups as SHOW PROC
        '/colocation_group' lists them (infos), the unstable ones and all of them by id."""

        result = engine.execute(ast.ShowProc("/colocation_group"))
        infos = [[_proc_text(value) for value in row] for row in result.rows]
        ids = [_group_id(row[0]) for row in infos]
        unstable = [gid for gid, row in zip(ids, infos, strict=True) if row[-1] != "true"]
        self._send_json(
            HTTPStatus.OK, _rest(0, "success", {"infos": infos, "unstableGroupIds": unstable, "allGroupIds": ids})
        )

    def _group_stable(self, engine: Engine, query: dict[str, list[str]], stable: bool) -> None:

        # checkGlobalAuth(ADMIN) comes first: nobody else learns which groups exist
        privileges.check(grants_of(engine.catalog, engine.user), [privileges.Need(frozenset((privileges.ADMIN,)))])
        try:
            db_id = int(query.get("db_id", [""])[0].strip())
            group_id = int(query.get("group_id", [""])[0].strip())
        except ValueError:
            self._send_json(HTTPStatus.OK, _rest(403, "Bad Request", "db_id and group_id must be numbers"))
            return
        group = group_by_ids(engine, db_id, group_id)
        if group is None:  # ColocateMetaService.checkAndGetGroupId
            self._send_json(HTTPStatus.OK, _rest(1, "Error", f"the group {db_id}.{group_id} isn't exist"))
            return
        name = ast.TableName(group.name, group.db or None)
        engine.execute(ast.AdminSetColocationGroup(name, stable))
        self._send_json(HTTPStatus.OK, _rest(0, "success"))

    def _error_log(self, name: str) -> None:
        """A load's error log, to the user who ran the load, a user with LOAD on its table, or
        ADMIN (dorisql.session.visibility.Visibility.load: who sees the load in SHOW LOAD sees its
        log). Doris's BE serves these files to anyone who knows the URL; here the URL alone is
        not enough. A log no load record names (its label was reused) is ADMIN's only."""

        engine = self.owner.engine_factory()
        try:
            identity = self._authenticate(engine)
            if identity is None:
                return
            path = error_log_dir(engine.warehouse) / name
            if not _ERROR_LOG_NAME.fullmatch(name) or not path.is_file():
                self._send_json(HTTPStatus.NOT_FOUND, _rest(404, "Not Found", f"no error log '{name}'"))
                return
            visibility = Visibility.for_identity(engine.catalog, identity)
            records = [r for r in engine.catalog.list_loads() if r.error_url.endswith(f"file={name}")]
            if not visibility.everything and not any(visibility.load(r) for r in records):
                denied = "Access denied; you need (at least one of) the (LOAD) privilege(s) for this operation"
                self._send_json(HTTPStatus.UNAUTHORIZED, _rest(401, "Unauthorized", denied))
                return
            self._send_text(HTTPStatus.OK, path.read_text(encoding="utf-8"))
        finally:
            engine.close()

    def _put(self) -> None:
        path = urlsplit(self.path).path
        m = _STREAM_LOAD.fullmatch(path)
        if m is None:
            self._not_found()
            return
        db, table = unquote(m.group(1)), unquote(m.group(2))
        try:
            engine = self.owner.engine_factory()
        except DorisqlError as exc:  # the catalog cannot be reached: a Stream Load answer, retryable
            self._fail(self.headers.get("label") or "", str(exc))
            return
        try:
            self._stream_load(engine, db, table)
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception as exc:  # answered in Stream Load's shape, never a 500 of another shape
            self._fail(self.headers.get("label") or "", _stream_load_failure(exc))
        finally:
            engine.close()

    def _fail(self, label: str, message: str) -> None:
        self._send_json(HTTPStatus.OK, response(Outcome(label=label, status="Fail", message=message)))

    def _stream_load(self, engine: Engine, db: str, table: str) -> None:
        identity = self._authenticate(engine)
        if identity is None:
            return
        engine.user = identity
        label = self.headers.get("label") or ""
        try:
            validate_name("database", db)
            validate_name("table", table)
            privileges.check(
                grants_of(engine.catalog, identity), [privileges.Need(frozenset((privileges.LOAD,)), db, table)]
            )
        except DorisqlError as exc:
            if exc.code in (1224, 1225, 1227):
                self._send_json(HTTPStatus.UNAUTHORIZED, _rest(401, "Unauthorized", str(exc)))
            else:
                self._fail(label, str(exc))
            return
        try:
            options = parse_options(dict(self.headers.items()))
            length = self._announced_length()
        except DorisqlError as exc:
            self._fail(label, str(exc))
            return
        host = (self.headers.get("Host") or f"{self.owner.host}:{self.owner.port}").strip()

        def error_url(name: str) -> str:
            return f"http://{host}/api/_load_error_log?file={name}"

        try:
            outcome = stream_load(
                engine,
                db,
                table,
                options,
                lambda p: self._receive(p, length),
                error_url,
                user=identity.user,
                client_ip=self._client_host(),
            )
        except DorisqlError as exc:  # before the load started: unknown database or table
            self._fail(options.label, str(exc))
            return
        self._send_json(HTTPStatus.OK, response(outcome))

    # ------------------------------------------------------------------ the body

    def _announced_length(self) -> int | None:
        """Content-Length, or None for a chunked body; refuses what cannot be read."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return None
        text = self.headers.get("Content-Length")
        if text is None:
            raise BodyError("The request has no body: send it with Content-Length or chunked (curl -T file)")
        try:
            length = int(text)
        except ValueError:
            raise BodyError(f"Invalid Content-Length '{text}'") from None
        if length < 0:
            raise BodyError(f"Invalid Content-Length '{text}'")
        if length > self.owner.max_body_bytes:
            raise BodyError(
                f"The size of this stream load ({length} bytes) is larger than the limit "
                f"({self.owner.max_body_bytes} bytes)"
            )
        return length

    def _receive(self, path: Path, length: int | None) -> int:
        """Stream the body to `path` (never all in memory); its size. Raises BodyError."""
        if self._continue_pending:
            self.send_response_only(HTTPStatus.CONTINUE)
            self.end_headers()
            self._continue_pending = False
        self._body_done = True  # read here, or the connection closes (below)
        written = 0
        received = 0  # bytes of a Content-Length body read from the client so far
        try:
            with open(path, "wb") as out:
                if length is not None:
                    while received < length:
                        piece = self.rfile.read(min(_CHUNK, length - received))
                        if not piece:
                            break
                        received += len(piece)
                        out.write(piece)
                    written = received
                    if received < length:
                        raise BodyError(f"The body was cut short: {written} of {length} bytes received")
                else:
                    written = self._read_chunked(out)
        except (BodyError, OSError) as exc:
            self.close_connection = True
            if isinstance(exc, BodyError):
                raise

            if disk_full(exc):  # the body could not be stored
                if length is not None:
                    self._drain(length - received)  # so that the client hears why
                raise BodyError(DISK_FULL_MESSAGE) from None
            raise BodyError(f"The body could not be read: {exc.__class__.__name__}") from None
        return written

    def _drain(self, remaining: int) -> None:
        """Read and drop the rest of a body that cannot be stored (up to _DRAIN_LIMIT), so the
        client, still sending, reads the answer instead of a reset connection."""
        if remaining > _DRAIN_LIMIT:
            return
        try:
            while remaining > 0:
                piece = self.rfile.read(min(_CHUNK, remaining))
                if not piece:
                    return
                remaining -= len(piece)
        except OSError:
            pass

    def _read_chunked(self, out) -> int:
        written = 0
        while True:
            line = self.rfile.readline(1024)
            if not line.endswith(b"\n"):
                raise BodyError("The chunked body was cut short")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BodyError("Malformed chunked body") from None
            if size == 0:
                while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return written
            written += size
            if written > self.owner.max_body_bytes:
                raise BodyError(
                    f"The size of this stream load is larger than the limit ({self.owner.max_body_bytes} bytes)"
                )
            remaining = size
            while remaining > 0:
                piece = self.rfile.read(min(_CHUNK, remaining))
                if not piece:
                    raise BodyError("The chunked body was cut short")
                out.write(piece)
                remaining -= len(piece)
            self.rfile.readline(16)  # the CRLF after the chunk
