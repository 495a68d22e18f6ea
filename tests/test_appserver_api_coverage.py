"""Every client request of the reference's stable schema, through `codex-lsp app-server`:
served, or answered "method not found" naming the method and why it is not served."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from codex_lsp.api.port import METHOD_NOT_FOUND
from codex_lsp.api.scope import OUT_OF_SCOPE
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.schema_check import schema_dir


def stable_client_requests() -> list[str]:
    union = json.loads((schema_dir() / "ClientRequest.json").read_text())
    return [variant["properties"]["method"]["enum"][0] for variant in union["oneOf"]]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServerClient]:
    tmp = tmp_path_factory.mktemp("coverage")
    # Nothing here reaches a model: requests are sent with empty params.
    home, ws = make_home(tmp, "http://127.0.0.1:9/v1")
    with app_server(home, ws) as running:
        yield running


def test_the_out_of_scope_list_names_only_methods_of_the_protocol():
    assert set(OUT_OF_SCOPE) <= set(stable_client_requests())


@pytest.mark.parametrize("method", sorted(OUT_OF_SCOPE))
def test_out_of_scope_methods_answer_method_not_found_naming_them(client, method):
    answer = client.call(method, {})
    error = answer["error"]
    assert error["code"] == METHOD_NOT_FOUND
    assert error["message"].startswith(f"Method not found: {method} (not served by codex-lsp: ")
    assert client.process.poll() is None


def test_every_stable_client_request_is_served_or_documented_as_not_served(client):
    unexplained = []
    for method in stable_client_requests():
        if method == "initialize":
            continue  # the handshake; a second one is refused as such
        answer = client.call(method, {})
        missing = "error" in answer and answer["error"]["code"] == METHOD_NOT_FOUND
        if method in OUT_OF_SCOPE:
            assert missing, f"{method} is listed as not served but answered {answer}"
        elif missing:
            unexplained.append(method)
    assert unexplained == []
    assert client.process.poll() is None
