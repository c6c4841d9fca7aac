"""Paths shared by the front-end tests."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Real Doris statements, one per file, described by index.jsonl (see its README).
CORPUS = HERE.parent / "data" / "corpus"
GOLDEN = HERE / "golden"


def corpus_entries() -> list[dict]:
    index = CORPUS / "index.jsonl"
    return [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines() if line.strip()]
