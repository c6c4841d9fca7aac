"""Statement execution: the Engine routes each parsed statement to its executor."""

from .session import Engine

__all__ = ["Engine"]
