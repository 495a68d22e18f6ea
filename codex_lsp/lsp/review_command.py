"""Editor commands for code review (`workspace/executeCommand`).

* `codex.review` `[{target, threadId?, cwd?}]`: review `target` (`{type: "uncommittedChanges"}`,
  `{type: "baseBranch", branch}`, `{type: "commit", sha, title?}` or
  `{type: "custom", instructions}`) with `review/start`, on `threadId` or on a new thread rooted
  at `cwd` (default: the workspace root). Returns the `review/start` result plus `threadId`.
  The findings arrive later as diagnostics.
* `codex.fixFinding` `[{findingId, threadId?}]`: a turn on the review's thread (or on `threadId`,
  e.g. one whose policy asks before every patch, so the editor can preview the fix) asking for a
  minimal fix of that finding with apply_patch; the fix then comes back like any patch
  (approval, then one `workspace/applyEdit`). Returns `{threadId, turn}`.
* `codex.explainFinding` `[{findingId}]`: a turn on the review's thread that explains the finding
  without changing files. Returns `{threadId, turn}`.
* `codex.dismissFinding` `[{findingId}]`: take the finding's diagnostic away. Returns
  `{dismissed: bool}`.

A finding id is the `data.findingId` of its diagnostic.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcInvalidParams

from codex_lsp.lsp.commands import command_options, string_option, workspace_cwd
from codex_lsp.lsp.line_tracking import split_lines
from codex_lsp.lsp.protocol import plain_handler

if TYPE_CHECKING:
    from codex_lsp.lsp.diagnostics import ReviewDiagnostics
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.findings import Finding
    from codex_lsp.lsp.server import CodexLanguageServer

REVIEW = "codex.review"
FIX_FINDING = "codex.fixFinding"
EXPLAIN_FINDING = "codex.explainFinding"
DISMISS_FINDING = "codex.dismissFinding"
REVIEW_COMMANDS = (REVIEW, FIX_FINDING, EXPLAIN_FINDING, DISMISS_FINDING)

TARGET_TYPES = ("uncommittedChanges", "baseBranch", "commit", "custom")

FIX_REQUEST = (
    "Fix this code review finding with the smallest change that resolves it. Make the change "
    "with apply_patch, and leave alone anything the finding does not need changed."
)
EXPLAIN_REQUEST = (
    "Explain this code review finding: what goes wrong, in which situation, and what a fix "
    "would look like. Answer here; do not change any files."
)


def finding_prompt(request: str, finding: Finding, cwd: str | None, text: str | None) -> str:
    """The turn text for a finding: what to do, the finding, and its lines as they are now
    (the user may have edited since the review, and the numbers are today's)."""
    path = finding.path
    if cwd and path.startswith(cwd.rstrip(os.sep) + os.sep):
        path = os.path.relpath(path, cwd)
    first, last = finding.start + 1, finding.end + 1
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    parts = [request, "", finding.title, f"File: {path}, {where}"]
    if finding.body:
        parts += ["", finding.body]
    if text is not None:
        excerpt = "\n".join(split_lines(text)[finding.start : finding.end + 1])
        fence = "```"
        while fence in excerpt:  # code holding a fence must not close ours early
            fence += "`"
        parts += ["", f"The code at {where} of {path} now reads:", fence, excerpt, fence]
    return "\n".join(parts) + "\n"


class ReviewCommands:
    def __init__(
        self, server: CodexLanguageServer, host: EngineHost, diagnostics: ReviewDiagnostics
    ) -> None:
        self._server = server
        self._host = host
        self._diagnostics = diagnostics

    def register(self, server: CodexLanguageServer) -> None:
        server.command(REVIEW)(plain_handler(self.review))
        server.command(FIX_FINDING)(plain_handler(self.fix_finding))
        server.command(EXPLAIN_FINDING)(plain_handler(self.explain_finding))
        server.command(DISMISS_FINDING)(plain_handler(self.dismiss_finding))

    async def review(self, *arguments: object) -> Any:
        options = command_options(REVIEW, arguments)
        target = options.get("target")
        if not isinstance(target, dict) or target.get("type") not in TARGET_TYPES:
            kinds = ", ".join(TARGET_TYPES)
            raise JsonRpcInvalidParams(f"{REVIEW}: 'target' must be an object of type {kinds}")
        thread_id = string_option(options, "threadId", REVIEW, required=False)
        if thread_id is None:
            cwd = string_option(options, "cwd", REVIEW, required=False)
            started = await self._host.call(
                "thread/start", {"cwd": cwd or workspace_cwd(self._server)}
            )
            thread_id = started["thread"]["id"]
        # The API checks the target's fields and whether there is anything to review.
        result = await self._host.call("review/start", {"threadId": thread_id, "target": target})
        return {"threadId": thread_id, **result}

    async def fix_finding(self, *arguments: object) -> Any:
        return await self._finding_turn(FIX_FINDING, FIX_REQUEST, arguments)

    async def explain_finding(self, *arguments: object) -> Any:
        return await self._finding_turn(EXPLAIN_FINDING, EXPLAIN_REQUEST, arguments)

    async def dismiss_finding(self, *arguments: object) -> Any:
        finding_id = self._finding_id(DISMISS_FINDING, arguments)
        return {"dismissed": self._diagnostics.dismiss(finding_id) is not None}

    async def _finding_turn(self, command: str, request: str, arguments: tuple[object, ...]) -> Any:
        finding = self._finding(command, arguments)
        options = command_options(command, arguments)
        chosen = string_option(options, "threadId", command, required=False)
        thread_id = chosen or finding.thread_id
        text = self._diagnostics.current_text(finding.uri)
        prompt = finding_prompt(request, finding, self._thread_cwd(thread_id), text)
        result = await self._host.call(
            "turn/start", {"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}
        )
        return {"threadId": thread_id, "turn": result.get("turn")}

    def _finding_id(self, command: str, arguments: tuple[object, ...]) -> str:
        options = command_options(command, arguments)
        finding_id = string_option(options, "findingId", command, required=True)
        assert finding_id is not None
        return finding_id

    def _finding(self, command: str, arguments: tuple[object, ...]) -> Finding:
        finding_id = self._finding_id(command, arguments)
        finding = self._diagnostics.find(finding_id)
        if finding is None:
            raise JsonRpcInvalidParams(
                f"{command}: finding {finding_id} is no longer shown (dismissed, edited away, "
                "or replaced by a newer review); run the review again"
            )
        return finding

    def _thread_cwd(self, thread_id: str) -> str | None:
        api = self._host.api
        try:
            cwd = api.thread_cwd(thread_id) if api is not None else None
        except Exception:
            return None
        return str(cwd) if cwd is not None else None
