"""`fs/*` through `codex-lsp app-server`: reading, writing, listing, copying and removing by
absolute path, errors that name the path, and `fs/changed` from `fs/watch`."""

from __future__ import annotations

import base64

from codex_lsp.api.port import INTERNAL_ERROR, INVALID_REQUEST
from tests.support.appserver import app_server, make_home


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_files_round_trip_and_directories(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        target = ws / "nested" / "deeper"
        assert client.result("fs/createDirectory", {"path": str(target)}) == {}
        note = target / "note.bin"
        payload = b"\x00binary\xffdata\n"
        client.result("fs/writeFile", {"path": str(note), "dataBase64": _b64(payload)})
        assert note.read_bytes() == payload
        read = client.result("fs/readFile", {"path": str(note)})
        assert base64.b64decode(read["dataBase64"]) == payload

        meta = client.result("fs/getMetadata", {"path": str(note)})
        assert meta["isFile"] and not meta["isDirectory"] and not meta["isSymlink"]
        assert meta["modifiedAtMs"] == int(note.stat().st_mtime * 1000)
        (ws / "link").symlink_to(note)
        link = client.result("fs/getMetadata", {"path": str(ws / "link")})
        assert link["isSymlink"] and link["isFile"]

        listing = client.result("fs/readDirectory", {"path": str(ws)})
        assert listing["entries"] == [
            {"fileName": "link", "isDirectory": False, "isFile": True},
            {"fileName": "nested", "isDirectory": True, "isFile": False},
        ]

        flat = client.call(
            "fs/copy", {"sourcePath": str(ws / "nested"), "destinationPath": str(ws / "copy")}
        )
        assert flat["error"]["message"] == (
            "fs/copy requires recursive: true when sourcePath is a directory"
        )
        client.result(
            "fs/copy",
            {
                "sourcePath": str(ws / "nested"),
                "destinationPath": str(ws / "copy"),
                "recursive": True,
            },
        )
        assert (ws / "copy" / "deeper" / "note.bin").read_bytes() == payload
        client.result("fs/copy", {"sourcePath": str(note), "destinationPath": str(ws / "one.bin")})
        assert (ws / "one.bin").read_bytes() == payload

        kept = client.call("fs/remove", {"path": str(ws / "copy"), "recursive": False})
        assert (
            kept["error"]["code"] == INTERNAL_ERROR and str(ws / "copy") in kept["error"]["message"]
        )
        assert client.result("fs/remove", {"path": str(ws / "copy")}) == {}
        assert not (ws / "copy").exists()
        assert client.result("fs/remove", {"path": str(ws / "never")}) == {}
        strict = client.call("fs/remove", {"path": str(ws / "never"), "force": False})
        assert strict["error"]["code"] == INTERNAL_ERROR


def test_errors_name_the_path_and_relative_paths_are_refused(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        missing = ws / "missing.txt"
        answer = client.call("fs/readFile", {"path": str(missing)})
        assert answer["error"]["code"] == INTERNAL_ERROR
        assert answer["error"]["message"].startswith(f"{missing}: No such file or directory")
        relative = client.call("fs/readFile", {"path": "notes/todo.md"})
        assert relative["error"]["code"] == INVALID_REQUEST
        assert "'notes/todo.md'" in relative["error"]["message"]
        (ws / "file").write_text("x")
        not_dir = client.call("fs/readDirectory", {"path": str(ws / "file")})
        assert "Not a directory" in not_dir["error"]["message"]
        no_parent = client.call(
            "fs/createDirectory", {"path": str(ws / "a" / "b"), "recursive": False}
        )
        assert str(ws / "a" / "b") in no_parent["error"]["message"]
        bad = client.call("fs/writeFile", {"path": str(ws / "x"), "dataBase64": "!!!"})
        assert bad["error"]["code"] == INVALID_REQUEST
        # The server is still there.
        assert client.result("fs/getMetadata", {"path": str(ws)})["isDirectory"]


def test_watch_reports_changes_until_unwatched(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    with app_server(home, ws) as client:
        watched = ws / "watched.txt"
        watched.write_text("v1")
        assert client.result("fs/watch", {"watchId": "w1", "path": str(watched)}) == {
            "path": str(watched)
        }
        twice = client.call("fs/watch", {"watchId": "w1", "path": str(watched)})
        assert twice["error"] == {"code": INVALID_REQUEST, "message": "watchId already exists: w1"}
        client.result("fs/watch", {"watchId": "tree", "path": str(ws)})

        (ws / "other.txt").write_text("not watched by w1")
        client.result("fs/writeFile", {"path": str(watched), "dataBase64": _b64(b"v2")})
        changed = client.wait_method("fs/changed", watchId="w1")
        assert changed["params"]["changedPaths"] == [str(watched)]
        tree = client.first("fs/changed", watchId="tree")
        assert set(tree["params"]["changedPaths"]) <= {str(watched), str(ws / "other.txt")}

        # A save that replaces the file through a rename is still a change of that file.
        (ws / "tmp-save").write_text("v3")
        (ws / "tmp-save").replace(watched)
        client.wait(
            lambda m: (
                m.get("method") == "fs/changed"
                and m["params"]["watchId"] == "w1"
                and m["params"]["changedPaths"] == [str(watched)]
            )
        )

        assert client.result("fs/unwatch", {"watchId": "w1"}) == {}
        assert client.result("fs/unwatch", {"watchId": "w1"}) == {}
        client.result("fs/unwatch", {"watchId": "tree"})
        heard = len(client.notifications("fs/changed", watchId="w1"))
        # A watch started after the unwatch sees a change made after this one; by the time it
        # reports, the unwatched file's change would have been reported too.
        marker = ws / "after-unwatch.txt"
        client.result("fs/watch", {"watchId": "marker", "path": str(marker)})
        watched.write_text("v4")
        marker.write_text("done")
        client.wait_method("fs/changed", watchId="marker")
        assert len(client.notifications("fs/changed", watchId="w1")) == heard
