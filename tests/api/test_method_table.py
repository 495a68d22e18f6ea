"""The v2 method table: every declared method served by one handler and every handler's method
declared, the scope lists naming none of them, a method or handler refused when given twice,
and a handler handed its own typed params."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from codex_lsp.api.family import Routes
from codex_lsp.api.scope import LEGACY, NOT_SERVED_YET, OUT_OF_SCOPE
from codex_lsp.api.server import ApiServer
from codex_lsp.engine.bootstrap import load_services
from codex_lsp.protocol import v2
from codex_lsp.protocol.fs.models import FsGetMetadataResponse
from codex_lsp.protocol.methods import MethodTable
from tests.api.test_api_server import FakeClient


class _Params(BaseModel):
    path: str


class _Result(BaseModel):
    pass


@pytest.fixture
async def server(tmp_path: Path):
    api = ApiServer(lambda: load_services(codex_home=tmp_path), FakeClient())
    yield api
    await api.aclose()


async def test_every_declared_method_has_one_handler_and_every_handler_a_declaration(server):
    # `initialize` is the door's: it answers the handshake before the API is loaded.
    assert server.served_methods() == set(v2.METHODS) - {"initialize"}


def test_the_not_served_lists_name_no_method_of_the_table():
    not_served = set(OUT_OF_SCOPE) | set(LEGACY) | NOT_SERVED_YET
    assert not_served.isdisjoint(v2.METHODS)


def test_the_registries_derive_from_the_table():
    assert {m: (d.params, d.result) for m, d in v2.METHODS.items()} == v2.CLIENT_REQUESTS
    assert {m for m, d in v2.METHODS.items() if d.experimental} == v2.EXPERIMENTAL_METHODS
    assert "thread/settings/update" in v2.EXPERIMENTAL_METHODS
    assert "turn/startTask" in v2.EXTENSION_REQUESTS
    assert "account/logout" in v2.NO_PARAMS_METHODS


def test_a_method_declared_twice_or_served_twice_is_refused():
    table = MethodTable()
    method = table.request("x/read", _Params, _Result)
    with pytest.raises(ValueError, match="x/read is declared twice"):
        table.request("x/read", _Params, _Result)

    async def handler(params: _Params, _raw: dict[str, object]) -> _Result:
        return _Result()

    routes = Routes().on(method, handler)
    with pytest.raises(ValueError, match="x/read has two handlers"):
        routes.on(method, handler)


async def test_a_handler_answers_with_its_result_model(server, tmp_path):
    result = await server.serve("fs/getMetadata", {"path": str(tmp_path)})
    assert isinstance(result, FsGetMetadataResponse)
    assert result.is_directory and not result.is_file
    assert (await server.handle("fs/getMetadata", {"path": str(tmp_path)}))["isDirectory"] is True
