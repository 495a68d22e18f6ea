"""What the model sees of an MCP tool: a function tool named `mcp__<server>__<tool>`.

The Responses API only takes names matching `^[a-zA-Z0-9_-]+$` of at most 64 characters, so
other characters become `_`, and a name that is too long or already taken gets a short hash of
the real server and tool names, which keeps it stable from one session to the next.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from typing import Any

MAX_TOOL_NAME_LEN = 64
_NOT_ALLOWED = re.compile(r"[^a-zA-Z0-9_-]")
_HASH_LEN = 8


def sanitize(name: str) -> str:
    return _NOT_ALLOWED.sub("_", name) or "_"


def qualified_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp__<server>__<tool>`, valid for the Responses API and not in `taken`."""
    base = sanitize(f"mcp__{server}__{tool}")
    if len(base) <= MAX_TOOL_NAME_LEN and base not in taken:
        return base
    # NUL cannot appear in either name, so distinct (server, tool) pairs hash apart.
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:_HASH_LEN]
    for n in itertools.count():
        suffix = f"_{digest}" if n == 0 else f"_{digest}_{n}"
        name = base[: MAX_TOOL_NAME_LEN - len(suffix)] + suffix
        if name not in taken:
            return name
    raise AssertionError("unreachable")


def parameters_schema(schema: Any) -> dict[str, Any]:
    """The tool's input schema as the Responses API accepts it: an object with properties.

    Everything else stays as the server gave it; a server that omits `type` or `properties`
    (both optional in older MCP revisions) still gets a usable tool.
    """
    fixed = dict(schema) if isinstance(schema, dict) else {}
    if fixed.get("type") != "object":
        fixed["type"] = "object"
    if not isinstance(fixed.get("properties"), dict):
        fixed["properties"] = {}
    return fixed


def function_spec(name: str, description: str | None, input_schema: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "function", "name": name}
    if description:
        spec["description"] = description
    # Servers' schemas are not written for strict mode (optional fields, open objects).
    spec["strict"] = False
    spec["parameters"] = parameters_schema(input_schema)
    return spec
