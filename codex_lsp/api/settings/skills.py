"""`skills/config/write` and `skills/extraRoots/set`: turning skills on and off, and where else
to find them.

Enabling or disabling a skill writes a `[[skills.config]]` entry to config.toml (replacing the
one that chose the same skill the same way), then loaded threads reload their config, so the
next turn offers or withholds it. Extra roots hold for this server process: every thread loaded
now or later scans them as user skills; clients hear `skills/changed` and list skills again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codex_lsp.api.config.problems import load_failure
from codex_lsp.api.config.reload import reload_loaded_threads
from codex_lsp.api.config.write import ConfigWriter
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.skills import SkillsExtension
from codex_lsp.protocol.settings.models import (
    SKILLS_CONFIG_WRITE,
    SKILLS_EXTRA_ROOTS_SET,
    SkillsChangedNotification,
    SkillsConfigWriteParams,
    SkillsConfigWriteResponse,
    SkillsExtraRootsSetParams,
    SkillsExtraRootsSetResponse,
)
from codex_lsp.store.config_edit import Edit
from codex_lsp.store.config_errors import ConfigError


class SkillsSettings:
    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx
        self.writer = ConfigWriter(ctx)
        self.extra_roots: tuple[Path, ...] = ()
        ctx.threads.prepare_services.append(self._prepare)

    async def config_write(
        self, params: SkillsConfigWriteParams, _raw: dict[str, Any]
    ) -> SkillsConfigWriteResponse:
        if params.path is not None:
            path = Path(params.path).expanduser()
            if not path.is_absolute():
                raise invalid("path", f"must be an absolute path, got {params.path!r}")
            entry: dict[str, Any] = {"path": str(path), "enabled": params.enabled}
        elif params.name:
            entry = {"name": params.name, "enabled": params.enabled}
        else:
            raise invalid("name", "choose the skill by `path` or by `name`")
        try:
            current = self.ctx.services().reload_config().skills.config
        except ConfigError as err:
            raise load_failure(err) from None
        kept = [
            item.model_dump(exclude_none=True)
            for item in current
            if not _same_choice(item.model_dump(exclude_none=True), entry)
        ]
        await self.writer.apply([Edit(("skills", "config"), [*kept, entry])])
        await reload_loaded_threads(self.ctx)
        return SkillsConfigWriteResponse(effective_enabled=params.enabled)

    async def extra_roots_set(
        self, params: SkillsExtraRootsSetParams, _raw: dict[str, Any]
    ) -> SkillsExtraRootsSetResponse:
        roots: list[Path] = []
        for index, raw in enumerate(params.extra_roots):
            root = Path(raw).expanduser()
            if not root.is_absolute():
                raise invalid(f"extraRoots[{index}]", f"must be an absolute path, got {raw!r}")
            roots.append(root)
        self.extra_roots = tuple(roots)
        self._prepare(self.ctx.services())
        for thread in self.ctx.threads.loaded.values():
            self._prepare(thread.services)
        # Before the response, as the reference server sends it.
        self.ctx.client.notify("skills/changed", SkillsChangedNotification())
        return SkillsExtraRootsSetResponse()

    def _prepare(self, services: EngineServices) -> None:
        for extension in services.extensions:
            if isinstance(extension, SkillsExtension):
                extension.extra_roots = self.extra_roots


def _same_choice(existing: dict[str, Any], entry: dict[str, Any]) -> bool:
    if "path" in entry:
        return bool(existing.get("path") == entry["path"])
    return "path" not in existing and existing.get("name") == entry["name"]


def handlers(ctx: ApiContext) -> Routes:
    settings = SkillsSettings(ctx)
    return (
        Routes()
        .on(SKILLS_CONFIG_WRITE, settings.config_write)
        .on(SKILLS_EXTRA_ROOTS_SET, settings.extra_roots_set)
    )
