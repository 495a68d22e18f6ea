"""The protected entries, handed to the launcher through a sealed memory file.

A crowded `/tmp` holds tens of thousands of repositories, each with entries to keep
read-only; named on the launcher's command line they would outgrow what one `execve`
may carry (`ARG_MAX`) and no command would start. So the engine writes them, each
followed by a NUL, into an anonymous memory file, seals it against any change and
passes the descriptor (`--protect-fd N`). The launcher accepts only a file sealed so,
reads it and closes it before anything else: the command never holds it. The engine's
copy is close-on-exec, so no other process it starts inherits it.

Imported by the launcher: the standard library only, and nothing slow to import.
"""

from __future__ import annotations

import fcntl
import os

_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
_CHUNK = 1 << 20


def write(paths: list[str]) -> int:
    """A close-on-exec descriptor of a sealed memory file naming `paths`."""
    fd = os.memfd_create("codex-sandbox-protect", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        data = memoryview(b"".join(os.fsencode(path) + b"\0" for path in paths))
        while data:
            data = data[os.write(fd, data) :]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read(fd: int) -> list[str]:
    """The paths `write` put in `fd`, which is closed. Raises ValueError for anything but
    a memory file sealed against change (one someone else could still write to, say)."""
    if fd < 3:
        raise ValueError(f"--protect-fd {fd} is a standard stream")
    chunks: list[bytes] = []
    try:
        try:
            seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        except OSError as exc:
            raise ValueError(f"--protect-fd {fd} is not a sealed memory file: {exc}") from None
        if seals & _SEALS != _SEALS:
            raise ValueError(f"--protect-fd {fd} is not sealed against change")
        size = os.fstat(fd).st_size
        offset = 0
        while offset < size:
            chunk = os.pread(fd, min(_CHUNK, size - offset), offset)
            if not chunk:
                break
            chunks.append(chunk)
            offset += len(chunk)
    finally:
        _close(fd)
    data = b"".join(chunks)
    if len(data) != size or (data and not data.endswith(b"\0")):
        raise ValueError(f"--protect-fd {fd} holds a cut list")
    return [os.fsdecode(path) for path in data.split(b"\0")[:-1]]


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        return  # not open: the error that matters is the one raised before
