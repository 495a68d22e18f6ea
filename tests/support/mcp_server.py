"""A small MCP server for tests, built with the `mcp` package's `MCPServer`.

Over stdio by default (`python tests/support/mcp_server.py`), so a config.toml can name it as a
`command`. Flags:

* `--crash`: exit with a message on stderr before answering anything;
* `--hang`: never answer `initialize` (for the startup timeout);
* `--http`: serve streamable HTTP on 127.0.0.1 at a free port instead, printing
  `READY <url>` on stdout once it listens.

Tools: `add(a, b)`, `echo(text)`, `fail(message)` (always fails), `slow(seconds)`, `whoami()`
(the Authorization header of the request, over HTTP), `pid()`, `die()` (exits), `peek()` (annotated
read-only) and `picture()` (a text block and an image).

Resources: `memo://greeting` (text), `memo://pixel` (a PNG, read as a blob) and the template
`memo://notes/{name}` (a text note about `name`).
"""

from __future__ import annotations

import base64
import os
import socket
import sys
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent, ToolAnnotations

server = MCPServer("tests")

# A 1x1 transparent PNG: enough for a client to see non-text content.
_PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
    )
).decode("ascii")


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Say the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="Always fails with the given message.")
def fail(message: str) -> str:
    raise ToolError(message)


@server.tool(description="Sleep, then say how long.")
async def slow(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds}s"


@server.tool(description="The Authorization header of this request.")
def whoami(ctx: Context) -> str:
    headers = ctx.headers or {}
    return headers.get("authorization", "anonymous")


@server.tool(description="The server's process id.")
def pid() -> int:
    return os.getpid()


@server.tool(description="Exit at once, as a crashing server would.")
def die() -> str:
    os._exit(7)


@server.tool(description="Look without touching.", annotations=ToolAnnotations(read_only_hint=True))
def peek() -> str:
    return "nothing changed"


@server.tool(description="A picture with a caption.")
def picture() -> list[TextContent | ImageContent]:
    return [
        TextContent(type="text", text="a pixel"),
        ImageContent(type="image", data=_PIXEL, mime_type="image/png"),
    ]


@server.resource("memo://greeting", name="greeting", description="A friendly line.")
def greeting() -> str:
    return "hello from the memo server"


@server.resource("memo://pixel", name="pixel", mime_type="image/png")
def pixel() -> bytes:
    return base64.b64decode(_PIXEL)


@server.resource("memo://notes/{name}", name="note", description="A note about a name.")
def note(name: str) -> str:
    return f"a note about {name}"


async def _serve_http() -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # Listening before READY: a client that connects while uvicorn starts waits in the
    # backlog instead of being refused.
    sock.listen(64)
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv = uvicorn.Server(config)
    print(f"READY http://127.0.0.1:{port}/mcp", flush=True)
    await uv.serve(sockets=[sock])


def main(argv: list[str]) -> None:
    if "--crash" in argv:
        print("mcp test server: refusing to start (--crash)", file=sys.stderr, flush=True)
        sys.exit(3)
    if "--hang" in argv:
        while True:
            time.sleep(3600)
    if "--http" in argv:
        anyio.run(_serve_http)
        return
    server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
