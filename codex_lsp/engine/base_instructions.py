"""The base instructions of a turn, written for the built-in tools that turn offers.

A model calls the tools its instructions name. Naming `shell_command` to a model offered
`exec_command`, or asking for `update_plan` when no plan tool is in the request, sends it after
tools that answer "unsupported call". So the lines about tools are chosen from the turn's
`TurnTools`, as the reference prompts are chosen per model family; the rest is fixed.
"""

from __future__ import annotations

from codex_lsp.engine.tools.config import TurnTools

_OPENING = """\
You are Codex, a coding agent working inside the user's editor and workspace. You help by \
reading code, running commands and editing files, and you finish the task you are given \
before you stop."""

_SHELL_LINES = {
    "exec_command": "- Run commands with the `exec_command` tool; always set `workdir` and "
    "avoid `cd`. A command still running returns a session ID: poll it or type into it with "
    "`write_stdin`. Prefer fast search tools such as `rg`.",
    "shell_command": "- Run commands with the `shell_command` tool; always set `workdir` and "
    "avoid `cd`. Prefer fast search tools such as `rg`.",
    "none": "- You cannot run commands in this session: work from what the user gives you.",
}

_PATCH_LINE = (
    "- Edit files only with the `apply_patch` tool. Keep changes minimal and in the style of "
    "the surrounding code. Never revert changes you did not make."
)
_PATCH_BY_SHELL_LINE = (
    "- Edit files with small, careful commands. Keep changes minimal and in the style of the "
    "surrounding code. Never revert changes you did not make."
)
_NO_EDIT_LINE = (
    "- You cannot edit files in this session: describe the change, with file paths and code."
)

_PLAN_TOOL_LINE = (
    "- For work with several steps, keep a short plan with `update_plan` and update it as you go."
)
_PLAN_TEXT_LINE = "- For work with several steps, say your plan in a few lines before you start."

_WORKING_LINES = """\
- When you run tests or builds, read the output and fix what fails before reporting success.
- If a command is denied or needs approval, explain what you need and why, or find another way."""

_ANSWERING = """\
How you answer:
- Be concise and concrete. Say what you changed and where, with file paths.
- Use Markdown sparingly: short paragraphs, bullet lists, code in backticks.
- If you could not finish, say what is left and what stands in the way."""


def base_instructions(tools: TurnTools) -> str:
    """The instructions for a turn that offers `tools`, naming only tools it offers."""
    if tools.apply_patch is not None:
        edit = _PATCH_LINE
    elif tools.shell != "none":
        edit = _PATCH_BY_SHELL_LINE
    else:
        edit = _NO_EDIT_LINE
    how = [
        "How you work:",
        "- Look before you change: read the relevant files and run quick checks to understand "
        "them.",
        _SHELL_LINES[tools.shell],
        edit,
        _PLAN_TOOL_LINE if tools.update_plan else _PLAN_TEXT_LINE,
        _WORKING_LINES,
    ]
    return "\n\n".join([_OPENING, "\n".join(how), _ANSWERING]) + "\n"
