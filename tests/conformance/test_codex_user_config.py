"""A Codex user's config.toml (`tests/data/codex_home/`) read by the real `codex app-server`
0.171 and by ours: `config/read` reports the same effective values for the keys the file sets.

Each key whose value differs is listed in `DIFFERENCES` with the reason; a difference not
listed, or a listed one that went away, fails the test.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.servers import Run, Side, scratch_root
from tests.support.scripted_model import ScriptedModelServer

HOME = Path(__file__).resolve().parents[1] / "data" / "codex_home"

# key -> why the two servers report it differently (none today: every key the file sets
# reads back with the real server's value).
DIFFERENCES: dict[str, str] = {}


def _leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from _leaves(inner, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, value


def _read(side: Side, tmp_path: Path) -> dict[str, Any]:
    with scratch_root(f"userconfig-{side}") as root, ScriptedModelServer() as model:
        home = root / "home"
        shutil.copytree(HOME, home)
        config = home / "config.toml"
        config.write_text(config.read_text().replace("http://127.0.0.1:9/v1", model.base_url))
        ws = tmp_path / side / "ws"
        ws.mkdir(parents=True)
        base_url = model.base_url
        run = Run(side, home, ws.resolve(), model)
        try:
            client = run.start()
            answer = client.response(client.request("config/read", {"includeLayers": False}))
        finally:
            run.close()
    assert "result" in answer, answer
    text = json.dumps(answer["result"]["config"])
    return json.loads(text.replace(str(home), "<home>").replace(base_url, "<model>"))


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("userconfig")
    return _read("real", tmp), _read("ours", tmp)


def test_config_read_reports_the_file_as_the_real_server_does(
    both: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    real, ours = both
    written = dict(_leaves(tomllib.loads((HOME / "config.toml").read_text())))
    real_leaves, our_leaves = dict(_leaves(real)), dict(_leaves(ours))
    differing = {}
    assert written, "the file sets keys"
    for key in written:
        assert key in real_leaves, f"the real server does not report {key}"
        if real_leaves.get(key) != our_leaves.get(key):
            differing[key] = (real_leaves.get(key), our_leaves.get(key))
    assert set(differing) == set(DIFFERENCES), differing
