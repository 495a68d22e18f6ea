"""What a door must provide is declared by `ClientPort`, so the type check holds a new door to
it: one that leaves out the back-pressure the engine paces its streaming by (`backlog`,
`drained`) is refused instead of silently streaming without it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mypy import api as mypy_api

DOOR = """
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from codex_lsp.api.port import ClientPort
from codex_lsp.protocol.approvals.models import ServerRequestParams
from codex_lsp.engine.workspace import DiskWorkspace, Workspace

Answer = TypeVar("Answer", bound=BaseModel)


class Door:
    def notify(self, method: str, params: BaseModel) -> None:
        pass

    async def request(
        self, method: str, params: ServerRequestParams, answer: type[Answer]
    ) -> Answer:
        raise NotImplementedError

    def workspace_for(self, cwd: Path) -> Workspace:
        return DiskWorkspace()
{extra}

port: ClientPort = Door()
"""

PACED = """
    def backlog(self) -> int:
        return 0

    async def drained(self) -> None:
        pass
"""


def _check(tmp_path: Path, extra: str) -> tuple[str, int]:
    source = tmp_path / "door.py"
    source.write_text(textwrap.dedent(DOOR).format(extra=extra))
    out, _err, status = mypy_api.run(
        ["--strict", "--no-error-summary", "--follow-imports=silent", str(source)]
    )
    return out, status


def test_a_door_without_back_pressure_does_not_type_check(tmp_path):
    out, status = _check(tmp_path, "")
    assert status == 1
    assert '"Door" is missing following "ClientPort" protocol members' in out
    assert "backlog" in out and "drained" in out


def test_a_door_with_back_pressure_type_checks(tmp_path):
    out, status = _check(tmp_path, PACED)
    assert status == 0, out
