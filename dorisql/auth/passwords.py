"""MySQL's native password hash, which Doris stores: ``*`` + upper-case hex SHA1(SHA1(password)).

Keeping that hash (not the clear password) is what lets the MySQL handshake check a
``mysql_native_password`` answer: the client sends SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw))),
so with SHA1(SHA1(pw)) the server recovers SHA1(pw) and hashes it once more to compare.
"""

from __future__ import annotations

import hashlib
import hmac
import re

from dorisql.errors import AnalysisError

__all__ = ["native_hash", "check_stored_hash", "verify_password", "verify_native_scramble", "native_scramble"]

_HASH = re.compile(r"\*[0-9A-Fa-f]{40}")


def native_hash(clear: str) -> str:
    """PASSWORD('clear'): the stored form; the empty password is stored as ''."""
    if clear == "":
        return ""
    stage1 = hashlib.sha1(clear.encode("utf-8")).digest()
    return "*" + hashlib.sha1(stage1).hexdigest().upper()


def check_stored_hash(text: str) -> str:
    """A hash given as text (IDENTIFIED BY PASSWORD '*...', SET PASSWORD = '*...'), upper-cased.
    Doris: "Password hash should be a 41-digit hexadecimal number"."""
    if text == "":
        return ""
    if not _HASH.fullmatch(text):
        raise AnalysisError("Password hash should be a 41-digit hexadecimal number")
    return text.upper()


def verify_password(stored_hash: str, clear: str) -> bool:
    """Does `clear` match the stored hash (HTTP Basic, where the client sends the password)?"""
    return hmac.compare_digest(stored_hash, native_hash(clear))


def verify_native_scramble(stored_hash: str, salt: bytes, client_response: bytes) -> bool:
    """Does a mysql_native_password answer match the stored hash?

    `salt` is the 20-byte scramble the server sent in its handshake, `client_response` the
    client's auth response (20 bytes, or empty for an empty password)."""
    if stored_hash == "":
        return len(client_response) == 0
    if len(client_response) != 20:
        return False
    stage2 = bytes.fromhex(stored_hash[1:])
    key = hashlib.sha1(salt + stage2).digest()
    stage1 = bytes(a ^ b for a, b in zip(client_response, key))
    return hmac.compare_digest(hashlib.sha1(stage1).digest(), stage2)


def native_scramble(clear: str, salt: bytes) -> bytes:
    """What a client sends for `clear` (tests and tools): SHA1(pw) XOR SHA1(salt + SHA1(SHA1(pw)))."""
    if clear == "":
        return b""
    stage1 = hashlib.sha1(clear.encode("utf-8")).digest()
    stage2 = hashlib.sha1(stage1).digest()
    key = hashlib.sha1(salt + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, key))
