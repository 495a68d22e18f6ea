"""A scripted editor for `codex-lsp serve` tests, on top of pytest-lsp's client.

`EditorSession` starts the real server process (`python -m codex_lsp serve`) with CODEX_HOME
in a temp dir, initializes it with the capabilities of a capable editor, and answers what the
server asks the way an editor does:

* `window/showMessageRequest`: `editor.choose(params)` picks an action title (None dismisses);
* `workspace/applyEdit`: applied to the open buffers it holds (checking versions and sending
  `didChange` like an editor would) and to disk for files it has not opened, or refused; an
  edit whose change annotation needs confirmation is left out when `editor.confirm` says no;
* `codex/item/*/requestApproval`, `codex/item/tool/requestUserInput` (rich approvals):
  `editor.rich_answer(method, params)`;
* `codex/editor/*` (editor context): from its buffers (modified when they differ from disk),
  `editor.selection` and `editor.diagnostics` (what other language servers published).

Every `codex/*` notification is recorded in order, with helpers to wait for one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import converters, types
from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, LanguageClientProtocol
from pytest_lsp.client import register_lsp_features

WAIT_S = 30.0
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")

Chooser = Callable[[types.ShowMessageRequestParams], "str | Awaitable[str | None] | None"]


def uri(path: Path | str) -> str:
    return from_fs_path(str(path)) or Path(path).as_uri()


def _offset(text: str, position: types.Position) -> int:
    """Offset of an LSP position (UTF-16 units) in `text`."""
    lines = _LINE.findall(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line]
    units = 0
    for index, char in enumerate(line):
        if units >= position.character or char in "\r\n":
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line)


def _end_position(text: str) -> types.Position:
    lines = _LINE.findall(text)
    if not lines:
        return types.Position(line=0, character=0)
    if lines[-1].endswith(("\n", "\r")):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)


def apply_text_edits(text: str, edits: list[Any]) -> str:
    """Apply LSP text edits (all relative to the original text), as an editor does."""
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


@dataclass
class Buffer:
    version: int
    text: str
    language: str = "python"


@dataclass
class Editor:
    """What the editor holds and how its user answers."""

    buffers: dict[str, Buffer] = field(default_factory=dict)
    choose: Chooser = lambda params: "Approve"
    rich_answer: Callable[[str, dict[str, Any]], Any] = lambda method, params: {
        "decision": "accept"
    }
    refuse_edits: str | None = None  # a failure reason: refuse every workspace/applyEdit
    # The user's answer to each change annotation that needs confirmation (keep it or not).
    confirm: Callable[[str, types.ChangeAnnotation], bool] = lambda annotation_id, a: True
    # The focused file's selection (`codex/editor/selection` result) and, by URI, the
    # diagnostics other language servers published (LSP Diagnostic objects as JSON).
    selection: dict[str, Any] | None = None
    diagnostics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    context_requests: list[tuple[str, Any]] = field(default_factory=list)
    prompts: list[types.ShowMessageRequestParams] = field(default_factory=list)
    edits: list[types.ApplyWorkspaceEditParams] = field(default_factory=list)
    rich_requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # Send the `didChange` of an applied edit only when the test says so (`flush_changes`), as
    # editors that sync on an idle timer do: until then the server's copy lags the buffer.
    lag_changes: bool = False
    held_changes: list[types.DidChangeTextDocumentParams] = field(default_factory=list)


class RecordingProtocol(LanguageClientProtocol):
    """Records every `codex/*` notification and wakes waiters."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.codex_notifications: list[tuple[str, Any]] = []
        # Every `codex/*` notification and every response's result, in the order they
        # arrived: ("codex/thread/started", params) or ("response", result).
        self.arrivals: list[tuple[str, Any]] = []
        self.changed = asyncio.Event()

    def _handle_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        self.arrivals.append(("response", result))
        super()._handle_response(msg_id, result, error)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if method_name.startswith("codex/"):
            self.codex_notifications.append((method_name[len("codex/") :], params))
            self.arrivals.append((method_name, params))
        self.changed.set()
        if method_name.startswith("codex/"):
            return  # recorded; pygls would only warn about an unknown method
        super()._handle_notification(method_name, params)


class EditorClient(LanguageClient):
    protocol: RecordingProtocol
    editor: Editor

    # -- waiting ---------------------------------------------------------------------------

    def notifications(self, method: str) -> list[Any]:
        return [params for name, params in self.protocol.codex_notifications if name == method]

    async def wait_until(self, condition: Callable[[], Any], timeout: float = WAIT_S) -> Any:
        """Wait until `condition()` is truthy (re-checked on every message); return its value."""

        async def poll() -> Any:
            while True:
                value = condition()
                if value:
                    return value
                self.protocol.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.protocol.changed.wait(), 0.2)

        return await asyncio.wait_for(poll(), timeout)

    async def wait_for(
        self, method: str, match: Callable[[Any], bool] = lambda p: True, timeout: float = WAIT_S
    ) -> Any:
        def found() -> Any:
            return next((p for p in self.notifications(method) if match(p)), None)

        return await self.wait_until(found, timeout)

    async def turn_completed(self, thread_id: str, turn_id: str | None = None) -> dict[str, Any]:
        return await self.wait_for(
            "turn/completed",
            lambda p: (
                p["threadId"] == thread_id and (turn_id is None or p["turn"]["id"] == turn_id)
            ),
        )

    # -- requests --------------------------------------------------------------------------

    async def codex(self, method: str, params: Any = None) -> Any:
        """Send the request `codex/<method>`; returns the result, raises JsonRpcException."""
        return await self.protocol.send_request_async(f"codex/{method}", params)

    async def start_thread(self, cwd: Path, **extra: Any) -> str:
        result = await self.codex("thread/start", {"cwd": str(cwd), **extra})
        return result["thread"]["id"]

    async def start_turn(self, thread_id: str, text: str, **extra: Any) -> str:
        result = await self.codex(
            "turn/start",
            {"threadId": thread_id, "input": [{"type": "text", "text": text}], **extra},
        )
        return result["turn"]["id"]

    async def run_turn(self, thread_id: str, text: str) -> dict[str, Any]:
        turn_id = await self.start_turn(thread_id, text)
        return await self.turn_completed(thread_id, turn_id)

    async def command(self, name: str, *arguments: Any) -> Any:
        params = types.ExecuteCommandParams(command=name, arguments=list(arguments))
        return await self.workspace_execute_command_async(params)

    # -- documents -------------------------------------------------------------------------

    def open(self, path: Path, text: str, version: int = 1) -> str:
        """Open `path` in the editor with (possibly unsaved) `text`."""
        doc_uri = uri(path)
        self.editor.buffers[doc_uri] = Buffer(version, text)
        self.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=doc_uri, language_id="python", version=version, text=text
                )
            )
        )
        return doc_uri

    def type_text(self, doc_uri: str, new_text: str, *, hold: bool = False) -> None:
        """The user replaces the buffer's text (one incremental change covering it all)."""
        buffer = self.editor.buffers[doc_uri]
        end = _end_position(buffer.text)
        buffer.version += 1
        buffer.text = new_text
        change = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(
                uri=doc_uri, version=buffer.version
            ),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(0, 0), end=end), text=new_text
                )
            ],
        )
        if hold:
            self.editor.held_changes.append(change)
        else:
            self.text_document_did_change(change)

    def flush_changes(self) -> None:
        """Send the held `didChange` notifications, in order."""
        held, self.editor.held_changes = self.editor.held_changes, []
        for change in held:
            self.text_document_did_change(change)

    # -- the editor's side of workspace/applyEdit ------------------------------------------

    def apply_workspace_edit(self, params: types.ApplyWorkspaceEditParams) -> Any:
        self.editor.edits.append(params)
        if self.editor.refuse_edits is not None:
            return types.ApplyWorkspaceEditResult(
                applied=False, failure_reason=self.editor.refuse_edits
            )
        annotations = params.edit.change_annotations or {}
        refused = {
            annotation_id
            for annotation_id, annotation in annotations.items()
            if annotation.needs_confirmation and not self.editor.confirm(annotation_id, annotation)
        }
        for index, change in enumerate(params.edit.document_changes or []):
            if getattr(change, "annotation_id", None) in refused:
                continue
            if isinstance(change, types.TextDocumentEdit):
                kept = [e for e in change.edits if getattr(e, "annotation_id", None) not in refused]
                if not kept:
                    continue
                change = types.TextDocumentEdit(text_document=change.text_document, edits=kept)
            problem = self._apply_change(change)
            if problem is not None:
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=problem, failed_change=index
                )
        return types.ApplyWorkspaceEditResult(applied=True)

    def _apply_change(self, change: Any) -> str | None:
        buffers = self.editor.buffers
        if isinstance(change, types.TextDocumentEdit):
            doc_uri, version = change.text_document.uri, change.text_document.version
            buffer = buffers.get(doc_uri)
            if buffer is None:
                if version is not None:
                    return f"{doc_uri} is not open"
                path = Path(to_fs_path(doc_uri) or "")
                path.write_text(apply_text_edits(path.read_text(), list(change.edits)))
                return None
            if version is not None and version != buffer.version:
                return f"{doc_uri} is at version {buffer.version}, not {version}"
            new_text = apply_text_edits(buffer.text, list(change.edits))
            self.type_text(doc_uri, new_text, hold=self.editor.lag_changes)
            return None
        if isinstance(change, types.CreateFile):
            path = Path(to_fs_path(change.uri) or "")
            overwrite = bool(change.options and change.options.overwrite)
            if path.exists() and not overwrite:
                return f"{path} exists"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
            return None
        if isinstance(change, types.DeleteFile):
            Path(to_fs_path(change.uri) or "").unlink()
            buffers.pop(change.uri, None)
            return None
        if isinstance(change, types.RenameFile):
            old, new = (
                Path(to_fs_path(change.old_uri) or ""),
                Path(to_fs_path(change.new_uri) or ""),
            )
            new.parent.mkdir(parents=True, exist_ok=True)
            old.rename(new)
            if change.old_uri in buffers:
                buffers[change.new_uri] = buffers.pop(change.old_uri)
            return None
        return f"unsupported change {change!r}"


def editor_capabilities(
    *,
    rich: bool = False,
    apply_edit: bool = True,
    annotations: bool = False,
    message_requests: bool = True,
    codex: dict[str, Any] | None = None,
    plain: bool = False,
) -> types.ClientCapabilities:
    """A capable editor's capabilities. `annotations`: it confirms annotated edits;
    `message_requests=False`: it cannot answer `window/showMessageRequest`; `codex`: more
    `experimental.codex` flags; `plain`: no `experimental.codex` at all (no `codex/*`
    notifications), and no `window.showMessage` either, as eglot and lsp-mode declare."""
    flags = {
        **({"richApprovals": True} if rich else {}),
        **({} if message_requests else {"messageRequests": False}),
        **(codex or {}),
    }
    experimental = None if plain else {"codex": flags}
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=apply_edit,
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[
                    types.ResourceOperationKind.Create,
                    types.ResourceOperationKind.Rename,
                    types.ResourceOperationKind.Delete,
                ],
                change_annotation_support=(
                    types.ChangeAnnotationsSupportOptions(groups_on_label=True)
                    if annotations
                    else None
                ),
            ),
        ),
        window=types.WindowClientCapabilities(
            work_done_progress=True,
            show_message=(
                types.ShowMessageRequestClientCapabilities(
                    message_action_item=types.ClientShowMessageActionItemOptions(
                        additional_properties_support=False
                    )
                )
                if message_requests and not plain
                else None
            ),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(dynamic_registration=False)
        ),
        experimental=experimental,
    )


def plain_json_converter() -> Any:
    """Keep `codex/*` params and results as dicts (pygls's default makes namedtuples).

    Also reads code actions the way editors do: lsprotocol takes any object with a `command`
    key for a `Command`, but a `CodeAction` has one too (a `Command` object, where a `Command`
    has the command's name as a string).
    """
    converter = converters.get_converter()
    for message_type in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message_type, lambda data, cls: cls(**data))

    def command_or_code_action(data: Any, _: type) -> Any:
        kind = types.Command if isinstance(data.get("command"), str) else types.CodeAction
        return converter.structure(data, kind)

    converter.register_structure_hook(
        types.Command | types.CodeAction,  # type: ignore[arg-type]
        command_or_code_action,
    )
    return converter


def make_editor_client(editor: Editor) -> EditorClient:
    client = EditorClient(protocol_cls=RecordingProtocol, converter_factory=plain_json_converter)
    client.editor = editor
    register_lsp_features(client)

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    async def show_message_request(
        params: types.ShowMessageRequestParams,
    ) -> types.MessageActionItem | None:
        editor.prompts.append(params)
        client.protocol.changed.set()
        title = editor.choose(params)
        if asyncio.iscoroutine(title):
            title = await title
        return None if title is None else types.MessageActionItem(title=title)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        result = client.apply_workspace_edit(params)
        client.protocol.changed.set()
        return result

    _answer_editor_context(client)
    for method in (
        "item/commandExecution/requestApproval",
        "item/fileChange/requestApproval",
        "item/tool/requestUserInput",
    ):
        client.feature(f"codex/{method}")(_rich_handler(client, method))
    return client


def _answer_editor_context(client: EditorClient) -> None:
    editor = client.editor

    def modified(doc_uri: str, buffer: Buffer) -> bool:
        path = Path(to_fs_path(doc_uri) or "")
        return not path.exists() or path.read_text() != buffer.text

    def recorded(method: str, params: Any) -> None:
        editor.context_requests.append((method, params))
        client.protocol.changed.set()

    @client.feature("codex/editor/openBuffers")
    def open_buffers(params: Any) -> Any:
        recorded("editor/openBuffers", params)
        return {
            "buffers": [
                {"uri": doc_uri, "languageId": b.language, "modified": modified(doc_uri, b)}
                for doc_uri, b in editor.buffers.items()
            ]
        }

    @client.feature("codex/editor/readBuffer")
    def read_buffer(params: Any) -> Any:
        recorded("editor/readBuffer", params)
        buffer = editor.buffers.get(params["uri"])
        if buffer is None:
            return None
        return {
            "uri": params["uri"],
            "text": buffer.text,
            "languageId": buffer.language,
            "modified": modified(params["uri"], buffer),
        }

    @client.feature("codex/editor/selection")
    def selection(params: Any) -> Any:
        recorded("editor/selection", params)
        return editor.selection

    @client.feature("codex/editor/diagnostics")
    def diagnostics(params: Any) -> Any:
        recorded("editor/diagnostics", params)
        wanted = (params or {}).get("uri")
        return {
            "files": [
                {"uri": doc_uri, "diagnostics": found}
                for doc_uri, found in editor.diagnostics.items()
                if wanted is None or doc_uri == wanted
            ]
        }


def _rich_handler(client: EditorClient, method: str) -> Callable[[Any], Awaitable[Any]]:
    async def answer(params: Any) -> Any:
        client.editor.rich_requests.append((method, params))
        client.protocol.changed.set()
        result = client.editor.rich_answer(method, params)
        if asyncio.iscoroutine(result):
            result = await result
        return result

    return answer


def server_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "codex_lsp", "serve", *extra]


class EditorSession:
    """`async with EditorSession(home, root) as client:` a started, initialized server."""

    def __init__(
        self,
        home: Path,
        root: Path,
        *,
        editor: Editor | None = None,
        rich: bool = False,
        apply_edit: bool = True,
        annotations: bool = False,
        message_requests: bool = True,
        codex: dict[str, Any] | None = None,
        plain: bool = False,
        args: tuple[str, ...] = (),
        command: list[str] | None = None,
    ) -> None:
        self.home, self.root = home, root
        self.editor = editor or Editor()
        self.capabilities = editor_capabilities(
            rich=rich,
            apply_edit=apply_edit,
            annotations=annotations,
            message_requests=message_requests,
            codex=codex,
            plain=plain,
        )
        self.command = command
        self.args = args
        self.client: EditorClient | None = None
        self.initialize_result: types.InitializeResult | None = None

    async def __aenter__(self) -> EditorClient:
        env = {**os.environ, "CODEX_HOME": str(self.home)}
        config = ClientServerConfig(
            server_command=self.command or server_command(*self.args),
            client_factory=lambda: make_editor_client(self.editor),
            server_env=env,
        )
        client = await config.start()
        assert isinstance(client, EditorClient)
        self.client = client
        self.initialize_result = await client.initialize_session(
            types.InitializeParams(
                capabilities=self.capabilities,
                root_uri=uri(self.root),
                workspace_folders=[types.WorkspaceFolder(uri=uri(self.root), name="ws")],
                client_info=types.ClientInfo(name="test-editor", version="1"),
            )
        )
        return client

    async def __aexit__(self, *exc: Any) -> None:
        client = self.client
        assert client is not None
        try:
            await asyncio.wait_for(client.shutdown_session(), WAIT_S)
        except (TimeoutError, JsonRpcException, RuntimeError):
            if client._server is not None and client._server.returncode is None:
                client._server.kill()
        await client.stop()
