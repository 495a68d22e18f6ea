"""Files a command planted in the workspace, through `codex-lsp app-server`: a sparse AGENTS.md
of 1.5 GB, a 1.5 GB file under apply_patch, a FIFO named like a source file. The server reads
only regular files, never more than its caps (its peak memory stays far below the file's
size), answers with an error that says why, and keeps answering other requests and
`turn/interrupt` meanwhile.

Sparse files cost no disk (`os.truncate`); memory is the server process's peak resident size
(`VmHWM`), checked against a generous bound, not a measurement.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from codex_lsp.api.port import INTERNAL_ERROR
from tests.support.appserver import AppServerClient, app_server, make_home, text_input
from tests.support.scripted_builders import (
    created,
    custom_tool_call_response,
    message_item,
    text_response,
)

HUGE = 1536 * 1024 * 1024  # 1.5 GiB, sparse
# Far below the file, far above a Python server's own needs.
PEAK_RSS_BOUND = 600 * 1024 * 1024
FIFO_REFUSED = "not a regular file: a FIFO"


def sparse(path: Path, head: bytes, size: int = HUGE) -> Path:
    path.write_bytes(head)
    os.truncate(path, size)
    return path


def peak_rss(client: AppServerClient) -> int:
    status = Path(f"/proc/{client.process.pid}/status").read_text()
    line = next(row for row in status.splitlines() if row.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024


def tool_output(body: Any, call_id: str) -> str:
    for item in body["input"]:
        if item.get("type") in ("function_call_output", "custom_tool_call_output") and (
            item.get("call_id") == call_id
        ):
            output = item["output"]
            return output if isinstance(output, str) else json.dumps(output)
    raise AssertionError(f"no output for {call_id} in the request")


def agents_sections(body: Any) -> list[str]:
    texts = [
        part["text"]
        for item in body["input"]
        if item.get("role") == "user"
        for part in item.get("content", [])
        if part.get("type") == "input_text"
    ]
    return [text for text in texts if text.startswith("# AGENTS.md instructions")]


@pytest.mark.parametrize(
    ("config", "cap"),
    [({}, 32 * 1024), ({"extra": "project_doc_max_bytes = 1000"}, 1000)],
    ids=["default-cap", "project_doc_max_bytes"],
)
def test_a_sparse_agents_md_is_read_only_up_to_project_doc_max_bytes(
    scripted_model, tmp_path, config, cap
):
    home, ws = make_home(tmp_path, scripted_model.base_url, **config)
    sparse(ws / "AGENTS.md", b"Answer in French.\n")
    scripted_model.enqueue(text_response("Bonjour."))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        _, done = client.run_turn(thread["id"], "Say hello.")
        assert done["params"]["turn"]["status"] == "completed"
        assert peak_rss(client) < PEAK_RSS_BOUND
    [section] = agents_sections(scripted_model.requests[0].body)
    body = section.split("<INSTRUCTIONS>\n", 1)[1].rsplit("\n</INSTRUCTIONS>", 1)[0]
    assert body.startswith("Answer in French.\n")
    assert len(body.encode()) == cap


def test_agents_md_files_share_one_budget_from_the_repository_root_down(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url, extra="project_doc_max_bytes = 30")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "AGENTS.md").write_text("Root rules, twenty bytes\n")  # 25 bytes
    package = ws / "pkg"
    package.mkdir()
    (package / "AGENTS.md").write_text("Package rules\n")
    scripted_model.enqueue(text_response("Done."))
    with app_server(home, package) as client:
        thread = client.start_thread()
        client.run_turn(thread["id"], "Go.")
    sections = agents_sections(scripted_model.requests[0].body)
    assert [s.split("\n<INSTRUCTIONS>\n")[1].split("\n</INSTRUCTIONS>")[0] for s in sections] == [
        "Root rules, twenty bytes\n",
        "Packa",
    ]


PATCHES = {
    "update": "*** Begin Patch\n*** Update File: {name}\n@@\n-x\n+y\n*** End Patch\n",
    "delete": "*** Begin Patch\n*** Delete File: {name}\n*** End Patch\n",
    "add-over": "*** Begin Patch\n*** Add File: {name}\n+print('hi')\n*** End Patch\n",
}


def _patch_turn(scripted_model, tmp_path, patch):
    """A home and workspace whose model sends `patch`, then answers."""
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_p"))
    scripted_model.enqueue(text_response("Noted.", response_id="resp_2"))
    return home, ws


@pytest.mark.parametrize("sandbox", ["workspace-write", "danger-full-access"])
@pytest.mark.parametrize("kind", ["update", "delete"])
def test_apply_patch_refuses_a_file_over_its_cap_without_reading_it(
    scripted_model, tmp_path, sandbox, kind
):
    home, ws = _patch_turn(scripted_model, tmp_path, PATCHES[kind].format(name="big.txt"))
    sparse(ws / "big.txt", b"x\n")
    with app_server(home, ws) as client:
        thread = client.start_thread(sandbox=sandbox)
        _, done = client.run_turn(thread["id"], "Change big.txt")
        assert done["params"]["turn"]["status"] == "completed"
        assert peak_rss(client) < PEAK_RSS_BOUND
    output = tool_output(scripted_model.requests[1].body, "call_p")
    assert f"too large ({HUGE} bytes, limit {16 * 1024 * 1024})" in output
    assert "apply_patch does not edit files this large" in output
    assert os.path.getsize(ws / "big.txt") == HUGE


def plant(path: Path, what: str) -> str:
    """Something that is not a regular file at `path`; what the refusal calls it."""
    if what == "fifo":
        os.mkfifo(path)
        return "a FIFO"
    if what == "socket":
        with socket.socket(socket.AF_UNIX) as listener:
            # Bound by a relative name: a temp path may be longer than a socket address.
            here = os.getcwd()
            os.chdir(path.parent)
            try:
                listener.bind(path.name)
            finally:
                os.chdir(here)
        return "a socket"
    path.symlink_to("/dev/zero")  # endless, and its size says 0
    return "a character device"


@pytest.mark.parametrize("sandbox", ["workspace-write", "danger-full-access"])
@pytest.mark.parametrize(
    ("what", "kind"),
    [
        ("fifo", "update"),
        ("fifo", "delete"),
        ("fifo", "add-over"),
        ("socket", "update"),
        ("device-link", "update"),
        ("device-link", "delete"),
    ],
)
def test_apply_patch_on_a_planted_special_file_says_it_is_not_a_regular_file(
    scripted_model, tmp_path, sandbox, what, kind
):
    home, ws = _patch_turn(scripted_model, tmp_path, PATCHES[kind].format(name="main.py"))
    called = plant(ws / "main.py", what)
    before = os.lstat(ws / "main.py")
    with app_server(home, ws) as client:
        thread = client.start_thread(sandbox=sandbox)
        _, done = client.run_turn(thread["id"], "Change main.py")
        assert done["params"]["turn"]["status"] == "completed"
    output = tool_output(scripted_model.requests[1].body, "call_p")
    assert f"not a regular file: {called}" in output and "main.py" in output
    after = os.lstat(ws / "main.py")
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)


def test_turn_interrupt_is_answered_while_a_tool_targets_a_fifo(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    os.mkfifo(ws / "main.py")
    patch = PATCHES["update"].format(name="main.py")
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="call_p"))
    # Should the tool come back, the model then talks until it is interrupted.
    stalled = [created("resp_2"), *message_item("Let me see ")[:2], {"stall_s": 60}]
    scripted_model.enqueue(stalled)
    with app_server(home, ws) as client:
        thread = client.start_thread()
        turn = client.result(
            "turn/start", {"threadId": thread["id"], "input": [text_input("Fix main.py")]}
        )["turn"]
        scripted_model.wait_for_requests(1)
        # Past the first answer's few events: the tool has the FIFO by now.
        time.sleep(1.0)
        answer = client.call("turn/interrupt", {"threadId": thread["id"], "turnId": turn["id"]})
        assert answer.get("result") == {}, answer
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "interrupted"
        # The server is still there for the next request.
        assert "data" in client.result("thread/list", {})


def test_fs_read_file_on_a_fifo_is_refused_and_never_blocks_other_requests(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    fifo = ws / "main.py"
    os.mkfifo(fifo)
    with app_server(home, ws) as client:
        client.start_thread()  # something for thread/list to list
        reads = [client.request("fs/readFile", {"path": str(fifo)}) for _ in range(41)]
        listed = client.call("thread/list", {})
        assert "result" in listed, listed
        for request_id in reads:
            error = client.response(request_id)["error"]
            assert error["code"] == INTERNAL_ERROR
            assert error["message"].startswith(f"{fifo}: {FIFO_REFUSED}")
        written = client.call("fs/writeFile", {"path": str(fifo), "dataBase64": "aGk="})
        assert written["error"]["message"].startswith(f"{fifo}: {FIFO_REFUSED}")


def test_fs_read_file_refuses_a_file_over_its_cap(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    big = sparse(ws / "big.bin", b"data")
    with app_server(home, ws) as client:
        error = client.call("fs/readFile", {"path": str(big)})["error"]
        assert error["message"].startswith(
            f"{big}: too large ({HUGE} bytes, limit {32 * 1024 * 1024})"
        )
        assert peak_rss(client) < PEAK_RSS_BOUND


def test_a_skill_file_over_its_cap_is_skipped_with_the_reason(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    skill = ws / ".agents" / "skills" / "huge" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    sparse(skill, b"---\nname: huge\ndescription: Planted.\n---\n")
    scripted_model.enqueue(text_response("Fine."))
    with app_server(home, ws) as client:
        (entry,) = client.result("skills/list", {"cwds": [str(ws)]})["data"]
        _, done = client.run_turn(client.start_thread()["id"], "use $huge")
        assert done["params"]["turn"]["status"] == "completed"
        assert peak_rss(client) < PEAK_RSS_BOUND
    assert entry["skills"] == []
    assert entry["errors"] == [
        {
            "path": str(skill),
            "message": f"cannot read the file: too large ({HUGE} bytes, limit {1024 * 1024})",
        }
    ]


def test_hooks_list_reads_a_projects_codex_files_only_up_to_their_cap(scripted_model, tmp_path):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    (ws / ".git").mkdir()
    folder = ws / ".codex"
    folder.mkdir()
    config = sparse(folder / "config.toml", b"[hooks]\n")
    os.mkfifo(folder / "hooks.json")
    with app_server(home, ws) as client:
        (entry,) = client.result("hooks/list", {"cwds": [str(ws)]})["data"]
        assert peak_rss(client) < PEAK_RSS_BOUND
    assert [error["path"] for error in entry["errors"]] == [str(config)]
    assert f"too large ({HUGE} bytes, limit {1024 * 1024})" in entry["errors"][0]["message"]
