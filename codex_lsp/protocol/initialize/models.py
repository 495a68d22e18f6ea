"""The `initialize` handshake, which the v2 server still takes in its v1 shape."""

from __future__ import annotations

from typing import Any

from codex_lsp.protocol.common import Opt, V2Model
from codex_lsp.protocol.methods import MethodTable


class ClientInfo(V2Model):
    name: str
    version: str
    title: Opt[str] = None


class InitializeCapabilities(V2Model):
    experimental_api: bool = False
    request_attestation: bool = False
    # Notification methods this connection does not want, matched exactly (`thread/started`).
    opt_out_notification_methods: Opt[list[str]] = None
    extensions: Opt[dict[str, Any]] = None


class InitializeParams(V2Model):
    client_info: ClientInfo
    capabilities: Opt[InitializeCapabilities] = None


class InitializeResponse(V2Model):
    user_agent: str
    codex_home: str
    # `unix` or `windows`.
    platform_family: str
    # `linux`, `macos`, `windows`, ...
    platform_os: str


METHODS = MethodTable()
INITIALIZE = METHODS.request("initialize", InitializeParams, InitializeResponse)
