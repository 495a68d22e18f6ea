"""`codex-lsp login`, `login status` and `logout`, run as real processes.

The browser sign-in is driven end to end: the process prints the issuer's authorize URL, the
test plays the browser by calling the local callback with a real HTTP request, and the code
is exchanged at an OAuth token endpoint on 127.0.0.1. No key or token is ever printed.
"""

from __future__ import annotations

import json
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from codex_lsp.store.login_server import DEFAULT_CLIENT_ID
from tests.support.cli import CLI, StderrLines, cli_env, run_cli
from tests.support.engine import make_git_repo, write_config
from tests.support.oauth_issuer import CODE, FakeIssuer
from tests.support.scripted_builders import text_response

API_KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def issuer() -> Iterator[FakeIssuer]:
    fake = FakeIssuer(client_id=DEFAULT_CLIENT_ID)
    yield fake
    fake.close()


def _openai_auth_config(home: Path, base_url: str) -> None:
    write_config(home, base_url)
    with (home / "config.toml").open("a") as f:
        f.write("requires_openai_auth = true\n")


def test_api_key_sign_in_from_stdin_is_used_shown_and_forgotten(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    _openai_auth_config(home, scripted_model.base_url)
    env = cli_env(home)
    env.pop("OPENAI_API_KEY", None)

    login = run_cli(home, "login", "--with-api-key", stdin=API_KEY + "\n", env=env)

    assert login.returncode == 0, login.stderr
    assert "Signed in with an API key" in login.stderr
    auth = home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["OPENAI_API_KEY"] == API_KEY

    status = run_cli(home, "login", "status", env=env)
    assert status.returncode == 0 and "API key" in status.stderr

    scripted_model.enqueue(text_response("signed-in answer"))
    answered = run_cli(home, "exec", "-C", str(ws), "hello", env=env)
    assert answered.returncode == 0, answered.stderr
    assert scripted_model.requests[0].headers["authorization"] == f"Bearer {API_KEY}"

    logout = run_cli(home, "logout", env=env)
    assert logout.returncode == 0 and "Signed out" in logout.stderr
    assert not auth.exists()
    after = run_cli(home, "login", "status", env=env)
    assert after.returncode == 1 and "Not signed in" in after.stderr
    again = run_cli(home, "logout", env=env)
    assert again.returncode == 0 and "Not signed in" in again.stderr

    for result in (login, status, answered, logout, after):
        assert "SECRET" not in result.stdout + result.stderr


def test_an_empty_api_key_is_refused_and_nothing_is_written(tmp_path):
    home = tmp_path / "home"

    result = run_cli(home, "login", "--with-api-key", stdin="\n")

    assert result.returncode == 1 and "no API key" in result.stderr
    assert not (home / "auth.json").exists()


def test_the_missing_key_error_names_the_sign_in_command(scripted_model, tmp_path):
    home, ws = tmp_path / "home", make_git_repo(tmp_path / "ws")
    _openai_auth_config(home, scripted_model.base_url)
    with (home / "config.toml").open("a") as f:
        f.write('env_key = "CODEX_LSP_TEST_UNSET_KEY"\n')
    env = cli_env(home)
    env.pop("CODEX_LSP_TEST_UNSET_KEY", None)

    result = run_cli(home, "exec", "-C", str(ws), "hello", env=env)

    assert result.returncode == 1
    assert "CODEX_LSP_TEST_UNSET_KEY" in result.stderr and "codex-lsp login" in result.stderr


def _start_browser_login(home: Path, issuer: FakeIssuer) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "login", "-c", f'login_issuer="{issuer.url}"'],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(home),
    )


def _authorize_query(line: str, issuer: FakeIssuer) -> dict[str, str]:
    url = urlsplit(line.strip())
    assert f"{url.scheme}://{url.netloc}" == issuer.url and url.path == "/oauth/authorize"
    query = {key: values[0] for key, values in parse_qs(url.query).items()}
    issuer.challenge = query["code_challenge"]
    return query


def test_browser_sign_in_through_the_local_callback(issuer, tmp_path):
    home = tmp_path / "home"
    proc = _start_browser_login(home, issuer)
    lines = StderrLines(proc)
    try:
        query = _authorize_query(lines.until("/oauth/authorize"), issuer)
        redirect = urlsplit(query["redirect_uri"])
        assert redirect.hostname == "localhost" and redirect.path == "/auth/callback"

        # What the browser does when the issuer redirects it back.
        page = httpx.get(
            query["redirect_uri"], params={"code": CODE, "state": query["state"]}, timeout=30
        )
        assert page.status_code == 200 and "Signed in" in page.text
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    assert proc.stdout is not None
    printed = lines.rest() + proc.stdout.read()
    assert "Signed in with ChatGPT as dev@example.com" in printed
    assert issuer.token_requests[0]["code"] == CODE
    auth = home / "auth.json"
    assert stat.S_IMODE(auth.stat().st_mode) == 0o600
    assert json.loads(auth.read_text())["tokens"]["access_token"] == "access-SECRET"
    assert "SECRET" not in printed

    status = run_cli(home, "login", "status")
    assert status.returncode == 0 and "ChatGPT as dev@example.com" in status.stderr


def test_browser_sign_in_reports_a_failed_token_exchange(issuer, tmp_path):
    home = tmp_path / "home"
    issuer.fail_with = (400, {"error": "invalid_grant"})
    proc = _start_browser_login(home, issuer)
    lines = StderrLines(proc)
    try:
        query = _authorize_query(lines.until("/oauth/authorize"), issuer)
        httpx.get(query["redirect_uri"], params={"code": CODE, "state": query["state"]})
        assert proc.wait(timeout=30) == 1
    finally:
        proc.kill()
    printed = lines.rest()
    assert "token exchange failed: HTTP 400 (invalid_grant)" in printed
    assert CODE not in printed and not (home / "auth.json").exists()
