"""`codex-lsp doctor`: what this installation would use, and what is missing.

It resolves config.toml the way the engine does (profile and `-c` overrides included), so an
editor's health check can show the server's own answer instead of re-reading the file.
`--json` prints one object for programs; without it, a short report for people. The exit
status is 0 when a session could start, 1 otherwise. The key itself is never printed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from codex_lsp import __version__
from codex_lsp.cli.arguments import add_config_arguments


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("doctor", help="check the config, the provider key, the sandbox")
    add_config_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def diagnose(profile: str | None, overrides: list[str], model: str | None) -> dict[str, Any]:
    from codex_lsp.engine.models import DEFAULT_MODEL
    from codex_lsp.sandbox import sandbox_support, sandbox_unavailable_warning
    from codex_lsp.store.auth import AuthError, AuthStore
    from codex_lsp.store.config import CONFIG_FILENAME, load_config
    from codex_lsp.store.config_errors import ConfigError
    from codex_lsp.store.home import codex_home

    home = codex_home()
    path = home / CONFIG_FILENAME
    support = sandbox_support()
    report: dict[str, Any] = {
        "version": __version__,
        "codexHome": str(home),
        "configPath": str(path),
        "configExists": path.is_file(),
        "configError": None,
        "ignoredKeys": [],
        "model": None,
        "modelProvider": None,
        "providerDefined": False,
        "envKey": None,
        "keyRequired": False,
        "signInAccepted": False,
        "keySource": None,
        "sandbox": {
            "landlock": support.landlock,
            "seccomp": support.seccomp,
            "warning": sandbox_unavailable_warning(support),
        },
    }
    try:
        config = load_config(home, profile=profile, overrides=overrides)
    except ConfigError as err:
        report["configError"] = str(err)
        return report
    from codex_lsp.store.config_keys import file_key_warnings

    report["ignoredKeys"] = [
        {"file": str(ignored.path), "key": ignored.key, "reason": ignored.reason}
        for ignored in file_key_warnings(config)
    ]
    provider_id = config.model_provider
    # What a new session would run: the same fallback the engine applies.
    report["model"] = model or config.model or DEFAULT_MODEL
    report["modelProvider"] = provider_id
    provider = config.model_providers.get(provider_id)
    if provider is None:
        return report
    report["providerDefined"] = True
    report["envKey"] = provider.env_key
    report["keyRequired"] = bool(provider.env_key or provider.requires_openai_auth)
    report["signInAccepted"] = provider.requires_openai_auth
    if provider.auth is not None:
        report["keySource"] = "command"
    elif provider.env_api_key():
        report["keySource"] = "env"
    elif provider.requires_openai_auth:
        try:
            if AuthStore(home).api_key_for(provider):
                report["keySource"] = "auth.json"
        except AuthError as err:
            report["configError"] = str(err)
    return report


def ready(report: dict[str, Any]) -> bool:
    return (
        report["configError"] is None
        and report["providerDefined"]
        and (report["keySource"] is not None or not report["keyRequired"])
    )


def run(args: argparse.Namespace) -> int:
    report = diagnose(args.profile, args.overrides, args.model)
    if args.json:
        print(json.dumps(report))
    else:
        print(render(report))
    return 0 if ready(report) else 1


def render(report: dict[str, Any]) -> str:
    lines = [f"codex-lsp {report['version']}", f"home: {report['codexHome']}"]
    if report["configError"]:
        lines.append(f"config: ERROR {report['configError']}")
    elif report["configExists"]:
        lines.append(f"config: {report['configPath']}")
    else:
        lines.append(f"config: none at {report['configPath']} (defaults apply)")
    for ignored in report["ignoredKeys"]:
        lines.append(f"config: WARNING {ignored['key']}: {ignored['reason']}")
    provider = report["modelProvider"]
    if provider is not None:
        lines.append(f"model: {report['model']}, provider: {provider}")
        if not report["providerDefined"]:
            lines.append(f"provider: ERROR {provider!r} is not defined")
        elif report["keySource"]:
            lines.append(f"key: from {report['keySource']}")
        elif report["keyRequired"]:
            login = "; set it or run `codex-lsp login`" if report["signInAccepted"] else ""
            lines.append(f"key: ERROR {report['envKey']} is not set{login}")
    if report["sandbox"]["warning"]:
        lines.append(f"sandbox: WARNING {report['sandbox']['warning']}")
    else:
        lines.append("sandbox: landlock and seccomp available")
    return "\n".join(lines)
