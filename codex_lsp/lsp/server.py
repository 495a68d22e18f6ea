"""`codex-lsp serve`: the language server, with every feature wired in one place.

Each feature is a small object with `register(server)`: the lifecycle, the `codex/*` bridge to
the v2 API (`EngineHost`), turn progress, the editor commands, review findings as diagnostics
with their code actions and commands, and warnings shown as messages. Features that react to
what the engine says observe the v2 notifications through the host. pygls runs every handler in
its own task or guard, so a feature that fails answers its own request with an error and the
server carries on.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.exceptions import FeatureRequestError
from pygls.lsp.server import LanguageServer

from codex_lsp import __version__
from codex_lsp.display import visible
from codex_lsp.lsp.approval_commands import ApprovalCommands
from codex_lsp.lsp.code_actions import ReviewCodeActions
from codex_lsp.lsp.commands import Commands
from codex_lsp.lsp.context_input import ContextCommands
from codex_lsp.lsp.diagnostics import ReviewDiagnostics
from codex_lsp.lsp.engine_host import EngineHost, EngineOptions
from codex_lsp.lsp.lifecycle import Lifecycle
from codex_lsp.lsp.notifications import EditorNotices
from codex_lsp.lsp.plain_client import PlainClientNotices
from codex_lsp.lsp.progress import TurnProgressTracker
from codex_lsp.lsp.protocol import CodexProtocol, json_converter
from codex_lsp.lsp.review_command import ReviewCommands
from codex_lsp.lsp.start_actions import StartActions
from codex_lsp.lsp.turn_undo import TurnUndo

logger = logging.getLogger(__name__)

SERVER_NAME = "codex-lsp"


class CodexLanguageServer(LanguageServer):
    protocol: CodexProtocol

    def __init__(self) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CodexProtocol,
            converter_factory=json_converter,
        )
        # Set from the client's initialize: v2 approval requests instead of message prompts.
        self.rich_approvals = False
        # Set from the client's initialize: patches needing approval are confirmed hunk by hunk
        # in the editor's own edit preview even though approvals are rendered by the client.
        self.hunk_review = False
        # Set from the client's initialize: the client answers `codex/editor/*` requests, so the
        # model gets the editor tools.
        self.editor_context = False
        # Set from the client's initialize: it declares `experimental.codex`, so it is sent the
        # `codex/*` notifications; any other client hears of its turns through standard LSP.
        self.codex_client = False
        # Set from the client's initialize: approvals and questions as message prompts.
        self.message_requests = True
        self.host: EngineHost | None = None

    def window_show_message(self, params: types.ShowMessageParams) -> None:
        # Every popup goes through here, whatever put together its text (a warning quoting a
        # config value, a review verdict quoting the model): none of it reaches the editor as a
        # control or bidi character.
        shown = visible(params.message, multiline=True)
        super().window_show_message(types.ShowMessageParams(type=params.type, message=shown))

    def report_server_error(self, error: Exception, source: Any) -> None:
        # A failed request was answered with its error already. For anything else pygls would
        # pop up a message; the editor's log is the place for it.
        if source is FeatureRequestError:
            return
        logger.error("internal error (%s): %s", getattr(source, "__name__", source), error)

    async def close(self) -> None:
        """The connection is gone: stop the engine, its turns interrupted, processes ended."""
        if self.host is not None:
            await self.host.aclose(client_gone=True)


def build_server(options: EngineOptions | None = None) -> CodexLanguageServer:
    server = CodexLanguageServer()
    progress = TurnProgressTracker(
        server, interrupt=lambda thread, turn: host.interrupt(thread, turn)
    )
    host = EngineHost(server, options or EngineOptions(), progress)
    server.host = host
    diagnostics = ReviewDiagnostics(server, lambda: host.editor)
    approvals = ApprovalCommands(server, host, host.pending)
    undo = TurnUndo(server, host)
    notices = EditorNotices(server)
    plain = PlainClientNotices(server)
    diagnostics.subscribe(host.observers)
    notices.subscribe(host.observers)
    plain.subscribe(host.observers)
    host.resume_observers.append(diagnostics.thread_resumed)
    for feature in (
        Lifecycle(server, host),
        host,
        progress,
        Commands(server, host, progress),
        ContextCommands(server, host),
        diagnostics,
        ReviewCodeActions(
            server,
            diagnostics,
            providers=[
                approvals.code_actions,
                undo.code_actions,
                StartActions(server).code_actions,
            ],
        ),
        approvals,
        ReviewCommands(server, host, diagnostics),
        notices,
        plain,
        undo,
    ):
        feature.register(server)
    return server
