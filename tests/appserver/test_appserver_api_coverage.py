"""Every client request of the reference's stable schema, through `codex-lsp app-server`:
served, or answered "method not found" naming the method and why it is not served; and every
served one declared by `generate-json-schema` and `generate-ts`, the others left out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codex_lsp.api.port import METHOD_NOT_FOUND
from codex_lsp.api.scope import LEGACY, OUT_OF_SCOPE
from tests.support.appserver import AppServerClient, app_server, make_home
from tests.support.schema_check import stable_client_requests

IN_SCOPE = [m for m in stable_client_requests() if m not in OUT_OF_SCOPE]


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


def _generate(kind: str, out: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "codex_lsp", "app-server", kind, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_generated_json_schema_declares_every_served_request_and_no_other(tmp_path):
    _generate("generate-json-schema", tmp_path)
    union = json.loads((tmp_path / "ClientRequest.json").read_text())
    declared = {branch["properties"]["method"]["enum"][0] for branch in union["oneOf"]}
    assert [m for m in IN_SCOPE if m not in declared] == []
    assert declared.isdisjoint(OUT_OF_SCOPE)
    bundle = json.loads((tmp_path / "codex_app_server_protocol.schemas.json").read_text())
    in_bundle = bundle["definitions"]["ClientRequest"]["oneOf"]
    assert {branch["properties"]["method"]["enum"][0] for branch in in_bundle} == declared


def test_generated_typescript_declares_every_served_request_and_no_other(tmp_path):
    _generate("generate-ts", tmp_path)
    text = (tmp_path / "ClientRequest.ts").read_text()
    assert [m for m in IN_SCOPE if f'method: "{m}";' not in text] == []
    assert [m for m in OUT_OF_SCOPE if f'"{m}"' in text] == []


@pytest.mark.parametrize("method", sorted(LEGACY))
def test_older_protocol_requests_say_what_replaces_them(client, method):
    answer = client.call(method, {})
    assert answer["error"]["code"] == METHOD_NOT_FOUND
    assert answer["error"]["message"] == (
        f"Method not found: {method} (not served by codex-lsp: {LEGACY[method]})"
    )
