"""What a client is told about a patch the sandbox does not let through on its own: the
approval's reason says why in true words (a file inside the project is not "outside the
writable roots" when the sandbox is read-only), and a patch the approval settings refuse
shows as a declined file change with that reason, not as nothing at all."""

from __future__ import annotations

import pytest

from tests.support.appserver import app_server, items_of, make_home, text_input
from tests.support.scripted_builders import custom_tool_call_response, text_response

PATCH = "*** Begin Patch\n*** Add File: notes.txt\n+inside the project\n*** End Patch"


def _turn(client, thread_id: str, sandbox: dict, policy: str) -> None:
    client.request(
        "turn/start",
        {
            "threadId": thread_id,
            "input": [text_input("Write notes")],
            "approvalPolicy": policy,
            "sandboxPolicy": sandbox,
        },
    )


def test_read_only_sandbox_asks_for_an_in_project_patch_saying_the_sandbox_is_read_only(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("Written.", response_id="r2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        _turn(client, thread["id"], {"type": "readOnly"}, "on-request")
        request = client.wait_method("item/fileChange/requestApproval")
        reason = request["params"]["reason"]
        assert "outside" not in reason, reason
        assert "read-only" in reason and str(ws / "notes.txt") in reason, reason
        client.answer(request, {"decision": "accept"})
        client.wait_method("turn/completed", threadId=thread["id"])
    assert (ws / "notes.txt").read_text() == "inside the project\n"


def test_workspace_write_on_request_lands_an_in_project_patch_without_asking(
    scripted_model, tmp_path
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    scripted_model.enqueue(custom_tool_call_response("apply_patch", PATCH, call_id="p1"))
    scripted_model.enqueue(text_response("Written.", response_id="r2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        _turn(client, thread["id"], {"type": "workspaceWrite"}, "on-request")
        done = client.wait_method("turn/completed", threadId=thread["id"])
        assert done["params"]["turn"]["status"] == "completed"
        assert not client.notifications("item/fileChange/requestApproval")
    assert (ws / "notes.txt").read_text() == "inside the project\n"


@pytest.mark.parametrize(
    ("sandbox", "why"),
    [
        ({"type": "readOnly"}, "read-only sandbox"),
        # /tmp (where the test's folders are) is not a writable root here.
        (
            {"type": "workspaceWrite", "excludeSlashTmp": True, "excludeTmpdirEnvVar": True},
            "outside of the project",
        ),
    ],
)
def test_a_patch_refused_by_the_approval_settings_shows_as_declined_with_its_reason(
    scripted_model, tmp_path, sandbox, why
):
    home, ws = make_home(tmp_path, scripted_model.base_url)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    target = ws / "notes.txt" if sandbox["type"] == "readOnly" else outside / "notes.txt"
    patch = PATCH.replace("notes.txt", str(target))
    scripted_model.enqueue(custom_tool_call_response("apply_patch", patch, call_id="p1"))
    scripted_model.enqueue(text_response("Could not write.", response_id="r2"))
    with app_server(home, ws) as client:
        thread = client.start_thread()
        _turn(client, thread["id"], sandbox, "never")
        client.wait_method("turn/completed", threadId=thread["id"])
        [refused] = items_of(client.received, "item/completed", "fileChange")
        assert refused["id"] == "p1" and refused["status"] == "declined"
        assert [c["path"] for c in refused["changes"]] == [str(target)]
        said = "".join(
            m["params"]["delta"]
            for m in client.notifications("item/fileChange/outputDelta", itemId="p1")
        )
        assert why in said and str(target) in said, said
        assert not client.notifications("item/fileChange/requestApproval")
    assert not target.exists()
    told = next(
        item["output"]
        for item in scripted_model.requests[1].body["input"]
        if item.get("call_id") == "p1" and "output" in item
    )
    assert why in str(told)
