"""A workspace never chooses what the VS Code extension runs outside the sandbox. The agent's
commands can write `.vscode/settings.json`, so every `codexChat.*` setting that picks a program,
its arguments or environment, or the sandbox and approvals, is `machine`- or
`application`-scoped (VS Code takes it from the user's settings only), and the extension reads
those settings only through `userValue`, which leaves any workspace value out. Reads the
extension's manifest and sources; needs no editor."""

from __future__ import annotations

import json
import re
from pathlib import Path

EXT = Path(__file__).resolve().parents[2] / "editors" / "vscode"
USER_SCOPES = ("machine", "application")
# Words in a setting's name or description that mean it chooses what runs, or how confined.
PICKS_WHAT_RUNS = re.compile(
    r"command|arg|env|python|interpreter|program|executable|path|launcher|sandbox|approv"
    r"|full-auto|danger",
    re.IGNORECASE,
)
# Settings a workspace may set: they change how the editor shows things, nothing that runs.
WORKSPACE_SETTABLE = {"codexChat.hunkReview", "codexChat.trace.server"}


def settings() -> dict[str, dict]:
    manifest = json.loads((EXT / "package.json").read_text())
    sections = manifest["contributes"]["configuration"]
    if isinstance(sections, dict):
        sections = [sections]
    return {name: spec for section in sections for name, spec in section["properties"].items()}


def _text(spec: dict) -> str:
    return " ".join(str(spec.get(key, "")) for key in ("description", "markdownDescription"))


def test_every_setting_that_picks_what_runs_is_user_only():
    found = settings()
    assert found, "the manifest declares no settings"
    picking = {
        name
        for name, spec in found.items()
        if PICKS_WHAT_RUNS.search(name.removeprefix("codexChat.")) or name not in WORKSPACE_SETTABLE
    }
    assert {"codexChat.serverCommand", "codexChat.serverArgs"} <= picking
    wrong = {name: found[name].get("scope", "window") for name in picking}
    assert {n: s for n, s in wrong.items() if s not in USER_SCOPES} == {}


def test_a_workspace_settable_setting_names_nothing_that_runs():
    for name in WORKSPACE_SETTABLE:
        spec = settings()[name]
        assert spec.get("scope", "window") not in USER_SCOPES
        assert not re.search(r"command|program|executable|sandbox", _text(spec), re.I), name


def test_the_extension_reads_user_only_settings_through_user_value():
    user_only = sorted(
        name.removeprefix("codexChat.")
        for name, spec in settings().items()
        if spec.get("scope") in USER_SCOPES
    )
    listed = (EXT / "src" / "shared" / "userSettings.ts").read_text()
    declared = re.search(r"USER_ONLY_SETTINGS = \[([^\]]*)\]", listed)
    assert declared is not None
    assert sorted(re.findall(r"'([^']+)'", declared.group(1))) == user_only
    sources = [p for p in (EXT / "src").rglob("*.ts") if "unit" not in p.parts]
    for path in sources:
        text = path.read_text()
        for name in user_only:
            # `config.get('serverCommand')` would take a workspace's value when VS Code gives one.
            plain_read = re.search(rf"\.get\s*(<[^>]*>)?\(\s*['\"`]{name}['\"`]", text)
            assert plain_read is None, f"{path.relative_to(EXT)} reads {name} with get()"
    server = (EXT / "src" / "host" / "server.ts").read_text()
    assert "userValue(config.inspect" in server
