"""Issue 9 through the language server: questions to the user, warnings, subagent events.

What an editor user sees: a question as a message prompt with its choices (or as the rich
`codex/item/tool/requestUserInput` for a chat panel), a warning as a message of type Warning,
and the subagent tree as `codex/subagent/lifecycle` and `codex/agent/inbox` notifications.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.support.engine import make_git_repo, write_config
from tests.support.lsp_client import Editor, EditorClient, EditorSession
from tests.support.scripted_builders import (
    function_call_response,
    message_item,
    multi_item_response,
    text_response,
)

SCOPE = {
    "id": "scope",
    "header": "Scope",
    "question": "Which files should the refactor touch?",
    "options": [
        {"value": "src_only", "label": "src only (Recommended)", "description": "Smaller diff."},
        {"value": "everything", "label": "Everything", "description": "Tests and docs too."},
    ],
}
NAME = {"id": "module_name", "header": "Name", "question": "What should the module be called?"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path / "ws", {"app.py": "print('hi')\n"})


def _home(tmp_path: Path, base_url: str, extra: str = "") -> Path:
    home = tmp_path / "home"
    write_config(home, base_url, extra=extra)
    return home


def _tool_output(request: Any, call_id: str) -> Any:
    return json.loads(
        next(
            item["output"]
            for item in request.body["input"]
            if item.get("type") == "function_call_output" and item.get("call_id") == call_id
        )
    )


def _ask(*questions: dict[str, Any]) -> list:
    return function_call_response(
        "request_user_input", {"questions": list(questions)}, call_id="call_q", response_id="r1"
    )


async def _final_answer(client: EditorClient, thread_id: str, text: str) -> str:
    completed = await client.run_turn(thread_id, text)
    assert completed["turn"]["status"] == "completed"
    return next(
        p["item"]["text"]
        for p in reversed(client.notifications("item/completed"))
        if p["item"]["type"] == "agentMessage"
    )


# -- questions ---------------------------------------------------------------------------


async def test_a_question_answered_in_a_message_prompt(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(_ask(SCOPE))
    scripted_model.enqueue(text_response("Touching everything.", response_id="r2"))
    editor = Editor(choose=lambda params: "Everything")
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        assert await _final_answer(client, thread_id, "refactor") == "Touching everything."

    [prompt] = editor.prompts
    assert [action.title for action in prompt.actions] == ["src only (Recommended)", "Everything"]
    assert prompt.message.splitlines() == [
        "Scope",
        "Which files should the refactor touch?",
        "src only (Recommended): Smaller diff.",
        "Everything: Tests and docs too.",
    ]
    # The label the user picked reaches the model as the option's value.
    assert _tool_output(scripted_model.requests[1], "call_q") == {
        "answers": {"scope": {"selected": ["everything"], "other": None}}
    }


async def test_a_dismissed_question_prompt_leaves_it_unanswered(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(_ask(SCOPE))
    scripted_model.enqueue(text_response("I will ask again later.", response_id="r2"))
    editor = Editor(choose=lambda params: None)
    async with EditorSession(home, ws, editor=editor) as client:
        thread_id = await client.start_thread(ws)
        assert await _final_answer(client, thread_id, "refactor") == "I will ask again later."
    assert len(editor.prompts) == 1
    # Nothing chosen: the model learns the question went unanswered.
    assert _tool_output(scripted_model.requests[1], "call_q") == {
        "answers": {"scope": {"selected": [], "other": None}}
    }


async def test_a_question_answered_through_the_rich_request(tmp_path, ws, scripted_model):
    home = _home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(_ask(SCOPE, NAME))
    scripted_model.enqueue(text_response("Refactoring src only.", response_id="r2"))

    def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "answers": {
                "scope": {"answers": ["src only (Recommended)"]},
                "module_name": {"answers": ["tokenizer"]},
            }
        }

    editor = Editor(rich_answer=answer)
    async with EditorSession(home, ws, editor=editor, rich=True) as client:
        thread_id = await client.start_thread(ws)
        assert await _final_answer(client, thread_id, "refactor") == "Refactoring src only."

    assert editor.prompts == [], "a chat panel renders the question itself"
    [(method, params)] = editor.rich_requests
    assert method == "item/tool/requestUserInput"
    assert (params["threadId"], params["itemId"]) == (thread_id, "call_q")
    scope, name = params["questions"]
    assert (scope["id"], scope["header"], scope["question"]) == (
        "scope",
        "Scope",
        "Which files should the refactor touch?",
    )
    assert [o["label"] for o in scope["options"]] == ["src only (Recommended)", "Everything"]
    assert name["id"] == "module_name" and name.get("options") is None
    assert _tool_output(scripted_model.requests[1], "call_q") == {
        "answers": {
            "scope": {"selected": ["src_only"], "other": None},
            "module_name": {"selected": [], "other": "tokenizer"},
        }
    }


# -- warnings ----------------------------------------------------------------------------


async def test_a_warning_is_shown_as_a_message_and_sent_as_codex_warning(
    tmp_path, ws, scripted_model
):
    ghost = '[mcp_servers.ghost]\ncommand = "/nonexistent/mcp-server"\nargs = []\n'
    home = _home(tmp_path, scripted_model.base_url, ghost)
    scripted_model.enqueue(text_response("Still here."))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        expected = "MCP server `ghost` failed to start: command `/nonexistent/mcp-server` not found"
        warning = await client.wait_for("warning")
        assert warning["message"] == expected
        shown = await client.wait_until(
            lambda: [m for m in client.messages if m.type == types.MessageType.Warning]
        )
        assert [m.message for m in shown] == [f"Codex: {expected}"]
        # A warning is not fatal: the thread works.
        assert await _final_answer(client, thread_id, "hello") == "Still here."


# -- subagents ---------------------------------------------------------------------------


async def test_subagent_events_reach_the_editor_as_codex_notifications(
    tmp_path, ws, scripted_model
):
    home = _home(tmp_path, scripted_model.base_url, "[features]\nsubagent_tools = true\n")
    root = "root-marker"
    # The root's scripts go first: its later requests quote the child's task too.
    scripted_model.enqueue(
        function_call_response(
            "subagent_spawn",
            {"message": "child-marker: say hi", "label": "kid"},
            call_id="spawn",
            response_id="resp_spawn",
        ),
        when=root,
    )
    scripted_model.enqueue(
        function_call_response("subagent_await", {}, call_id="await", response_id="resp_await"),
        when=root,
    )
    scripted_model.enqueue(text_response("the child said hi", response_id="resp_r"), when=root)
    scripted_model.enqueue(text_response("hi", response_id="resp_c"), when="child-marker")
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        answer = await _final_answer(client, thread_id, f"{root}: delegate")
        assert answer == "the child said hi"
        lifecycle = client.notifications("subagent/lifecycle")
        inbox = client.notifications("agent/inbox")

    assert lifecycle, "lifecycle events must reach the editor"
    assert all(p["threadId"] == thread_id for p in lifecycle + inbox)
    first, last = lifecycle[0], lifecycle[-1]
    assert (first["change"], first["agentId"], first["agent"]["status"]) == (
        "spawned",
        1,
        "running",
    )
    assert first["agent"]["parentAgentId"] == 0 and first["agent"]["label"] == "kid"
    assert last["agentId"] == 1 and last["agent"]["status"] == "completed"
    assert all(p["agentId"] == 1 for p in inbox)


# -- MCP tools, skills and web search, end to end through the language server -------------

MCP_SERVER = Path(__file__).parents[1] / "support" / "mcp_server.py"
SEARCH_CALL = {
    "type": "web_search_call",
    "id": "ws_1",
    "status": "completed",
    "action": {"type": "search", "query": "pygls release notes"},
}


async def test_mcp_tools_skills_and_web_search_through_the_language_server(
    tmp_path, ws, scripted_model
):
    extra = (
        "[tools]\nweb_search = true\n"
        f"[mcp_servers.tests]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(MCP_SERVER))}]\n"
    )
    home = _home(tmp_path, scripted_model.base_url, extra)
    skill = ws / ".agents/skills/release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Cut a release.\n---\nTag, then push.\n")
    scripted_model.enqueue(function_call_response("mcp__tests__add", {"a": 2, "b": 40}))
    scripted_model.enqueue(multi_item_response([SEARCH_CALL, message_item("found it", index=1)]))
    async with EditorSession(home, ws) as client:
        thread_id = await client.start_thread(ws)
        listed = await client.codex("skills/list", {"cwds": [str(ws)]})
        answer = await _final_answer(client, thread_id, "add and search")
        completed = [p["item"] for p in client.notifications("item/completed")]

    assert answer == "found it"
    names = [s["name"] for s in listed["data"][0]["skills"]]
    assert names == ["release"]
    mcp = next(item for item in completed if item["type"] == "mcpToolCall")
    assert (mcp["server"], mcp["tool"], mcp["status"]) == ("tests", "add", "completed")
    search = next(item for item in completed if item["type"] == "webSearch")
    assert search["query"] == "pygls release notes"
    first = scripted_model.requests[0].body
    assert "mcp__tests__add" in {t.get("name") for t in first["tools"]}
    assert {"type": "web_search"} in first["tools"]
    assert "release" in json.dumps(first["input"]) and "Cut a release." in json.dumps(
        first["input"]
    )
    assert _tool_output(scripted_model.requests[1], "call_1") == 42
