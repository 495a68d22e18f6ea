"""Secrets a provider's table holds stay out of what the model client says: a password in
base_url, static headers and query values, echoed by a server or part of the URL."""

from __future__ import annotations

import logging
import socket

import pytest

from codex_lsp.model import ModelClient, ModelError, Prompt
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support.scripted_model import ScriptedModelServer

PASSWORD = "url-password-secret-31337"
HEADER = "static-header-secret-42"
QUERY = "query-value-secret-99"


def provider(base_url: str) -> ModelProviderInfo:
    return ModelProviderInfo(
        name="t",
        base_url=base_url.replace("://", f"://codex:{PASSWORD}@"),
        http_headers={"x-team": HEADER},
        query_params={"sig": QUERY},
        request_max_retries=0,
    )


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def stream_error(info: ModelProviderInfo) -> ModelError:
    async with ModelClient(info, api_key=lambda: None) as client:
        with pytest.raises(ModelError) as caught:
            async for _ in client.stream(Prompt(model="m", input=[])):
                pass
    return caught.value


async def test_an_unreachable_server_is_named_without_its_password() -> None:
    err = await stream_error(provider(f"http://127.0.0.1:{closed_port()}/v1"))
    assert "Could not reach the model server at http://codex:[REDACTED]@127.0.0.1" in str(err)
    assert PASSWORD not in str(err) and PASSWORD not in repr(err)


@pytest.mark.parametrize("status", [400, 401, 404, 500])
async def test_secrets_a_server_echoes_are_masked(
    scripted_model: ScriptedModelServer, status: int
) -> None:
    echoed = f"denied: codex:{PASSWORD} {PASSWORD} {HEADER} {QUERY}"
    scripted_model.enqueue([{"status": status, "body": {"error": {"message": echoed}}}])
    err = await stream_error(provider(scripted_model.base_url))
    assert "denied: codex:[REDACTED] [REDACTED] [REDACTED] [REDACTED]" in str(err)
    assert scripted_model.requests[0].headers["x-team"] == HEADER


async def test_the_catalog_log_does_not_name_the_password(
    scripted_model: ScriptedModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="codex_lsp.model.client")
    async with ModelClient(provider(scripted_model.base_url)) as client:
        assert await client.list_models("1.0") is None
    assert "no model catalog from http://codex:[REDACTED]@127.0.0.1" in caplog.text
    assert PASSWORD not in caplog.text
