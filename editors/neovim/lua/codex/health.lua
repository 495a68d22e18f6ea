-- codex.health: `:checkhealth codex`: Neovim version, the server binary and its version,
-- the config file, and whether the model provider's API key is present.
local M = {}

local health = vim.health

-- The codex-lsp command without its `serve` part, plus --version.
local function version_cmd(cmd)
  local out = {}
  for _, part in ipairs(cmd) do
    if part == "serve" then
      break
    end
    table.insert(out, part)
  end
  table.insert(out, "--version")
  return out
end

local function codex_home(env)
  local home = (env and env.CODEX_HOME) or vim.env.CODEX_HOME
  if home and home ~= "" then
    return home
  end
  return vim.fs.normalize("~/.codex-lsp")
end

-- Just enough TOML to find the keys that decide the provider: top-level `model`,
-- `model_provider`, and `env_key` / `base_url` of each [model_providers.<id>] table.
local function read_config(path)
  local top, providers, section = {}, {}, nil
  for raw in io.lines(path) do
    local line = raw:gsub("^%s+", ""):gsub("%s+$", "")
    local header = line:match("^%[([^%]]+)%]$")
    if header then
      section = header
      local id = header:match("^model_providers%.(.+)$")
      if id then
        id = id:gsub('^"(.*)"$', "%1")
        providers[id] = providers[id] or {}
        section = { provider = id }
      end
    elseif line ~= "" and not line:match("^#") then
      local key, value = line:match("^([%w_%-]+)%s*=%s*(.-)%s*$")
      if key then
        value = value:gsub("%s+#.*$", "")
        local str = value:match('^"(.*)"$') or value:match("^'(.*)'$")
        if section == nil then
          top[key] = str or value
        elseif type(section) == "table" then
          providers[section.provider][key] = str or value
        end
      end
    end
  end
  return top, providers
end

-- Providers every install knows; their keys come from these variables (or auth.json).
local BUILTIN = {
  openai = { env_key = "OPENAI_API_KEY", auth_json = true },
  ollama = { env_key = nil },
}

local function check_neovim()
  health.start("Neovim")
  local v = vim.version()
  local text = ("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.10") == 1 then
    health.ok(text)
  else
    health.error(text .. " is too old", { "codex.nvim needs Neovim 0.10 or newer" })
  end
end

local function check_server(options)
  health.start("codex-lsp server")
  local cmd = options.cmd
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    health.error(("`%s` is not executable"):format(exe), {
      "Install the server: pip install codex-lsp (it provides `codex-lsp`)",
      "Or point the plugin at it: require('codex').setup({ cmd = { '/path/to/codex-lsp', 'serve' } })",
    })
    return
  end
  health.ok(("server command: %s (%s)"):format(table.concat(cmd, " "), vim.fn.exepath(exe)))
  local vcmd = version_cmd(cmd)
  local ok, result = pcall(function()
    return vim.system(vcmd, { text = true, env = options.cmd_env }):wait(20000)
  end)
  if not ok or result.code ~= 0 then
    local why = ok and ((result.stderr or "") .. (result.stdout or "")) or tostring(result)
    health.error(("`%s` failed"):format(table.concat(vcmd, " ")), { vim.trim(why) })
    return
  end
  local version = vim.trim(result.stdout or "")
  if version:match("^codex%-lsp ") then
    health.ok("server version: " .. version)
  else
    health.warn(("unexpected version output: %q"):format(version))
  end
  local running = vim.lsp.get_clients({ name = "codex" })
  if #running > 0 then
    for _, client in ipairs(running) do
      health.info(("running for %s (client %d)"):format(client.root_dir or "?", client.id))
    end
  else
    health.info("no server running yet (it starts when you open a file or run a Codex command)")
  end
end

local function check_config(options)
  health.start("Configuration")
  local home = codex_home(options.cmd_env)
  local path = home .. "/config.toml"
  local top, providers = {}, {}
  if vim.uv.fs_stat(path) then
    local ok, a, b = pcall(read_config, path)
    if not ok then
      health.error(("cannot read %s: %s"):format(path, a))
      return
    end
    top, providers = a, b
    health.ok(("config file: %s"):format(path))
  else
    health.warn(("no config file at %s"):format(path), {
      "Defaults apply (provider openai). Create it to choose a model and provider.",
    })
  end
  local provider_id = top.model_provider or "openai"
  health.info(("model: %s, provider: %s"):format(top.model or "(default)", provider_id))

  health.start("Provider key")
  local provider = providers[provider_id] or BUILTIN[provider_id]
  if not provider then
    health.error(("provider %q is not defined"):format(provider_id), {
      ("Add a [model_providers.%s] table to %s"):format(provider_id, path),
    })
    return
  end
  local env_key = provider.env_key or (BUILTIN[provider_id] or {}).env_key
  local env = options.cmd_env or {}
  local value = env_key and (env[env_key] or vim.env[env_key])
  if not env_key then
    health.ok(("provider %q needs no API key"):format(provider_id))
  elseif value and value ~= "" then
    health.ok(("%s is set for provider %q"):format(env_key, provider_id))
  elseif provider_id == "openai" and vim.uv.fs_stat(home .. "/auth.json") then
    health.ok(("signed in: %s/auth.json holds the key"):format(home))
  else
    health.error(("%s is not set (provider %q needs it)"):format(env_key, provider_id), {
      ("export %s=... in the environment Neovim starts from"):format(env_key),
    })
  end
end

function M.check()
  local options = require("codex.config").options
  check_neovim()
  check_server(options)
  check_config(options)
end

return M
