"""Code actions that start work, for an editor whose only Codex menu is its code actions.

For clients without `experimental.codex`, in any file: "Ask Codex" (about the selection, or
the line under the cursor), "Edit selection with Codex" (when lines are selected: the comments
in them say what to do, since a code action cannot ask for text) and "Review this file". Each
carries the command that does the work (`codex.ask`, `codex.edit`, `codex.review`), so nothing
runs until the user picks one; the answer comes back as any turn's does (`plain_client`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from codex_lsp.lsp.commands import ASK, EDIT
from codex_lsp.lsp.review_command import REVIEW

if TYPE_CHECKING:
    from codex_lsp.lsp.server import CodexLanguageServer

ASK_TITLE = "Ask Codex"
EDIT_TITLE = "Edit selection with Codex"
REVIEW_TITLE = "Review this file"

ASK_PROMPT = "Explain this code, and say if anything in it looks wrong."
EDIT_INSTRUCTION = (
    "Do what the comments in these lines ask (a TODO, a FIXME or a plain comment), "
    "changing only these lines."
)


def _json(value: Any) -> Any:
    from lsprotocol import converters

    return converters.get_converter().unstructure(value)


class StartActions:
    def __init__(self, server: CodexLanguageServer) -> None:
        self._server = server

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        if self._server.codex_client:
            return []  # its own menus start work
        uri = params.text_document.uri
        selected = params.range
        if selected.start == selected.end:
            line = selected.start.line
            selected = types.Range(
                start=types.Position(line=line, character=0),
                end=types.Position(line=line + 1, character=0),
            )
        where = {"uri": uri, "range": _json(selected)}
        actions = [self._action(ASK_TITLE, ASK, {"prompt": ASK_PROMPT, **where})]
        if params.range.start != params.range.end:
            edit = {"instruction": EDIT_INSTRUCTION, **where}
            actions.append(self._action(EDIT_TITLE, EDIT, edit))
        path = to_fs_path(uri)
        if path is not None:
            instructions = f"Review only the file {path} as it is now, not other changes."
            target = {"type": "custom", "instructions": instructions}
            actions.append(self._action(REVIEW_TITLE, REVIEW, {"target": target}))
        return actions

    def _action(self, title: str, command: str, arguments: dict[str, Any]) -> types.CodeAction:
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.Empty,
            command=types.Command(title=title, command=command, arguments=[arguments]),
        )
