"""Helpers for the shell tests: the command's path and a pexpect driver.

End-to-end tests use the real engine and the real front end, never a stand-in.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

DORISQL = shutil.which("dorisql", path=str(Path(sys.executable).parent)) or "dorisql"

#: A prompt as prompt_toolkit draws it (its trailing space becomes a cursor move).
PROMPT = r"dorisql(?: \[[^\]\r\n]*\])?>"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")


class Repl:
    """The real shell in a pseudo-terminal (pgcli's pexpect approach)."""

    def __init__(self, env: dict[str, str], args: list[str], timeout: float = 30):
        import pexpect

        self.pexpect = pexpect
        self.child = pexpect.spawn(
            DORISQL, args, env=env, dimensions=(40, 120), encoding="utf-8", timeout=timeout, codec_errors="replace"
        )
        self.transcript: list[str] = []

    def expect(self, pattern, timeout: float | None = -1):
        try:
            self.child.expect(pattern, timeout=timeout)
        except (self.pexpect.TIMEOUT, self.pexpect.EOF) as exc:
            seen = ANSI_ESCAPE.sub("", "".join(self.transcript) + (self.child.before or ""))
            raise AssertionError(f"did not see {pattern!r}; output was:\n{seen[-3000:]}") from exc
        self.transcript.append(
            (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
        )
        return self.child.before

    def prompt(self, db: str | None = None, timeout: float | None = -1):
        return self.expect(r"dorisql \[" + re.escape(db) + r"\]>" if db else PROMPT, timeout)

    def send(self, text: str) -> None:
        self.child.send(text)

    def line(self, text: str) -> None:
        """Type a line and press Enter (a terminal sends CR)."""
        self.child.send(text + "\r")

    def run(self, sql: str, expect: str, db: str | None = None, timeout: float | None = -1) -> str:
        """Type a statement, wait for `expect` in the output and for the next prompt."""
        self.line(sql)
        out = self.expect(expect, timeout)
        self.prompt(db)
        return ANSI_ESCAPE.sub("", out)

    def quit(self) -> int:
        self.child.sendeof()
        self.expect(self.pexpect.EOF)
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
