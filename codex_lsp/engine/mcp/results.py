"""An MCP tool result twice over: as the end event carries it, and as text for the model.

The event keeps the result whole (content blocks, `structuredContent`, `isError`, in the MCP
wire spelling) so a UI can render images and resources. The model reads text: the text blocks
in order, a short note in place of anything else, and the structured content only when the
server sent nothing to read.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

NO_CONTENT = "(the tool returned no content)"


def result_for_event(result: CallToolResult) -> dict[str, Any]:
    event: dict[str, Any] = {
        "content": [
            block.model_dump(by_alias=True, mode="json", exclude_none=True)
            for block in result.content
        ],
        "isError": result.is_error,
    }
    if result.structured_content is not None:
        event["structuredContent"] = result.structured_content
    if result.meta:
        event["_meta"] = result.meta
    return event


def text_for_model(result: CallToolResult) -> str:
    parts = [_block_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(parts) if parts else NO_CONTENT


def _block_text(block: Any) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        return f"[{kind} content omitted: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, ResourceLink):
        return f"[resource link: {block.name} <{block.uri}>]"
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, TextResourceContents):
            return resource.text
        if isinstance(resource, BlobResourceContents):
            mime = f", {resource.mime_type}" if resource.mime_type else ""
            return f"[binary resource omitted: <{resource.uri}>{mime}]"
    return f"[{getattr(block, 'type', 'unknown')} content omitted]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)
