"""`request_user_input`: the model asks, the UI answers (`user_input_answer`), the model reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codex_lsp.engine.questions import parse_questions, tool_output
from codex_lsp.engine.tools.base import ToolError
from codex_lsp.protocol.core.ops import Interrupt, UserInputAnswer, parse_op
from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import function_call_response, text_response

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


def _output_for(body: dict[str, Any], call_id: str) -> str:
    return next(
        item["output"]
        for item in body["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id
    )


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [tool.get("name") or tool["type"] for tool in body.get("tools", [])]


async def _until_question(engine: Any) -> Any:
    return (await engine.until(("request_user_input", "task_complete", "error"))).msg


async def test_question_answered_through_the_op_reaches_the_model(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [SCOPE, NAME]}, call_id="call_q", response_id="r1"
        )
    )
    scripted_model.enqueue(text_response("Refactoring src only.", response_id="r2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        turn_id = await engine.send("refactor the parser")
        asked = await _until_question(engine)
        assert asked.type == "request_user_input"
        assert (asked.call_id, asked.turn_id) == ("call_q", turn_id)
        assert [q["id"] for q in asked.questions] == ["scope", "module_name"]
        scope, name = asked.questions
        assert scope["header"] == "Scope" and scope["isOther"] is True
        assert [o["value"] for o in scope["options"]] == ["src_only", "everything"]
        assert name["options"] is None and name["isOther"] is True
        # The UI answers with a label for the choice and free text for the open question.
        answer = {
            "type": "user_input_answer",
            "id": turn_id,
            "answers": {
                "scope": {"selected": ["src only (Recommended)"]},
                "module_name": {"selected": [], "other": "tokenizer"},
            },
        }
        await engine.codex.submit(parse_op(answer))
        done = await engine.until("task_complete")

    assert done.msg.last_agent_message == "Refactoring src only."
    first, second = (r.body for r in scripted_model.requests)
    assert "request_user_input" in _tool_names(first)
    spec = next(t for t in first["tools"] if t.get("name") == "request_user_input")
    assert spec["parameters"]["properties"]["questions"]["maxItems"] == 3
    assert json.loads(_output_for(second, "call_q")) == {
        "answers": {
            "scope": {"selected": ["src_only"], "other": None},
            "module_name": {"selected": [], "other": "tokenizer"},
        }
    }


async def test_codex_shaped_answer_and_two_questions_in_one_turn(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [SCOPE]}, call_id="call_1", response_id="r1"
        )
    )
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [NAME]}, call_id="call_2", response_id="r2"
        )
    )
    scripted_model.enqueue(text_response("ok", response_id="r3"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        turn_id = await engine.send("go")
        first = await _until_question(engine)
        # Codex's own shape: `response.answers.<id>.answers`, holding labels or typed text.
        await engine.codex.submit(
            parse_op(
                {
                    "type": "user_input_answer",
                    "id": turn_id,
                    "response": {"answers": {"scope": {"answers": ["Everything"]}}},
                }
            )
        )
        second = await _until_question(engine)
        assert (first.call_id, second.call_id) == ("call_1", "call_2")
        assert second.turn_id == turn_id
        await engine.codex.submit(
            parse_op(
                {
                    "type": "user_input_answer",
                    "id": turn_id,
                    "response": {"answers": {"module_name": {"answers": ["lexer"]}}},
                }
            )
        )
        await engine.until("task_complete")

    bodies = [r.body for r in scripted_model.requests]
    assert json.loads(_output_for(bodies[1], "call_1")) == {
        "answers": {"scope": {"selected": ["everything"], "other": None}}
    }
    assert json.loads(_output_for(bodies[2], "call_2")) == {
        "answers": {"module_name": {"selected": [], "other": "lexer"}}
    }


@pytest.mark.parametrize(
    ("questions", "complaint"),
    [
        ([SCOPE, NAME, {**NAME, "id": "c"}, {**NAME, "id": "d"}], "has 4 entries"),
        ([{**NAME, "header": "A header of 20 chars"}], "is 20 characters; the limit is 12"),
        ([{**SCOPE, "options": SCOPE["options"][:1]}], "has 1 entries; give 2 or 3 choices"),
        ([SCOPE, {**NAME, "id": "scope"}], "'scope' is used twice"),
        ([{**SCOPE, "options": [{"value": "x", "description": "y"}] * 2}], "label is required"),
    ],
)
async def test_invalid_questions_get_a_tool_error_the_model_reads(
    scripted_model, tmp_path, questions, complaint
):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": questions}, call_id="call_bad", response_id="r1"
        )
    )
    scripted_model.enqueue(text_response("I will decide myself.", response_id="r2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("ask me")

    assert engine.of_type("request_user_input", events) == []
    error = _output_for(scripted_model.requests[1].body, "call_bad")
    assert "request_user_input: invalid arguments" in error
    assert complaint in error


async def test_interrupt_drops_the_pending_question(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url)
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [NAME]}, call_id="call_q", response_id="r1"
        )
    )
    scripted_model.enqueue(text_response("fine", response_id="r2"))

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        turn_id = await engine.send("ask")
        await _until_question(engine)
        await engine.codex.submit(Interrupt())
        aborted = await engine.until("turn_aborted")
        assert aborted.msg.reason == "interrupted"
        # A late answer finds nothing waiting and says so instead of resuming anything.
        await engine.codex.submit(UserInputAnswer(id=turn_id, answers={}))
        late = await engine.until("error")
        assert "no pending question" in late.msg.message
        events = await engine.run_turn("never mind")

    assert engine.of_type("task_complete", events)[0].last_agent_message == "fine"
    assert _output_for(scripted_model.requests[1].body, "call_q") == "aborted"


def test_parse_rejects_unknown_fields_and_non_json():
    with pytest.raises(ToolError, match="not valid JSON"):
        parse_questions("{nope")
    with pytest.raises(ToolError, match="unknown field `extra`"):
        parse_questions(json.dumps({"questions": [{**NAME, "extra": 1}]}))
    with pytest.raises(ToolError, match="`questions` is required"):
        parse_questions("{}")


def test_unanswered_questions_come_back_empty():
    questions = parse_questions(json.dumps({"questions": [SCOPE, NAME]}))
    assert tool_output(questions, {"answers": {"ignored": {"selected": ["x"]}}}) == {
        "answers": {
            "scope": {"selected": [], "other": None},
            "module_name": {"selected": [], "other": None},
        }
    }


async def test_only_the_root_thread_may_ask(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(home, scripted_model.base_url, extra="[features]\nsubagent_tools = true\n")
    root, child = "root-marker", "child-marker"
    # The root's scripts go first: its requests quote the child's task too.
    scripted_model.enqueue(
        function_call_response(
            "subagent_spawn", {"message": f"{child}: ask"}, call_id="spawn", response_id="r1"
        ),
        when=root,
    )
    scripted_model.enqueue(
        function_call_response("subagent_await", {}, call_id="wait", response_id="r2"), when=root
    )
    scripted_model.enqueue(text_response("all done", response_id="r3"), when=root)
    scripted_model.enqueue(
        function_call_response(
            "request_user_input", {"questions": [NAME]}, call_id="child_q", response_id="c1"
        ),
        when=child,
    )
    scripted_model.enqueue(text_response("child done", response_id="c2"), when=child)

    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn(f"{root}: delegate")

    assert engine.of_type("task_complete", events)[-1].last_agent_message == "all done"
    assert engine.of_type("request_user_input") == []
    bodies = [r.body for r in scripted_model.requests]
    root_first = next(b for b in bodies if root in json.dumps(b))
    child_bodies = [b for b in bodies if root not in json.dumps(b)]
    assert "request_user_input" in _tool_names(root_first)
    assert "request_user_input" not in _tool_names(child_bodies[0])
    refused = _output_for(child_bodies[1], "child_q")
    assert refused == "request_user_input can only be used by the root thread"


def test_options_without_value_as_codex_models_send_them_use_the_label() -> None:
    options = [
        {"label": "main (Recommended)", "description": "The default branch."},
        {"label": "develop", "description": "The integration branch."},
    ]
    question = {"id": "branch", "header": "Branch", "question": "Which?", "options": options}
    (parsed,) = parse_questions(json.dumps({"questions": [question]}))
    assert [(o.value, o.label) for o in parsed.options or ()] == [
        ("main (Recommended)", "main (Recommended)"),
        ("develop", "develop"),
    ]
