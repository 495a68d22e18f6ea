"""Unified exec, the approval rule and the commands family, side by side with the real
`codex app-server` 0.171.0 on the same scripted model.

Each scenario runs once against each server (a scripted model of its own, the same scripts) and
compares what a model or a client sees: the tools offered, which commands ask first, the text a
tool call returns (ids and timings normalised), and the `command/exec` / `thread/shellCommand`
answers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.exec.peer import Side, session
from tests.support.scripted_builders import function_call_response, text_response
from tests.support.scripted_model import ScriptedModelServer

SIDES: tuple[Side, Side] = ("real", "ours")
SHELL_AND_PATCH = ("exec_command", "write_stdin", "shell_command", "apply_patch", "update_plan")
APPROVAL = "item/commandExecution/requestApproval"


def _both(run: Callable[[Side], Any]) -> tuple[Any, Any]:
    real, ours = (run(side) for side in SIDES)
    return real, ours


# -- tools per model -------------------------------------------------------------------------


def _schema(tool: dict[str, Any]) -> Any:
    """What a model depends on in a tool: its kind, and its parameters' names, types, enums."""
    if tool["type"] == "custom":
        return ("custom", tool["format"]["type"], tool["format"]["syntax"])
    params = tool["parameters"]

    def shape(prop: dict[str, Any]) -> Any:
        items = prop.get("items")
        nested = (
            {k: shape(v) for k, v in items.get("properties", {}).items()}
            if isinstance(items, dict)
            else None
        )
        return (prop.get("type"), prop.get("enum"), nested)

    return (
        "function",
        sorted(params.get("required", [])),
        {name: shape(prop) for name, prop in params["properties"].items()},
    )


def _offered(side: Side, model: str, extra: str) -> dict[str, Any]:
    with ScriptedModelServer() as model_server:
        model_server.enqueue(text_response("hello"))
        with session(side, model_server.base_url, model=model, extra=extra) as (home, server):
            thread_id = server.start_thread(cwd=str(home / "ws"))
            server.run_turn(thread_id, "hi")
        tools = model_server.requests[0].body["tools"]
    return {t["name"]: _schema(t) for t in tools if t.get("name") in SHELL_AND_PATCH}


@pytest.mark.parametrize(
    ("model", "extra"),
    [
        ("gpt-5.5", ""),
        ("my-local-model", ""),
        ("gpt-5.5", "tools.update_plan.enabled = true"),
    ],
)
def test_each_model_is_offered_the_same_shell_and_patch_tools(model: str, extra: str) -> None:
    real, ours = _both(lambda side: _offered(side, model, extra))
    assert list(ours) == list(real)
    assert ours == real


# -- approvals -------------------------------------------------------------------------------


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("untrusted", "workspace-write", {"cmd": "echo hi"}),
    ("untrusted", "workspace-write", {"cmd": "ls"}),
    ("untrusted", "workspace-write", {"cmd": "pwd"}),
    ("untrusted", "danger-full-access", {"cmd": "ls"}),
    ("untrusted", "workspace-write", {"cmd": "touch made.txt"}),
    ("on-request", "workspace-write", {"cmd": "touch made.txt"}),
    ("on-request", "workspace-write", {"cmd": "rm -rf gone"}),
    ("on-request", "danger-full-access", {"cmd": "rm -rf gone"}),
    (
        "on-request",
        "workspace-write",
        {"cmd": "ls", "sandbox_permissions": "require_escalated", "justification": "List?"},
    ),
    ("never", "workspace-write", {"cmd": "rm -rf gone"}),
    ("never", "workspace-write", {"cmd": "ls", "sandbox_permissions": "require_escalated"}),
    ("never", "read-only", {"cmd": "touch made.txt"}),
]


def _decisions(side: Side) -> list[tuple[int, str | None, str]]:
    """Per case: how many approvals were asked, the reason shown, and the model's output."""
    with (
        ScriptedModelServer() as model_server,
        session(side, model_server.base_url) as (home, server),
    ):
        seen = []
        for policy, sandbox, args in CASES:
            model_server.enqueue(function_call_response("exec_command", args))
            model_server.enqueue(text_response("ok", response_id="resp_2"))
            thread_id = server.start_thread(
                cwd=str(home / "ws"), approvalPolicy=policy, sandbox=sandbox
            )
            _messages, asked = server.run_turn(thread_id, "go")
            approvals = [m for m in asked if m["method"] == APPROVAL]
            reason = approvals[0]["params"].get("reason") if approvals else None
            output = model_server.requests[-1].body["input"][-1]["output"]
            seen.append((len(approvals), reason, _refusal(output)))
    return seen


def _refusal(output: str) -> str:
    """A refusal's text (with the shell's path left out), or that the command ran."""
    if output.startswith("Chunk ID:"):
        return "ran"
    return re.sub(r"`\S+ -lc ", "`SHELL -lc ", output)


def test_the_same_commands_ask_first_under_each_policy() -> None:
    real, ours = _both(_decisions)
    for case, theirs, mine in zip(CASES, real, ours, strict=True):
        assert mine == theirs, f"{case}: real {theirs}, ours {mine}"


# -- what exec_command and write_stdin return ------------------------------------------------


PLAIN = {"login": False}


def _normalise(text: str) -> str:
    text = re.sub(r"Chunk ID: [0-9a-f]{6}", "Chunk ID: <id>", text)
    text = re.sub(r"Wall time: \d+\.\d{4} seconds", "Wall time: <t> seconds", text)
    text = re.sub(r"session ID \d+", "session ID <n>", text)
    return re.sub(r"process id \d+", "process id <n>", text)


def _session_id(body: Any) -> int:
    last = [i for i in body["input"] if i["type"] == "function_call_output"][-1]["output"]
    found = re.search(r"session ID (\d+)", last)
    assert found, last
    return int(found.group(1))


def _exec_outputs(side: Side) -> list[str]:
    steps: list[Any] = [
        ("exec_command", {"cmd": "echo hi", **PLAIN}),
        ("exec_command", {"cmd": "printf 'a\\nb'; exit 3", **PLAIN}),
        ("exec_command", {"cmd": "seq 1 100000", "max_output_tokens": 50, **PLAIN}),
        ("exec_command", {"cmd": "sleep 1; echo late", "yield_time_ms": 250, **PLAIN}),
        lambda body: ("write_stdin", {"session_id": _session_id(body), "yield_time_ms": 20_000}),
        ("exec_command", {"cmd": "sleep 30", "yield_time_ms": 250, **PLAIN}),
        lambda body: ("write_stdin", {"session_id": _session_id(body), "chars": "x"}),
        ("write_stdin", {"session_id": 7, "chars": ""}),
        (
            "exec_command",
            {"cmd": "bash --norc --noprofile", "tty": True, "yield_time_ms": 2000, **PLAIN},
        ),
        lambda body: (
            "write_stdin",
            {"session_id": _session_id(body), "chars": "echo $((6*7))\n", "yield_time_ms": 2000},
        ),
        lambda body: (
            "write_stdin",
            {"session_id": _session_id(body), "chars": "exit 4\n", "yield_time_ms": 5000},
        ),
        ("shell_command", {"command": "echo not offered"}),
    ]
    with ScriptedModelServer() as model_server:
        for index, step in enumerate(steps):
            call_id = f"call_{index}"
            if callable(step):
                model_server.enqueue_responder(
                    lambda body, step=step, call_id=call_id: function_call_response(
                        *step(body), call_id=call_id, response_id=f"r{call_id}"
                    )
                )
            else:
                model_server.enqueue(
                    function_call_response(*step, call_id=call_id, response_id=f"r{call_id}")
                )
        model_server.enqueue(text_response("done", response_id="resp_end"))
        with session(side, model_server.base_url) as (home, server):
            thread_id = server.start_thread(
                cwd=str(home / "ws"), approvalPolicy="never", sandbox="danger-full-access"
            )
            server.run_turn(thread_id, "go")
        body = model_server.requests[-1].body
    outputs = [i["output"] for i in body["input"] if i["type"] == "function_call_output"]
    return [_normalise(o) for o in outputs]


def test_exec_command_and_write_stdin_return_the_same_text() -> None:
    real, ours = _both(_exec_outputs)
    assert len(ours) == len(real)
    for index, (theirs, mine) in enumerate(zip(real, ours, strict=True)):
        assert mine == theirs, f"call {index}"


# -- the commands family ---------------------------------------------------------------------


EXEC_CASES: list[dict[str, Any]] = [
    {"command": ["sh", "-c", "echo out; echo err >&2; exit 3"]},
    {"command": ["printf", "abcdefghij"], "outputBytesCap": 4},
    {"command": ["sleep", "30"], "timeoutMs": 200},
    {"command": []},
    {"command": ["cat"], "tty": True},
    {"command": ["true"], "timeoutMs": 10, "disableTimeout": True},
    {"command": ["true"], "outputBytesCap": 1, "disableOutputCap": True},
    {"command": ["true"], "size": {"rows": 3, "cols": 3}},
    # (Inside its sandbox the reference's launcher panics on a missing program, exit 101;
    # outside it, both refuse to spawn it.)
    {"command": ["/nonexistent/bin"], "sandboxPolicy": {"type": "dangerFullAccess"}},
]
FOLLOW_UPS: list[tuple[str, dict[str, Any]]] = [
    ("command/exec/write", {"processId": "nope", "deltaBase64": "eA=="}),
    ("command/exec/resize", {"processId": "nope", "size": {"rows": 1, "cols": 1}}),
    ("command/exec/terminate", {"processId": "nope"}),
]


def _command_answers(side: Side) -> list[Any]:
    with (
        ScriptedModelServer() as model_server,
        session(side, model_server.base_url) as (_home, server),
    ):
        answers = [_answer(server.call("command/exec", p)) for p in EXEC_CASES]
        answers += [_answer(server.call(m, p)) for m, p in FOLLOW_UPS]
    return answers


def _answer(message: dict[str, Any]) -> Any:
    return message.get("result", message.get("error"))


def test_command_exec_answers_alike() -> None:
    real, ours = _both(_command_answers)
    cases = [*EXEC_CASES, *FOLLOW_UPS]
    for case, theirs, mine in zip(cases, real, ours, strict=True):
        assert mine == theirs, f"{case}"


def _shell_command_item(side: Side) -> tuple[list[str], dict[str, Any]]:
    with (
        ScriptedModelServer() as model_server,
        session(side, model_server.base_url) as (home, server),
    ):
        # Nothing written: a typed command runs in the thread's sandbox in ours, unsandboxed
        # in the reference (tests/exec/test_commands_appserver.py holds ours to that).
        thread_id = server.start_thread(cwd=str(home / "ws"), sandbox="read-only")
        start = len(server.received)
        server.result(
            "thread/shellCommand",
            {"threadId": thread_id, "command": "echo hi; exit 2"},
        )
        server.wait(lambda m: m.get("method") == "turn/completed", start)
        messages = server.received[start:]
    methods = [m["method"] for m in messages if m.get("method", "").startswith(("turn/", "item/"))]
    item = next(m["params"]["item"] for m in messages if m.get("method") == "item/completed")
    facts = {key: item.get(key) for key in ("type", "source", "status", "exitCode")}
    # The command's own lines; a login profile may print before them on some machines.
    facts["output"] = (item.get("aggregatedOutput") or "").splitlines()[-1:]
    facts["command"] = re.sub(r"^\S+ -lc ", "SHELL -lc ", item["command"])
    return methods, facts


def test_a_user_shell_command_is_reported_alike() -> None:
    (real_methods, real_item), (our_methods, our_item) = _both(_shell_command_item)
    assert our_item == real_item
    assert our_methods == real_methods
