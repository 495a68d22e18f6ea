"""`ApiServer` driven in-process through a fake `ClientPort`: the seam the language server uses.

These pin down what a door relies on: error codes and messages, `thread_cwd`, an answer that
fails or never comes, and a clean `aclose` with a turn still running.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from pydantic import BaseModel

from codex_lsp.api.port import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    ApiError,
    read_answer,
)
from codex_lsp.api.server import ApiServer
from codex_lsp.engine.bootstrap import load_services
from codex_lsp.engine.workspace import DiskWorkspace
from codex_lsp.protocol.common import dump
from tests.support.appserver import make_home, text_input
from tests.support.ports import sent_params
from tests.support.scripted_builders import (
    created,
    function_call_response,
    message_item,
    text_response,
)

WAIT_S = 20.0

R = TypeVar("R", bound=BaseModel)


class FakeClient:
    """Records notifications; answers server requests with `answer(method, params)`."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.answer: Any = None
        self.cwds: list[Path] = []
        self._changed = asyncio.Event()

    def notify(self, method: str, params: BaseModel) -> None:
        self.notes.append((method, sent_params(method, params)))
        self._changed.set()

    async def request(self, method: str, params: BaseModel, answer: type[R]) -> R:
        wire = dump(params)
        self.requests.append((method, wire))
        self._changed.set()
        result = self.answer(method, wire)
        if asyncio.iscoroutine(result):
            result = await result
        return read_answer(method, result, answer)

    def workspace_for(self, cwd: Path) -> DiskWorkspace:
        self.cwds.append(cwd)
        return DiskWorkspace()

    def backlog(self) -> int:
        return 0

    async def drained(self) -> None:
        pass

    async def until(self, method: str, **params: Any) -> dict[str, Any]:
        with anyio.fail_after(WAIT_S):
            while True:
                for name, got in self.notes:
                    if name == method and all(got.get(k) == v for k, v in params.items()):
                        return got
                self._changed.clear()
                await self._changed.wait()


@pytest.fixture
async def api(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, approval_policy="untrusted")
    client = FakeClient()
    server = ApiServer(lambda: load_services(codex_home=home), client)
    server.workspace = ws  # type: ignore[attr-defined]
    server.client = client  # type: ignore[attr-defined]
    yield server
    await server.aclose()


async def _thread(api: ApiServer) -> str:
    result = await api.handle(
        "thread/start", {"cwd": str(api.workspace), "sandbox": "danger-full-access"}
    )  # type: ignore[attr-defined]
    return result["thread"]["id"]


async def test_errors_name_the_method_or_the_field(api):
    with pytest.raises(ApiError) as unknown:
        await api.handle("thread/teleport", {})
    assert unknown.value.code == METHOD_NOT_FOUND and "thread/teleport" in unknown.value.message
    with pytest.raises(ApiError) as later:
        await api.handle("thread/rollback", {})
    assert later.value.code == METHOD_NOT_FOUND and "not served" in later.value.message
    for hosted in ("plugin/list", "account/usage/read", "feedback/upload"):
        with pytest.raises(ApiError) as outside:
            await api.handle(hosted, {})
        assert outside.value.code == METHOD_NOT_FOUND and hosted in outside.value.message
    with pytest.raises(ApiError) as bad:
        await api.handle("thread/start", {"cwd": 7})
    assert bad.value.code == INVALID_PARAMS and "cwd" in bad.value.message
    with pytest.raises(ApiError) as relative:
        await api.handle("thread/start", {"cwd": "relative/dir"})
    assert relative.value.code == INVALID_PARAMS and "cwd" in relative.value.message
    with pytest.raises(ApiError) as granular:
        await api.handle(
            "thread/start",
            {
                "approvalPolicy": {
                    "granular": {"sandbox_approval": True, "rules": True, "mcp_elicitations": True}
                }
            },
        )
    assert granular.value.code == INVALID_PARAMS and "approvalPolicy" in granular.value.message
    with pytest.raises(ApiError) as missing:
        await api.handle("turn/start", {"threadId": "nope", "input": [text_input("x")]})
    assert missing.value.code == INVALID_REQUEST and "nope" in missing.value.message

    thread_id = await _thread(api)
    with pytest.raises(ApiError) as effort:
        await api.handle(
            "turn/start", {"threadId": thread_id, "input": [text_input("x")], "effort": "ludicrous"}
        )
    assert effort.value.code == INVALID_PARAMS and "effort" in effort.value.message


async def test_thread_cwd_is_known_for_loaded_threads_only(api):
    assert api.editor.thread_cwd("unknown") is None
    thread_id = await _thread(api)
    assert api.editor.thread_cwd(thread_id) == api.workspace
    assert api.client.cwds == [api.workspace]


async def test_a_failing_approval_answer_declines_the_command(api, scripted_model):
    ws = api.workspace
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "touch declined.txt", "workdir": str(ws)}, call_id="c1"
        )
    )
    scripted_model.enqueue(text_response("ok", response_id="resp_2"))

    def refuse(method: str, params: dict[str, Any]) -> Any:
        raise ApiError(-32000, "the editor closed the dialog")

    api.client.answer = refuse
    thread_id = await _thread(api)
    await api.handle("turn/start", {"threadId": thread_id, "input": [text_input("go")]})
    done = await api.client.until("turn/completed", threadId=thread_id)
    assert done["turn"]["status"] == "completed"
    finished = [
        p["item"] for m, p in api.client.notes if m == "item/completed" and p["item"]["id"] == "c1"
    ]
    assert finished[0]["status"] == "declined"
    assert not (ws / "declined.txt").exists()


async def test_an_unanswered_approval_is_dropped_when_the_turn_is_interrupted(api, scripted_model):
    ws = api.workspace
    scripted_model.enqueue(
        function_call_response(
            "exec_command", {"cmd": "touch never.txt", "workdir": str(ws)}, call_id="c1"
        )
    )
    cancelled = asyncio.Event()

    async def never(method: str, params: dict[str, Any]) -> Any:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    api.client.answer = never
    thread_id = await _thread(api)
    turn = (await api.handle("turn/start", {"threadId": thread_id, "input": [text_input("go")]}))[
        "turn"
    ]
    await api.client.until(
        "thread/status/changed",
        threadId=thread_id,
        status={"type": "active", "activeFlags": ["waitingOnApproval"]},
    )
    assert await api.handle("turn/interrupt", {"threadId": thread_id, "turnId": turn["id"]}) == {}
    done = await api.client.until("turn/completed", threadId=thread_id)
    assert done["turn"]["status"] == "interrupted"
    with anyio.fail_after(WAIT_S):
        await cancelled.wait()
    assert not (ws / "never.txt").exists()


async def test_aclose_ends_a_running_turn_and_returns(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(
        [created("resp_slow"), *message_item("Still going")[:2], {"stall_s": 60}]
    )
    client = FakeClient()
    server = ApiServer(lambda: load_services(codex_home=home), client)
    result = await server.handle("thread/start", {"cwd": str(ws)})
    thread_id = result["thread"]["id"]
    await server.handle("turn/start", {"threadId": thread_id, "input": [text_input("long")]})
    await client.until("item/agentMessage/delta", threadId=thread_id)
    with anyio.fail_after(WAIT_S):
        await server.aclose()
    done = [p for m, p in client.notes if m == "turn/completed"]
    assert done and done[0]["turn"]["status"] == "interrupted"
    assert server.editor.thread_cwd(thread_id) is None
    with pytest.raises(ApiError):
        await server.handle("thread/list", {})


async def test_two_resumes_of_one_thread_at_once_open_one_engine(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(text_response("stored"))
    first = ApiServer(lambda: load_services(codex_home=home), FakeClient())
    thread_id = (await first.handle("thread/start", {"cwd": str(ws)}))["thread"]["id"]
    await first.handle("turn/start", {"threadId": thread_id, "input": [text_input("keep me")]})
    await first._client.until("turn/completed", threadId=thread_id)  # type: ignore[attr-defined]
    await first.aclose()

    client = FakeClient()
    second = ApiServer(lambda: load_services(codex_home=home), client)
    try:
        params = {"threadId": thread_id}
        one, two = await asyncio.gather(
            second.handle("thread/resume", params), second.handle("thread/resume", params)
        )
        assert one["thread"]["id"] == two["thread"]["id"] == thread_id
        assert [t["status"] for t in (one["thread"]["turns"][0], two["thread"]["turns"][0])] == [
            "completed",
            "completed",
        ]
        assert list(second.threads.loaded) == [thread_id]
        assert len(client.cwds) == 1, "one engine, so one workspace asked for"
    finally:
        await second.aclose()


def test_thread_list_source_kinds_map_to_the_store() -> None:
    from codex_lsp.api.threads.store import store_source_filter

    assert store_source_filter(None) == {"exclude_source_kinds": ("subagent",)}
    assert store_source_filter(["cli", "subAgentThreadSpawn"]) == {
        "source_kinds": {"cli", "subagent"}
    }
