"""The scripted model's answers for the VS Code journeys, by the name each journey enqueues.

Each entry is `{"script": [...steps], "when"?: text}` (see `tests.support.scripted_model`); a
journey resets the model's queue and enqueues its own entries before it starts a turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.engine import make_git_repo
from tests.support.scripted_builders import (
    completed,
    created,
    custom_tool_call_response,
    function_call_response,
    http_error,
    rate_limit_headers,
    sse,
    text_response,
    usage,
)
from tests.support.vscode_inline_scripts import inline_scripts

Entry = dict[str, Any]

# The editor_* tools, each answered by the extension from what VS Code holds.
EDITOR_CONTEXT_CALLS = [
    ("call_ec_read", "editor_read_buffer", {"path": "edit_me.py"}),
    ("call_ec_sel", "editor_selection", {}),
    ("call_ec_diag", "editor_diagnostics", {"path": "edit_me.py"}),
    ("call_ec_open", "editor_open_buffers", {}),
]

# A file whose change comes in two hunks, far enough apart to stay two.
CALC = (
    "def first():\n    return 1\n\n\n"
    + "".join(f"# filler {i}\n" for i in range(6))
    + "\ndef second():\n    return 2\n"
)
TWO_HUNKS_PATCH = """*** Begin Patch
*** Update File: calc.py
@@ def first():
-    return 1
+    return 10
@@ def second():
-    return 2
+    return 20
*** End Patch"""

CHAT_FIRST = (
    "Hello from the scripted model, with **bold** text and raw "
    "<img src=x onerror=alert(1)> <b>markup</b> <script>alert(2)</script> shown as text.\n\n"
)
CHAT_SECOND = "- and the rest of the answer\n"
EDIT_PATCH = """*** Begin Patch
*** Update File: edit_me.py
@@
-    return "hi"
+    return "hello"
*** End Patch"""
FIX_PATCH = """*** Begin Patch
*** Update File: review_me.py
@@
 def mean(values, count):
+    if count == 0:
+        return 0.0
     return sum(values) / count
*** End Patch"""
TWO_FILES_PATCH = """*** Begin Patch
*** Update File: alpha.txt
@@
-alpha
+ALPHA
*** Update File: beta.txt
@@
-beta
+BETA
*** End Patch"""
DISK_PATCH = """*** Begin Patch
*** Update File: gamma.txt
@@
-gamma
+GAMMA
*** Update File: delta.txt
@@
-delta
+DELTA
*** End Patch"""
APPLY_PATCH = """*** Begin Patch
*** Update File: edit_me.py
@@
 def greet():
-    return "hi"
+    return "hi there"
*** End Patch"""
MARKDOWN_ANSWER = """Here is a summary:

| File | Lines |
| --- | ---: |
| edit_me.py | 2 |
| review_me.py | 2 |

```python
def greet(name):
    return f"hi {name}"
```
"""
WIDE_ANSWER = (
    "A wide table and a long line:\n\n"
    "| File | Lines | Functions | Classes | Imports | Owner |\n"
    "| --- | ---: | ---: | ---: | ---: | --- |\n"
    "| edit_me.py | 2 | 1 | 0 | 0 | nobody-in-particular |\n\n"
    "```python\n"
    "totals = {name: sum(len(line) for line in open(name))"
    " for name in ['edit_me.py', 'review_me.py', 'stats.py']}\n"
    "```\n"
)
LONG_STORY = "\n\n".join(
    f"Paragraph {n} of a long story, long enough to scroll." for n in range(1, 60)
)


CRASH_FIRST = "The first half of an answer that a crash cuts short"


def streamed_with_a_pause(first: str, second: str, stall_s: float = 2.0) -> list[dict[str, Any]]:
    """One message whose second half comes after a stall, so the first half is seen alone."""
    item = {
        "type": "message",
        "id": "msg_chat",
        "role": "assistant",
        "status": "in_progress",
        "content": [],
    }
    done = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": first + second, "annotations": []}],
    }

    def delta(text: str) -> dict[str, Any]:
        return sse(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_chat",
                "output_index": 0,
                "content_index": 0,
                "delta": text,
            }
        )

    return [
        {
            "headers": rate_limit_headers(
                12.0, 300, secondary_used_percent=3.0, secondary_window_minutes=10080
            )
        },
        created("resp_chat"),
        sse({"type": "response.output_item.added", "output_index": 0, "item": item}),
        delta(first),
        {"stall_s": stall_s},
        delta(second),
        sse({"type": "response.output_item.done", "output_index": 0, "item": done}),
        completed("resp_chat", usage(1200, 340)),
    ]


def _finding(title: str, body: str, path: Path, line: int, priority: int) -> dict[str, Any]:
    return {
        "title": title,
        "body": body,
        "confidence_score": 0.9,
        "priority": priority,
        "code_location": {
            "absolute_file_path": str(path),
            "line_range": {"start": line, "end": line},
        },
    }


def _review(findings: list[dict[str, Any]], correctness: str, explanation: str) -> str:
    return json.dumps(
        {
            "findings": findings,
            "overall_correctness": correctness,
            "overall_explanation": explanation,
            "overall_confidence_score": 0.8,
        }
    )


def _stalled(first: str) -> list[dict[str, Any]]:
    """An answer that stops streaming after its first words and never finishes."""
    item = {"type": "message", "id": "msg_slow", "role": "assistant", "status": "in_progress"}
    delta = {
        "type": "response.output_text.delta",
        "item_id": "msg_slow",
        "output_index": 0,
        "content_index": 0,
        "delta": first,
    }
    return [
        created("resp_slow"),
        sse(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": []},
            }
        ),
        sse(delta),
        {"stall_s": 120},
    ]


def _answer_text(size: int) -> str:
    """Markdown of about `size` bytes: paragraphs, lists, code blocks and file references."""
    parts: list[str] = []
    n = 0
    while sum(len(p) + 2 for p in parts) < size:
        n += 1
        parts.append(
            f"Section {n} explains **why** the `mean` in review_me.py:2 divides, and what "
            "`count` must be; the [stats module](stats.py) shows the guarded form."
        )
        if n % 3 == 0:
            parts.append(f"- item {n}a with `code`\n- item {n}b\n- item {n}c")
        if n % 5 == 0:
            parts.append(
                f"```python\ndef section_{n}(xs):\n    return sum(xs) / max(len(xs), 1)\n```"
            )
    return "\n\n".join(parts)


def streamed_in_deltas(size: int, deltas: int, response_id: str) -> list[dict[str, Any]]:
    """An answer of about `size` bytes in `deltas` deltas, paced as a model streams it; its
    first and last deltas carry the wall clock at which they were written."""
    body = _answer_text(size)
    step = max(1, len(body) // max(1, deltas - 2))
    item = {"type": "message", "id": "msg_many", "role": "assistant", "status": "in_progress"}
    ended = "\n\nThe stream ended at {ms} ms."
    pieces = [body[i : i + step] for i in range(0, len(body), step)]

    def delta(text: str) -> dict[str, Any]:
        event = {"type": "response.output_text.delta", "item_id": "msg_many"}
        return sse({**event, "output_index": 0, "content_index": 0, "delta": text})

    script: list[dict[str, Any]] = [
        created(response_id),
        sse(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": []},
            }
        ),
        {**delta("The stream began at {ms} ms.\n\n"), "clock": True},
    ]
    for piece in pieces:
        script += [delta(piece), {"stall_s": 0.004}]
    script.append({**delta(ended), "clock": True})
    # The finished item repeats the streamed text, clocks included, as a model's does.
    text = "The stream began at {ms} ms.\n\n" + body + ended
    content = [{"type": "output_text", "text": text, "annotations": []}]
    done = {**item, "status": "completed", "content": content}
    script += [
        {
            **sse({"type": "response.output_item.done", "output_index": 0, "item": done}),
            "clock": "again",
        },
        completed(response_id, usage(1200, 340)),
    ]
    return script


def _one(script: list[dict[str, Any]], when: str | None = None) -> Entry:
    return {"script": script, "when": when} if when else {"script": script}


def journey_scripts(ws: Path) -> dict[str, list[Entry]]:
    review = _review(
        [
            _finding(
                "[P1] Division by zero when count is 0",
                "Division by zero: `count` can be 0 and nothing guards it.",
                ws / "review_me.py",
                2,
                1,
            ),
            _finding(
                "[P2] Average of an empty list divides by zero",
                "`average([])` now raises ZeroDivisionError.",
                ws / "stats.py",
                2,
                2,
            ),
            _finding(
                "[P3] Nit: alpha.txt could say what it is for",
                "A one-word file; a line about its purpose would help.",
                ws / "alpha.txt",
                1,
                3,
            ),
        ],
        "patch is incorrect",
        "The new parameter can be zero.",
    )
    return {
        "chat": [_one(streamed_with_a_pause(CHAT_FIRST, CHAT_SECOND))],
        "askMenu": [_one(text_response("It returns the greeting `hi`.", response_id="resp_a1"))],
        "images": [_one(text_response("a blue screenshot and a red square", response_id="r_i1"))],
        "longAnswer": [_one(text_response(LONG_STORY, response_id="resp_l1"))],
        # Long enough a pause for the journey to kill the server in it.
        "crash": [_one(streamed_with_a_pause(CRASH_FIRST, " and the rest.", stall_s=20.0))],
        "stream5k": [_one(streamed_in_deltas(4_700, 2_000, "resp_s5"))],
        "stream50k": [_one(streamed_in_deltas(50_000, 2_000, "resp_s50"))],
        "command": [
            _one(
                function_call_response(
                    "exec_command",
                    {"cmd": "touch approved.txt && echo approved-output", "workdir": str(ws)},
                    call_id="call_cmd",
                    response_id="resp_c1",
                )
            ),
            _one(text_response("The command ran.", response_id="resp_c2")),
        ],
        "command2": [
            _one(
                function_call_response(
                    "exec_command",
                    {"cmd": "touch second.txt && echo second-output", "workdir": str(ws)},
                    call_id="call_cmd2",
                    response_id="resp_d1",
                )
            ),
            _one(text_response("The command ran.", response_id="resp_d2")),
        ],
        # One simple command: its approval offers "Always allow commands starting with …".
        "allowedCommand": [
            _one(
                function_call_response(
                    "exec_command",
                    {"cmd": "touch allowed.txt", "workdir": str(ws)},
                    call_id="call_allowed",
                    response_id="resp_al1",
                )
            ),
            _one(text_response("Ran it.", response_id="resp_al2")),
        ],
        "commandDenied": [
            _one(
                function_call_response(
                    "exec_command",
                    {"cmd": "touch denied.txt && echo denied-output", "workdir": str(ws)},
                    call_id="call_denied",
                    response_id="resp_n1",
                )
            ),
            _one(text_response("Not run, then.", response_id="resp_n2")),
        ],
        # The first answer waits before its headers: a message sent meanwhile steers the turn.
        "steer": [
            _one([{"stall_s": 20}, *text_response("A very long story.", response_id="resp_s1")]),
            _one(text_response("Short, as you asked.", response_id="resp_s2")),
        ],
        "relativeLinks": [
            _one(
                text_response(
                    "The greeting is at edit_me.py:2; see also [review_me.py](review_me.py).",
                    response_id="resp_links",
                )
            )
        ],
        "badRequest": [
            _one(
                http_error(400, {"error": {"message": "The scripted model refused this request."}})
            )
        ],
        "edit": [
            _one(
                custom_tool_call_response(
                    "apply_patch", EDIT_PATCH, call_id="call_edit", response_id="resp_e1"
                )
            ),
            _one(text_response("Edited the selection.", response_id="resp_e2")),
        ],
        "review": [_one(text_response(review, response_id="resp_r1"))],
        "reviewClean": [
            _one(
                text_response(
                    _review([], "patch is correct", "Nothing to flag."), response_id="resp_rc"
                )
            )
        ],
        "markdown": [_one(text_response(MARKDOWN_ANSWER, response_id="resp_md"))],
        "wideMarkdown": [_one(text_response(WIDE_ANSWER, response_id="resp_wide"))],
        "applyCode": [
            _one(
                custom_tool_call_response(
                    "apply_patch", APPLY_PATCH, call_id="call_apply", response_id="resp_p1"
                )
            ),
            _one(text_response("Applied the block.", response_id="resp_p2")),
        ],
        "contextAsk": [_one(text_response("Both read numbers.", response_id="resp_x1"))],
        "twoFiles": [
            _one(
                custom_tool_call_response(
                    "apply_patch", TWO_FILES_PATCH, call_id="call_two", response_id="resp_t1"
                )
            ),
            _one(text_response("Upper-cased both files.", response_id="resp_t2")),
        ],
        "diskTruth": [
            _one(
                custom_tool_call_response(
                    "apply_patch", DISK_PATCH, call_id="call_disk", response_id="resp_d1"
                )
            ),
            _one(
                function_call_response(
                    "exec_command",
                    {"cmd": "cat gamma.txt delta.txt", "workdir": str(ws)},
                    call_id="call_cat",
                    response_id="resp_d2",
                )
            ),
            _one(text_response("Both files read back.", response_id="resp_d3")),
        ],
        "editorContext": [
            _one(
                function_call_response(name, arguments, call_id=call_id, response_id=f"resp_ec{n}")
            )
            for n, (call_id, name, arguments) in enumerate(EDITOR_CONTEXT_CALLS)
        ]
        + [_one(text_response("Seen it all.", response_id="resp_ec_end"))],
        "twoHunks": [
            _one(
                custom_tool_call_response(
                    "apply_patch", TWO_HUNKS_PATCH, call_id="call_hunks", response_id="resp_h1"
                )
            ),
            _one(text_response("Kept what you chose.", response_id="resp_h2")),
        ],
        "threadAlpha": [_one(text_response("Alpha answer.", response_id="resp_al"))],
        "threadBeta": [_one(text_response("Beta answer.", response_id="resp_be"))],
        "stalled": [_one(_stalled("Once upon a time, a partial answer "))],
        # Modes: the same in-project patch in Agent, Chat and Chat with "never".
        **{
            name: [
                _one(
                    custom_tool_call_response(
                        "apply_patch",
                        _add_file(file),
                        call_id=f"call_{name}",
                        response_id=f"resp_{name}1",
                    )
                ),
                _one(text_response(f"Done with {file}.", response_id=f"resp_{name}2")),
            ]
            for name, file in (
                ("modeAgent", "agent_notes.txt"),
                ("modeChat", "chat_notes.txt"),
                ("modeNever", "never_notes.txt"),
                ("modeAgainAgent", "planned.txt"),
            )
        },
        "modePlan": [
            _one(
                function_call_response(
                    "update_plan", PLAN_FIRST, call_id="call_plan1", response_id="resp_pl1"
                )
            ),
            _one(
                custom_tool_call_response(
                    "apply_patch",
                    _add_file("planned.txt"),
                    call_id="call_planpatch",
                    response_id="resp_pl2",
                )
            ),
            _one(
                function_call_response(
                    "update_plan", PLAN_SECOND, call_id="call_plan2", response_id="resp_pl3"
                )
            ),
            _one(text_response(PLAN_ANSWER, response_id="resp_pl4")),
        ],
        "fix": [
            _one(
                custom_tool_call_response(
                    "apply_patch", FIX_PATCH, call_id="call_fix", response_id="resp_f1"
                )
            ),
            _one(text_response("Guarded the division.", response_id="resp_f2")),
        ],
        **inline_scripts(ws),
    }


def _add_file(name: str) -> str:
    return f"*** Begin Patch\n*** Add File: {name}\n+written in this mode\n*** End Patch\n"


PLAN_FIRST = {
    "explanation": "Two steps.",
    "plan": [
        {"step": "Read calc.py", "status": "in_progress"},
        {"step": "Write planned.txt", "status": "pending"},
    ],
}
PLAN_SECOND = {
    "plan": [
        {"step": "Read calc.py", "status": "completed"},
        {"step": "Write planned.txt", "status": "in_progress"},
    ],
}
PLAN_ANSWER = (
    "Here is the plan.\n<proposed_plan>\n1. Add planned.txt with one line\n</proposed_plan>"
)


def journey_workspace(path: Path) -> Path:
    """A git repository with uncommitted changes for the reviews."""
    ws = make_git_repo(
        path,
        {
            "edit_me.py": 'def greet():\n    return "hi"\n',
            "review_me.py": "def mean(values):\n    return sum(values) / len(values)\n",
            "stats.py": "def average(xs):\n    return sum(xs) / len(xs) if xs else 0.0\n",
            "alpha.txt": "alpha\n",
            "beta.txt": "beta\n",
            "gamma.txt": "gamma\n",
            "delta.txt": "delta\n",
            "calc.py": CALC,
        },
    )
    (ws / "review_me.py").write_text("def mean(values, count):\n    return sum(values) / count\n")
    (ws / "stats.py").write_text("def average(xs):\n    return sum(xs) / len(xs)\n")
    return ws
