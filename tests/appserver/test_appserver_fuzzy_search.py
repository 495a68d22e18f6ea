"""Fuzzy file search through `codex-lsp app-server`: ranking like a file picker, `.gitignore`
respected, the one-shot request and search sessions with their notifications."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codex_lsp.api.port import INVALID_REQUEST
from tests.support.appserver import app_server, make_home


def make_tree(root: Path) -> Path:
    """A small git work tree with an ignored folder and a nested source tree."""
    for relative in (
        "src/config.py",
        "src/sub/conf_utils.py",
        "src/main.rs",
        "docs/configuration.md",
        "node_modules/pkg/config.js",
        "build/out/config.o",
        "README.md",
        ".hidden_conf",
    ):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
    (root / ".gitignore").write_text("node_modules/\nbuild/\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def test_one_shot_search_ranks_names_first_and_respects_gitignore(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    tree = make_tree(tmp_path / "tree")
    with app_server(home, ws) as client:
        found = client.result("fuzzyFileSearch", {"query": "conf", "roots": [str(tree)]})
        paths = [f["path"] for f in found["files"]]
        assert "node_modules/pkg/config.js" not in paths and "build/out/config.o" not in paths
        assert paths[0] == "src/config.py"
        assert set(paths[:4]) == {
            "src/config.py",
            "src/sub/conf_utils.py",
            "docs/configuration.md",
            ".hidden_conf",
        }
        first = found["files"][0]
        assert first == {
            "root": str(tree),
            "path": "src/config.py",
            "match_type": "file",
            "file_name": "config.py",
            "score": first["score"],
            "indices": [4, 5, 6, 7],
        }
        scores = [f["score"] for f in found["files"]]
        assert scores == sorted(scores, reverse=True)

        folder = client.result("fuzzyFileSearch", {"query": "src", "roots": [str(tree)]})
        assert folder["files"][0]["path"] == "src"
        assert folder["files"][0]["match_type"] == "directory"
        spread = client.result("fuzzyFileSearch", {"query": "ssubutil", "roots": [str(tree)]})
        assert [f["path"] for f in spread["files"]] == ["src/sub/conf_utils.py"]

        assert client.result("fuzzyFileSearch", {"query": "", "roots": [str(tree)]}) == {
            "files": []
        }
        nowhere = client.result(
            "fuzzyFileSearch", {"query": "conf", "roots": ["relative", str(tree / "missing")]}
        )
        assert nowhere == {"files": []}


def test_sessions_stream_updates_then_complete(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    tree = make_tree(tmp_path / "tree")
    with app_server(home, ws) as client:
        assert (
            client.result("fuzzyFileSearch/sessionStart", {"sessionId": "s1", "roots": [str(tree)]})
            == {}
        )
        client.result("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "conf"})
        done = client.wait_method("fuzzyFileSearch/sessionCompleted", sessionId="s1")
        updates = [
            m for m in client.notifications("fuzzyFileSearch/sessionUpdated", sessionId="s1")
        ]
        assert updates and updates[-1]["params"]["query"] == "conf"
        assert updates[-1]["params"]["files"][0]["path"] == "src/config.py"
        assert client.received.index(updates[-1]) < client.received.index(done)

        client.result("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "mai"})
        client.wait(
            lambda m: (
                m.get("method") == "fuzzyFileSearch/sessionUpdated"
                and m["params"]["query"] == "mai"
            )
        )
        latest = client.notifications("fuzzyFileSearch/sessionUpdated", query="mai")[-1]
        assert [f["path"] for f in latest["params"]["files"]] == ["src/main.rs"]

        missing = client.call("fuzzyFileSearch/sessionUpdate", {"sessionId": "nope", "query": "x"})
        assert missing["error"] == {
            "code": INVALID_REQUEST,
            "message": "fuzzy file search session not found: nope",
        }
        assert client.result("fuzzyFileSearch/sessionStop", {"sessionId": "s1"}) == {}
        assert client.result("fuzzyFileSearch/sessionStop", {"sessionId": "s1"}) == {}
        gone = client.call("fuzzyFileSearch/sessionUpdate", {"sessionId": "s1", "query": "x"})
        assert gone["error"]["code"] == INVALID_REQUEST
