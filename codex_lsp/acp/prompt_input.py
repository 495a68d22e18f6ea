"""An ACP prompt's content blocks as the v2 turn input.

Text stays text; an image becomes a `data:` URL; a link to a local file becomes a mention of
it (the model reads it itself); an embedded resource (a file's text the client attached)
becomes text that names where it came from. Audio is not offered in `initialize`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlparse

from codex_lsp.api.port import INVALID_PARAMS, ApiError


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text, "text_elements": []}


def _file_path(uri: str) -> str | None:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else None


def turn_input(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `turn/start` input for a `session/prompt`'s blocks (wire dicts)."""
    items: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            items.append(_text(str(block.get("text", ""))))
        elif kind == "image":
            mime = block.get("mimeType") or "image/png"
            items.append({"type": "image", "url": f"data:{mime};base64,{block.get('data', '')}"})
        elif kind == "resource_link":
            uri, name = str(block.get("uri", "")), str(block.get("name") or "")
            path = _file_path(uri)
            if path:
                items.append({"type": "mention", "name": name or path, "path": path})
            else:
                items.append(_text(f"[{name or uri}]({uri})"))
        elif kind == "resource":
            resource = block.get("resource") or {}
            uri = str(resource.get("uri", ""))
            where = _file_path(uri) or uri
            if "text" in resource:
                items.append(_text(f'<context source="{where}">\n{resource["text"]}\n</context>'))
            elif str(resource.get("mimeType", "")).startswith("image/"):
                url = f"data:{resource['mimeType']};base64,{resource.get('blob', '')}"
                items.append({"type": "image", "url": url})
            else:
                raise ApiError(INVALID_PARAMS, f"the resource {uri} is neither text nor an image")
        else:
            raise ApiError(INVALID_PARAMS, f"prompt content of type {kind!r} is not supported")
    return items
