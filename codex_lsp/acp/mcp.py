"""The MCP servers an ACP client passes to a session, as config overrides of its thread.

They join the servers of config.toml (a client's server of the same name replaces it) for that
thread only. Stdio servers keep their command, arguments and environment; HTTP servers their
URL. Headers have no place in the config (it takes a bearer token only from an environment
variable), so a server that needs them is left out with a warning. A name that is not a plain
config key is made into one.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _toml(value: Any) -> str:
    """A TOML inline value (a JSON string is also a TOML basic string)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def mcp_overrides(servers: list[dict[str, Any]]) -> list[str]:
    """`-c` overrides (`mcp_servers.NAME={...}`) for the servers of a `session/new`."""
    overrides = []
    for server in servers:
        name = _UNSAFE.sub("_", str(server.get("name", ""))) or "server"
        kind = server.get("type")
        if kind in (None, "stdio") and server.get("command"):
            table: dict[str, Any] = {"command": server["command"], "args": server.get("args", [])}
            env = {e["name"]: e["value"] for e in server.get("env") or []}
            if env:
                table["env"] = env
        elif kind == "http" and server.get("url"):
            if server.get("headers"):
                log.warning("MCP server %s needs headers, which are not supported; left out", name)
                continue
            table = {"url": server["url"]}
        else:
            log.warning("MCP server %s is of a transport not supported here; left out", name)
            continue
        overrides.append(f"mcp_servers.{name}={_toml(table)}")
    return overrides
