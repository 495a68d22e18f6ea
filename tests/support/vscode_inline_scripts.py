"""The scripted model's answers for the VS Code inline edit journeys (Ctrl+I in the editor)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

INLINE_PATCH = """*** Begin Patch
*** Update File: edit_me.py
@@
 def greet():
-    return "hi"
+    return "hello"
*** End Patch"""


def inline_scripts(ws: Path) -> dict[str, list[dict[str, Any]]]:
    """Accepted: the patch, then a command that reads the file back, then a short answer.
    Rejected: the patch, then an answer that takes the refusal."""
    return {
        "inlineAccept": [
            {
                "script": custom_tool_call_response(
                    "apply_patch", INLINE_PATCH, call_id="call_inline", response_id="resp_i1"
                )
            },
            {
                "script": function_call_response(
                    "exec_command",
                    {"cmd": "cat edit_me.py", "workdir": str(ws)},
                    call_id="call_inline_cat",
                    response_id="resp_i2",
                )
            },
            {"script": text_response("greet() now says hello.", response_id="resp_i3")},
        ],
        "inlineReject": [
            {
                "script": custom_tool_call_response(
                    "apply_patch", INLINE_PATCH, call_id="call_inline_r", response_id="resp_j1"
                )
            },
            {"script": text_response("Left edit_me.py as it was.", response_id="resp_j2")},
        ],
    }
