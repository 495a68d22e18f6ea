"""`config/read`: the whole effective config, where each value came from, and the layers.

The config is every key the server runs with, defaults included, in `config.toml`'s snake_case
(the approval policy in its v2 spelling). Two layers can set values: the user's `config.toml`
(narrowed to the selected profile) and the session flags (`-c key=value` given to the server).
Each leaf key either of them set has an origin naming it; keys left at their defaults have none,
as in the reference server. With `includeLayers`, the layers themselves follow, lowest first,
each with the values it holds and a version (a hash of its text) for optimistic writes.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from typing import Any

from codex_lsp.api.config.problems import ConfigUnusable, read_failure
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.protocol.common import approval_policy_to_v2
from codex_lsp.protocol.config.models import (
    CONFIG_READ,
    Config,
    ConfigLayer,
    ConfigLayerMetadata,
    ConfigReadParams,
    ConfigReadResponse,
    SessionFlagsConfigLayerSource,
    UserConfigLayerSource,
)

# Kept out of the answer: the instructions text can be long, and the server reads it anyway.
_UNREPORTED = frozenset({"base_instructions"})


def _version(text: bytes) -> str:
    return "sha256:" + hashlib.sha256(text).hexdigest()


def _user_layer_values(raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8")) if raw else {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def read_config(params: ConfigReadParams, config: Any) -> ConfigReadResponse:
    values = {
        key: value
        for key, value in config.model_dump(mode="json").items()
        if key not in _UNREPORTED
    }
    if not isinstance(values["approval_policy"], dict):  # a granular table reads as it is
        values["approval_policy"] = approval_policy_to_v2(values["approval_policy"])
    path = config.config_path
    try:
        raw = path.read_bytes() if path is not None else b""
    except OSError:
        raw = b""
    user = UserConfigLayerSource(file=str(path or ""), profile=config.profile)
    user_meta = ConfigLayerMetadata(name=user, version=_version(raw))
    origins = config.config_origins()
    overrides = {key for key, origin in origins.items() if origin == "override"}
    flags_values: dict[str, Any] = {}
    for key in sorted(overrides):
        _set(flags_values, key, _leaf(values, key))
    flags_meta = ConfigLayerMetadata(
        name=SessionFlagsConfigLayerSource(),
        version=_version(json.dumps(flags_values, sort_keys=True).encode()),
    )
    by_layer = {"user": user_meta, "override": flags_meta}
    known = {key: by_layer[origin] for key, origin in origins.items() if origin in by_layer}
    layers = None
    if params.include_layers:
        layers = [ConfigLayer(name=user, version=user_meta.version, config=_user_layer_values(raw))]
        if flags_values:
            layers.append(
                ConfigLayer(name=flags_meta.name, version=flags_meta.version, config=flags_values)
            )
    return ConfigReadResponse(config=Config.model_validate(values), origins=known, layers=layers)


def _set(tree: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        tree = tree.setdefault(part, {})
    tree[last] = value


def _leaf(values: dict[str, Any], dotted: str) -> Any:
    """The value at a dotted key path of the effective config (None if it is not there)."""
    node: Any = values
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def handlers(ctx: ApiContext) -> Routes:
    async def serve(params: ConfigReadParams, _raw: dict[str, Any]) -> ConfigReadResponse:
        # Read afresh: the user may have edited config.toml since the server started.
        try:
            services = ctx.threads.load_services()
        except ConfigUnusable as err:
            raise read_failure(err.cause) from None
        try:
            return read_config(params, services.config)
        finally:
            if services.http is not None:
                await services.http.aclose()

    return Routes().on(CONFIG_READ, serve)
