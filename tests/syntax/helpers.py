"""Paths shared by the front-end tests."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
#: The dev corpus, copied into the repository (tests/data/corpus); before that copy it lived
#: next to the repository, at <repo>/../shared/corpus/dev.
CORPUS = REPO / "tests" / "data" / "corpus"
if not CORPUS.is_dir():
    CORPUS = REPO.parent / "shared" / "corpus" / "dev"
GOLDEN = HERE / "golden"


def corpus_entries() -> list[dict]:
    index = CORPUS / "index.jsonl"
    if not index.is_file():
        return []
    return [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines() if line.strip()]
