"""The model catalogue: what we know of each model slug, and sensible defaults for the rest.

Besides what `model/list` shows, each entry carries the traits that decide the model's tools,
as the reference catalog states them: `shell_type`, the shell tool the model is trained on when
unified exec is turned off, and `apply_patch_tool_type`, the form of `apply_patch` it gets
(None: none). A model the catalogue does not know gets the reference fallback: the argv `shell`
family (served here as `shell_command`) and no `apply_patch` tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codex_lsp.engine.prompt_images import ImageDetail
from codex_lsp.engine.turn_context import DEFAULT_CONTEXT_WINDOW

ShellType = Literal["shell_command", "default", "local", "unified_exec", "disabled"]
ApplyPatchToolType = Literal["freeform", "function"]
# Tokens of tool output a model reads before its middle is cut (the catalog's truncation policy).
DEFAULT_TRUNCATION_TOKENS = 10_000


@dataclass(frozen=True, slots=True)
class ModelInfo:
    slug: str
    display_name: str
    description: str
    default_effort: str = "medium"
    efforts: tuple[str, ...] = ("low", "medium", "high", "xhigh")
    context_window: int = DEFAULT_CONTEXT_WINDOW
    supports_reasoning: bool = True
    hidden: bool = False
    shell_type: ShellType = "shell_command"
    apply_patch_tool_type: ApplyPatchToolType | None = "freeform"
    truncation_tokens: int = DEFAULT_TRUNCATION_TOKENS
    # The `detail` its images are sent with (None: none, the server's default, `original`);
    # it also sets the size budget they are scaled to.
    image_detail: ImageDetail | None = "high"

    @property
    def image_budget(self) -> ImageDetail:
        return self.image_detail or "original"


CATALOGUE: tuple[ModelInfo, ...] = (
    ModelInfo(
        "gpt-5.5",
        "GPT-5.5",
        "Latest frontier model for coding and agentic work.",
        image_detail="original",
    ),
    ModelInfo("gpt-5.4", "GPT-5.4", "Strong all-round coding model.", default_effort="xhigh"),
    ModelInfo("gpt-5.4-mini", "GPT-5.4 mini", "Faster, cheaper model for lighter tasks."),
    ModelInfo("gpt-5.3-codex", "GPT-5.3 Codex", "Coding-tuned model."),
    ModelInfo("gpt-5.2", "GPT-5.2", "Previous generation model."),
    ModelInfo(
        "codex-auto-review",
        "Codex auto review",
        "Model for reviews.",
        hidden=True,
        image_detail=None,
    ),
)

DEFAULT_MODEL = "gpt-5.5"

_BY_SLUG = {info.slug: info for info in CATALOGUE}


def model_info(slug: str) -> ModelInfo:
    """Known facts for `slug`; unknown models (local servers) get neutral defaults."""
    known = _BY_SLUG.get(slug)
    if known is not None:
        return known
    reasoning = slug.startswith(("gpt-5", "o3", "o4"))
    return ModelInfo(
        slug,
        slug,
        "Custom model.",
        supports_reasoning=reasoning,
        shell_type="default",
        apply_patch_tool_type=None,
    )
