-- Quitting Neovim ends the server it started: the warm launcher and the session forked for it.
-- The suite notes their pids (every process holding the server's end of Neovim's pipe) in
-- CODEX_NVIM_PIDS, then quits with `:qa!` as a user would; the wrapper checks they are gone.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function read(path)
  local fd = io.open(path, "r")
  if not fd then
    return nil
  end
  local text = fd:read("*a")
  fd:close()
  return text
end

local function started_client()
  local client
  H.wait("the server to answer initialize", function()
    client = vim.lsp.get_clients({ name = "codex" })[1]
    return client ~= nil and client.initialized
  end)
  return client
end

-- Processes (other than Neovim) with `pipe` open, as { pid, start time }.
local function holders(pipe)
  local found = {}
  for name in vim.fs.dir("/proc") do
    local pid = tonumber(name)
    if pid and pid ~= vim.fn.getpid() then
      for fd in vim.fs.dir("/proc/" .. name .. "/fd") do
        if vim.uv.fs_readlink("/proc/" .. name .. "/fd/" .. fd) == pipe then
          local stat = read("/proc/" .. name .. "/stat") or ""
          local fields = vim.split(stat:gsub("^.*%) ", ""), " ")
          table.insert(found, { pid = pid, start = fields[20] })
          break
        end
      end
    end
  end
  return found
end

local function children()
  local out = {}
  for name in vim.fs.dir("/proc") do
    local stat = tonumber(name) and read("/proc/" .. name .. "/stat")
    if stat and tonumber(vim.split(stat:gsub("^.*%) ", ""), " ")[2]) == vim.fn.getpid() then
      table.insert(out, tonumber(name))
    end
  end
  return out
end

local ok, err = xpcall(function()
  H.setup(nil, true)
  vim.cmd.edit(H.ws .. "/app.py")
  started_client()
  -- The first start also started the per-user server; the next one is a session forked from it.
  H.wait("the per-user server", function()
    local logs = vim.fn.glob(os.getenv("CODEX_NVIM_RUNTIME") .. "/codex-lsp/*.log", false, true)
    return #logs > 0 and (read(logs[1]) or ""):find("preloaded", 1, true) ~= nil
  end)
  H.stop_clients()
  require("codex.client").start(vim.api.nvim_get_current_buf())
  started_client()
  local launchers = children()
  H.eq(#launchers, 1, "one process started by Neovim")
  local pipe = vim.uv.fs_readlink(("/proc/%d/fd/0"):format(launchers[1]))
  local found = holders(pipe)
  H.ok(#found >= 2, "the launcher and the session hold the pipe: " .. vim.inspect(found))
  local fd = assert(io.open(os.getenv("CODEX_NVIM_PIDS"), "w"))
  fd:write(vim.json.encode(found))
  fd:close()
end, debug.traceback)
if not ok then
  H.log("FAIL quitting: " .. tostring(err))
  os.exit(1)
end
io.stdout:write("PASS quitting\n")
vim.cmd("qa!")
