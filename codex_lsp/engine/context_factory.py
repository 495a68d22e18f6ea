"""The first TurnContext of a session: config, then what a resumed thread last used, then the op."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from pydantic import TypeAdapter

from codex_lsp.engine.models import DEFAULT_MODEL, model_info
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.protocol.core.ops import ConfigureSession
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy

_policy_adapter: TypeAdapter[Any] = TypeAdapter(SandboxPolicy)


class UnknownProviderError(ValueError):
    def __init__(self, provider_id: str, known: list[str]) -> None:
        super().__init__(
            f"model provider {provider_id!r} is not defined (known: {', '.join(known) or 'none'}); "
            f"add a [model_providers.{provider_id}] table to config.toml"
        )


def initial_turn_context(
    config: Any, op: ConfigureSession, resumed: dict[str, Any] | None = None
) -> TurnContext:
    """Settings in order of precedence: the op, a resumed thread's last turn, the config."""
    resumed = resumed or {}
    cwd = Path(op.cwd or resumed.get("cwd") or Path.cwd()).resolve()
    provider_id = op.model_provider or resumed.get("model_provider") or config.model_provider
    provider = config.model_providers.get(provider_id)
    if provider is None:
        raise UnknownProviderError(provider_id, sorted(config.model_providers))
    model = op.model or resumed.get("model") or config.model or DEFAULT_MODEL
    approval = (
        op.approval_policy
        or _approval(resumed.get("approval_policy"))
        or config.core_approval_policy
    )
    sandbox = (
        op.sandbox_policy or _sandbox(resumed.get("sandbox_policy")) or config.sandbox_policy(cwd)
    )
    window = config.model_context_window or model_info(model).context_window
    return TurnContext(
        model=model,
        provider_id=provider_id,
        provider=provider,
        cwd=cwd,
        approval_policy=approval,
        sandbox_policy=sandbox,
        effort=op.effort or resumed.get("effort") or cast(Any, config.model_reasoning_effort),
        summary=op.summary or resumed.get("summary") or config.model_reasoning_summary,
        verbosity=config.model_verbosity,
        personality=op.personality or resumed.get("personality") or config.personality,
        base_instructions=op.base_instructions or config.effective_base_instructions,
        developer_instructions=op.developer_instructions or config.developer_instructions,
        user_instructions=op.user_instructions,
        project_doc_max_bytes=config.project_doc_max_bytes,
        project_doc_fallback_filenames=tuple(config.project_doc_fallback_filenames),
        context_window=window,
        auto_compact_limit=config.model_auto_compact_token_limit,
        features=dict(config.features or {}),
        web_search=config.web_search_enabled,
        web_search_live=config.web_search in (None, "live"),
        update_plan_tool=config.tools.update_plan.enabled,
        collaboration_mode="plan" if resumed.get("collaboration_mode") == "plan" else "default",
    )


def _approval(value: Any) -> AskForApproval | None:
    try:
        return AskForApproval(value) if value else None
    except ValueError:
        return None


def _sandbox(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    try:
        return _policy_adapter.validate_python(value)
    except ValueError:
        return None
