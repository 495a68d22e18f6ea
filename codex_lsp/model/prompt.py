"""What the engine asks the model: one sampling request, independent of the wire.

`Prompt.to_responses_body()` builds the Responses-API request body (§2.3 of the engine notes);
`codex_lsp.model.chat` converts the same `Prompt` for Chat Completions servers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codex_lsp.protocol.core.response_items import ResponseItem, response_item

# The name Codex gives the structured-output schema; servers echo it back in errors.
OUTPUT_SCHEMA_NAME = "codex_output_schema"


@dataclass(slots=True)
class Prompt:
    model: str
    instructions: str = ""
    input: list[ResponseItem] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    parallel_tool_calls: bool = False
    reasoning: dict[str, Any] | None = None  # {"effort": ..., "summary": ...}
    output_schema: dict[str, Any] | None = None
    prompt_cache_key: str | None = None
    verbosity: str | None = None  # "low" | "medium" | "high"
    service_tier: str | None = None

    def to_responses_body(self) -> dict[str, Any]:
        """The JSON body for `POST {base_url}/responses`."""
        reasoning = _reasoning_param(self.reasoning)
        body: dict[str, Any] = {"model": self.model}
        if self.instructions:
            body["instructions"] = self.instructions
        body["input"] = input_without_ids(self.input)
        body["tools"] = list(self.tools)
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = self.parallel_tool_calls
        body["reasoning"] = reasoning
        # Nothing is stored server-side, so history travels in full each time and reasoning
        # continuity needs the encrypted reasoning content echoed back.
        body["store"] = False
        body["stream"] = True
        body["include"] = ["reasoning.encrypted_content"] if reasoning is not None else []
        if self.prompt_cache_key:
            body["prompt_cache_key"] = self.prompt_cache_key
        if self.service_tier:
            body["service_tier"] = self.service_tier
        text: dict[str, Any] = {}
        if self.verbosity:
            text["verbosity"] = self.verbosity
        if self.output_schema is not None:
            text["format"] = {
                "type": "json_schema",
                "strict": True,
                "schema": self.output_schema,
                "name": OUTPUT_SCHEMA_NAME,
            }
        if text:
            body["text"] = text
        return body


def input_without_ids(items: list[ResponseItem]) -> list[ResponseItem]:
    """Copies of `items` without their `id`.

    With `store: false` the server has no record of earlier item ids and rejects references
    to them, so ids seen in output must never be sent back.
    """
    return [
        response_item({k: v for k, v in item.items() if k != "id"}) if "id" in item else item
        for item in items
    ]


def _reasoning_param(reasoning: dict[str, Any] | None) -> dict[str, Any] | None:
    if reasoning is None:
        return None
    # `summary: "none"` means "no summaries"; the API expresses that by omission.
    return {k: v for k, v in reasoning.items() if not (k == "summary" and v in (None, "none"))}
