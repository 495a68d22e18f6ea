-- codex.launcher: the command line of the warm start. `codex-lsp serve --print-launcher` names
-- the leanest way to be served by the per-user server (`<python> -I -S .../attach.py serve`):
-- no Python packages are imported before a warm session is forked for the editor. Asking costs
-- a full start of `codex-lsp`, so the answer is kept in stdpath("cache") for as long as the
-- command, its environment and the executable it names stay the same.
local config = require("codex.config")

local M = {}

local known = nil -- { key = ..., argv = {...} } for this Neovim
local failed = {} -- keys whose launcher could not start a server in this Neovim

local function cache_file()
  return vim.fs.joinpath(vim.fn.stdpath("cache"), "codex", "launcher.json")
end

-- What the launcher depends on: the command, its environment, and the executable's identity
-- (reinstalling codex-lsp rewrites it). Written in a fixed order, so every Neovim computes the
-- same key (the order a Lua table's keys come out in is not the same from one process to the next).
local function key_for(cmd, env)
  local exe = vim.fn.exepath(cmd[1])
  local stat = exe ~= "" and vim.uv.fs_stat(exe) or nil
  local mtime = stat and (stat.mtime.sec .. "." .. stat.mtime.nsec) or "?"
  local names = vim.tbl_keys(env or {})
  table.sort(names)
  local pairs_ = {}
  for _, name in ipairs(names) do
    table.insert(pairs_, { name, tostring(env[name]) })
  end
  return vim.json.encode({ cmd, pairs_, exe, mtime })
end

local function valid(argv)
  if type(argv) ~= "table" or #argv < 2 then
    return false
  end
  for _, part in ipairs(argv) do
    if type(part) ~= "string" then
      return false
    end
  end
  -- The interpreter and the launcher script must still be there.
  return vim.fn.executable(argv[1]) == 1 and vim.uv.fs_stat(argv[4] or "") ~= nil
end

local function read_cache(key)
  local fd = io.open(cache_file(), "r")
  if not fd then
    return nil
  end
  local ok, data = pcall(vim.json.decode, fd:read("*a"))
  fd:close()
  if ok and type(data) == "table" and data.key == key and valid(data.argv) then
    return data.argv
  end
  return nil
end

local function write_cache(key, argv)
  local path = cache_file()
  vim.fn.mkdir(vim.fs.dirname(path), "p")
  local fd = io.open(path, "w")
  if fd then
    fd:write(vim.json.encode({ key = key, argv = argv }))
    fd:close()
  end
end

local function ask(cmd, env)
  local argv = vim.list_extend(vim.deepcopy(cmd), { "--print-launcher" })
  local ok, result = pcall(function()
    return vim.system(argv, { text = true, env = env }):wait(30000)
  end)
  if not ok or result.code ~= 0 then
    return nil -- a codex-lsp without the warm start, or a command that is not codex-lsp serve
  end
  local decoded, value = pcall(vim.json.decode, vim.trim(result.stdout or ""))
  if decoded and valid(value) then
    return value
  end
  return nil
end

--- The warm launcher for `cmd` (`{ "codex-lsp", "serve", ... }`), or nil when there is none.
function M.for_cmd(cmd, env)
  local key = key_for(cmd, env)
  if failed[key] then
    return nil
  end
  if known and known.key == key then
    return known.argv
  end
  local argv = read_cache(key) or ask(cmd, env)
  if argv then
    known = { key = key, argv = argv }
    write_cache(key, argv)
  end
  return argv
end

--- The command line to start the server with, and whether it is the warm start.
function M.server_cmd()
  local options = config.options
  if options.warm then
    local argv = M.for_cmd(options.cmd, options.cmd_env)
    if argv then
      return argv, true
    end
  end
  return options.cmd, false
end

--- Whether `cmd` is the warm launcher this Neovim found (as opposed to the cold command).
function M.is_warm(cmd)
  return known ~= nil and vim.deep_equal(known.argv, cmd)
end

--- The warm start failed before the server answered: start cold from now on (in this Neovim)
--- and forget the launcher, so the next Neovim asks again.
function M.forget()
  local key = key_for(config.options.cmd, config.options.cmd_env)
  failed[key] = true
  known = nil
  os.remove(cache_file())
end

return M
