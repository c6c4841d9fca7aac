"""Stream Load over HTTP for the tests: one PUT with basic auth, its HTTP status and Doris's
JSON answer (also for an error status, whose body is the same JSON shape)."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request


def put_stream_load(
    port: int,
    db: str,
    table: str,
    body: bytes,
    headers: dict[str, str],
    *,
    user: str = "root",
    password: str = "",
    timeout: float = 300,
) -> tuple[int, dict]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/{db}/{table}/_stream_load",
        data=body,
        method="PUT",
        headers={"Authorization": f"Basic {token}", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())
