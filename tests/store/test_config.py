"""config.toml: Codex's keys, profiles, -c overrides, provider merge, and errors that point home."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from codex_lsp.protocol.core.policy import ReadOnly, WorkspaceWrite
from codex_lsp.store.config import load_config
from codex_lsp.store.config_errors import ConfigError


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def error_of(home: Path, **options) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(home, **options)
    error = info.value
    # No chained pydantic or tomllib traceback behind the message.
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__
    return info.value


def test_missing_file_means_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.model_provider == "openai"
    assert config.approval_policy == "on-request"
    assert config.sandbox_mode == "read-only"
    assert config.provider().name == "OpenAI"
    assert set(config.model_providers) >= {"openai", "ollama"}
    assert config.config_path == tmp_path / "config.toml"


def test_codex_keys_load(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        model = "gpt-5-codex"
        model_reasoning_effort = "high"
        model_reasoning_summary = "detailed"
        model_verbosity = "low"
        model_context_window = 200000
        model_auto_compact_token_limit = 150000
        approval_policy = "never"
        sandbox_mode = "workspace-write"
        developer_instructions = "be brief"
        instructions = "legacy base"
        max_active_subagents = 3
        personality = "pragmatic"
        review_model = "gpt-5"
        hide_agent_reasoning = true
        project_doc_max_bytes = 1000
        cli_auth_credentials_store = "file"
        chatgpt_base_url = "https://example.test/backend/"
        forced_login_method = "chatgpt"
        login_issuer = "http://127.0.0.1:9/"

        [sandbox_workspace_write]
        writable_roots = ["/tmp/extra", "rel"]
        network_access = true
        exclude_slash_tmp = true

        [features]
        subagent_tools = true
        web_search_request = false

        [tools]
        web_search = true

        [shell_environment_policy]
        inherit = "core"
        set = { A = "1" }

        [mcp_servers.docs]
        command = "docs-server"
        args = ["--stdio"]
        env = { TOKEN_FILE = "/x" }
        startup_timeout_sec = 5
        tool_timeout_sec = 30.5

        [mcp_servers.remote]
        url = "https://mcp.example.test/"
        enabled = false
        """,
    )
    config = load_config(tmp_path)
    assert config.model == "gpt-5-codex"
    assert config.model_reasoning_effort == "high"
    assert config.model_context_window == 200_000
    assert config.approval_policy == "never"
    assert config.effective_base_instructions == "legacy base"
    assert config.feature_enabled("subagent_tools")
    assert not config.feature_enabled("web_search_request")
    assert config.tools.web_search is True
    assert config.shell_environment_policy.inherit == "core"
    assert config.shell_environment_policy.set == {"A": "1"}
    assert config.mcp_servers["docs"].args == ["--stdio"]
    assert config.mcp_servers["docs"].tool_timeout_sec == 30.5
    assert config.mcp_servers["remote"].enabled is False
    assert config.login_issuer == "http://127.0.0.1:9/"
    policy = config.sandbox_policy("/work")
    assert isinstance(policy, WorkspaceWrite)
    assert policy.writable_roots == ("/tmp/extra", "/work/rel")
    assert policy.network_access and policy.exclude_slash_tmp and not policy.exclude_tmpdir_env_var


def test_unknown_keys_are_ignored(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        model = "o3"
        notify = ["notify-send"]
        some_future_key = { nested = 1 }
        [tui]
        theme = "dark"
        [projects."/home/me/repo"]
        trust_level = "trusted"
        [sandbox_workspace_write]
        unknown_knob = 1
        """,
    )
    assert load_config(tmp_path).model == "o3"


def test_profiles_are_files_beside_config_toml(tmp_path: Path) -> None:
    write(tmp_path, 'model = "base-model"\napproval_policy = "on-request"\n')
    (tmp_path / "fast.config.toml").write_text(
        'model = "fast-model"\nmodel_reasoning_effort = "low"\n'
    )
    (tmp_path / "careful.config.toml").write_text(
        'model = "careful-model"\napproval_policy = "untrusted"\nsandbox_mode = "read-only"\n'
    )
    assert load_config(tmp_path).model == "base-model"
    config = load_config(tmp_path, profile="fast")
    assert (config.model, config.model_reasoning_effort, config.profile) == (
        "fast-model",
        "low",
        "fast",
    )
    config = load_config(tmp_path, profile="careful", overrides=["model=o3"])
    assert (config.model, config.approval_policy) == ("o3", "untrusted")  # -c beats the profile
    assert config.model_reasoning_effort is None
    assert isinstance(config.sandbox_policy(), ReadOnly)
    # As in Codex, a profile without a file adds nothing.
    assert load_config(tmp_path, profile="nope").model == "base-model"
    assert "not a profile name" in str(error_of(tmp_path, profile="../config"))


def test_a_bad_value_in_a_profile_file_names_that_file(tmp_path: Path) -> None:
    write(tmp_path, 'model = "m"\n')
    profile = tmp_path / "fast.config.toml"
    profile.write_text('model = "o3"\nsandbox_mode = "yolo"\n')
    message = str(error_of(tmp_path, profile="fast"))
    assert message.startswith(f"{profile}:2: sandbox_mode: expected one of read-only")


def test_legacy_profile_tables_are_refused_when_selected(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "m"\n[profiles.fast]\nmodel = "o3"\n')
    assert load_config(tmp_path).model == "m"  # an unselected table is left alone
    message = str(error_of(tmp_path, profile="fast"))
    assert f"{path}:2: profiles.fast: --profile fast cannot be used" in message
    assert f"move its settings to {tmp_path}/fast.config.toml" in message
    write(tmp_path, 'profile = "fast"\nmodel = "m"\n')
    message = str(error_of(tmp_path))
    assert 'legacy `profile = "fast"` config is no longer supported' in message
    assert "use `--profile NAME`" in message


def test_overrides_with_dotted_paths(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        model = "m"
        [sandbox_workspace_write]
        network_access = false
        """,
    )
    config = load_config(
        tmp_path,
        overrides=[
            "model=o3",  # a bare word is a string
            "sandbox_workspace_write.network_access=true",
            "sandbox_workspace_write.writable_roots=['/a', '/b']",
            "model_context_window=1000",
            "features.subagent_tools=true",
            'model_providers.mine={ name = "Mine", base_url = "http://127.0.0.1:1/v1" }',
        ],
    )
    assert config.model == "o3"
    assert config.sandbox_workspace_write.network_access is True
    assert config.sandbox_workspace_write.writable_roots == ["/a", "/b"]
    assert config.model_context_window == 1000
    assert config.features == {"subagent_tools": True}
    assert config.model_providers["mine"].base_url == "http://127.0.0.1:1/v1"
    assert "key=value" in str(error_of(tmp_path, overrides=["model"]))


def test_provider_merge_user_table_over_built_ins(tmp_path: Path) -> None:
    write(
        tmp_path,
        """
        model_provider = "azure"

        [model_providers.azure]
        name = "Azure"
        base_url = "https://example.openai.azure.com/openai"
        env_key = "AZURE_OPENAI_API_KEY"
        wire_api = "responses"
        query_params = { api-version = "2025-04-01-preview" }
        request_max_retries = 2

        [model_providers.ollama]
        base_url = "http://gpu-box:11434/v1"
        """,
    )
    config = load_config(tmp_path)
    provider = config.provider()
    assert provider.name == "Azure"
    assert provider.query_params == {"api-version": "2025-04-01-preview"}
    assert provider.request_max_retries == 2
    ollama = config.model_providers["ollama"]
    assert (ollama.name, ollama.base_url, ollama.wire_api) == (
        "Ollama",
        "http://gpu-box:11434/v1",
        "chat",
    )
    assert config.model_providers["openai"].requires_openai_auth
    origins = config.config_origins()
    assert origins["model_providers.ollama.base_url"] == "user"
    assert origins["model_providers.ollama.wire_api"] == "default"
    assert origins["model_provider"] == "user"


def test_unknown_provider_names_the_id_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "x"\nmodel_provider = "nowhere"\n')
    error = error_of(tmp_path)
    assert str(error).startswith(f"{path}:2: model_provider: provider 'nowhere' is not defined")
    assert "[model_providers.nowhere]" in str(error)


def test_bad_value_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        # my settings
        model = "o3"

        [sandbox_workspace_write]
        network_access = false

        approval_policy = "sometimes"
        """,
    )
    # (the last key sits inside [sandbox_workspace_write], so it is ignored there)
    assert load_config(tmp_path).approval_policy == "on-request"

    path = write(
        tmp_path,
        """
        # my settings
        model = "o3"


        sandbox_mode = "workspace-write"

        approval_policy = "sometimes"
        """,
    )
    error = error_of(tmp_path)
    assert str(error) == (
        f"{path}:7: approval_policy: expected one of untrusted, on-failure, on-request, never, "
        'got "sometimes"'
    )
    assert (error.path, error.line, error.key) == (path, 7, "approval_policy")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[sandbox_workspace_write]\nwritable_roots = []\nnetwork_access = 3\n",
            ":3: sandbox_workspace_write.network_access: expected true or false, got 3",
        ),
        (
            'model = "m"\nsandbox_workspace_write = { network_access = "maybe" }\n',
            ':2: sandbox_workspace_write.network_access: expected true or false, got "maybe"',
        ),
        (
            '[model_providers.mine]\nbase_url = "http://x"\n',
            ":1: model_providers.mine.name: required key is missing",
        ),
        (
            '[model_providers."my.dotted"]\nname = "x"\nwire_api = "grpc"\n',
            ':3: model_providers."my.dotted".wire_api: expected one of responses, chat, got "grpc"',
        ),
        (
            "model_context_window = -5\n",
            ":1: model_context_window: input should be greater than 0, got -5",
        ),
        (
            'model_context_window = "lots"\n',
            ':1: model_context_window: expected an integer, got "lots"',
        ),
        (
            '[mcp_servers.broken]\nargs = ["x"]\n',
            ":1: mcp_servers.broken: expected a `command` (stdio server) or a `url`",
        ),
        (
            "[features]\nsubagent_tools = 'yes please'\n",
            ":2: features.subagent_tools: expected true or false",
        ),
    ],
)
def test_validation_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    message = str(error_of(tmp_path))
    assert message.startswith(str(path))
    assert expected in message


def test_toml_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, 'model = "o3"\napproval_policy = never\n')
    error = error_of(tmp_path)
    assert str(error).startswith(f"{path}:2:19: invalid TOML: ")
    assert (error.line, error.column) == (2, 19)
    path = write(tmp_path, 'model = "o3"\n[unclosed\n')
    assert str(error_of(tmp_path)).startswith(f"{path}:2:")
    path = write(tmp_path, 'model = "a"\nmodel = "b"\n')
    assert str(error_of(tmp_path)).startswith(f"{path}:2:")


def test_bad_override_names_the_flag(tmp_path: Path) -> None:
    write(tmp_path, 'approval_policy = "never"\n')
    error = error_of(tmp_path, overrides=["approval_policy=sometimes"])
    assert str(error) == (
        "-c approval_policy: expected one of untrusted, on-failure, on-request, never, "
        'got "sometimes"'
    )


def test_origins(tmp_path: Path) -> None:
    write(tmp_path, 'model = "m"\n')
    (tmp_path / "p.config.toml").write_text('approval_policy = "never"\n')
    origins = load_config(tmp_path, profile="p", overrides=["sandbox_mode=danger-full-access"])
    origins = origins.config_origins()
    assert origins["model"] == "user"
    assert origins["approval_policy"] == "user"  # from the user's file, via the profile
    assert origins["sandbox_mode"] == "override"
    assert origins["model_reasoning_effort"] == "default"


@pytest.mark.parametrize(
    ("line", "span"),
    [
        ('sandbox_mode = "nope"  # try', (16, 21)),
        ("approval_policy = 5", (19, 19)),
        ('  model = "a \\" b"', (11, 18)),
        ("model_context_window = -12 # small", (24, 26)),
    ],
)
def test_a_bad_value_is_located_from_its_first_to_its_last_character(
    tmp_path: Path, line: str, span: tuple[int, int]
) -> None:
    # A quoted model name is valid: make it wrong by its type instead.
    text = line.replace('"a \\" b"', '"a \\" b"\nmodel_provider = 5') if "model =" in line else line
    path = write(tmp_path, 'profile_note = "x"\n' + text + "\n")
    error = error_of(tmp_path)
    if "model =" in line:
        assert (error.line, error.key) == (3, "model_provider")
        return
    assert (error.path, error.line, (error.column, error.end_column)) == (path, 2, span)
    assert error.located.startswith(f"{path}:2:{span[0]}: {error.key}: ")


@pytest.mark.parametrize(
    "text",
    [
        '[model_providers.p]\nname = "p"\nhttp_headers = "Bearer sk-live-0123456789abcdef"\n',
        '[model_providers.p]\nname = "p"\nhttp_headers = { Authorization = 123456789012 }\n',
        '[model_providers.p]\nname = "p"\nenv_key = 123456789012\n',
        'model = "sk-live-0123456789abcdef"\nmodel_provider = "sk-live-0123456789abcdef"\n',
    ],
)
def test_a_secret_in_a_bad_value_is_not_repeated(tmp_path: Path, text: str) -> None:
    write(tmp_path, text)
    error = error_of(tmp_path)
    message = f"{error} {error.located} {error.reason}"
    assert "(not shown)" in message or "model_provider" in message
    assert "0123456789" not in message.replace(str(tmp_path), "")
