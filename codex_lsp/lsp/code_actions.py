"""Code actions (`textDocument/codeAction`): quick fixes on review findings, and more.

Other features add their actions through `providers` (answers to a waiting approval, offered
everywhere). For each finding under the cursor or selection (or named by a diagnostic the
editor sends in the request's context), three actions: "Fix with Codex", "Explain" and
"Dismiss". Each carries the matching command of `review_command` with the finding's id, so
the work happens when the user picks it, not when the editor merely asks what is available
(it asks on every cursor move).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from codex_lsp.lsp.findings import SOURCE
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.lsp.review_command import DISMISS_FINDING, EXPLAIN_FINDING, FIX_FINDING

if TYPE_CHECKING:
    from codex_lsp.lsp.diagnostics import ReviewDiagnostics
    from codex_lsp.lsp.findings import Finding
    from codex_lsp.lsp.server import CodexLanguageServer

KIND = types.CodeActionKind.QuickFix
FIX_TITLE = "Fix with Codex"
EXPLAIN_TITLE = "Explain"
DISMISS_TITLE = "Dismiss"


def finding_actions(finding: Finding) -> list[types.CodeAction]:
    """The three actions on one finding. Titles name the finding: several may share a line."""
    arguments: list[Any] = [{"findingId": finding.id}]
    diagnostic = finding.diagnostic()

    def action(title: str, command: str, *, preferred: bool = False) -> types.CodeAction:
        label = f"{title}: {finding.title}"
        return types.CodeAction(
            title=label,
            kind=KIND,
            diagnostics=[diagnostic],
            is_preferred=preferred or None,
            command=types.Command(title=label, command=command, arguments=arguments),
        )

    return [
        action(FIX_TITLE, FIX_FINDING, preferred=True),
        action(EXPLAIN_TITLE, EXPLAIN_FINDING),
        action(DISMISS_TITLE, DISMISS_FINDING),
    ]


def _wanted(only: list[str] | None) -> bool:
    """Whether a request limited to the kinds `only` admits quick fixes."""
    if not only:
        return True
    # Kinds are hierarchical: asking for "quickfix" (or "") includes "quickfix.anything".
    return any(KIND.value == kind or KIND.value.startswith(f"{kind}.") or not kind for kind in only)


ActionProvider = Callable[[types.CodeActionParams], list[types.CodeAction]]


class ReviewCodeActions:
    def __init__(
        self,
        server: CodexLanguageServer,
        diagnostics: ReviewDiagnostics,
        providers: Sequence[ActionProvider] = (),
    ) -> None:
        self._server = server
        self._diagnostics = diagnostics
        self._providers = list(providers)

    def register(self, server: CodexLanguageServer) -> None:
        options = types.CodeActionOptions(code_action_kinds=[KIND])
        server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)(plain_handler(self.on_code_action))

    def on_code_action(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        if not _wanted([str(getattr(k, "value", k)) for k in params.context.only or []] or None):
            return None
        found = self._diagnostics.overlapping(params.text_document.uri, params.range)
        for diagnostic in params.context.diagnostics:
            finding = self._named(diagnostic)
            if finding is not None and finding not in found:
                found.append(finding)
        actions = [action for provider in self._providers for action in provider(params)]
        actions += [action for finding in found for action in finding_actions(finding)]
        return actions or None

    def _named(self, diagnostic: types.Diagnostic) -> Finding | None:
        data = diagnostic.data
        if diagnostic.source != SOURCE or not isinstance(data, dict):
            return None
        finding_id = data.get("findingId")
        return self._diagnostics.find(finding_id) if isinstance(finding_id, str) else None
