"""A provider's bearer token from its `auth` command, as Codex gets it.

The command (`[model_providers.<id>.auth]`: `command`, `args`, `cwd`) runs without a shell;
its standard output, trimmed, is the token. The token is reused until `refresh_interval_ms`
has passed (0: for the life of the process), so a turn's requests do not each start a
process. A command that fails, times out or prints nothing is an error naming the command,
never the output (which may hold part of a token).
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from codex_lsp.protocol.core.providers import ProviderAuth


class ProviderTokenError(RuntimeError):
    pass


_lock = threading.Lock()
_cache: dict[ProviderAuth, tuple[str, float]] = {}


def _run(auth: ProviderAuth) -> str:
    argv = [auth.command, *auth.args]
    cwd = Path(auth.cwd).expanduser() if auth.cwd else None
    if cwd is not None and not Path(auth.command).is_absolute() and "/" in auth.command:
        argv[0] = str(cwd / auth.command)  # a relative path is relative to `cwd`, as in Codex
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=auth.timeout_ms / 1000,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ProviderTokenError(
            f"provider auth command `{auth.command}` did not finish in {auth.timeout_ms} ms"
        ) from None
    except OSError as err:
        raise ProviderTokenError(
            f"provider auth command `{auth.command}` cannot run: {err.strerror}"
        ) from None
    token = done.stdout.strip()
    if done.returncode != 0:
        raise ProviderTokenError(
            f"provider auth command `{auth.command}` exited with status {done.returncode}"
        )
    if not token:
        raise ProviderTokenError(f"provider auth command `{auth.command}` printed no token")
    return token


def command_token(auth: ProviderAuth) -> str:
    """The token `auth`'s command prints, reused while it is fresh."""
    now = time.monotonic()
    with _lock:
        cached = _cache.get(auth)
        if cached is not None:
            token, at = cached
            if auth.refresh_interval_ms == 0 or now - at < auth.refresh_interval_ms / 1000:
                return token
        token = _run(auth)
        _cache[auth] = (token, now)
        return token
