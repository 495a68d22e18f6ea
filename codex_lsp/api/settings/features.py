"""`hooks/list`, `experimentalFeature/list`, `experimentalFeature/enablement/set` and
`permissionProfile/list`.

Hooks: the engine runs the `PreToolUse` and `PostToolUse` hooks of `$CODEX_HOME/config.toml`
(`engine.hooks`); they are listed (`eventName`, `matcher`, `command`, `source`). Hooks of other
events there, and every hook of the other sources Codex reads (`hooks.json`, the project's
`.codex/` folders), are not run: the entry warns so, and a source that cannot be parsed is an
error naming the file.

Features are the `[features]` flags this engine reads (`store.features`). Switching one writes
it to config.toml (so the choice outlives the server, unlike the reference server's in-memory
switch) and loaded threads reload their config; names this engine does not know are ignored.

Permission profiles are the three built-in sandbox modes and the user's `[permissions.<id>]`
tables; nothing restricts which may be chosen.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from codex_lsp.api.config.problems import load_failure
from codex_lsp.api.config.reload import reload_loaded_threads
from codex_lsp.api.config.write import ConfigWriter
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.engine.skills.loader import project_root
from codex_lsp.protocol.settings.models import (
    EXPERIMENTAL_FEATURE_ENABLEMENT_SET,
    EXPERIMENTAL_FEATURE_LIST,
    HOOKS_LIST,
    PERMISSION_PROFILE_LIST,
    ExperimentalFeature,
    ExperimentalFeatureEnablementSetParams,
    ExperimentalFeatureEnablementSetResponse,
    ExperimentalFeatureListParams,
    ExperimentalFeatureListResponse,
    HookErrorInfo,
    HooksListEntry,
    HooksListParams,
    HooksListResponse,
    PermissionProfileListParams,
    PermissionProfileListResponse,
    PermissionProfileSummary,
)
from codex_lsp.store.bounded_read import PROJECT_CONFIG_MAX_BYTES, read_text
from codex_lsp.store.config import CONFIG_FILENAME, Config
from codex_lsp.store.config_edit import Edit
from codex_lsp.store.config_errors import ConfigError
from codex_lsp.store.config_keys import RUN_HOOK_EVENTS
from codex_lsp.store.features import BY_NAME, FEATURES, enabled

HOOKS_FILE = "hooks.json"
BUILT_IN_PROFILES = (":read-only", ":workspace", ":danger-full-access")


class Settings:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx
        self.writer = ConfigWriter(ctx)

    # -- hooks ----------------------------------------------------------------------------

    async def hooks_list(self, params: HooksListParams, _raw: dict[str, Any]) -> HooksListResponse:
        if params.thread_id is not None:
            cwd = self.ctx.threads.get(params.thread_id).cwd
            cwds = [cwd or Path(os.getcwd())]
        else:
            here = Path(os.getcwd())
            cwds = [here / Path(raw).expanduser() for raw in params.cwds or []] or [here]
        home = self.ctx.services().codex_home
        return HooksListResponse(data=[_hooks_entry(home, cwd) for cwd in cwds])

    # -- features -------------------------------------------------------------------------

    async def features_list(
        self, params: ExperimentalFeatureListParams, _raw: dict[str, Any]
    ) -> ExperimentalFeatureListResponse:
        if params.thread_id is not None:
            thread = self.ctx.threads.loaded.get(params.thread_id)
            if thread is None:
                raise ApiError(INVALID_REQUEST, f"thread not found: {params.thread_id}")
            flags = thread.services.config.features
        else:
            flags = self._config().features
        start, end = _page(params.cursor, params.limit, len(FEATURES))
        data = [
            ExperimentalFeature(
                name=feature.name,
                stage=feature.stage,
                enabled=enabled(feature, flags),
                default_enabled=feature.default_enabled,
                # As the reference: what a UI shows is given for beta features only.
                display_name=feature.display_name if feature.stage == "beta" else None,
                description=feature.description if feature.stage == "beta" else None,
                announcement="" if feature.stage == "beta" else None,
            )
            for feature in FEATURES[start:end]
        ]
        return ExperimentalFeatureListResponse(
            data=data, next_cursor=str(end) if end < len(FEATURES) else None
        )

    async def features_set(
        self, params: ExperimentalFeatureEnablementSetParams, _raw: dict[str, Any]
    ) -> ExperimentalFeatureEnablementSetResponse:
        applied = {
            name: value
            for name, value in params.enablement.items()
            if name in BY_NAME and BY_NAME[name].stage != "removed"
        }
        if applied:
            await self.writer.apply(
                [Edit(("features", name), value) for name, value in applied.items()]
            )
            await reload_loaded_threads(self.ctx)
        return ExperimentalFeatureEnablementSetResponse(enablement=applied)

    # -- permission profiles --------------------------------------------------------------

    async def permission_profiles(
        self, params: PermissionProfileListParams, _raw: dict[str, Any]
    ) -> PermissionProfileListResponse:
        profiles = [PermissionProfileSummary(id=name, allowed=True) for name in BUILT_IN_PROFILES]
        for name, table in sorted(self._raw_config().get("permissions", {}).items()):
            if isinstance(table, dict):
                described = table.get("description")
                profiles.append(
                    PermissionProfileSummary(
                        id=name,
                        allowed=True,
                        description=described if isinstance(described, str) else None,
                    )
                )
        start, end = _page(params.cursor, params.limit, len(profiles))
        return PermissionProfileListResponse(
            data=profiles[start:end], next_cursor=str(end) if end < len(profiles) else None
        )

    # -- reading the config ---------------------------------------------------------------

    def _config(self) -> Config:
        try:
            config: Config = self.ctx.services().reload_config()
        except ConfigError as err:
            raise load_failure(err) from None
        return config

    def _raw_config(self) -> dict[str, Any]:
        self._config()  # a broken file is reported the same way everywhere
        path = self.ctx.services().codex_home / CONFIG_FILENAME
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}


def _page(cursor: str | None, limit: int | None, total: int) -> tuple[int, int]:
    start = 0
    if cursor is not None:
        if not cursor.isdigit() or int(cursor) > total:
            raise invalid("cursor", f"not a cursor this server gave out: {cursor!r}")
        start = int(cursor)
    end = total if not limit else min(start + limit, total)
    return start, end


def _hooks_entry(home: Path, cwd: Path) -> HooksListEntry:
    entry = HooksListEntry(cwd=str(cwd), hooks=[], warnings=[], errors=[])
    for folder in _hook_folders(home, cwd):
        for path, defined in _hook_sources(folder):
            if isinstance(defined, Exception):
                entry.errors.append(HookErrorInfo(path=str(path), message=str(defined)))
            elif defined and path == home / CONFIG_FILENAME:
                _user_hooks(entry, path)
            elif defined:
                entry.warnings.append(f"hooks in {path} are not run: codex-lsp does not run hooks")
    return entry


def _user_hooks(entry: HooksListEntry, path: Path) -> None:
    """The user's config.toml: its `PreToolUse` / `PostToolUse` hooks run; others are named."""
    try:
        hooks = tomllib.loads(read_text(path, PROJECT_CONFIG_MAX_BYTES)).get("hooks")
    except (OSError, ValueError) as err:
        entry.errors.append(HookErrorInfo(path=str(path), message=str(err)))
        return
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        if event == "state":
            continue
        if event not in RUN_HOOK_EVENTS:
            entry.warnings.append(f"{event} hooks in {path} are not run by codex-lsp")
            continue
        for group in groups if isinstance(groups, list) else ():
            for hook in group.get("hooks", []) if isinstance(group, dict) else ():
                if isinstance(hook, dict) and isinstance(hook.get("command"), str):
                    entry.hooks.append(
                        {
                            "eventName": event,
                            "matcher": group.get("matcher"),
                            "command": hook["command"],
                            "source": str(path),
                        }
                    )


def _hook_folders(home: Path, cwd: Path) -> list[Path]:
    """`$CODEX_HOME`, then each `.codex/` from the project root down to `cwd`."""
    top = project_root(cwd) or cwd
    chain = [cwd, *cwd.parents]
    project = chain[: chain.index(top) + 1] if top in chain else [cwd]
    return [home, *(directory / ".codex" for directory in reversed(project))]


def _hook_sources(folder: Path) -> list[tuple[Path, bool | Exception]]:
    """Each hooks source in `folder`: whether it defines hooks, or why it cannot be read."""
    found: list[tuple[Path, bool | Exception]] = []
    hooks_json = folder / HOOKS_FILE
    if hooks_json.is_file():
        try:
            data = json.loads(read_text(hooks_json, PROJECT_CONFIG_MAX_BYTES))
            found.append((hooks_json, bool(isinstance(data, dict) and data.get("hooks"))))
        except (OSError, ValueError) as err:
            found.append((hooks_json, err))
    config = folder / CONFIG_FILENAME
    if config.is_file():
        try:
            hooks = tomllib.loads(read_text(config, PROJECT_CONFIG_MAX_BYTES)).get("hooks")
            events = {key for key in hooks if key != "state"} if isinstance(hooks, dict) else set()
            found.append((config, bool(events)))
        except (OSError, ValueError) as err:
            found.append((config, err))
    return found


def handlers(ctx: ApiContext) -> Routes:
    settings = Settings(ctx)
    return (
        Routes()
        .on(HOOKS_LIST, settings.hooks_list)
        .on(EXPERIMENTAL_FEATURE_LIST, settings.features_list)
        .on(EXPERIMENTAL_FEATURE_ENABLEMENT_SET, settings.features_set)
        .on(PERMISSION_PROFILE_LIST, settings.permission_profiles)
    )
