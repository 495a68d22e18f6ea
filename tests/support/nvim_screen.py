"""A minimal Neovim UI, so a headless suite can read what a user would see on screen.

It connects to the socket Neovim `--listen`s on, attaches as a UI (`nvim_ui_attach` with
`ext_linegrid`, floats composed into the one grid), and keeps the character grid up to date
from the `redraw` events. Neovim flushes a redraw only when it would update a real terminal,
so the grid is exactly what a terminal would show at that moment: a suite that has not
redrawn shows stale text, as it would to a user.

The suite asks for the screen with `vim.rpcnotify(<ui chan>, "codex_test_screen", token)`;
the UI answers by setting `_G.codex_test_screens[token]` to the grid's lines through
`nvim_exec_lua`. The messages on one channel keep their order, so every redraw Neovim sent
before the question is in the answer.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Any

import msgpack

REQUEST, RESPONSE, NOTIFICATION = 0, 1, 2
ANSWER = (
    "_G.codex_test_screens = _G.codex_test_screens or {}; "
    "_G.codex_test_screens[...] = select(2, ...)"
)


class ScreenGrid:
    """The characters of grid 1, as `grid_*` redraw events leave them."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows: list[list[str]] = [[" "] * width for _ in range(height)]

    def apply(self, name: str, args: list[Any]) -> None:
        if name == "grid_resize":
            _grid, width, height = args[:3]
            self.width, self.height = int(width), int(height)
            self.rows = [[" "] * self.width for _ in range(self.height)]
        elif name == "grid_clear":
            self.rows = [[" "] * self.width for _ in range(self.height)]
        elif name == "grid_line":
            self._line(int(args[1]), int(args[2]), args[3])
        elif name == "grid_scroll":
            self._scroll(*(int(a) for a in args[1:7]))

    def _line(self, row: int, col: int, cells: list[list[Any]]) -> None:
        if not 0 <= row < self.height:
            return
        for cell in cells:
            text = str(cell[0])
            repeat = int(cell[2]) if len(cell) > 2 else 1
            for _ in range(repeat):
                if 0 <= col < self.width:
                    self.rows[row][col] = text
                col += 1

    def _scroll(self, top: int, bottom: int, left: int, right: int, rows: int, _cols: int) -> None:
        # Positive `rows`: the region moves up (content at top+rows lands at top).
        order = range(top, bottom - rows) if rows > 0 else range(bottom - 1, top - rows - 1, -1)
        for row in order:
            self.rows[row][left:right] = self.rows[row + rows][left:right]

    def lines(self) -> list[str]:
        # A double-width character is followed by an empty cell; joining keeps columns honest.
        return ["".join(row).rstrip() for row in self.rows]


class ScreenClient:
    """Attach to `socket_path` as a `width`x`height` UI and answer the suite's questions."""

    def __init__(self, socket_path: Path, width: int = 100, height: int = 32) -> None:
        self.grid = ScreenGrid(width, height)
        self._path = socket_path
        self._sock: socket.socket | None = None
        self._next_id = 0
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.errors: list[str] = []

    def start(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(str(self._path))
                break
            except OSError:
                sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        self._sock = sock
        self._request("nvim_ui_attach", [self.grid.width, self.grid.height, {"ext_linegrid": True}])
        self._thread = threading.Thread(target=self._read, name="nvim-screen", daemon=True)
        self._thread.start()

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _request(self, method: str, args: list[Any]) -> None:
        assert self._sock is not None
        with self._lock:
            self._next_id += 1
            payload = msgpack.packb([REQUEST, self._next_id, method, args])
            self._sock.sendall(payload)

    def _read(self) -> None:
        assert self._sock is not None
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        while True:
            try:
                data = self._sock.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            unpacker.feed(data)
            for message in unpacker:
                self._handle(message)

    def _handle(self, message: list[Any]) -> None:
        kind = message[0]
        if kind == RESPONSE and message[2] is not None:
            self.errors.append(repr(message[2]))
        elif kind == NOTIFICATION and message[1] == "redraw":
            for event in message[2]:
                for args in event[1:]:
                    self.grid.apply(str(event[0]), list(args))
        elif kind == NOTIFICATION and message[1] == "codex_test_screen":
            token = message[2][0] if message[2] else 0
            self._request("nvim_exec_lua", [ANSWER, [token, self.grid.lines()]])
