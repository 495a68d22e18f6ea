"""`CodexAgent`: the ACP agent methods, each served by the v2 API called by method name.

A session is a thread (same id): `session/new` starts one, `session/load` resumes one and
replays its history as `session/update`s before answering, `session/resume` resumes one
without the replay, `session/close` unsubscribes from it. `session/prompt` starts a turn and
answers with its stop reason once `turn/completed` has followed every update of the turn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AuthenticateResponse,
    CloseSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    ResumeSessionResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)
from pydantic import BaseModel

from codex_lsp import __version__
from codex_lsp.acp import commands, modes
from codex_lsp.acp.mcp import mcp_overrides
from codex_lsp.acp.port import AcpClientPort, Session
from codex_lsp.acp.prompt_input import turn_input
from codex_lsp.acp.updates import SessionUpdates, item_updates
from codex_lsp.api.port import ApiError
from codex_lsp.wire import preload

if TYPE_CHECKING:
    from codex_lsp.api.server import ApiServer

log = logging.getLogger(__name__)

_STOP = {"completed": "end_turn", "interrupted": "cancelled"}
API_KEY_METHOD = "openai-api-key"
SIGNED_IN_METHOD = "codex-sign-in"
TITLE_CHARS = 80


def _wire(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


class CodexAgent:
    def __init__(
        self,
        api: Callable[[], ApiServer],
        port: AcpClientPort,
        session_overrides: list[str],
        api_key: Callable[[], str | None],
    ) -> None:
        self._api = api
        self._port = port
        # What the next thread's services are built with (the client's MCP servers); threads
        # open one at a time so that each gets its own.
        self._session_overrides = session_overrides
        self._opening = asyncio.Lock()
        self._api_key = api_key

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            with preload.handling():
                return await self._api().handle(method, params)
        except ApiError as err:
            raise RequestError(err.code, err.message, err.data) from None

    # -- the connection ---------------------------------------------------------------------

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **_: Any
    ) -> InitializeResponse:
        fs = _wire(getattr(client_capabilities, "fs", None)) or {}
        if fs.get("readTextFile"):
            self._port.read_file = self._read_file
        if fs.get("writeTextFile"):
            self._port.write_file = self._write_file
        preload.start()
        return InitializeResponse.model_validate(
            {
                "protocolVersion": min(protocol_version, PROTOCOL_VERSION),
                "agentCapabilities": {
                    "loadSession": True,
                    "promptCapabilities": {"image": True, "embeddedContext": True},
                    "mcpCapabilities": {"http": True},
                    "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
                },
                "authMethods": [
                    {
                        "id": API_KEY_METHOD,
                        "name": "OpenAI API key",
                        "description": "Sign in with the key in OPENAI_API_KEY.",
                    },
                    {
                        "id": SIGNED_IN_METHOD,
                        "name": "Codex sign-in",
                        "description": "Use the account `codex-lsp login` signed in.",
                    },
                ],
                "agentInfo": {"name": "codex-lsp", "title": "Codex", "version": __version__},
            }
        )

    async def authenticate(self, method_id: str, **_: Any) -> AuthenticateResponse:
        if method_id == API_KEY_METHOD:
            key = self._api_key()
            if not key:
                raise RequestError.auth_required({"reason": "OPENAI_API_KEY is not set"})
            await self.call("account/login/start", {"type": "apiKey", "apiKey": key})
        elif method_id == SIGNED_IN_METHOD:
            account = await self.call("account/read", {"refreshToken": False})
            if account.get("account") is None and account.get("requiresOpenaiAuth"):
                raise RequestError.auth_required({"reason": "run `codex-lsp login` first"})
        else:
            raise RequestError.invalid_params({"methodId": f"unknown method {method_id!r}"})
        return AuthenticateResponse()

    async def _read_file(self, session_id: str, path: str) -> str:
        answer = await self._connection().read_text_file(session_id=session_id, path=path)
        return str(answer.content)

    async def _write_file(self, session_id: str, path: str, content: str) -> None:
        await self._connection().write_text_file(session_id=session_id, path=path, content=content)

    def _connection(self) -> Any:
        connection = getattr(self, "connection", None)
        if connection is None:
            raise RuntimeError("no client connection")
        return connection

    def on_connect(self, conn: Any) -> None:
        self.connection = conn

    # -- sessions ---------------------------------------------------------------------------

    async def _open(self, method: str, params: dict[str, Any], mcp_servers: Any) -> Session:
        async with self._opening:
            self._session_overrides[:] = mcp_overrides(_wire(mcp_servers) or [])
            try:
                opened = await self.call(method, params)
            finally:
                self._session_overrides.clear()
            thread = opened["thread"]
            self._port.bind_workspaces(thread["id"])
        session = Session(
            id=thread["id"],
            cwd=opened["cwd"],
            model=opened["model"],
            mode=modes.mode_of(opened),
            effort=opened.get("reasoningEffort"),
            updates=SessionUpdates(self._port.old_text(thread["id"])),
        )
        self._port.sessions[session.id] = session
        return session

    async def _described(self, session: Session) -> dict[str, Any]:
        """The modes and config options every session answer carries."""
        models = (await self.call("model/list", {})).get("data", [])
        options = modes.config_options(models, session.model, session.effort, session.mode)
        return {"modes": modes.mode_state(session.mode), "configOptions": options}

    def _announce(self, session: Session) -> None:
        self._port.send(session.id, commands.available_commands_update())

    async def new_session(self, cwd: str, mcp_servers: Any = None, **_: Any) -> NewSessionResponse:
        session = await self._open("thread/start", {"cwd": cwd}, mcp_servers)
        described = await self._described(session)
        self._announce(session)
        return NewSessionResponse.model_validate({"sessionId": session.id, **described})

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> LoadSessionResponse:
        session = await self._resume(cwd, session_id, mcp_servers, replay=True)
        return LoadSessionResponse.model_validate(await self._described(session))

    async def resume_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> ResumeSessionResponse:
        session = await self._resume(cwd, session_id, mcp_servers, replay=False)
        return ResumeSessionResponse.model_validate(await self._described(session))

    async def _resume(self, cwd: str, thread_id: str, mcp_servers: Any, *, replay: bool) -> Session:
        params = {"threadId": thread_id, "cwd": cwd, "excludeTurns": not replay}
        session = await self._open("thread/resume", params, mcp_servers)
        session.titled = True
        if replay:
            read = await self.call("thread/read", {"threadId": thread_id, "includeTurns": True})
            thread = read["thread"]
            for turn in thread.get("turns") or []:
                for item in turn.get("items") or []:
                    for update in item_updates(item):
                        self._port.send(session.id, update)
            title = thread.get("name") or thread.get("preview")
            if title:
                self._port.send(
                    session.id, {"sessionUpdate": "session_info_update", "title": title}
                )
        self._announce(session)
        await self._port.flushed()
        return session

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> ListSessionsResponse:
        params: dict[str, Any] = {"sortKey": "updated_at"}
        if cwd:
            params["cwd"] = cwd
        if cursor:
            params["cursor"] = cursor
        page = await self.call("thread/list", params)
        sessions = [
            {
                "sessionId": thread["id"],
                "cwd": thread["cwd"],
                "title": thread.get("name") or thread.get("preview") or None,
                "updatedAt": datetime.fromtimestamp(thread["updatedAt"], UTC).isoformat(),
            }
            for thread in page.get("data", [])
        ]
        return ListSessionsResponse.model_validate(
            {"sessions": sessions, "nextCursor": page.get("nextCursor")}
        )

    async def close_session(self, session_id: str, **_: Any) -> CloseSessionResponse:
        session = self._session(session_id)
        if session.turn_id is not None:
            await self.call("turn/interrupt", {"threadId": session.id, "turnId": session.turn_id})
        await self.call("thread/unsubscribe", {"threadId": session.id})
        self._port.sessions.pop(session.id, None)
        if session.turn is not None and not session.turn.done():
            # Its `turn/completed` will find no session: the prompt is answered here.
            session.turn.set_result({"status": "interrupted"})
        return CloseSessionResponse()

    def _session(self, session_id: str) -> Session:
        session = self._port.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    # -- turns ------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.turn is not None:
            raise RequestError.invalid_request({"reason": "a prompt is already running"})
        blocks = _wire(prompt)
        try:
            command = commands.parse(blocks)
            items = turn_input(blocks) if command is None else []
        except ApiError as err:
            raise RequestError(err.code, err.message) from None
        session.turn = asyncio.get_running_loop().create_future()
        try:
            if command is not None:
                await commands.run(command, session, self.call)
            else:
                await self.call("turn/start", {"threadId": session.id, "input": items})
            turn = await session.turn
        finally:
            session.turn = None
        if not session.titled:
            self._title(session, blocks)
            await self._port.flushed()
        status = turn.get("status")
        if status == "failed":
            error = turn.get("error") or {}
            raise RequestError.internal_error({"message": error.get("message", "the turn failed")})
        return PromptResponse.model_validate({"stopReason": _STOP.get(str(status), "end_turn")})

    def _title(self, session: Session, blocks: list[dict[str, Any]]) -> None:
        """A new session is titled by its first prompt, as `session/list` will show it."""
        session.titled = True
        text = " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
        title = " ".join(text.split())
        if title:
            title = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
            self._port.send(session.id, {"sessionUpdate": "session_info_update", "title": title})

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self._port.sessions.get(session_id)
        if session is None or session.turn_id is None:
            return
        try:
            await self.call("turn/interrupt", {"threadId": session.id, "turnId": session.turn_id})
        except RequestError as err:
            log.info("cancel: %s", err)

    async def set_session_mode(
        self, session_id: str, mode_id: str, **_: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        await self._set_mode(session, mode_id)
        return SetSessionModeResponse()

    async def _set_mode(self, session: Session, mode_id: str) -> list[Any]:
        """Apply a mode; the config options after it (also sent, with the mode, as updates)."""
        if mode_id not in modes.MODE_IDS:
            raise RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r}"})
        settings = modes.settings_for(mode_id, session.model)
        await self.call("thread/settings/update", {"threadId": session.id, **settings})
        session.mode = mode_id
        options: list[Any] = (await self._described(session))["configOptions"]
        self._port.send(
            session.id, {"sessionUpdate": "current_mode_update", "currentModeId": mode_id}
        )
        self._port.send(
            session.id, {"sessionUpdate": "config_option_update", "configOptions": options}
        )
        await self._port.flushed()
        return options

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **_: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id == modes.MODE:
            options = await self._set_mode(session, str(value))
            return SetSessionConfigOptionResponse.model_validate({"configOptions": options})
        if config_id == modes.MODEL:
            await self.call("thread/settings/update", {"threadId": session.id, "model": value})
            session.model = str(value)
        elif config_id == modes.EFFORT:
            await self.call("thread/settings/update", {"threadId": session.id, "effort": value})
            session.effort = str(value)
        else:
            raise RequestError.invalid_params({"configId": f"unknown option {config_id!r}"})
        described = await self._described(session)
        return SetSessionConfigOptionResponse.model_validate(
            {"configOptions": described["configOptions"]}
        )
