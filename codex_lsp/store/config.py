"""`$CODEX_HOME/config.toml`: Codex's keys, profiles and `-c key=value` overrides.

Layers, lowest first: built-in defaults, the user's file, the selected profile's own file
`$CODEX_HOME/<name>.config.toml`, then `-c` overrides (which win over a profile, as a command
line should). Unknown keys are ignored so
a Codex user's file loads as is. Anything wrong raises `ConfigError` naming the file, line and
key; never a pydantic traceback. Reading and merging the tables: `config_layers.py`; the
profile's and a trusted project's files: `config_files.py`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from codex_lsp.protocol.core.policy import (
    AskForApproval,
    DangerFullAccess,
    ReadOnly,
    SandboxMode,
    WorkspaceWrite,
    sandbox_policy_for_mode,
)
from codex_lsp.protocol.core.providers import ModelProviderInfo
from codex_lsp.store.config_errors import (
    ConfigError,
    data_path,
    describe_problem,
    format_key,
    holds_secret,
    locate_key,
    looks_secret,
    value_span,
)
from codex_lsp.store.config_files import (
    CONFIG_FILENAME as CONFIG_FILENAME,
    PROFILE_SUFFIX,
    check_profile_name,
    profile_layer,
    profile_path,
    project_layers,
)
from codex_lsp.store.config_hooks import HookGroup, ProjectConfig
from codex_lsp.store.config_layers import (
    KeyPath,
    covered,
    deep_merge,
    leaf_paths,
    parse_override,
    parse_toml,
    read_toml,
    set_path,
)
from codex_lsp.store.config_mcp import McpServerConfig
from codex_lsp.store.config_sandbox import SandboxLinux, ShellEnvironmentPolicy
from codex_lsp.store.config_skills import SkillsConfig
from codex_lsp.store.home import codex_home as default_codex_home
from codex_lsp.store.providers import OPENAI_PROVIDER_ID, merged_providers

Origin = Literal["user", "override", "default"]


class _Table(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SandboxWorkspaceWrite(_Table):
    writable_roots: list[str] = Field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False


class GranularApprovalConfig(_Table):
    """`approval_policy = { granular = {...} }`: per kind of question, whether it may be asked
    (`false` declines it without asking)."""

    sandbox_approval: bool
    rules: bool
    mcp_elicitations: bool
    skill_approval: bool = False
    request_permissions: bool = False


class GranularApprovalPolicy(_Table):
    granular: GranularApprovalConfig


class ToolToggle(_Table):
    """`[tools.<name>]`: a built-in tool that is off unless enabled."""

    enabled: bool = False


class ToolsConfig(_Table):
    web_search: bool | None = None
    view_image: bool | None = None
    update_plan: ToolToggle = Field(default_factory=ToolToggle)


class Config(_Table):
    """The effective configuration after all layers are applied."""

    model: str | None = None
    model_provider: str = OPENAI_PROVIDER_ID
    # Open, as in Codex: a model may advertise efforts beyond the usual six.
    model_reasoning_effort: str | None = Field(default=None, min_length=1)
    model_reasoning_summary: Literal["auto", "concise", "detailed", "none"] | None = None
    model_verbosity: Literal["low", "medium", "high"] | None = None
    model_context_window: int | None = Field(default=None, gt=0)
    model_auto_compact_token_limit: int | None = Field(default=None, gt=0)
    review_model: str | None = None
    approval_policy: AskForApproval | GranularApprovalPolicy = AskForApproval.ON_REQUEST
    sandbox_mode: SandboxMode = "read-only"
    sandbox_workspace_write: SandboxWorkspaceWrite = Field(default_factory=SandboxWorkspaceWrite)
    model_providers: dict[str, ModelProviderInfo] = Field(default_factory=dict)
    profile: str | None = None
    developer_instructions: str | None = None
    instructions: str | None = None
    base_instructions: str | None = None
    features: dict[str, bool] = Field(default_factory=dict)
    max_active_subagents: int | None = Field(default=None, ge=1)
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    skills: SkillsConfig = Field(default_factory=SkillsConfig)
    personality: Literal["friendly", "pragmatic", "none"] | None = None
    hide_agent_reasoning: bool = False
    shell_environment_policy: ShellEnvironmentPolicy = Field(default_factory=ShellEnvironmentPolicy)
    sandbox_linux: SandboxLinux = Field(default_factory=SandboxLinux)
    project_doc_max_bytes: int = Field(default=32 * 1024, ge=0)
    cli_auth_credentials_store: Literal["file", "keyring", "auto", "ephemeral"] | None = None
    web_search: Literal["disabled", "cached", "indexed", "live"] | None = None
    notify: list[str] | None = None
    project_doc_fallback_filenames: list[str] = Field(default_factory=list)
    model_instructions_file: str | None = None
    projects: dict[str, ProjectConfig] = Field(default_factory=dict)
    hooks: dict[str, list[HookGroup]] = Field(default_factory=dict)
    chatgpt_base_url: str = "https://chatgpt.com/backend-api/"
    forced_login_method: Literal["chatgpt", "api"] | None = None
    login_issuer: str | None = None

    _path: Path | None = PrivateAttr(default=None)
    _codex_home: Path | None = PrivateAttr(default=None)
    _user_keys: frozenset[KeyPath] = PrivateAttr(default=frozenset())
    _override_keys: frozenset[KeyPath] = PrivateAttr(default=frozenset())
    _file_layers: tuple[tuple[Path, dict[str, Any]], ...] = PrivateAttr(default=())

    @property
    def config_path(self) -> Path | None:
        return self._path

    @property
    def file_layers(self) -> tuple[tuple[Path, dict[str, Any]], ...]:
        """Each file read (config.toml, then the profile's), with its tables as written."""
        return self._file_layers

    @property
    def codex_home(self) -> Path | None:
        return self._codex_home

    @property
    def effective_base_instructions(self) -> str | None:
        """`base_instructions`, or the older `instructions` key."""
        return self.base_instructions or self.instructions

    @property
    def web_search_enabled(self) -> bool:
        """Top-level `web_search` (Codex's current key) when set, else `[tools] web_search`."""
        if self.web_search is not None:
            return self.web_search != "disabled"
        return bool(self.tools.web_search)

    @property
    def core_approval_policy(self) -> AskForApproval:
        """The policy the engine runs: a granular policy asks as `on-request` does."""
        if isinstance(self.approval_policy, GranularApprovalPolicy):
            return AskForApproval.ON_REQUEST
        return self.approval_policy

    def feature_enabled(self, name: str, default: bool = False) -> bool:
        return self.features.get(name, default)

    def provider(self) -> ModelProviderInfo:
        """The `ModelProviderInfo` for `model_provider`."""
        found = self.model_providers.get(self.model_provider)
        if found is None:
            known = ", ".join(sorted(self.model_providers)) or "none"
            raise ConfigError(
                f"model_provider {self.model_provider!r} is not defined "
                f"(known: {known}); add a [model_providers.{self.model_provider}] table",
                path=self._path,
                key="model_provider",
            )
        return found

    def sandbox_policy(
        self, cwd: Path | str | None = None
    ) -> DangerFullAccess | ReadOnly | WorkspaceWrite:
        """The protocol `SandboxPolicy` for `sandbox_mode`; relative writable roots use `cwd`."""
        settings = self.sandbox_workspace_write
        base = Path(cwd) if cwd is not None else None
        roots = tuple(
            str(base / root) if base is not None and not Path(root).is_absolute() else root
            for root in settings.writable_roots
        )
        policy = sandbox_policy_for_mode(
            self.sandbox_mode, writable_roots=roots, network_access=settings.network_access
        )
        if isinstance(policy, WorkspaceWrite):
            policy = policy.model_copy(
                update={
                    "exclude_tmpdir_env_var": settings.exclude_tmpdir_env_var,
                    "exclude_slash_tmp": settings.exclude_slash_tmp,
                }
            )
        return policy

    def config_origins(self) -> dict[str, Origin]:
        """For each leaf key of the effective config, which layer set it."""
        origins: dict[str, Origin] = {}
        for path in leaf_paths(self.model_dump(mode="json")):
            if covered(path, self._override_keys):
                origins[format_key(path)] = "override"
            elif covered(path, self._user_keys):
                origins[format_key(path)] = "user"
            else:
                origins[format_key(path)] = "default"
        return origins


# -- loading ---------------------------------------------------------------------------------


class _Loader:
    """Carries what an error message needs: the file text and where each value came from."""

    def __init__(self, path: Path, text: str, overrides: Sequence[tuple[KeyPath, Any]]):
        self.path = path
        self.text = text
        self.override_keys = [keys for keys, _ in overrides]

    def fail(self, file_key: Sequence[str | int], problem: str) -> ConfigError:
        key = format_key(file_key)
        for keys in self.override_keys:
            n = min(len(keys), len(file_key))
            if tuple(str(k) for k in file_key[:n]) == keys[:n]:
                return ConfigError(f"-c {format_key(keys)}: {problem}", key=key)
        reason = f"{key}: {problem}"
        where = locate_key(self.text, file_key)
        if where is None:
            return ConfigError(f"{self.path}: {reason}", path=self.path, key=key, reason=reason)
        line, column = where
        # Point at the value that is wrong, as an editor would underline it.
        column, end_column = value_span(self.text, line, column) or (column, column)
        return ConfigError(
            f"{self.path}:{line}: {reason}",
            path=self.path,
            line=line,
            column=column,
            end_column=end_column,
            key=key,
            reason=reason,
        )

    def validate(self, data: dict[str, Any], file_prefix: KeyPath = ()) -> Config:
        if "model_providers" in data:
            data = {**data, "model_providers": merged_providers(data)}
        try:
            return Config.model_validate(data)
        except ValidationError as err:
            errors = err.errors()
            # A value that is one of several shapes (a policy name or a granular table) fails
            # once per shape: report the shape the value has, by the keys it really holds.
            paths = [data_path(data, error["loc"]) for error in errors]
            best = max(range(len(errors)), key=lambda index: len(paths[index]))
            first = errors[best]
            loc = (*file_prefix, *paths[best])
            problem = describe_problem(first, secret=holds_secret(loc))
            raise self.fail(loc, problem) from None


def load_config(
    codex_home: Path | str | None = None,
    *,
    profile: str | None = None,
    overrides: Sequence[str] = (),
    cwd: Path | str | None = None,
    text: str | None = None,
) -> Config:
    """Load `<codex_home>/config.toml` (absent means all defaults) with a profile and overrides.

    Layers, lowest first: the file, the profile's own file `<codex_home>/<profile>.config.toml`
    (absent means nothing to add, as in Codex), then `-c`. The old `[profiles.<name>]` tables
    are not applied: selecting one (with `profile = "<name>"` in the file, or as `profile` while
    the file holds that table) fails with the move to make, as Codex's loader does.

    A project the user trusts (`[projects."<dir>"] trust_level = "trusted"`, for `cwd` or a
    folder above it) adds its `.codex/config.toml` files, from the trusted folder down to `cwd`,
    over the user's layers and under `-c`; an untrusted project's are not read.

    `text`, when given, is validated as if it were the file's contents (a change about to be
    written is checked exactly as the file will be read).
    """
    home = Path(codex_home) if codex_home is not None else default_codex_home()
    path = home / CONFIG_FILENAME
    text, file_raw = read_toml(path) if text is None else parse_toml(path, text)
    parsed = [parse_override(item) for item in overrides]
    loader = _Loader(path, text, parsed)

    legacy = file_raw.get("profile")
    if legacy is not None:
        shown = "(not shown)" if looks_secret(str(legacy)) else f'"{legacy}"'
        raise loader.fail(
            ("profile",),
            f"legacy `profile = {shown}` config is no longer supported; use `--profile NAME` "
            f"with {home}/NAME{PROFILE_SUFFIX} instead",
        )
    tables = file_raw.get("profiles", {})
    if not isinstance(tables, dict):
        raise loader.fail(("profiles",), "expected a table")

    layers: list[tuple[Path, dict[str, Any]]] = [(path, file_raw)]
    raw = copy.deepcopy(file_raw)
    user_keys = set(leaf_paths({key: value for key, value in raw.items() if key != "profiles"}))
    loader.validate({key: value for key, value in raw.items() if key != "profiles"})

    def add_layer(layer_path: Path, layer_raw: dict[str, Any], layer_text: str) -> None:
        nonlocal raw
        _Loader(layer_path, layer_text, ()).validate(dict(layer_raw))
        layers.append((layer_path, layer_raw))
        raw = deep_merge(raw, layer_raw)
        user_keys.update(leaf_paths(layer_raw))

    if profile is not None:
        check_profile_name(profile)
        if profile in tables:
            raise loader.fail(
                ("profiles", profile),
                f"--profile {profile} cannot be used while {path} holds a legacy "
                f"[profiles.{profile}] table; move its settings to "
                f"{profile_path(home, profile)} and remove the table",
            )
        found = profile_layer(home, profile)
        if found is not None:
            add_layer(*found)
    for found in project_layers(raw, cwd):
        add_layer(*found)
    for keys, value in parsed:
        set_path(raw, keys, value)
    effective = {key: value for key, value in raw.items() if key != "profiles"}
    effective["profile"] = profile
    effective["model_providers"] = merged_providers(effective)
    config = loader.validate(effective)
    if config.model_provider not in config.model_providers:
        known = ", ".join(sorted(config.model_providers))
        if looks_secret(config.model_provider):
            problem = (
                f"a provider id shaped like a secret (not shown) is not defined (known: {known})"
            )
        else:
            problem = (
                f"provider {config.model_provider!r} is not defined (known: {known}); "
                f"add a [model_providers.{config.model_provider}] table"
            )
        raise loader.fail(("model_provider",), problem)
    if config.model_instructions_file and not config.base_instructions:
        # Codex's key for instructions kept in a file; a relative path is the home's.
        source = home / Path(config.model_instructions_file).expanduser()
        config.model_instructions_file = str(source)
        try:
            config.base_instructions = source.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            reason = getattr(err, "strerror", None) or str(err)
            problem = f"cannot read {source}: {reason}"
            raise loader.fail(("model_instructions_file",), problem) from None
    config._path = path
    config._codex_home = home
    config._user_keys = frozenset(user_keys)
    config._override_keys = frozenset(keys for keys, _ in parsed)
    config._file_layers = tuple(layers)
    return config
