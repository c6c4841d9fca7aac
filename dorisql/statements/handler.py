"""What a statement handler is: every statements module maps its statement types to handlers
(its HANDLERS), and dorisql.statements.dispatch joins those tables into one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dorisql.result import Result
from dorisql.session.session import Session

#: Runs one statement in a session; the second argument is of the statement type it is filed under.
Handler = Callable[[Session, Any], Result]

#: A module's handlers by statement type.
Handlers = dict[type, Handler]
