"""`view_image`: the model looks at an image file, which the next request carries as an image.

The path is read as a sandboxed command could read it: relative to the turn's working
directory, anywhere on disk except the directories the sandbox hides from every command
(`$CODEX_HOME` with its credentials and threads, the per-user server's socket directory),
whatever symlink leads there: the check is made on the opened file itself. Only a regular
file is read, without blocking, and at most `IMAGE_MAX_BYTES` of it; PNG, JPEG, GIF and WebP
are taken, anything else is refused as Codex refuses it. The image is scaled to the model's
budget (`prompt_images`) and is the tool's output as an `input_image` item (a data URL); the
call is shown as a `view_image_tool_call` event.
Only providers speaking the Responses API are offered the tool: a Chat Completions tool
message cannot carry an image.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.models import model_info
from codex_lsp.engine.prompt_images import ImageError, prepare_image
from codex_lsp.engine.sandboxing import sandbox_options
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.core.events import ViewImageToolCallEvent
from codex_lsp.store.bounded_read import IMAGE_MAX_BYTES, OPEN_FLAGS

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

VIEW_IMAGE: dict[str, Any] = {
    "type": "function",
    "name": "view_image",
    "description": (
        "View a local image file from the filesystem when visual inspection is needed. Use "
        "this for images already available on disk."
    ),
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Local filesystem path to an image file."}
        },
        "required": ["path"],
        "additionalProperties": False,
    },
}

# Leading bytes of the formats the Responses API takes.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_mime(data: bytes) -> str | None:
    for signature, mime in _SIGNATURES:
        if data.startswith(signature):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def read_image(path: Path, hidden: tuple[str, ...]) -> bytes:
    """The bytes of the image at `path`, refused as the tool's error says."""
    try:
        fd = os.open(path, OPEN_FLAGS)
    except IsADirectoryError:
        raise ToolError(f"image path `{path}` is not a file") from None
    except OSError as err:
        raise ToolError(
            f"unable to locate image at `{path}`: {err.strerror} (os error {err.errno})"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"image path `{path}` is not a file")
        # Where the opened file really is, whatever links led to it.
        real = os.readlink(f"/proc/self/fd/{fd}")
        if any(_within(real, directory) for directory in hidden):
            raise ToolError(
                f"image path `{path}` is not readable: the sandbox keeps {real} from commands"
            )
        if info.st_size > IMAGE_MAX_BYTES:
            raise ToolError(
                f"image at `{path}` is too large ({info.st_size} bytes, limit {IMAGE_MAX_BYTES})"
            )
        chunks: list[bytes] = []
        left = IMAGE_MAX_BYTES + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:  # it grew past the limit while being read
            raise ToolError(f"image at `{path}` is too large (limit {IMAGE_MAX_BYTES} bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def hidden_dirs(session: Session) -> tuple[str, ...]:
    services = session.services
    options = sandbox_options(services.config, services.codex_home)
    found = options.hidden_dirs or ()
    return tuple(dict.fromkeys([*found, *(os.path.realpath(d) for d in found)]))


async def handle_view_image(call: ToolCall) -> ToolOutput:
    if not view_image_enabled(call.session, call.ctx):
        raise ToolError("view_image is not available: [tools] view_image = false")
    try:
        args = json.loads(call.payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    raw = args.get("path") if isinstance(args, dict) else None
    if not isinstance(raw, str) or not raw:
        raise ToolError("failed to parse function arguments: missing field `path`")
    path = Path(os.path.normpath(call.ctx.cwd / Path(raw).expanduser()))
    data = read_image(path, hidden_dirs(call.session))
    if image_mime(data) is None:
        raise ToolError("unable to process image: invalid or unsupported image data")
    info = model_info(call.ctx.model)
    try:
        # Decoding and scaling a large image takes a while: off the event loop.
        prepared = await anyio.to_thread.run_sync(prepare_image, data, info.image_budget)
    except ImageError as err:
        raise ToolError(f"unable to process image: {err}") from None
    image: dict[str, Any] = {"type": "input_image", "image_url": prepared.data_url()}
    if info.image_detail is not None:
        image["detail"] = info.image_detail
    call.session.emit(call.sub_id, ViewImageToolCallEvent(call_id=call.call_id, path=str(path)))
    return ToolOutput(f"image {path}", content=[image])


def view_image_enabled(session: Session, ctx: TurnContext) -> bool:
    config = session.services.config
    return (
        ctx.provider.wire_api == "responses"
        and bool(ctx.features.get("view_image", True))
        and config.tools.view_image is not False
    )


class ViewImageExtension(Extension):
    name = "view_image"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        return [dict(VIEW_IMAGE)] if view_image_enabled(session, ctx) else []

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {"view_image": handle_view_image}
