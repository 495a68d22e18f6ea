"""The environment of the commands the model runs, from `[shell_environment_policy]`.

Codex's algorithm, step by step:

1. start from the engine's environment: all of it (`inherit = "all"`), the core variables
   only (`"core"`: HOME, LOGNAME, PATH, SHELL, USER, USERNAME, TMPDIR, TEMP, TMP), or
   nothing (`"none"`);
2. drop the engine's own credential variables, by name, whatever they are called and
   whatever the policy says: every provider's `env_key` and `env_http_headers` variables,
   `OPENAI_API_KEY`, `CODEX_API_KEY`, MCP servers' `bearer_token_env_var` and `env` names
   (`store/secrets.py`); only `set` can give a command one of them;
3. unless `ignore_default_excludes`, drop the default excludes: names matching `*KEY*`,
   `*SECRET*`, `*TOKEN*` (Codex's) and `*PASSWORD*`, `*PASSWD*`, `*PASSPHRASE*`, `*CRED*`,
   `*_PAT`, `*WEBHOOK*`, `*_PWD`, `*_AUTH`, `*COOKIE*`; any variable whose value is a URL
   with a password in it (`postgres://user:secret@host/db`), and any whose value is a
   webhook URL (Slack's, Discord's): the URL itself is the credential;
4. drop the names matching `exclude`;
5. add `set`;
6. if `include_only` is not empty, keep only the names matching it.

Patterns are shell wildcards (`*`, `?`, `[...]`) matched without regard to case.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

from codex_lsp.store.config_sandbox import ShellEnvironmentPolicy

CORE_VARIABLES = frozenset(
    {"HOME", "LOGNAME", "PATH", "SHELL", "USER", "USERNAME", "TMPDIR", "TEMP", "TMP"}
)
DEFAULT_EXCLUDES = (
    "*KEY*",
    "*SECRET*",
    "*TOKEN*",
    "*PASSWORD*",
    "*PASSWD*",
    "*PASSPHRASE*",
    "*CRED*",
    "*_PAT",
    "*WEBHOOK*",
    "*_PWD",
    "*_AUTH",
    "*COOKIE*",
)
# scheme://user:password@ anywhere in the value; a bare user@ carries no secret.
_CREDENTIAL_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s/@:]*:[^\s/@]*@", re.IGNORECASE)
# A URL anyone can post to: the secret is in the path.
_WEBHOOK_URL = re.compile(
    r"https?://(?:hooks\.slack\.com/|(?:\w+\.)?discord(?:app)?\.com/api/webhooks/"
    r"|[^\s/]*webhook\.office\.com/|chat\.googleapis\.com/v1/spaces/)",
    re.IGNORECASE,
)


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """Whether `name` matches one of the wildcard `patterns`, ignoring case."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def carries_credentials(value: str) -> bool:
    """Whether `value` holds a URL with a password in it, or a webhook URL."""
    return _CREDENTIAL_URL.search(value) is not None or _WEBHOOK_URL.search(value) is not None


def shell_environment(
    policy: ShellEnvironmentPolicy,
    environ: Mapping[str, str],
    credentials: Iterable[str] = (),
) -> dict[str, str]:
    """The environment a command gets under `policy`, from the engine's `environ`, never
    with the engine's own `credentials` variables unless `set` names them."""
    if policy.inherit == "all":
        env = dict(environ)
    elif policy.inherit == "core":
        env = {name: value for name, value in environ.items() if name in CORE_VARIABLES}
    else:
        env = {}
    for name in credentials:
        env.pop(name, None)
    if not policy.ignore_default_excludes:
        env = {
            name: value
            for name, value in env.items()
            if not matches_any(name, DEFAULT_EXCLUDES) and not carries_credentials(value)
        }
    if policy.exclude:
        env = {name: value for name, value in env.items() if not matches_any(name, policy.exclude)}
    env.update(policy.set)
    if policy.include_only:
        env = {name: value for name, value in env.items() if matches_any(name, policy.include_only)}
    return env
