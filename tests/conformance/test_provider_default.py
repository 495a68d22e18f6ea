"""`modelProvider/default/set`: the real `codex app-server` and ours, side by side.

The request writes `model_provider` to config.toml for a configured provider and refuses one
that is not configured; both servers must answer alike and leave the same key in the file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Side, run_on

PROXY = '\n[model_providers.proxy]\nname = "Proxy"\nbase_url = "http://127.0.0.1:9/v1"\n'


def _set_defaults(side: Side, tmp_path: Path) -> list[tuple[str, Any, str | None]]:
    seen = []
    with run_on(side, tmp_path) as run:
        config = run.home / "config.toml"
        config.write_text(config.read_text() + PROXY)
        for provider_id in ("proxy", "not-configured", "openai"):
            answer = run.client.response(
                run.client.request("modelProvider/default/set", {"providerId": provider_id})
            )
            if "result" in answer:
                result = answer["result"]
                shape: Any = (result["status"], sorted(result), result["filePath"] == str(config))
            else:
                error = answer["error"]
                shape = (error["code"], error["message"], error.get("data"))
            written = tomllib.loads(config.read_text()).get("model_provider")
            seen.append((provider_id, shape, written))
    return seen


@pytest.mark.parametrize("side", ["ours", "ours-lsp"])
def test_setting_the_default_provider_as_the_real_server_does(side: Side, tmp_path: Path) -> None:
    real = _set_defaults("real", tmp_path / "real")
    assert real[0][2] == "proxy" and real[1][1][0] == -32600 and real[2][2] == "openai"
    assert _set_defaults(side, tmp_path / side) == real
