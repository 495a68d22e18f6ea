"""Every client request of the reference's stable schema as the LSP request `codex/<method>` of
`codex-lsp serve`: served, or answered "method not found" naming the method and the reason."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from codex_lsp.api.port import METHOD_NOT_FOUND
from codex_lsp.api.scope import OUT_OF_SCOPE
from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import EditorSession
from tests.support.schema_check import stable_client_requests


async def _error_of(client, method: str) -> JsonRpcException | None:
    try:
        await client.codex(method, {})
    except JsonRpcException as error:
        return error
    return None


async def test_every_stable_request_is_served_as_codex_method_or_named_as_not_served(tmp_path):
    ws = make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})
    home = tmp_path / "home"
    # Nothing here reaches a model: requests are sent with empty params.
    write_config(home, "http://127.0.0.1:9/v1")
    unexplained: list[str] = []
    wrongly_served: list[str] = []
    async with EditorSession(home, ws) as client:
        for method in stable_client_requests():
            error = await _error_of(client, method)
            missing = error is not None and error.code == METHOD_NOT_FOUND
            if method in OUT_OF_SCOPE:
                if not missing:
                    wrongly_served.append(method)
                    continue
                assert error is not None
                assert f"Method not found: {method} (not served by codex-lsp: " in error.message
                assert OUT_OF_SCOPE[method] in error.message
            elif missing:
                unexplained.append(method)
        # Still serving after every one of them.
        listed = await client.codex("thread/loaded/list", {})
    assert unexplained == []
    assert wrongly_served == []
    assert isinstance(listed["data"], list)


@pytest.mark.parametrize("method", ["no/such/method", "thread/rollback"])
async def test_unknown_methods_are_named_without_a_reason(tmp_path, method):
    ws = make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})
    home = tmp_path / "home"
    write_config(home, "http://127.0.0.1:9/v1")
    async with EditorSession(home, ws) as client:
        error = await _error_of(client, method)
    assert error is not None and error.code == METHOD_NOT_FOUND
    assert method in error.message
