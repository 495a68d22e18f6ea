"""Which built-in tools a turn offers the model, from its catalogue entry and the config.

The choice follows the reference server:

* the shell: `exec_command` + `write_stdin` (unified exec) for every model, unless
  `[features] shell_tool = false` (no shell at all) or `unified_exec = false`, which falls back
  to the model's catalogue `shell_type` (`shell_command` for the catalogued models; the argv
  `shell` family of unknown models is served as `shell_command` too);
* `apply_patch` in the form the catalogue gives the model (freeform for the catalogued
  models, none for models it does not know, unless `[features] apply_patch_freeform = true`);
  providers speaking Chat Completions cannot take a freeform tool and get the JSON form;
* `update_plan` when `[tools.update_plan] enabled = true`, and always in Plan mode.

A built-in tool the turn does not offer answers "unsupported call", as the reference does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from codex_lsp.engine.models import model_info
from codex_lsp.engine.tools.specs import (
    APPLY_PATCH_FREEFORM,
    APPLY_PATCH_FUNCTION,
    EXEC_COMMAND,
    SHELL_COMMAND,
    UPDATE_PLAN,
    WRITE_STDIN,
)
from codex_lsp.engine.turn_context import TurnContext

__all__ = ["BUILT_IN_TOOL_NAMES", "ShellTool", "TurnTools", "turn_tools"]

ShellTool = Literal["exec_command", "shell_command", "none"]

# Every built-in tool name: these answer "unsupported call" when a turn does not offer them.
BUILT_IN_TOOL_NAMES = frozenset(
    {"exec_command", "write_stdin", "shell_command", "apply_patch", "update_plan"}
)


@dataclass(frozen=True, slots=True)
class TurnTools:
    """The built-in tools of one turn."""

    shell: ShellTool
    apply_patch: Literal["freeform", "function"] | None
    update_plan: bool
    # Tokens of a tool's output the model reads at most (the catalogue's truncation policy).
    output_token_budget: int

    def specs(self) -> list[dict[str, Any]]:
        specs: list[dict[str, Any]] = []
        if self.shell == "exec_command":
            specs += [EXEC_COMMAND, WRITE_STDIN]
        elif self.shell == "shell_command":
            specs.append(SHELL_COMMAND)
        if self.update_plan:
            specs.append(UPDATE_PLAN)
        if self.apply_patch == "freeform":
            specs.append(APPLY_PATCH_FREEFORM)
        elif self.apply_patch == "function":
            specs.append(APPLY_PATCH_FUNCTION)
        return specs

    def names(self) -> frozenset[str]:
        return frozenset(spec["name"] for spec in self.specs())


def turn_tools(ctx: TurnContext) -> TurnTools:
    info = model_info(ctx.model)
    features = ctx.features
    shell: ShellTool
    if not features.get("shell_tool", True) or info.shell_type == "disabled":
        shell = "none"
    elif features.get("unified_exec", True) or info.shell_type == "unified_exec":
        shell = "exec_command"
    else:
        shell = "shell_command"
    patch = info.apply_patch_tool_type
    if patch is None and features.get("apply_patch_freeform", False):
        patch = "freeform"
    if patch == "freeform" and ctx.provider.wire_api != "responses":
        patch = "function"
    return TurnTools(
        shell=shell,
        apply_patch=patch,
        # Plan mode keeps its checklist with update_plan whatever the config says.
        update_plan=ctx.update_plan_tool or ctx.collaboration_mode == "plan",
        output_token_budget=info.truncation_tokens,
    )
