"""The scripted model server itself: matching, recording, the CLI and its control endpoints."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from codex_lsp.model import Completed, ModelClient, OutputTextDelta, Prompt
from codex_lsp.protocol.core.providers import ModelProviderInfo
from tests.support import scripted_builders as sb
from tests.support.scripted_model import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "tests.support.scripted_model"]


def user(text: str) -> Prompt:
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    return Prompt(model="gpt-test", input=[message])


async def answer(client: ModelClient, prompt: Prompt) -> str:
    return "".join([e.delta async for e in client.stream(prompt) if isinstance(e, OutputTextDelta)])


async def test_when_routes_concurrent_requests_deterministically(scripted_model) -> None:
    # Enqueued in the opposite order to the requests: only `when` can get these right.
    scripted_model.enqueue(sb.text_response("answer for beta"), when="question beta")
    scripted_model.enqueue(sb.text_response("answer for alpha"), when="question alpha")
    prov = ModelProviderInfo(name="scripted", base_url=scripted_model.base_url)
    async with ModelClient(prov) as c:
        alpha, beta = await asyncio.gather(
            answer(c, user("question alpha")), answer(c, user("question beta"))
        )
    assert (alpha, beta) == ("answer for alpha", "answer for beta")
    assert scripted_model.pending_scripts == 0


async def test_unconditional_scripts_are_fifo_and_when_scripts_wait(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("only for zeta"), when="zeta")
    scripted_model.enqueue(sb.text_response("first"))
    scripted_model.enqueue(sb.text_response("second"))
    prov = ModelProviderInfo(name="scripted", base_url=scripted_model.base_url)
    async with ModelClient(prov) as c:
        assert await answer(c, user("a")) == "first"
        assert await answer(c, user("b")) == "second"
    assert scripted_model.pending_scripts == 1


def test_records_are_thread_safe_copies_and_wait_times_out(scripted_model) -> None:
    httpx.post(f"{scripted_model.base_url}/responses", json={"model": "x"}, timeout=5)
    records = scripted_model.wait_for_requests(1, timeout=5)
    assert records[0].body == {"model": "x"}
    assert records[0].scripted is False
    records.clear()
    assert len(scripted_model.requests) == 1
    with pytest.raises(TimeoutError, match="saw 1 request"):
        scripted_model.wait_for_requests(2, timeout=0.05)


def test_stop_returns_while_a_script_is_stalled() -> None:
    server = ScriptedModelServer().start()
    url = f"{server.base_url}/responses"
    server.enqueue([{"stall_s": 60}])
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(url, json={}, timeout=0.2)
    server.wait_for_requests(1)
    server.stop()  # must not wait out the 60 s stall
    with pytest.raises(httpx.ConnectError):
        httpx.post(url, json={}, timeout=2)


async def test_cli_serves_script_file_and_control_endpoints(tmp_path) -> None:
    script_file = tmp_path / "scripts.json"
    script_file.write_text(
        json.dumps(
            [
                {"when": "from-file-when", "script": sb.text_response("matched by when")},
                sb.text_response("plain from file"),
            ]
        )
    )
    proc = subprocess.Popen(
        [*CLI, "--port", "0", "--script-file", str(script_file)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line.startswith("READY http://127.0.0.1:")
        base_url = line.split()[1]
        prov = ModelProviderInfo(name="cli", base_url=base_url, request_max_retries=0)
        async with ModelClient(prov) as c, httpx.AsyncClient() as http:
            assert await answer(c, user("x")) == "plain from file"
            assert await answer(c, user("from-file-when")) == "matched by when"
            root = base_url.removesuffix("/v1")
            enqueue = {"script": sb.text_response("added over http")}
            r = await http.post(f"{root}/_control/enqueue", json=enqueue)
            assert r.json() == {"ok": True, "pending": 1}
            events = [e async for e in c.stream(user("y"))]
            assert isinstance(events[-1], Completed)
            bad = await http.post(f"{root}/_control/enqueue", content=b"not json")
            assert bad.status_code == 400
            recorded = (await http.get(f"{root}/_control/requests")).json()
        assert [r["path"] for r in recorded] == ["/v1/responses"] * 3
        assert recorded[1]["body"]["input"][0]["content"][0]["text"] == "from-file-when"
        assert recorded[0]["headers"]["originator"] == "codex_lsp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stdout.close()
    assert proc.returncode == 0


def test_when_tool_answers_only_a_request_offering_that_tool(scripted_model) -> None:
    scripted_model.enqueue(sb.text_response("via exec"), when_tool="exec_command")
    scripted_model.enqueue(sb.text_response("via shell"), when_tool="shell_command")
    url = f"{scripted_model.base_url}/responses"
    chat_style = {"tools": [{"type": "function", "function": {"name": "shell_command"}}]}
    first = httpx.post(url, json=chat_style, timeout=5)
    assert "via shell" in first.text
    responses_style = {"tools": [{"type": "function", "name": "exec_command"}]}
    assert "via exec" in httpx.post(url, json=responses_style, timeout=5).text
    # Nothing left that an untooled request may take.
    assert httpx.post(url, json={}, timeout=5).status_code == 500


def test_models_route_serves_the_catalog_and_every_request_is_logged(scripted_model) -> None:
    root = scripted_model.base_url
    assert httpx.get(f"{root}/models?client_version=1.2.3", timeout=5).status_code == 404
    scripted_model.set_models({"models": [{"slug": "m1"}]})
    got = httpx.get(f"{root}/models", headers={"Authorization": "Bearer k"}, timeout=5)
    assert got.json() == {"models": [{"slug": "m1"}]}
    httpx.post(f"{root}/elsewhere", json={}, timeout=5)
    log = [(r.method, r.path) for r in scripted_model.http_log]
    assert log == [
        ("GET", "/v1/models?client_version=1.2.3"),
        ("GET", "/v1/models"),
        ("POST", "/v1/elsewhere"),
    ]
    assert scripted_model.http_log[1].headers["authorization"] == "Bearer k"
    assert scripted_model.requests == []  # the model-call record is unchanged by these


def test_by_tool_plays_the_script_of_the_first_offered_tool_once(scripted_model) -> None:
    scripted_model.enqueue_by_tool(
        {"exec_command": sb.text_response("exec"), "shell_command": sb.text_response("shell")}
    )
    scripted_model.enqueue(sb.text_response("plain"))
    url = f"{scripted_model.base_url}/responses"
    both = {"tools": [{"name": "shell_command"}, {"name": "exec_command"}]}
    assert "exec" in httpx.post(url, json=both, timeout=5).text
    # The alternative went with it: the next offering request gets the plain script.
    assert "plain" in httpx.post(url, json=both, timeout=5).text
