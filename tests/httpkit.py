"""Stream Load over HTTP for the tests: one PUT with basic auth, its HTTP status and Doris's
JSON answer (also for an error status, whose body is the same JSON shape); or the same through
the real `curl`, as Doris's documentation runs it."""

from __future__ import annotations

import base64
import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path


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


def curl_stream_load(
    port: int, db: str, table: str, data: Path, headers: Sequence[str] = (), user: str = "root"
) -> dict:
    """``curl --location-trusted -u user: -H 'name:value' ... -T data -XPUT .../_stream_load``:
    Doris's JSON answer (curl must succeed; the load itself may fail)."""
    args = ["curl", "-sS", "--location-trusted", "-u", f"{user}:"]
    for header in headers:
        args += ["-H", header]
    args += ["-T", str(data), "-XPUT", f"http://127.0.0.1:{port}/api/{db}/{table}/_stream_load"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
