"""`config/value/write`, `config/batchWrite`, `configRequirements/read`
and `config/mcpServer/reload`. `reloadUserConfig` hands the written settings to loaded threads.

An edit is checked exactly as the file will be read (`load_config` on the edited text) before
anything is written, so a bad value never reaches the disk; the error names the key, the value
and what was expected. A batch is all or nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.config.reload import reload_loaded_threads, submit_to_loaded
from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INVALID_REQUEST, ApiError
from codex_lsp.protocol.config.write import (
    CONFIG_BATCH_WRITE,
    CONFIG_MCP_SERVER_RELOAD,
    CONFIG_REQUIREMENTS_READ,
    CONFIG_VALUE_WRITE,
    ConfigBatchWriteParams,
    ConfigEdit,
    ConfigRequirementsReadParams,
    ConfigRequirementsReadResponse,
    ConfigValueWriteParams,
    ConfigWriteResponse,
    McpServerRefreshParams,
)
from codex_lsp.protocol.core.ops import RefreshMcpServers
from codex_lsp.store.config import CONFIG_FILENAME, load_config
from codex_lsp.store.config_edit import (
    Edit,
    apply_edits,
    split_key_path,
    version_of,
    write_atomically,
)
from codex_lsp.store.config_errors import ConfigError

log = logging.getLogger(__name__)

_VALIDATION = {"config_write_error_code": "configValidationError"}
_CONFLICT = {"config_write_error_code": "configVersionConflict"}


_LOCKS: dict[Path, anyio.Lock] = {}


def _lock(path: Path) -> anyio.Lock:
    """One lock per config file, whichever family writes it."""
    return _LOCKS.setdefault(path.resolve(), anyio.Lock())


class ConfigWriter:
    """Serialises writes to one config.toml."""

    def __init__(self, ctx: ApiContext) -> None:
        self.ctx = ctx

    @property
    def path(self) -> Path:
        return self.ctx.services().codex_home / CONFIG_FILENAME

    async def write(
        self, edits: list[ConfigEdit], file_path: str | None, expected_version: str | None
    ) -> ConfigWriteResponse:
        path = self._target(file_path)
        parsed = [_edit(index, edit, len(edits)) for index, edit in enumerate(edits)]
        return await self.apply(parsed, path, expected_version)

    async def apply(
        self, edits: list[Edit], path: Path | None = None, expected_version: str | None = None
    ) -> ConfigWriteResponse:
        """Apply store-level edits to config.toml: validated, all or nothing."""
        target = path or self.path
        async with _lock(target):
            return await anyio.to_thread.run_sync(self._write, target, edits, expected_version)

    def _target(self, file_path: str | None) -> Path:
        path = self.path
        if file_path is None:
            return path
        given = Path(file_path).expanduser()
        if not given.is_absolute():
            raise invalid("filePath", f"must be an absolute path, got {file_path!r}")
        if given.resolve() != path.resolve():
            raise ApiError(
                INVALID_REQUEST,
                f"{file_path} is not a config layer this server writes; only {path} is",
            )
        return path

    def _write(self, path: Path, edits: list[Edit], expected: str | None) -> ConfigWriteResponse:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        if expected is not None and expected != version_of(text):
            raise ApiError(
                INVALID_REQUEST,
                f"{path} changed since version {expected}; read it again and retry",
                _CONFLICT,
            )
        try:
            updated = apply_edits(text, edits)
            # The same checks a reader of the file makes, on the text about to be written.
            load_config(path.parent, text=updated)
        except ConfigError as err:
            raise ApiError(INVALID_REQUEST, f"Invalid configuration: {err}", _VALIDATION) from None
        if updated != text:
            write_atomically(path, updated)
        return ConfigWriteResponse(
            status="ok", version=version_of(updated), file_path=str(path.resolve())
        )


def _edit(index: int, edit: ConfigEdit, count: int) -> Edit:
    where = f"edits[{index}].keyPath" if count > 1 else "keyPath"
    try:
        keys = split_key_path(edit.key_path)
    except ValueError as err:
        raise invalid(where, str(err)) from None
    return Edit(keys, edit.value, edit.merge_strategy)


def handlers(ctx: ApiContext) -> Routes:
    writer = ConfigWriter(ctx)

    async def value_write(
        params: ConfigValueWriteParams, _raw: dict[str, Any]
    ) -> ConfigWriteResponse:
        return await writer.write([params], params.file_path, params.expected_version)

    async def batch_write(params: ConfigBatchWriteParams, _raw: dict[str, Any]) -> Any:
        written = await writer.write(params.edits, params.file_path, params.expected_version)
        if params.reload_user_config:
            await reload_loaded_threads(ctx)
        return written

    async def requirements(
        _params: ConfigRequirementsReadParams, _raw: dict[str, Any]
    ) -> ConfigRequirementsReadResponse:
        # No managed requirements layer (requirements.toml, MDM) is read by this server.
        return ConfigRequirementsReadResponse(requirements=None)

    async def mcp_reload(_params: McpServerRefreshParams, _raw: dict[str, Any]) -> None:
        # Read the config afresh: a broken file is an error here, not at the next thread's
        # start. Threads started from now on connect the servers it lists; loaded threads
        # restart theirs (once a running turn ends), reporting each server's startup.
        services = ctx.threads.load_services()
        if services.http is not None:
            await services.http.aclose()
        await submit_to_loaded(ctx, RefreshMcpServers())

    return (
        Routes()
        .on(CONFIG_MCP_SERVER_RELOAD, mcp_reload)
        .on(CONFIG_VALUE_WRITE, value_write)
        .on(CONFIG_BATCH_WRITE, batch_write)
        .on(CONFIG_REQUIREMENTS_READ, requirements)
    )
