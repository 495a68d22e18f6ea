"""`update_plan`: the model's checklist, shown to the user as `plan_update`."""

from __future__ import annotations

import json

from pydantic import ValidationError

from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.core.events import PlanUpdateEvent


async def handle_update_plan(call: ToolCall) -> ToolOutput:
    try:
        args = json.loads(call.payload or "{}")
        event = PlanUpdateEvent.model_validate({**args, "type": "plan_update"}, strict=False)
    except (json.JSONDecodeError, ValidationError, TypeError) as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    if sum(1 for item in event.plan if item.status == "in_progress") > 1:
        raise ToolError("at most one step can be in_progress at a time")
    call.session.emit(call.sub_id, event)
    return ToolOutput("Plan updated")
