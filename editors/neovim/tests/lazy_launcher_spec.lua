-- Starting Neovim runs nothing: setup() neither asks `cmd --print-launcher` nor starts a
-- server, with autostart off even once a file is open. The launcher is looked up when a server
-- first starts, and a later Neovim finds it in the cache (`CODEX_NVIM_CALLS` logs each run of
-- the `codex-lsp` the suite is given).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function calls()
  local fd = io.open(os.getenv("CODEX_NVIM_CALLS"), "r")
  if not fd then
    return {}
  end
  local lines = vim.split(vim.trim(fd:read("*a")), "\n", { trimempty = true })
  fd:close()
  return lines
end

H.run("the launcher is looked up lazily", function()
  local before = #calls()
  local autostart = os.getenv("CODEX_NVIM_AUTOSTART") == "1"
  H.setup({ autostart = autostart }, true)
  H.eq(#calls(), before, "setup() ran nothing")

  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  if not autostart then
    vim.wait(500)
    H.eq(#calls(), before, "with autostart off, opening a file runs nothing")
    require("codex.client").start(buf)
  end
  H.wait("the server to answer initialize", function()
    local client = vim.lsp.get_clients({ bufnr = buf, name = "codex" })[1]
    return client ~= nil and client.initialized
  end)
  local cmd = require("codex.client").cmdline(vim.lsp.get_clients({ name = "codex" })[1])
  H.ok(cmd[4]:match("attach%.py$"), "the server started warm: " .. table.concat(cmd, " "))
end)
