"""Approvals as a user meets them: which commands and patches ask, and what each answer does."""

from __future__ import annotations

from tests.support.engine import make_git_repo, running_engine, write_config
from tests.support.scripted_builders import (
    custom_tool_call_response,
    function_call_response,
    text_response,
)

ADD = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch"


def _output(scripted_model, index: int) -> str:
    body = scripted_model.requests[index].body
    return [i["output"] for i in body["input"] if i["type"].endswith("_output")][-1]


# Test trees live under /tmp, which workspace-write makes writable; leave it out so only the
# workspace counts as inside.
NO_TMP = "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"


async def _turn(scripted_model, tmp_path, policy, calls, approvals, sandbox="workspace-write"):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    write_config(
        home, scripted_model.base_url, approval_policy=policy, sandbox_mode=sandbox, extra=NO_TMP
    )
    for script in calls:
        scripted_model.enqueue(script)
    scripted_model.enqueue(text_response("ok"))
    async with running_engine(home) as engine:
        await engine.configure(cwd=str(ws))
        events = await engine.run_turn("go", approvals=approvals)
    return engine, events, ws


def _shell(command: str, call_id: str = "c1", **extra) -> list:
    return function_call_response("exec_command", {"cmd": command, **extra}, call_id=call_id)


async def test_untrusted_asks_for_every_command_and_every_patch(scripted_model, tmp_path):
    _engine, events, ws = await _turn(
        scripted_model,
        tmp_path,
        "untrusted",
        [
            _shell("ls"),
            _shell("touch made.txt", "c2"),
            custom_tool_call_response("apply_patch", ADD, call_id="c3"),
        ],
        ["approved", "approved", "approved"],
    )
    asked = [e.msg.type for e in events if e.msg.type.endswith("approval_request")]
    # Even `ls`, which only reads: the reference server asks before it too.
    assert asked == [
        "exec_approval_request",
        "exec_approval_request",
        "apply_patch_approval_request",
    ]
    assert (ws / "made.txt").exists() and (ws / "new.txt").read_text() == "hello\n"


async def test_never_forbids_dangerous_commands_and_tells_the_model(scripted_model, tmp_path):
    engine, events, _ws = await _turn(
        scripted_model, tmp_path, "never", [_shell("rm -rf build")], []
    )
    assert not engine.of_type("exec_approval_request", events)
    assert not engine.of_type("exec_command_begin", events)
    assert "rm -f style commands are not permitted. Use a safer approach" in _output(
        scripted_model, 1
    )


async def test_never_refuses_a_patch_outside_the_workspace_naming_the_path(
    scripted_model, tmp_path
):
    outside = tmp_path / "elsewhere" / "x.txt"
    patch = f"*** Begin Patch\n*** Add File: {outside}\n+no\n*** End Patch"
    _engine, _events, _ws = await _turn(
        scripted_model,
        tmp_path,
        "never",
        [custom_tool_call_response("apply_patch", patch)],
        [],
        sandbox="workspace-write",
    )
    sent = _output(scripted_model, 1)
    assert sent.startswith("patch rejected:") and str(outside) in sent
    assert not outside.exists()


async def test_denied_goes_on_and_approved_for_session_is_remembered(scripted_model, tmp_path):
    engine, events, ws = await _turn(
        scripted_model,
        tmp_path,
        "untrusted",
        [_shell("touch a.txt"), _shell("touch b.txt", "c2"), _shell("touch b.txt", "c3")],
        ["denied", "approved_for_session"],
    )
    assert len(engine.of_type("exec_approval_request", events)) == 2  # c3 was remembered
    assert _output(scripted_model, 1) == "exec command rejected by user"
    assert not (ws / "a.txt").exists() and (ws / "b.txt").exists()
    assert engine.of_type("task_complete", events)


async def test_abort_ends_the_turn(scripted_model, tmp_path):
    _engine, events, ws = await _turn(
        scripted_model, tmp_path, "untrusted", [_shell("touch a.txt")], ["abort"]
    )
    assert events[-1].msg.type == "turn_aborted" and events[-1].msg.reason == "interrupted"
    assert not (ws / "a.txt").exists()


async def test_on_failure_offers_to_rerun_a_sandbox_denied_command_unsandboxed(
    scripted_model, tmp_path
):
    target = tmp_path / "ws" / ".git" / "written-by-agent"
    engine, events, _ = await _turn(
        scripted_model, tmp_path, "on-failure", [_shell(f"touch {target}")], ["approved"]
    )
    requests = engine.of_type("exec_approval_request", events)
    assert [r.reason for r in requests] == ["command failed; retry without sandbox?"]
    assert len(engine.of_type("exec_command_begin", events)) == 2
    assert target.exists()  # the approved unsandboxed rerun did it


async def test_on_request_escalation_is_asked_with_the_justification(scripted_model, tmp_path):
    engine, events, ws = await _turn(
        scripted_model,
        tmp_path,
        "on-request",
        [
            _shell(
                "touch made.txt", sandbox_permissions="require_escalated", justification="needs it"
            )
        ],
        ["approved"],
    )
    assert engine.of_type("exec_approval_request", events)[0].reason == "needs it"
    assert (ws / "made.txt").exists()


async def test_on_failure_asks_before_a_patch_lands_outside_the_workspace(scripted_model, tmp_path):
    # Patches land through the Workspace, not inside the sandbox, so nothing would
    # catch this write afterwards: the user must be asked first.
    outside = tmp_path / "elsewhere" / "x.txt"
    patch = f"*** Begin Patch\n*** Add File: {outside}\n+no\n*** End Patch"
    engine, events, _ws = await _turn(
        scripted_model,
        tmp_path,
        "on-failure",
        [custom_tool_call_response("apply_patch", patch)],
        ["denied"],
    )
    [request] = engine.of_type("apply_patch_approval_request", events)
    assert str(outside) in (request.reason or "")
    assert _output(scripted_model, 1) == "patch rejected by user"
    assert not outside.exists()


async def test_a_patch_run_from_another_workdir_keeps_the_sessions_roots(scripted_model, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x.txt\n+no\n*** End Patch\nEOF"
    _engine, _events, _ws = await _turn(
        scripted_model, tmp_path, "never", [_shell(heredoc, workdir=str(elsewhere))], []
    )
    sent = _output(scripted_model, 1)
    assert sent.startswith("patch rejected:") and str(elsewhere / "x.txt") in sent
    assert not (elsewhere / "x.txt").exists()


async def test_without_a_sandbox_a_permission_error_is_not_offered_a_rerun(
    scripted_model, tmp_path
):
    failing = "echo 'cat: secret: Permission denied' >&2; exit 1"
    engine, events, _ = await _turn(
        scripted_model, tmp_path, "on-failure", [_shell(failing)], [], sandbox="danger-full-access"
    )
    assert not engine.of_type("exec_approval_request", events)
    assert len(engine.of_type("exec_command_begin", events)) == 1
    assert "Permission denied" in _output(scripted_model, 1)
