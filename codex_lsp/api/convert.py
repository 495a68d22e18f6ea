"""Conversions between the v2 wire vocabulary and the core engine's.

v2 speaks camelCase and its own enum spellings (`listFiles`, `inProgress`, tagged sandbox policies);
the core speaks snake_case and kebab-case. Everything that crosses that line goes through here, so
the mapping rules live in one place.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Sequence
from typing import Any, get_args

from codex_lsp.api.port import INVALID_PARAMS, INVALID_REQUEST, ApiError
from codex_lsp.protocol.account.models import RateLimitSnapshot, RateLimitWindow
from codex_lsp.protocol.common import (
    GranularAskForApproval,
    PlanType,
    ThreadTokenUsage,
    TokenUsageBreakdown,
    sandbox_policy_from_v2,
)
from codex_lsp.protocol.core import inputs as core_inputs, policy
from codex_lsp.protocol.turns.items import (
    AddPatchChangeKind,
    DeletePatchChangeKind,
    FileUpdateChange,
    ImageUserInput,
    ListFilesCommandAction,
    LocalImageUserInput,
    MentionUserInput,
    ReadCommandAction,
    SearchCommandAction,
    SkillUserInput,
    TextUserInput,
    UnknownCommandAction,
    UpdatePatchChangeKind,
)
from codex_lsp.protocol.turns.models import TurnError

CORE_EFFORTS: tuple[str, ...] = get_args(core_inputs.ReasoningEffort)
_SNAKE_PART = re.compile(r"_([a-z0-9])")


def now_ms() -> int:
    return int(time.time() * 1000)


def invalid(field: str, message: str) -> ApiError:
    """A -32602 error that names the offending field first, as clients show it verbatim."""
    return ApiError(INVALID_PARAMS, f"Invalid params: {field}: {message}")


# -- user input ------------------------------------------------------------------------------


def user_input_to_core(items: Sequence[Any]) -> list[core_inputs.UserInput]:
    """The core input items of a `turn/start` `input` list."""
    converted: list[core_inputs.UserInput] = []
    for index, item in enumerate(items):
        if isinstance(item, TextUserInput):
            elements = [
                core_inputs.TextElement.model_validate(e.model_dump(mode="json", by_alias=False))
                for e in item.text_elements
            ]
            converted.append(core_inputs.TextInput(text=item.text, text_elements=elements))
        elif isinstance(item, ImageUserInput):
            if item.url is None:
                # Uploaded file ids live on OpenAI's side; this engine only sends URLs.
                raise invalid(
                    f"input[{index}].fileId", "images by file id are not supported; send a url"
                )
            if item.url.lower().startswith(("http://", "https://")):
                # As codex: the image travels in the request, never fetched by the provider.
                raise ApiError(
                    INVALID_REQUEST,
                    "remote image URLs are not supported; use an inline data URL instead",
                )
            converted.append(core_inputs.ImageInput(image_url=item.url))
        elif isinstance(item, LocalImageUserInput):
            converted.append(core_inputs.LocalImageInput(path=item.path))
        elif isinstance(item, SkillUserInput):
            converted.append(core_inputs.SkillInput(name=item.name, path=item.path))
        elif isinstance(item, MentionUserInput):
            converted.append(core_inputs.MentionInput(name=item.name, path=item.path))
    return converted


def user_input_from_event(event: dict[str, Any]) -> list[Any]:
    """v2 user input rebuilt from a persisted `user_message` event (text and images only)."""
    content: list[Any] = []
    message = event.get("message")
    if isinstance(message, str) and message:
        content.append(TextUserInput(text=message))
    for url in event.get("images") or []:
        if isinstance(url, str):
            content.append(ImageUserInput(url=url))
    for path in event.get("local_images") or []:
        if isinstance(path, str):
            content.append(LocalImageUserInput(path=path))
    return content


# -- policies and reasoning ------------------------------------------------------------------


def approval_to_core(value: Any, field: str = "approvalPolicy") -> policy.AskForApproval | None:
    if value is None:
        return None
    if isinstance(value, GranularAskForApproval):
        raise invalid(
            field,
            "granular approval policies are not supported; use untrusted, on-request or never",
        )
    try:
        return policy.AskForApproval(value)
    except ValueError:
        raise invalid(field, f"unknown approval policy {value!r}") from None


def sandbox_to_core(value: Any) -> Any:
    return None if value is None else sandbox_policy_from_v2(value)


def effort_to_core(value: str | None, field: str = "effort") -> Any:
    if value is None:
        return None
    if value not in CORE_EFFORTS:
        raise invalid(
            field, f"unknown reasoning effort {value!r}; expected one of {', '.join(CORE_EFFORTS)}"
        )
    return value


# -- commands --------------------------------------------------------------------------------


def command_string(argv: Sequence[str]) -> str:
    return shlex.join(argv)


def command_actions(parsed: Sequence[dict[str, Any]]) -> list[Any]:
    """The v2 `commandActions` of the core's `parsed_cmd` summaries."""
    actions: list[Any] = []
    for entry in parsed:
        kind, cmd = entry.get("type"), str(entry.get("cmd") or "")
        if kind == "read" and entry.get("path"):
            path = str(entry["path"])
            actions.append(
                ReadCommandAction(command=cmd, name=str(entry.get("name") or path), path=path)
            )
        elif kind == "list_files":
            actions.append(ListFilesCommandAction(command=cmd, path=entry.get("path")))
        elif kind == "search":
            actions.append(
                SearchCommandAction(command=cmd, query=entry.get("query"), path=entry.get("path"))
            )
        else:
            actions.append(UnknownCommandAction(command=cmd))
    return actions


def duration_ms(duration: Any) -> int:
    return int(duration.secs * 1000 + duration.nanos // 1_000_000)


# -- patches ---------------------------------------------------------------------------------


def file_changes(changes: dict[str, dict[str, Any]]) -> list[FileUpdateChange]:
    """The v2 `changes` of a core `FileChange` map, as the reference server shows them: the
    unified diff for updates, the whole text for adds and deletes."""
    out = []
    for path, change in changes.items():
        kind = change.get("type")
        if kind == "add":
            out.append(
                FileUpdateChange(
                    path=path, kind=AddPatchChangeKind(), diff=str(change.get("content") or "")
                )
            )
        elif kind == "delete":
            out.append(
                FileUpdateChange(
                    path=path, kind=DeletePatchChangeKind(), diff=str(change.get("content") or "")
                )
            )
        else:
            move = change.get("move_path")
            out.append(
                FileUpdateChange(
                    path=path,
                    kind=UpdatePatchChangeKind(move_path=move),
                    diff=str(change.get("unified_diff") or ""),
                )
            )
    return out


def file_change_diffs(changes: dict[str, dict[str, Any]]) -> list[FileUpdateChange]:
    """Like `file_changes`, but every `diff` is a real unified diff, adds and deletes included,
    so a client can preview the whole change from an approval request alone."""
    from codex_lsp.engine.patch import unified_diff

    out = []
    for change in file_changes(changes):
        raw = changes[change.path]
        if raw.get("type") == "add":
            diff = unified_diff("", str(raw.get("content") or ""), "/dev/null", change.path)
            change = change.model_copy(update={"diff": diff})
        elif raw.get("type") == "delete":
            diff = unified_diff(str(raw.get("content") or ""), "", change.path, "/dev/null")
            change = change.model_copy(update={"diff": diff})
        out.append(change)
    return out


# -- errors, usage, limits -------------------------------------------------------------------


def _camel(text: str) -> str:
    return _SNAKE_PART.sub(lambda match: match.group(1).upper(), text)


def error_info_to_v2(info: Any) -> Any:
    """`context_window_exceeded` -> `contextWindowExceeded`; object forms get camelCase keys."""
    if isinstance(info, str):
        return _camel(info)
    if isinstance(info, dict):
        return {_camel(str(key)): error_info_to_v2(value) for key, value in info.items()}
    return info


def turn_error(message: str, info: Any = None, details: str | None = None) -> TurnError:
    return TurnError(
        message=message,
        codex_error_info=error_info_to_v2(info) if info is not None else None,
        additional_details=details,
    )


def _breakdown(usage: core_inputs.TokenUsage) -> TokenUsageBreakdown:
    return TokenUsageBreakdown(
        total_tokens=usage.total_tokens,
        input_tokens=usage.input_tokens,
        cached_input_tokens=usage.cached_input_tokens,
        output_tokens=usage.output_tokens,
        reasoning_output_tokens=usage.reasoning_output_tokens,
    )


EFFECTIVE_CONTEXT_WINDOW_PERCENT = 95
"""The share of a model's context window a thread may fill: Codex keeps the rest for the
instructions and tool definitions it adds to every request, and reports only this share."""


def effective_context_window(window: int | None) -> int | None:
    return None if window is None else window * EFFECTIVE_CONTEXT_WINDOW_PERCENT // 100


def token_usage(info: core_inputs.TokenUsageInfo) -> ThreadTokenUsage:
    return ThreadTokenUsage(
        total=_breakdown(info.total_token_usage),
        last=_breakdown(info.last_token_usage),
        model_context_window=effective_context_window(info.model_context_window),
    )


def _window(window: core_inputs.RateLimitWindow | None) -> RateLimitWindow | None:
    if window is None:
        return None
    return RateLimitWindow(
        used_percent=round(window.used_percent),
        window_duration_mins=window.window_minutes,
        resets_at=window.resets_at,
    )


DEFAULT_LIMIT_ID = "codex"
"""The limit a provider's usage counts against when it names none."""


def rate_limits(snapshot: core_inputs.RateLimitSnapshot) -> RateLimitSnapshot:
    plan = snapshot.plan_type
    return RateLimitSnapshot(
        limit_id=snapshot.limit_id or DEFAULT_LIMIT_ID,
        limit_name=snapshot.limit_name,
        primary=_window(snapshot.primary),
        secondary=_window(snapshot.secondary),
        plan_type=plan_type(plan) if plan else None,
    )


def plan_type(value: str | None) -> PlanType:
    """A plan name the v2 `PlanType` enum knows, else `unknown`."""
    known: tuple[PlanType, ...] = get_args(PlanType.__value__)
    return next((plan for plan in known if plan == value), "unknown")
