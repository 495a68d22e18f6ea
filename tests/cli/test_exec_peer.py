"""`codex-lsp exec` side by side with the real `codex exec` 0.171.0 on the same scripted model.

Each scenario runs once with each program (a scripted model and a home of their own, the same
scripts, the same command line) and compares what a script reading them depends on: the
`--json` event types in order and the key paths of each event, the exit status, the text the
model received, the final answer on stdout and in `-o FILE`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.exec.peer import REPO, Side, peer_binary, peer_home
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    http_error,
    text_response,
)
from tests.support.scripted_model import ScriptedModelServer

SIDES: tuple[Side, Side] = ("real", "ours")
PATCH = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch"
Script = Callable[[ScriptedModelServer], None]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    home: Path
    model: ScriptedModelServer
    # The workspace's files after the run (the home is removed afterwards).
    files: dict[str, str]
    # The bodies of the requests the model had received when the run ended.
    bodies: list[dict[str, Any]]

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]

    def user_texts(self, request: int = -1) -> list[str]:
        body = self.bodies[request]
        return [
            part["text"]
            for item in body["input"]
            if item.get("role") == "user"
            for part in item["content"]
            if part.get("type") == "input_text" and not part["text"].startswith("<")
        ]


def exec_argv(side: Side) -> list[str]:
    if side == "real":
        return [str(peer_binary()), "exec"]
    return [sys.executable, "-m", "codex_lsp", "exec"]


def run_exec(
    side: Side,
    model: ScriptedModelServer,
    home: Path,
    *args: str,
    stdin: str | None = "",
) -> Run:
    env = dict(os.environ, CODEX_HOME=str(home), HOME=str(home), RUST_LOG="error")
    env["PYTHONPATH"] = str(REPO)
    env.pop("OPENAI_API_KEY", None)
    done = subprocess.run(
        [*exec_argv(side), *args],
        cwd=home / "ws",
        env=env,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=180,
        start_new_session=True,
    )
    ws = home / "ws"
    files = {p.name: p.read_text() for p in ws.iterdir() if p.is_file()}
    bodies = [request.body for request in model.requests]
    return Run(done.returncode, done.stdout, done.stderr, home, model, files, bodies)


def on_both(script: Script, *args: str, stdin: str | None = "") -> dict[Side, Run]:
    """Run `exec ARGS` with each program against its own scripted model fed by `script`."""
    runs: dict[Side, Run] = {}
    for side in SIDES:
        with ScriptedModelServer() as model, peer_home(model.base_url) as home:
            subprocess.run(["git", "init", "-q", str(home / "ws")], check=True)
            script(model)
            runs[side] = run_exec(side, model, home, *args, stdin=stdin)
    return runs


def key_paths(value: Any, prefix: str = "") -> set[str]:
    """Every key path in a JSON value (`item.changes[].kind`), list items merged."""
    paths: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            path = f"{prefix}.{key}" if prefix else key
            paths.add(path)
            paths |= key_paths(inner, path)
    elif isinstance(value, list):
        for inner in value:
            paths |= key_paths(inner, f"{prefix}[]")
    return paths


def shape(run: Run) -> list[tuple[str, str | None, frozenset[str]]]:
    """Each event's type, its item's type, and its key paths."""
    return [
        (event["type"], event.get("item", {}).get("type"), frozenset(key_paths(event)))
        for event in run.events()
    ]


def _answer(model: ScriptedModelServer) -> None:
    model.enqueue(text_response("All done."))


def _command(model: ScriptedModelServer) -> None:
    model.enqueue(function_call_response("exec_command", {"cmd": "echo hi"}))
    model.enqueue(text_response("ran it", response_id="resp_2"))


def _patch(model: ScriptedModelServer) -> None:
    model.enqueue(custom_tool_call_response("apply_patch", PATCH))
    model.enqueue(text_response("patched", response_id="resp_2"))


def _failure(model: ScriptedModelServer) -> None:
    for _ in range(4):
        model.enqueue(http_error(400, {"error": {"message": "bad request here"}}))


@pytest.mark.parametrize(
    "script", [_answer, _command, _patch, _failure], ids=["answer", "command", "patch", "failure"]
)
def test_json_events_have_codex_types_and_shapes(script: Script) -> None:
    runs = on_both(script, "--json", "do it")
    real, ours = runs["real"], runs["ours"]

    assert ours.code == real.code, ours.stderr
    assert shape(ours) == shape(real)
    # The values a script acts on agree too.
    for mine, theirs in zip(ours.events(), real.events(), strict=True):
        item, reference = mine.get("item", {}), theirs.get("item", {})
        for key in ("id", "text", "aggregated_output", "exit_code", "status"):
            assert item.get(key) == reference.get(key), (mine, theirs)
        if "changes" in reference:
            names = [Path(c["path"]).name for c in item["changes"]]
            assert names == [Path(c["path"]).name for c in reference["changes"]]
    if script is _command:
        [command] = [e["item"] for e in ours.events() if e["type"] == "item.completed"][:1]
        assert command["command"].endswith("'echo hi'")
    if script is _patch:
        assert ours.files["hello.txt"] == real.files["hello.txt"] == "hello\n"


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["summarize"], "DATA LINE\nsecond\n"),
        (["summarize"], "no newline at the end"),
        (["summarize"], "  \n\n"),
        (["-"], "the prompt itself\n"),
        ([], "the prompt itself\n"),
    ],
    ids=["appended", "unterminated", "blank", "dash", "no-prompt"],
)
def test_piped_input_reaches_the_model_as_codex_frames_it(args: list[str], stdin: str) -> None:
    runs = on_both(_answer, "--json", *args, stdin=stdin)
    real, ours = runs["real"], runs["ours"]

    assert ours.code == real.code == 0, ours.stderr
    assert ours.user_texts()[-1] == real.user_texts()[-1]


def on_both_in_turn(
    steps: list[tuple[Script, list[str], str | None]],
) -> dict[Side, list[Run]]:
    """Several `exec` runs one after another in the same home, with each program."""
    runs: dict[Side, list[Run]] = {}
    for side in SIDES:
        with ScriptedModelServer() as model, peer_home(model.base_url) as home:
            subprocess.run(["git", "init", "-q", str(home / "ws")], check=True)
            runs[side] = []
            for script, args, stdin in steps:
                script(model)
                runs[side].append(run_exec(side, model, home, *args, stdin=stdin))
    return runs


def _second(model: ScriptedModelServer) -> None:
    model.enqueue(text_response("second answer", response_id="resp_2"))


@pytest.mark.parametrize(
    "resume", [["resume", "--last", "and now?"], ["resume", "--last"]], ids=["arg", "stdin"]
)
def test_resume_last_continues_the_thread_as_codex_does(resume: list[str]) -> None:
    stdin = "and now?" if resume[-1] == "--last" else ""
    runs = on_both_in_turn(
        [(_answer, ["--json", "first question"], ""), (_second, ["--json", *resume], stdin)]
    )
    for side in SIDES:
        first, second = runs[side]
        assert second.code == 0, (side, second.stderr)
        # The same thread: its id again, and the model hears the whole conversation.
        assert second.events()[0] == first.events()[0]
        assert second.user_texts()[-2:] == ["first question", "and now?"], side
        assert "All done." in json.dumps(second.model.requests[-1].body["input"])
    assert shape(runs["ours"][1]) == shape(runs["real"][1])


def test_resume_by_id_with_options_after_the_word_as_the_sdk_runs_it() -> None:
    def steps(side: Side) -> list[Run]:
        with ScriptedModelServer() as model, peer_home(model.base_url) as home:
            subprocess.run(["git", "init", "-q", str(home / "ws")], check=True)
            _answer(model)
            first = run_exec(side, model, home, "--experimental-json", "hello")
            thread_id = first.events()[0]["thread_id"]
            _second(model)
            args = ["--experimental-json", "resume", thread_id, "--skip-git-repo-check"]
            return [first, run_exec(side, model, home, *args, stdin="next turn")]

    for side in SIDES:
        first, second = steps(side)
        assert second.code == 0, (side, second.stderr)
        assert second.events()[0]["thread_id"] == first.events()[0]["thread_id"]
        assert second.user_texts()[-2:] == ["hello", "next turn"]
        assert [e["type"] for e in second.events()][-1] == "turn.completed"


def test_resume_of_an_unknown_session_fails_like_codex() -> None:
    runs = on_both(_answer, "resume", "01a225d0-0000-7000-8000-000000000000", "hi")
    assert runs["ours"].code != 0 and runs["real"].code != 0
    assert runs["ours"].model.requests == [] and runs["real"].model.requests == []


REVIEW = {
    "findings": [
        {
            "title": "Off by one",
            "body": "x starts at 1",
            "confidence_score": 0.9,
            "priority": 1,
            "code_location": {
                "absolute_file_path": "/w/a.py",
                "line_range": {"start": 1, "end": 1},
            },
        }
    ],
    "overall_correctness": "patch is incorrect",
    "overall_explanation": "One bug.",
    "overall_confidence_score": 0.8,
}


def _review(model: ScriptedModelServer) -> None:
    model.enqueue(text_response(json.dumps(REVIEW)))


def _review_on_both(*args: str) -> dict[Side, Run]:
    runs: dict[Side, Run] = {}
    for side in SIDES:
        with ScriptedModelServer() as model, peer_home(model.base_url) as home:
            ws = home / "ws"
            subprocess.run(["git", "init", "-q", str(ws)], check=True)
            (ws / "a.py").write_text("x = 1\n")
            _review(model)
            runs[side] = run_exec(side, model, home, *args)
    return runs


@pytest.mark.parametrize(
    "args",
    [["--uncommitted"], ["check the naming only"]],
    ids=["uncommitted", "custom"],
)
def test_review_reports_the_findings_as_the_agent_message(args: list[str]) -> None:
    runs = _review_on_both("--json", "review", *args)
    real, ours = runs["real"], runs["ours"]

    assert ours.code == real.code == 0, ours.stderr
    assert shape(ours) == shape(real)
    for run in (real, ours):
        [message] = [e["item"]["text"] for e in run.events() if e["type"] == "item.completed"]
        assert message.startswith("One bug.") and "Off by one" in message
        assert "x starts at 1" in message
        sent = json.dumps(run.model.requests[0].body["input"])
        if args == ["check the naming only"]:
            assert "check the naming only" in sent
        else:
            assert "uncommitted" in sent.lower() or "unstaged" in sent.lower()


def test_review_without_json_prints_the_review_on_stdout() -> None:
    runs = _review_on_both("review", "--uncommitted")
    for run in runs.values():
        assert run.code == 0, run.stderr
        assert run.stdout.startswith("One bug.") and "x starts at 1" in run.stdout


def test_review_without_a_target_is_refused_as_codex_refuses_it() -> None:
    runs = _review_on_both("review")
    for run in runs.values():
        assert run.code == 1 and run.model.requests == []
        assert "--uncommitted" in run.stderr and "--base" in run.stderr


@pytest.mark.parametrize(
    ("script", "json_output", "expected"),
    [
        (_command, False, "ran it"),
        (_command, True, "ran it"),
        (_failure, False, ""),
        (_failure, True, ""),
    ],
    ids=["answer", "answer-json", "failure", "failure-json"],
)
def test_output_last_message_is_written_as_codex_writes_it(
    tmp_path, script: Script, json_output: bool, expected: str | None
) -> None:
    written = {}
    for side in SIDES:
        target = tmp_path / f"{side}.txt"
        args = ["--json"] if json_output else []
        run = on_both_one(side, script, *args, "-o", str(target), "do it")
        assert run.code == (0 if expected else 1), run.stderr
        written[side] = target.read_text() if target.exists() else None
    assert written["ours"] == written["real"] == expected


def on_both_one(side: Side, script: Script, *args: str, stdin: str | None = "") -> Run:
    with ScriptedModelServer() as model, peer_home(model.base_url) as home:
        subprocess.run(["git", "init", "-q", str(home / "ws")], check=True)
        script(model)
        return run_exec(side, model, home, *args, stdin=stdin)


SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


def test_output_schema_is_sent_as_the_response_text_format(tmp_path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    runs = on_both(_answer, "--json", "--output-schema", str(schema), "do it")

    formats = [run.model.requests[0].body["text"]["format"] for run in runs.values()]
    assert formats[0] == formats[1]
    assert formats[0]["type"] == "json_schema" and formats[0]["schema"] == SCHEMA


# The smallest valid PNG: one transparent pixel.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b494441"
    "54789c6360000200000500017a5eab3f0000000049454e44ae426082"
)


def test_an_image_is_attached_to_the_prompt(tmp_path) -> None:
    image = tmp_path / "pixel.png"
    image.write_bytes(PIXEL)
    runs = on_both(_answer, "-i", str(image), "--json", "what is this?")

    for side, run in runs.items():
        assert run.code == 0, (side, run.stderr)
        [user] = [
            item
            for item in run.model.requests[0].body["input"]
            if item.get("role") == "user" and "what is this?" in json.dumps(item)
        ]
        images = [part for part in user["content"] if part["type"] == "input_image"]
        assert len(images) == 1, (side, user)
        assert images[0]["image_url"].startswith("data:image/png;base64,")


def test_fork_continues_a_copy_under_a_new_id() -> None:
    def steps(side: Side) -> tuple[Run, Run, Run]:
        with ScriptedModelServer() as model, peer_home(model.base_url) as home:
            subprocess.run(["git", "init", "-q", str(home / "ws")], check=True)
            _answer(model)
            first = run_exec(side, model, home, "--json", "hello")
            thread_id = first.events()[0]["thread_id"]
            _second(model)
            forked = run_exec(side, model, home, "--json", "fork", thread_id, "in the copy")
            model.enqueue(text_response("third", response_id="resp_3"))
            again = run_exec(side, model, home, "--json", "resume", thread_id, "original")
            return first, forked, again

    for side in SIDES:
        first, forked, again = steps(side)
        assert forked.code == 0, (side, forked.stderr)
        original = first.events()[0]["thread_id"]
        assert forked.events()[0]["thread_id"] != original
        assert forked.user_texts()[-2:] == ["hello", "in the copy"], side
        # The original thread did not hear what was said in the copy.
        assert again.user_texts()[-2:] == ["hello", "original"], side
