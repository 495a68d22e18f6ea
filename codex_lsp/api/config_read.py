"""`config/read`: the effective config, where each value came from, and optionally the layers.

Two layers exist: the user's `config.toml` (narrowed to the selected profile) and the session
flags (`-c key=value` given to the server). Built-in defaults are not a layer, so keys left at
their defaults have no origin, as in the reference server.
"""

from __future__ import annotations

import hashlib
import tomllib
from typing import Any

from codex_lsp.protocol.v2_common import approval_policy_to_v2
from codex_lsp.protocol.v2_config import (
    Config,
    ConfigLayer,
    ConfigLayerMetadata,
    ConfigReadParams,
    ConfigReadResponse,
    SessionFlagsConfigLayerSource,
    UserConfigLayerSource,
)

# Keys of the engine's config that `config/read` reports (the v2 `Config` shape).
_REPORTED = (
    "model",
    "model_provider",
    "model_context_window",
    "model_auto_compact_token_limit",
    "model_reasoning_effort",
    "model_reasoning_summary",
    "model_verbosity",
    "review_model",
    "sandbox_mode",
    "sandbox_workspace_write",
    "instructions",
    "developer_instructions",
    "forced_login_method",
    "profile",
)


def _version(text: bytes) -> str:
    return "sha256:" + hashlib.sha256(text).hexdigest()


def read_config(params: ConfigReadParams, config: Any) -> ConfigReadResponse:
    values = config.model_dump(mode="json")
    reported = {key: values.get(key) for key in _REPORTED if values.get(key) is not None}
    reported["approval_policy"] = approval_policy_to_v2(values["approval_policy"])
    path = config.config_path
    try:
        raw = path.read_bytes() if path is not None else b""
    except OSError:
        raw = b""
    user = UserConfigLayerSource(file=str(path or ""), profile=config.profile)
    user_meta = ConfigLayerMetadata(name=user, version=_version(raw))
    flags_meta = ConfigLayerMetadata(name=SessionFlagsConfigLayerSource(), version="")
    origins = {}
    for key, origin in config.config_origins().items():
        if key.split(".", 1)[0] not in _REPORTED and key != "approval_policy":
            continue
        if origin == "user":
            origins[key] = user_meta
        elif origin == "override":
            origins[key] = flags_meta
    layers = None
    if params.include_layers:
        try:
            user_values = tomllib.loads(raw.decode("utf-8")) if raw else {}
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            user_values = {}
        layers = [ConfigLayer(name=user, version=user_meta.version, config=user_values)]
    return ConfigReadResponse(
        config=Config.model_validate(reported), origins=origins, layers=layers
    )
