-- codex.health: `:checkhealth codex`: Neovim version, the plugin's options and keys, the
-- server binary and its version, the config file, and whether the model provider's API key is
-- present (as the server's `codex-lsp doctor` reports them).
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

-- Global keys the plugin maps: each should still run the plugin's action.
local function check_setup(options)
  health.start("Plugin setup")
  if not require("codex").configured() then
    health.info("setup() was not called; the defaults apply (a command calls it for you)")
  else
    health.ok("setup() was called; the options are valid")
  end
  local skipped = {}
  for _, key in ipairs(require("codex").skipped_keys) do
    skipped[key.name] = true
    health.warn(
      ("keymaps.%s: %s was already mapped (%s mode), so setup() left it alone"):format(key.name, key.lhs, key.mode),
      {
        ("Pick another key: require('codex').setup({ keymaps = { %s = '...' } }), or a prefix: { keymaps = { prefix = '<leader>a' } }"):format(key.name),
      }
    )
  end
  -- Buffer-local mappings (an LSP setup's code action or rename key) hide a global one there.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and vim.api.nvim_buf_get_name(buf) ~= "" then
      for name, lhs in pairs(options.keymaps or {}) do
        local map = name ~= "prefix" and lhs and not skipped[name] and vim.api.nvim_buf_call(buf, function()
          return vim.fn.maparg(lhs, "n", false, true)
        end)
        if map and map.buffer == 1 and not (map.desc or ""):find("^Codex") then
          health.warn(
            ("keymaps.%s: %s is mapped in %s by another plugin (%s), which hides Codex's there"):format(
              name,
              lhs,
              vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":t"),
              map.desc or map.rhs or "a Lua function"
            ),
            { "Pick another key, or a prefix: require('codex').setup({ keymaps = { prefix = '<leader>a' } })" }
          )
        end
      end
    end
  end
  for name, lhs in pairs(options.keymaps or {}) do
    if lhs and name ~= "prefix" and not skipped[name] then
      local map = vim.fn.maparg(lhs, "n", false, true)
      local desc = type(map) == "table" and map.desc or nil
      if type(map) ~= "table" or vim.tbl_isempty(map) then
        health.info(("keymaps.%s (%s) is not mapped yet (setup() maps it)"):format(name, lhs))
      elseif not (desc and desc:find("^Codex")) then
        health.warn(("keymaps.%s: %s runs something else now (%s)"):format(name, lhs, map.rhs or desc or "a Lua function"), {
          ("Pick another key: require('codex').setup({ keymaps = { %s = '...' } }), or false to leave it"):format(name),
        })
      else
        health.ok(("keymaps.%s: %s"):format(name, lhs))
      end
    end
  end
  local doc = require("codex").ensure_helptags()
  if vim.uv.fs_stat(vim.fs.joinpath(doc, "tags")) then
    health.ok("help tags are in place")
  else
    health.warn("help tags are missing and could not be written to " .. doc, { "Run :helptags " .. doc })
  end
  health.info("server log (:CodexLog): " .. vim.lsp.get_log_path())
end

local function check_server(options)
  health.start("codex-lsp server")
  local cmd = options.cmd
  local exe = cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    health.error(("`%s` is not executable"):format(exe), {
      "Install the server: `./scripts/setup` in a codex-lsp checkout puts it in .venv/bin/codex-lsp",
      "Or point the plugin at it: require('codex').setup({ cmd = { '/path/to/codex-lsp', 'serve' } })",
    })
    return
  end
  health.ok(("server command: %s (%s)"):format(table.concat(cmd, " "), vim.fn.exepath(exe)))
  if options.warm then
    local argv = require("codex.launcher").for_cmd(cmd, options.cmd_env)
    if argv then
      health.ok("warm start: " .. table.concat(argv, " "))
    else
      health.info(("warm start: not available (`%s --print-launcher` named no launcher); the server starts cold"):format(table.concat(cmd, " ")))
    end
  else
    health.info("warm start: off (`warm = false`); the server starts cold")
  end
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

-- `codex-lsp doctor --json` with the options the server gets: the server resolves its own
-- config (profiles and overrides included), so the check never re-reads config.toml here.
local function doctor_cmd(cmd)
  local out, after_serve = {}, nil
  for _, part in ipairs(cmd) do
    if after_serve then
      table.insert(after_serve, part)
    elseif part == "serve" then
      after_serve = {}
    else
      table.insert(out, part)
    end
  end
  vim.list_extend(out, { "doctor", "--json" })
  local skip = false
  for _, part in ipairs(after_serve or {}) do
    -- `--tcp HOST:PORT` is the server's own; doctor takes only the config options.
    if part == "--tcp" then
      skip = true
    elseif skip then
      skip = false
    else
      table.insert(out, part)
    end
  end
  return out
end

local function check_config(options)
  health.start("Configuration")
  if vim.fn.executable(options.cmd[1]) ~= 1 then
    health.warn("skipped: the server is needed to read the configuration")
    return
  end
  local cmd = doctor_cmd(options.cmd)
  local ok, result = pcall(function()
    return vim.system(cmd, { text = true, env = options.cmd_env }):wait(20000)
  end)
  local decoded, report = false, nil
  if ok then
    decoded, report = pcall(vim.json.decode, result.stdout or "")
  end
  if not decoded or type(report) ~= "table" then
    local why = ok and vim.trim((result.stderr or "") .. (result.stdout or "")) or tostring(result)
    health.error(("`%s` failed"):format(table.concat(cmd, " ")), { why })
    return
  end
  if report.configError ~= vim.NIL and report.configError then
    health.error(report.configError)
    return
  end
  if report.configExists then
    health.ok(("config file: %s"):format(report.configPath))
  else
    health.warn(("no config file at %s"):format(report.configPath), {
      "Defaults apply (provider openai). Create it to choose a model and provider.",
    })
  end
  for _, ignored in ipairs(report.ignoredKeys or {}) do
    health.warn(("%s: %s"):format(ignored.key, ignored.reason), { ignored.file })
  end
  local model = report.model ~= vim.NIL and report.model or "(default)"
  local provider = report.modelProvider
  health.info(("model: %s, provider: %s"):format(model, provider))
  local warning = report.sandbox and report.sandbox.warning
  if warning and warning ~= vim.NIL then
    health.warn("sandbox: " .. warning)
  end

  health.start("Provider key")
  local env_key = report.envKey ~= vim.NIL and report.envKey or nil
  if not report.providerDefined then
    health.error(("provider %q is not defined"):format(provider), {
      ("Add a [model_providers.%s] table to %s"):format(provider, report.configPath),
    })
  elseif report.keySource == "env" then
    health.ok(("%s is set for provider %q"):format(env_key, provider))
  elseif report.keySource == "auth.json" then
    health.ok(("signed in: %s/auth.json holds the key"):format(report.codexHome))
  elseif not report.keyRequired then
    health.ok(("provider %q needs no API key"):format(provider))
  else
    health.error(("%s is not set (provider %q needs it)"):format(env_key or "the API key", provider), {
      ("export %s=... in the environment Neovim starts from"):format(env_key or "the key"),
    })
  end
end

function M.check()
  local options = require("codex.config").options
  check_neovim()
  check_setup(options)
  check_server(options)
  check_config(options)
end

return M
