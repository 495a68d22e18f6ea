"""`codex-lsp acp` side by side with the official Codex ACP adapter over the real codex 0.171.

Each scenario of `scenarios.py` runs through both agents with the same client and the same
scripted model; their session's `session/update` streams are compared by shape (`sides.py`):
the order of the update kinds during the turns, the set-up updates of the session, the kind
and statuses of each tool call, the key paths each kind of update carries, and the stop
reasons. Every difference that remains must be one of `DIFFERENCES`, each with its reason,
and every entry must still excuse something in each scenario it names.

Also here: the adapter driven over codex-lsp (`CODEX_PATH` at a launcher of
`codex-lsp app-server`) completes a turn and closes its session.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from acp import text_block

from tests.acp.scenarios import SCENARIOS, Outcome
from tests.acp.sides import CHUNKS, REPO_ROOT, Side, new_run, shape
from tests.support.acp_client import WAIT_S, RecordingClient, acp_agent, agent_env
from tests.support.scripted_builders import text_response


@dataclass(frozen=True)
class Difference:
    """What one side shows and the other does not, on purpose.

    `what`: `kind:K`, an update kind only `side` sends (left out of its sequence); `order:K`,
    an update kind both send at different places (compared without its place); `racy:K`, an
    update kind whose arrival depends on timing (left out on both sides); `path:GLOB`, key
    paths (`<update kind>:<path>`) only `side` carries."""

    side: Side
    what: str
    scenarios: tuple[str, ...]
    reason: str


ALL = tuple(SCENARIOS)
TURNS = tuple(name for name in SCENARIOS if name != "load_replays_history")

DIFFERENCES = (
    Difference(
        "ours",
        "path:current_mode_update:*",
        TURNS,
        "codex-lsp serves both ACP ways of choosing a mode: `session/set_mode` (whose change "
        "is told with `current_mode_update`) and the `mode` config option. The adapter serves "
        "only the config option, so it tells only `config_option_update`.",
    ),
    Difference(
        "adapter",
        "path:tool_call:content*",
        ("command_with_permission",),
        "The adapter shows a command as a `terminal` content whose output it streams in `_meta` "
        "extensions that only Zed reads, without the client having offered terminals. "
        "codex-lsp shows the output as text content, which every client renders, and the exit "
        "code in `rawOutput`.",
    ),
    Difference(
        "ours",
        "path:tool_call_update:rawOutput*",
        ("command_with_permission", "load_replays_history"),
        "The exit code and output of a command, for clients that show a tool call's raw output "
        "(the adapter puts them in a Zed-only `_meta` extension).",
    ),
    Difference(
        "ours",
        "path:tool_call_update:content*",
        ("command_with_permission", "load_replays_history"),
        "A command's output as text content (see the adapter's `terminal` content).",
    ),
    Difference(
        "ours",
        "path:tool_call:content[].content*",
        ("load_replays_history",),
        "A replayed command shows its output as text content; the adapter's `terminal` content "
        "refers to a terminal that no longer exists after a restart.",
    ),
    Difference(
        "adapter",
        "path:tool_call:content[].terminalId",
        ("load_replays_history",),
        "See the adapter's `terminal` content of a command.",
    ),
    Difference(
        "ours",
        "path:tool_call_update:status",
        ("load_replays_history",),
        "A replayed command's closing update restates its final status; the adapter's carries "
        "only the terminal's exit in `_meta`.",
    ),
    Difference(
        "ours",
        "path:tool_call:locations*",
        ("patch_as_diff",),
        "The files a patch touches, as ACP `locations`: clients let the user follow the agent "
        "to them. The adapter sends none.",
    ),
    Difference(
        "ours",
        "path:tool_call:rawInput*",
        ("patch_as_diff",),
        "The patch's changes as the engine describes them (unified diffs), for clients that "
        "show a tool call's raw input.",
    ),
    Difference(
        "adapter",
        "kind:tool_call_update",
        ("plan_mode",),
        "At the end of a Plan mode turn the adapter asks the user, as a permission request of "
        "kind `switch_mode`, whether to implement the plan, and settles that pseudo tool call. "
        "codex-lsp ends the turn with the plan and leaves Plan mode when the user picks "
        "another mode, as on its other doors.",
    ),
    Difference(
        "ours",
        "racy:usage_update",
        ("load_replays_history",),
        "The thread's token count is restored when it is loaded, and codex-lsp tells it as it "
        "loads; the adapter tells it after its answer to `session/load`, which the client may "
        "or may not see before the test ends.",
    ),
    Difference(
        "ours",
        "order:usage_update",
        ("plan_mode",),
        "codex-lsp's engine completes a Plan mode turn's plan item (shown as the answer's last "
        "chunk) after the response's token count; the real codex streams the plan's text before "
        "the count.",
    ),
)

# What tells the client about the session rather than a turn: compared as a set.
SETUP = {"available_commands_update", "current_mode_update", "config_option_update"}
# The adapter tells the thread's status (an extension in `_meta`) with `session_info_update`
# at every change; titles, the part both send, are compared by their key paths.
IGNORED = {"session_info_update"}


def _applies(difference: Difference, scenario: str, side: Side) -> bool:
    return difference.side == side and scenario in difference.scenarios


def _turn_kinds(kinds: tuple[str, ...], dropped: set[str]) -> list[str]:
    kept: list[str] = []
    for kind in kinds:
        if kind in SETUP or kind in dropped or (kept and kept[-1] == kind and kind in CHUNKS):
            continue
        kept.append(kind)
    return kept


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_the_session_updates_match_the_official_adapter(scenario):
    outcomes: dict[Side, Outcome] = {}
    for side in ("ours", "adapter"):
        async with new_run(side) as run:
            outcomes[side] = await asyncio.wait_for(SCENARIOS[scenario](run), 3 * WAIT_S)
    assert outcomes["ours"].stop_reasons == outcomes["adapter"].stop_reasons
    shapes = {side: shape(outcome.updates, IGNORED) for side, outcome in outcomes.items()}
    used: set[Difference] = set()

    def dropped(side: Side) -> set[str]:
        found = set()
        for difference in DIFFERENCES:
            prefix, _, name = difference.what.partition(":")
            applies = _applies(difference, scenario, side) and prefix in ("kind", "order")
            if applies and name in shapes[side].kinds:
                used.add(difference)
                found.add(name)
                if prefix == "order":
                    other: Side = "adapter" if side == "ours" else "ours"
                    assert name in shapes[other].kinds, f"{name} is sent by one side only"
        return found

    racy = {
        d.what.partition(":")[2]
        for d in DIFFERENCES
        if scenario in d.scenarios and d.what.startswith("racy:")
    }
    used.update(d for d in DIFFERENCES if scenario in d.scenarios and d.what.startswith("racy:"))
    ours_drop, adapter_drop = dropped("ours") | racy, dropped("adapter") | racy
    orders = {d.what.partition(":")[2] for d in used if d.what.startswith("order:")}
    assert _turn_kinds(shapes["ours"].kinds, ours_drop | orders) == _turn_kinds(
        shapes["adapter"].kinds, adapter_drop | orders
    )
    ours_setup = set(shapes["ours"].kinds) & SETUP
    adapter_setup = set(shapes["adapter"].kinds) & SETUP
    assert adapter_setup <= ours_setup
    # A tool call never announced (the adapter's plan review) is compared with its kind.
    unannounced = {"?"} if "tool_call_update" in adapter_drop else set()
    adapter_calls = tuple(c for c in shapes["adapter"].tool_calls if c[0] not in unannounced)
    assert shapes["ours"].tool_calls == adapter_calls

    drops: dict[Side, set[str]] = {"ours": ours_drop, "adapter": adapter_drop}
    for side, other in (("ours", "adapter"), ("adapter", "ours")):
        extra = shapes[side].paths - shapes[other].paths
        for path in sorted(extra):
            if path.partition(":")[0] in drops[side] - orders:
                continue  # an update kind only this side sends, excused whole
            excuses = [
                d
                for d in DIFFERENCES
                if _applies(d, scenario, side)
                and d.what.startswith("path:")
                and fnmatch.fnmatchcase(path, d.what[len("path:") :])
            ]
            assert excuses, f"{scenario}: only {side} sends {path}"
            used.update(excuses)

    stale = [d for d in DIFFERENCES if scenario in d.scenarios and d not in used]
    assert not stale, f"differences that no longer excuse anything in {scenario}: {stale}"


async def test_the_permission_options_cover_the_adapters():
    """Ours offers the adapter's option kinds for a command, and adds "reject always"."""
    kinds: dict[Side, list[str]] = {}
    for side in ("ours", "adapter"):
        async with new_run(side) as run:
            outcome = await asyncio.wait_for(SCENARIOS["command_with_permission"](run), 3 * WAIT_S)
        request = outcome.permission_requests[0]
        assert request["toolCall"]["toolCallId"] == "call_cmd"
        title = request["toolCall"]["title"]
        # Ours says that approving runs the command outside the sandbox; the adapter does not.
        expected = "Run OUTSIDE the sandbox: " if side == "ours" else ""
        assert title == f"{expected}echo ran >> log.txt"
        kinds[side] = [option["kind"] for option in request["options"]]
    assert set(kinds["adapter"]) <= set(kinds["ours"])
    assert set(kinds["ours"]) - set(kinds["adapter"]) == {"reject_always"}


def _launcher(directory: Path) -> Path:
    """An executable that is `codex` to the adapter: its `app-server` is codex-lsp's."""
    launcher = directory / "codex"
    launcher.write_text(
        f'#!/bin/sh\nPYTHONPATH="{REPO_ROOT}" exec "{sys.executable}" -m codex_lsp "$@"\n'
    )
    launcher.chmod(launcher.stat().st_mode | stat.S_IXUSR)
    return launcher


async def test_the_official_adapter_over_codex_lsp_runs_a_turn_and_closes_the_session():
    async with new_run("adapter") as run:
        run.model.enqueue(text_response("Hello over codex-lsp."))
        client = RecordingClient()
        env = agent_env(
            run.home,
            CODEX_PATH=str(_launcher(run.home)),
            MODEL_PROVIDER="scripted",
            INITIAL_AGENT_MODE="workspace-write",
        )
        async with acp_agent(run.home, run.ws, client, command=run.command(), env=env) as conn:
            session = await conn.new_session(cwd=str(run.ws), mcp_servers=[])
            sid = session.session_id
            answer = await asyncio.wait_for(
                conn.prompt(session_id=sid, prompt=[text_block("Say hello.")]), WAIT_S
            )
            assert answer.stop_reason == "end_turn"
            assert client.text("agent_message_chunk", sid) == "Hello over codex-lsp."
            await asyncio.wait_for(conn.close_session(session_id=sid), WAIT_S)
        assert conn.process.returncode in (None, 0, -15)
        assert os.path.isdir(run.home / "sessions")
