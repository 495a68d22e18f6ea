"""Editor commands (`workspace/executeCommand`) for editors that know no `codex/*` methods.

* `codex.newThread` `[{cwd?, model?}]`: start a thread (cwd defaults to the workspace root);
  returns the `thread/start` result.
* `codex.ask` `[{threadId?, prompt, uri, range?}]`: start a turn on the prompt with the selected
  range of the document (its unsaved text; the whole document without a range) attached as
  context; starts a thread first when no `threadId` is given. Returns `{threadId, turn}`.
* `codex.edit` `[{threadId?, instruction, uri, range}]`: like `codex.ask`, but the turn changes
  the selected lines in place following the instruction; the change comes back as a
  file-change approval and lands as a workspace edit.

Both run through the v2 `turn/startTask`: the thread shows the user's prompt or instruction as
their message, and the engine words what the model is told besides. Both also take the turn
overrides `model`, `effort`, `approvalPolicy` and `sandboxPolicy` (as `turn/start` does; they
stick for later turns).
* `codex.interrupt` `[{threadId}]`: interrupt that thread's running turn, if any; returns
  `{interrupted: bool}`.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING, Any

import cattrs
from lsprotocol import converters, types
from pydantic import ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from codex_lsp.api.validation import validation_message
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.turns.tasks import TurnStartTaskParams

if TYPE_CHECKING:
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.progress import TurnProgressTracker
    from codex_lsp.lsp.server import CodexLanguageServer

NEW_THREAD = "codex.newThread"
ASK = "codex.ask"
EDIT = "codex.edit"
INTERRUPT = "codex.interrupt"

# Options of `codex.ask` / `codex.edit` passed on to the turn as they are.
TURN_OVERRIDES = ("model", "effort", "approvalPolicy", "sandboxPolicy")


@cache
def _converter() -> cattrs.Converter:
    # lsprotocol's own: all a `Range` needs, without pygls's JSON-RPC message hooks.
    return converters.get_converter()


def command_options(command: str, arguments: tuple[object, ...]) -> dict[str, Any]:
    if not arguments:
        return {}
    first = arguments[0]
    if not isinstance(first, dict):
        raise JsonRpcInvalidParams(f"{command}: the argument must be an object")
    return first


def string_option(options: dict[str, Any], key: str, command: str, *, required: bool) -> str | None:
    value = options.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise JsonRpcInvalidParams(f"{command}: '{key}' must be a non-empty string")
    return value


def turn_overrides(options: dict[str, Any]) -> dict[str, Any]:
    """The turn settings a command's caller chose (its pickers), for `turn/startTask`."""
    return {key: options[key] for key in TURN_OVERRIDES if options.get(key) is not None}


def task_params(params: dict[str, Any]) -> TurnStartTaskParams:
    """`turn/startTask` params built by a command, checked as the API checks a request's."""
    try:
        return TurnStartTaskParams.model_validate(params)
    except ValidationError as err:
        raise JsonRpcInvalidParams(validation_message(err)) from None


def workspace_cwd(server: CodexLanguageServer, near: str | None = None) -> str:
    """The workspace folder holding `near`, else the root, else the server's cwd."""
    try:
        workspace = server.workspace
    except RuntimeError:
        return os.getcwd()
    folders = [to_fs_path(f.uri) for f in workspace.folders.values()]
    if near is not None:
        holding = [
            f for f in folders if f and (near + os.sep).startswith(f.rstrip(os.sep) + os.sep)
        ]
        if holding:
            return max(holding, key=len)
    root: str | None = workspace.root_path
    if root:
        return root
    if folders and folders[0]:
        return folders[0]
    return os.path.dirname(near) if near else os.getcwd()


class Commands:
    def __init__(
        self, server: CodexLanguageServer, host: EngineHost, progress: TurnProgressTracker
    ) -> None:
        self._server = server
        self._host = host
        self._progress = progress

    def register(self, server: CodexLanguageServer) -> None:
        server.command(NEW_THREAD)(plain_handler(self.new_thread))
        server.command(ASK)(plain_handler(self.ask))
        server.command(EDIT)(plain_handler(self.edit))
        server.command(INTERRUPT)(plain_handler(self.interrupt))

    def _default_cwd(self, near: str | None = None) -> str:
        return workspace_cwd(self._server, near)

    async def new_thread(self, *arguments: object) -> Any:
        options = command_options(NEW_THREAD, arguments)
        params: dict[str, Any] = {
            "cwd": string_option(options, "cwd", NEW_THREAD, required=False) or self._default_cwd()
        }
        model = string_option(options, "model", NEW_THREAD, required=False)
        if model:
            params["model"] = model
        return await self._host.call("thread/start", params)

    async def ask(self, *arguments: object) -> Any:
        options = command_options(ASK, arguments)
        prompt = string_option(options, "prompt", ASK, required=True)
        uri = string_option(options, "uri", ASK, required=True)
        assert prompt is not None and uri is not None
        path, text, selection = self._selection(ASK, uri, options.get("range"))
        context: dict[str, Any] = {"type": "file", "path": path, "text": text}
        if selection is not None:
            context["range"] = selection
        task = {"type": "ask", "text": prompt}
        return await self._start_task(ASK, options, path, task, [context])

    async def edit(self, *arguments: object) -> Any:
        options = command_options(EDIT, arguments)
        instruction = string_option(options, "instruction", EDIT, required=True)
        uri = string_option(options, "uri", EDIT, required=True)
        assert instruction is not None and uri is not None
        if options.get("range") is None:
            raise JsonRpcInvalidParams(f"{EDIT}: 'range' is required")
        path, text, selection = self._selection(EDIT, uri, options.get("range"))
        task = {"type": "edit", "instruction": instruction, "path": path}
        task.update(range=selection, text=text)
        return await self._start_task(EDIT, options, path, task, [])

    async def _start_task(
        self,
        command: str,
        options: dict[str, Any],
        path: str,
        task: dict[str, Any],
        context: list[dict[str, Any]],
    ) -> Any:
        """Start the task's turn on `threadId`, or on a new thread rooted near `path`."""
        thread_id = string_option(options, "threadId", command, required=False)
        if thread_id is None:
            thread_id = await self._host.start_thread(self._default_cwd(path))
        params = {"threadId": thread_id, "task": task, "context": context}
        params.update(turn_overrides(options))
        started = await self._host.start_task(task_params(params))
        return {"threadId": thread_id, "turn": dump(started.turn)}

    async def interrupt(self, *arguments: object) -> Any:
        options = command_options(INTERRUPT, arguments)
        thread_id = string_option(options, "threadId", INTERRUPT, required=True)
        assert thread_id is not None
        turn_id = string_option(options, "turnId", INTERRUPT, required=False)
        turn_id = turn_id or self._progress.running.get(thread_id)
        if turn_id is None:
            return {"interrupted": False}
        await self._host.interrupt(thread_id, turn_id)
        return {"interrupted": True}

    def _selection(self, command: str, uri: str, raw_range: Any) -> tuple[str, str, Any]:
        """The document's path, the text of `range` in it (the open buffer first, else the
        file; the whole text without a range), and the range as the client sent it."""
        try:
            doc = self._server.workspace.get_text_document(uri)
            source = doc.source
        except (OSError, UnicodeDecodeError) as err:
            raise JsonRpcInvalidParams(f"{command}: cannot read {uri}: {err}") from None
        path = to_fs_path(uri) or uri
        if raw_range is None:
            return path, source, None
        try:
            selected = _converter().structure(raw_range, types.Range)
        except Exception:
            raise JsonRpcInvalidParams(f"{command}: 'range' must be an LSP Range") from None
        return path, doc.text_in_client_range(selected), raw_range
