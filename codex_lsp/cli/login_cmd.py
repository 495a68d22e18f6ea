"""`codex-lsp login`, `codex-lsp login status`, `codex-lsp logout`: sign-in from the terminal.

`login` opens the browser on the issuer's sign-in page and waits for it to redirect to a
callback server on localhost (OAuth with PKCE); `login --with-api-key` reads an API key from
stdin instead, so it never sits in the shell's history or the process list. Credentials go to
`$CODEX_HOME/auth.json` (mode 0600) and nowhere else: no message shows any part of a key or
token. Messages go to stderr; the exit status is 0 on success, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import TYPE_CHECKING

from codex_lsp.cli.arguments import add_config_arguments

if TYPE_CHECKING:
    from codex_lsp.store.config import Config

# The issuer accepts redirects only to these localhost ports for the Codex client id.
ISSUER_CALLBACK_PORTS = (1455, 1457)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    login = commands.add_parser(
        "login",
        help="sign in with ChatGPT in the browser, or with an API key from stdin",
        description=(
            "Sign in: opens the browser on the sign-in page and waits for it to come back to a "
            "local callback server. With --with-api-key, reads an API key from stdin, e.g. "
            "`printenv OPENAI_API_KEY | codex-lsp login --with-api-key`. Set login_issuer in "
            "config.toml (or -c login_issuer=URL) to sign in with another OAuth issuer."
        ),
    )
    add_config_arguments(login)
    login.add_argument("--with-api-key", action="store_true", help="read the API key from stdin")
    login.set_defaults(run=run_login)
    actions = login.add_subparsers(dest="login_command", metavar="COMMAND")
    status = actions.add_parser("status", help="say whether and how you are signed in")
    add_config_arguments(status)
    status.set_defaults(run=run_status)

    logout = commands.add_parser("logout", help="forget the stored sign-in (auth.json)")
    add_config_arguments(logout)
    logout.set_defaults(run=run_logout)


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def _config(args: argparse.Namespace) -> Config | None:
    from codex_lsp.store.config import load_config
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.home import codex_home

    try:
        return load_config(codex_home(), profile=args.profile, overrides=args.overrides)
    except ConfigError as err:
        _say(f"error: {err}")
        return None


def run_login(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 1
    if args.with_api_key:
        if config.forced_login_method == "chatgpt":
            _say('error: API key sign-in is turned off (forced_login_method = "chatgpt")')
            return 1
        return _login_with_api_key()
    if config.forced_login_method == "api":
        _say(
            'error: ChatGPT sign-in is turned off (forced_login_method = "api"); '
            "use `codex-lsp login --with-api-key`"
        )
        return 1
    return _login_in_browser(config)


def _login_with_api_key() -> int:
    from codex_lsp.store.auth import AuthError, AuthStore
    from codex_lsp.store.home import codex_home

    if sys.stdin.isatty():
        _say(
            "error: --with-api-key reads the key from stdin; pipe it in, e.g. "
            "`printenv OPENAI_API_KEY | codex-lsp login --with-api-key`"
        )
        return 1
    key = sys.stdin.read().strip()
    if not key:
        _say("error: no API key on stdin")
        return 1
    store = AuthStore(codex_home())
    try:
        store.login_api_key(key)
    except (AuthError, OSError) as err:
        _say(f"error: could not save the key to {store.path}: {_reason(err)}")
        return 1
    _say(f"Signed in with an API key (saved in {store.path})")
    return 0


def _open_browser(url: str) -> None:
    """Open `url` in a graphical browser if there is one; the URL is printed either way."""
    import webbrowser

    graphical = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    if sys.platform.startswith("linux") and not any(os.environ.get(v) for v in graphical):
        return  # a console browser would take over the terminal this command waits in
    with contextlib.suppress(webbrowser.Error):
        webbrowser.open(url)


def _login_in_browser(config: Config) -> int:
    from codex_lsp.store.auth import AuthStore
    from codex_lsp.store.home import codex_home
    from codex_lsp.store.login_server import DEFAULT_ISSUER, BrowserLogin

    store = AuthStore(codex_home())
    issuer = config.login_issuer or DEFAULT_ISSUER
    # OpenAI's issuer redirects only to its registered ports; another issuer gets any free one.
    ports = ISSUER_CALLBACK_PORTS if issuer.rstrip("/") == DEFAULT_ISSUER else (0,)
    login: BrowserLogin | None = None
    error: OSError | None = None
    for port in ports:
        candidate = BrowserLogin(store, issuer=issuer, port=port)
        try:
            candidate.start()
        except OSError as err:
            error = err
            continue
        login = candidate
        break
    if login is None:
        tried = ", ".join(str(port) for port in ports)
        _say(f"error: could not start the sign-in callback server on port {tried}: {error}")
        return 1
    _say(
        f"Waiting for the sign-in on {login.redirect_uri}.\n"
        "If your browser did not open, open this URL to sign in:\n\n"
        f"{login.auth_url}\n"
    )
    _open_browser(login.auth_url)
    try:
        result = login.wait()
    except KeyboardInterrupt:
        login.cancel()
        _say("Sign-in canceled")
        return 130
    if not result.success:
        _say(f"error: {result.error}")
        return 1
    info = store.read()
    who = f" as {info.email}" if info is not None and info.email else ""
    _say(f"Signed in with ChatGPT{who}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from codex_lsp.store.auth import AuthError, AuthStore
    from codex_lsp.store.home import codex_home

    store = AuthStore(codex_home())
    try:
        info = store.read()
    except AuthError as err:
        _say(f"error: {err}")
        return 1
    if info is None:
        _say(f"Not signed in ({store.path} does not exist)")
        return 1
    if info.mode == "chatgpt":
        who = f" as {info.email}" if info.email else ""
        plan = f" ({info.plan_type} plan)" if info.plan_type else ""
        _say(f"Signed in with ChatGPT{who}{plan}")
    else:
        _say(f"Signed in with an API key (stored in {store.path})")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    from codex_lsp.store.auth import AuthStore
    from codex_lsp.store.home import codex_home

    store = AuthStore(codex_home())
    try:
        removed = store.logout()
    except OSError as err:
        _say(f"error: could not remove {store.path}: {_reason(err)}")
        return 1
    _say("Signed out" if removed else "Not signed in")
    return 0


def _reason(err: Exception) -> str:
    # An OSError's text names the file; never anything read from it.
    return err.strerror if isinstance(err, OSError) and err.strerror else str(err)
