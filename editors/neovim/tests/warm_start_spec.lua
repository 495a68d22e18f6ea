-- The plugin starts the server warm by default: the client runs the lean launcher that
-- `codex-lsp serve --print-launcher` names (kept in the cache for the next Neovim), and once the
-- per-user server is up, each start is a session forked from it that answers like any other.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

local function started_client()
  local client
  H.wait("the server to answer initialize", function()
    client = vim.lsp.get_clients({ name = "codex" })[1]
    return client ~= nil and client.initialized
  end)
  return client
end

-- The per-user server has done its imports once its log says so.
local function warm_server_ready()
  local logs = vim.fn.glob(os.getenv("CODEX_NVIM_RUNTIME") .. "/codex-lsp/*.log", false, true)
  if #logs == 0 then
    return false
  end
  local fd = io.open(logs[1], "r")
  local text = fd and fd:read("*a") or ""
  if fd then
    fd:close()
  end
  return text:find("preloaded", 1, true) ~= nil
end

H.run("the server starts warm by default", function()
  H.setup(nil, true)
  vim.cmd.edit(H.ws .. "/app.py")
  local client = started_client()

  local cmd = require("codex.client").cmdline(client)
  H.eq({ cmd[2], cmd[3], cmd[#cmd] }, { "-I", "-S", "serve" }, "the launcher's interpreter flags and command")
  H.ok(cmd[4]:match("codex_lsp/appserver/attach%.py$"), "the launcher is attach.py: " .. cmd[4])
  H.ok(vim.uv.fs_stat(vim.fn.stdpath("cache") .. "/codex/launcher.json"), "the launcher is remembered")

  -- The first launcher started the per-user server and served its editor itself meanwhile.
  H.wait("the per-user server", warm_server_ready)
  H.stop_clients()
  require("codex.client").start(vim.api.nvim_get_current_buf())
  client = started_client()
  H.eq(require("codex.client").cmdline(client), cmd, "the same launcher")

  vim.cmd("Codex say hello")
  H.wait("the answer", function()
    return chat_text():find("Hello from a warm start.", 1, true) ~= nil
  end)
end)
