"""The environment of a ``dorisql`` process under test: none of the user's own config, history
or warehouse (HOME and the XDG folders are fresh folders below `home`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def dorisql_env(home: Path) -> dict[str, str]:
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DORISQL_", "XDG_"))}
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_STATE_HOME": str(home / ".local/state"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "PYSPARK_PYTHON": sys.executable,
        }
    )
    return env
