"""The scenarios driven through both servers: what a client does, step by step.

Each scenario scripts the model, drives one `Run` the way a client would, and waits for what
ends each step (a response, `turn/completed`), never for a length of time. A scenario must
behave the same on either server: what differs is what the comparison is for. Where the two
servers give the model different tools for the same job (unified exec's `exec_command` or
`shell_command`), the model is scripted per tool and calls whichever one it is offered.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.conformance.servers import Run
from tests.conformance.steps import (
    answer_request,
    committed_repo,
    run_turn,
    shell_call,
    start_thread,
    start_turn,
)
from tests.support.scripted_builders import (
    Script,
    created,
    custom_tool_call_response,
    function_call_response,
    http_error,
    message_item,
    text_response,
    usage,
)

Drive = Callable[[Run], None]


@dataclass(frozen=True)
class Scenario:
    name: str
    drive: Drive
    extra_config: str = ""
    features: dict[str, bool] | None = None
    # The client opts into the experimental API (as the IDE extension does).
    experimental_api: bool = False


def plain_answer(run: Run) -> None:
    run.model.enqueue(text_response("Hello from the scripted model."))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "Say hello")


def command_approved(run: Run) -> None:
    """Under `untrusted` a command that changes the workspace is asked about; the user
    accepts, it runs, and the model reads its output."""
    shell_call(run, "touch approved.txt")
    run.model.enqueue(text_response("Created the file."))
    thread_id = start_thread(run, approvalPolicy="untrusted")
    start_turn(run, thread_id, "Create approved.txt")
    answer_request(run, "item/commandExecution/requestApproval", {"decision": "accept"})
    run.client.wait_method("turn/completed", threadId=thread_id)


PATCH = """*** Begin Patch
*** Update File: notes.txt
@@
 first line
-second line
+second line, patched
*** Add File: docs/new.txt
+a new file
*** End Patch"""


def patch_approved(run: Run) -> None:
    """An `apply_patch` under `untrusted` in a git repository: asked, accepted, applied, and
    the turn's diff reported."""
    committed_repo(run.ws, {"notes.txt": "first line\nsecond line\n"})
    run.model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="call_patch"))
    run.model.enqueue(text_response("Patched."))
    thread_id = start_thread(run, approvalPolicy="untrusted")
    start_turn(run, thread_id, "Patch notes.txt and add docs/new.txt")
    answer_request(run, "item/fileChange/requestApproval", {"decision": "accept"})
    run.client.wait_method("turn/completed", threadId=thread_id)
    assert (run.ws / "docs" / "new.txt").read_text() == "a new file\n"


def interrupt_mid_stream(run: Run) -> None:
    """The answer starts streaming, then stalls; the user interrupts."""
    stalled: Script = [
        created("resp_stall"),
        *message_item("This answer never finishes because", item_id="msg_stall")[:2],
        {"stall_s": 60},
    ]
    run.model.enqueue(stalled)
    thread_id = start_thread(run)
    turn_id = start_turn(run, thread_id, "Tell me a long story")
    run.client.wait_method("item/agentMessage/delta", threadId=thread_id)
    run.client.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    run.client.wait_method("turn/completed", threadId=thread_id)
    # Once it has ended, the turn cannot be interrupted again.
    again = run.client.request("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    assert "error" in run.client.response(again)
    # What the thread keeps of the stopped turn.
    run.client.call("thread/read", {"threadId": thread_id, "includeTurns": True})


def interrupt_during_approval(run: Run) -> None:
    """The user interrupts while a command waits for approval."""
    shell_call(run, "touch never.txt")
    thread_id = start_thread(run, approvalPolicy="untrusted")
    turn_id = start_turn(run, thread_id, "Create never.txt")
    run.client.wait(lambda m: m.get("method") == "item/commandExecution/requestApproval")
    run.client.call("turn/interrupt", {"threadId": thread_id, "turnId": turn_id})
    run.client.wait_method("turn/completed", threadId=thread_id)
    run.client.wait_method("serverRequest/resolved", threadId=thread_id)
    assert not (run.ws / "never.txt").exists()


def turn_overrides(run: Run) -> None:
    """A turn changes the thread's settings; a client of the experimental API hears it."""
    run.model.enqueue(text_response("Settings noted."))
    run.model.enqueue(text_response("Still noted."))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "First", approvalPolicy="untrusted", effort="low")
    run_turn(run, thread_id, "Second")


def threads_across_restart(run: Run) -> None:
    """A thread outlives its server: listed, read, resumed, archived and unarchived by the
    next one."""
    run.model.enqueue(text_response("Remembered."))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "Remember this thread")
    client = run.restart()
    client.call("thread/list", {})
    client.call("thread/read", {"threadId": thread_id, "includeTurns": True})
    client.call("thread/resume", {"threadId": thread_id})
    client.call("thread/archive", {"threadId": thread_id})
    client.wait_method("thread/archived", threadId=thread_id)
    client.call("thread/list", {"archived": True})
    client.call("thread/unarchive", {"threadId": thread_id})
    client.wait_method("thread/unarchived", threadId=thread_id)
    client.call("thread/list", {})


def review_answer(path: str) -> dict[str, Any]:
    """The reviewer's answer: one finding in `path`, the patch judged incorrect."""
    finding = {
        "title": "Division by zero",
        "body": "`ratio` divides by `b` without checking it.",
        "confidence_score": 0.9,
        "priority": 1,
        "code_location": {"absolute_file_path": path, "line_range": {"start": 2, "end": 2}},
    }
    return {
        "findings": [finding],
        "overall_correctness": "patch is incorrect",
        "overall_explanation": "The new function can divide by zero.",
        "overall_confidence_score": 0.8,
    }


def review(run: Run) -> None:
    """A review of the uncommitted changes, inline on the thread."""
    committed_repo(run.ws, {"calc.py": "def add(a, b):\n    return a + b\n"})
    (run.ws / "calc.py").write_text("def ratio(a, b):\n    return a / b\n")
    run.model.enqueue(text_response(json.dumps(review_answer(str(run.ws / "calc.py")))))
    thread_id = start_thread(run)
    run.client.call(
        "review/start", {"threadId": thread_id, "target": {"type": "uncommittedChanges"}}
    )
    run.client.wait_method("turn/completed", threadId=thread_id)


QUESTIONS = {
    "questions": [
        {
            "id": "target_branch",
            "header": "Branch",
            "question": "Which branch should I use?",
            "options": [
                {"label": "main (Recommended)", "description": "The default branch."},
                {"label": "develop", "description": "The integration branch."},
            ],
        }
    ]
}


def question_to_user(run: Run) -> None:
    """The model asks the user a question (`request_user_input`) and reads the answer."""
    run.model.enqueue_by_tool(
        {
            "request_user_input": function_call_response(
                "request_user_input", QUESTIONS, call_id="call_ask"
            )
        }
    )
    run.model.enqueue(text_response("Using main."))
    thread_id = start_thread(run)
    start_turn(run, thread_id, "Which branch? Ask me.")
    answer_request(
        run,
        "item/tool/requestUserInput",
        {"answers": {"target_branch": {"answers": ["main (Recommended)"]}}},
    )
    run.client.wait_method("turn/completed", threadId=thread_id)


def compaction(run: Run) -> None:
    """The first turn fills the context past the auto-compact limit, so the next one starts
    by compacting the history into a summary."""
    run.model.enqueue(text_response("A long first answer.", usage=usage(9_000, 500)))
    run.model.enqueue(text_response("Summary: the user asked twice.", usage=usage(300, 40)))
    run.model.enqueue(text_response("Second answer, after compaction.", usage=usage(400, 20)))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "First question")
    run_turn(run, thread_id, "Second question")


def catalog_entry(slug: str, priority: int, **fields: Any) -> dict[str, Any]:
    """A `/models` entry with every field the real server requires to read it."""
    return {
        "slug": slug,
        "display_name": slug.replace("-", " ").title(),
        "description": f"{slug}, served by the scripted provider.",
        "default_reasoning_level": "medium",
        "supported_reasoning_levels": [
            {"effort": "low", "description": "Quick answers"},
            {"effort": "medium", "description": "Balanced"},
        ],
        "shell_type": "shell_command",
        "visibility": "list",
        "supported_in_api": True,
        "priority": priority,
        "base_instructions": "You are a coding agent.",
        "supports_reasoning_summaries": False,
        "support_verbosity": False,
        "default_verbosity": None,
        "apply_patch_tool_type": "freeform",
        "web_search_tool_type": "text",
        "truncation_policy": {"mode": "tokens", "limit": 10000},
        "supports_parallel_tool_calls": False,
        "experimental_supported_tools": [],
        "context_window": 128000,
        "input_modalities": ["text", "image"],
        "upgrade": None,
        "availability_nux": None,
        **fields,
    }


def model_catalog(run: Run) -> None:
    """The provider lists its models at /models; `model/list` shows them."""
    run.model.set_models(
        {
            "models": [
                catalog_entry(
                    "scripted-large",
                    1,
                    availability_nux={"message": "Now available."},
                    service_tiers=[{"id": "priority", "name": "Fast", "description": "Faster"}],
                    additional_speed_tiers=["fast"],
                ),
                catalog_entry(
                    "scripted-small",
                    2,
                    upgrade={"model": "scripted-large", "migration_markdown": "Move up."},
                ),
                catalog_entry("scripted-hidden", 3, visibility="hide"),
            ]
        }
    )
    run.client.call("model/list", {})
    run.client.call("model/list", {"includeHidden": True})


def config_read(run: Run) -> None:
    """The effective config, with and without its layers."""
    run.client.call("config/read", {"includeLayers": True})
    run.client.call("config/read", {})


def model_error_recovered(run: Run) -> None:
    """The model answers 500 once; the retry succeeds."""
    run.model.enqueue(http_error(500, {"error": {"message": "upstream exploded"}}))
    run.model.enqueue(text_response("Fine after a retry."))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "Try again")


def model_error_exhausted(run: Run) -> None:
    """The model answers 500 to every attempt: the turn fails with the error."""
    # Each of the two stream attempts makes two requests (one retry each).
    for _ in range(4):
        run.model.enqueue(http_error(500, {"error": {"message": "upstream exploded"}}))
    thread_id = start_thread(run)
    run_turn(run, thread_id, "Try again")


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("plain_answer", plain_answer),
    Scenario("command_approved", command_approved),
    Scenario("patch_approved", patch_approved),
    Scenario("interrupt_mid_stream", interrupt_mid_stream),
    Scenario("interrupt_during_approval", interrupt_during_approval),
    Scenario("turn_overrides", turn_overrides, experimental_api=True),
    Scenario("threads_across_restart", threads_across_restart),
    Scenario("review", review),
    # Outside Plan mode the real server refuses `request_user_input` unless this is on.
    Scenario(
        "question_to_user",
        question_to_user,
        features={"default_mode_request_user_input": True},
    ),
    Scenario("compaction", compaction, extra_config="model_auto_compact_token_limit = 5000"),
    Scenario("model_catalog", model_catalog),
    Scenario("config_read", config_read),
    Scenario("model_error_recovered", model_error_recovered),
    Scenario("model_error_exhausted", model_error_exhausted),
)
