-- codex.client: starts `codex-lsp serve` through vim.lsp (one server per project root),
-- attaches file buffers to it, and sends requests to it. By default the server is started warm
-- (`codex.launcher`): a session forked from the per-user server, cold when that cannot start.
local config = require("codex.config")
local launcher = require("codex.launcher")

local M = {}

M.name = "codex"

local has_011 = vim.fn.has("nvim-0.11") == 1
local ready_queue = {} -- client id -> functions waiting for `initialize` to finish
local ours = {} -- id -> the command line of each client this plugin started
local warm = {} -- ids of the clients started warm
local replaced = {} -- id of a warm client that failed to start -> id of the cold one after it
local warned_missing = {} -- executables we already said are missing
local last_client_id = nil

-- Neovim 0.11 made client methods take `self`; 0.10 has plain functions.
local function invoke(client, method, ...)
  if has_011 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function notify(msg, level)
  vim.notify("codex: " .. msg, level or vim.log.levels.INFO)
end
M.notify = notify

--- The project root for a buffer: the nearest folder holding a root marker, else the cwd.
function M.root_for(bufnr)
  bufnr = bufnr or 0
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name ~= "" and vim.bo[bufnr].buftype == "" then
    local root = vim.fs.root(bufnr, config.options.root_markers)
    if root then
      return root
    end
    local cwd = vim.fn.getcwd()
    if vim.startswith(vim.fs.normalize(name), vim.fs.normalize(cwd) .. "/") then
      return cwd
    end
    return vim.fs.dirname(name)
  end
  return vim.fs.root(vim.fn.getcwd(), config.options.root_markers) or vim.fn.getcwd()
end

local function is_file_buffer(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr)
    and vim.bo[bufnr].buftype == ""
    and vim.api.nvim_buf_get_name(bufnr) ~= ""
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  -- Approvals arrive as codex/* requests we render ourselves (inline diff, vim.ui.select).
  caps.experimental.codex = { richApprovals = true }
  return caps
end

-- A server that went away by itself, not one stopped by Neovim or the user: a non-zero exit,
-- or a signal other than the SIGTERM a forced stop sends.
local function crashed(code, signal)
  return (code ~= nil and code ~= 0) or (signal ~= nil and signal ~= 0 and signal ~= 15)
end

local MAX_RESTARTS = 3 -- automatic restarts in a row; the next command starts it after that
local restarts = 0

local function how_it_ended(code, signal)
  if signal ~= nil and signal ~= 0 then
    return ("killed by signal %d"):format(signal)
  end
  return ("exit code %s"):format(tostring(code))
end

local function on_exit(code, signal, client_id)
  local queued = ready_queue[client_id]
  local cmd = ours[client_id] or table.concat(config.options.cmd, " ")
  local was_warm = warm[client_id]
  local client = vim.lsp.get_client_by_id(client_id)
  local root = client and client.root_dir
  ready_queue[client_id] = nil
  ours[client_id] = nil
  warm[client_id] = nil
  if last_client_id == client_id then
    last_client_id = nil
  end
  vim.schedule(function()
    local died = crashed(code, signal)
    require("codex.events").client_exited(client_id, died)
    if not died then
      return -- stopped on purpose (:lsp stop, quitting), not a failure
    end
    if queued ~= nil and was_warm and root then
      -- The warm start failed before the server answered: start it cold, with what waited.
      launcher.forget()
      notify(
        ("the warm start failed (%s); starting `%s` directly."):format(
          how_it_ended(code, signal),
          table.concat(config.options.cmd, " ")
        ),
        vim.log.levels.WARN
      )
      local cold = M.start(nil, root, false, client_id)
      if cold then
        -- Requests already made of the failed client, and any made of it later, go to this one.
        replaced[client_id] = cold.id
        for _, fn in ipairs(queued) do
          M.when_ready(cold, fn)
        end
      end
      return
    end
    if queued ~= nil then
      -- It never finished `initialize`: most often a broken install.
      notify(
        ("the language server exited during start-up (%s). Run `%s` in a terminal, "
          .. "or see :CodexLog and :checkhealth codex."):format(how_it_ended(code, signal), cmd),
        vim.log.levels.ERROR
      )
      return
    end
    if restarts >= MAX_RESTARTS then
      notify(
        ("the language server stopped (%s) again; it starts with the next Codex command. "
          .. ":CodexLog shows its log."):format(how_it_ended(code, signal)),
        vim.log.levels.ERROR
      )
      return
    end
    restarts = restarts + 1
    notify(
      ("the language server stopped unexpectedly (%s); restarting it and resuming the thread. "
        .. ":CodexLog shows its log."):format(how_it_ended(code, signal)),
      vim.log.levels.ERROR
    )
    require("codex.threads").recover(root)
  end)
end

local function on_init(client)
  restarts = 0
  local queued = ready_queue[client.id] or {}
  ready_queue[client.id] = nil
  for _, fn in ipairs(queued) do
    local ok, err = pcall(fn, client)
    if not ok then
      notify(tostring(err), vim.log.levels.ERROR)
    end
  end
end

local function client_config(root, cmd)
  return {
    name = M.name,
    cmd = cmd,
    cmd_env = config.options.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = capabilities(),
    handlers = require("codex.handlers").table(),
    on_init = on_init,
    on_exit = on_exit,
    -- Changes go out at once: an approval answered right after typing must reach the server
    -- after the text it is about, or a change would be applied to text that is gone.
    flags = { debounce_text_changes = 0 },
  }
end

local function stopped(client)
  return invoke(client, "is_stopped")
end

-- vim.lsp.start's reuse test: the same server serves every buffer of one project root.
local function same_root(client, cfg)
  return client.name == M.name and not stopped(client) and client.root_dir == cfg.root_dir
end

--- Can the configured server command run at all? Returns false and says why when it cannot:
--- every time for a command the user ran, once for the automatic start on opening a file.
function M.check_cmd(automatic)
  local exe = config.options.cmd[1]
  if vim.fn.executable(exe) == 1 then
    return true
  end
  if not (automatic and warned_missing[exe]) then
    warned_missing[exe] = true
    notify(
      ("cannot start the language server: `%s` is not an executable. Install codex-lsp "
        .. "(`pip install codex-lsp`) or set `cmd` in require('codex').setup(); "
        .. "see :checkhealth codex."):format(exe),
      vim.log.levels.ERROR
    )
  end
  return false
end

--- Start (or reuse) the server for `bufnr`'s project (or `root`) and attach the buffer when it
--- is a file of that project. Returns the client, or nil when the server cannot be started (the
--- user has been told). `automatic` marks the start on opening a file; `gone` is the id of a
--- client that exited and must not be reused.
function M.start(bufnr, root, automatic, gone)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.check_cmd(automatic) then
    return nil
  end
  root = root or M.root_for(bufnr)
  local attach = is_file_buffer(bufnr) and M.root_for(bufnr) == root
  local cmd, is_warm = launcher.server_cmd()
  local id = vim.lsp.start(client_config(root, cmd), {
    bufnr = bufnr,
    attach = attach,
    reuse_client = function(client, cfg)
      return client.id ~= gone and same_root(client, cfg)
    end,
  })
  if not id then
    notify("could not start the language server for " .. root, vim.log.levels.ERROR)
    return nil
  end
  local client = vim.lsp.get_client_by_id(id)
  if not ours[id] then -- a new client, not one reused for this root
    ours[id] = table.concat(cmd, " ")
    warm[id] = is_warm or nil
  end
  if client and not client.initialized and ready_queue[id] == nil then
    ready_queue[id] = {}
  end
  last_client_id = id
  return client
end

--- Every codex client this plugin started that is starting or running.
function M.all()
  local out = {}
  for id in pairs(ours) do
    local client = vim.lsp.get_client_by_id(id)
    if client and not stopped(client) then
      table.insert(out, client)
    end
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- The client serving `bufnr` (or the last one used), starting one when none runs.
function M.get(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if is_file_buffer(bufnr) then
    for _, client in ipairs(M.all()) do
      if client.attached_buffers[bufnr] then
        last_client_id = client.id
        return client
      end
    end
    return M.start(bufnr)
  end
  local last = last_client_id and vim.lsp.get_client_by_id(last_client_id)
  if last and not stopped(last) then
    return last
  end
  local root = M.root_for(bufnr)
  for _, client in ipairs(M.all()) do
    if client.root_dir == root then
      return client
    end
  end
  return M.start(bufnr)
end

--- The running client of project `root`, started when there is none.
function M.for_root(root)
  for _, client in ipairs(M.all()) do
    if client.root_dir == root then
      return client
    end
  end
  return M.start(nil, root)
end

--- Run `fn(client)` once the client has answered `initialize` (`fn` gets the client that did:
--- another one when a warm start failed and a cold one took its place).
function M.when_ready(client, fn)
  while replaced[client.id] do
    local successor = vim.lsp.get_client_by_id(replaced[client.id])
    if not successor then
      break
    end
    client = successor
  end
  if client.initialized then
    fn(client)
    return
  end
  ready_queue[client.id] = ready_queue[client.id] or {}
  table.insert(ready_queue[client.id], fn)
end

--- Send `method` and call `cb(result)`; an error is shown to the user unless `on_error`
--- handles it (it gets the error object).
function M.request(client, method, params, cb, opts)
  opts = opts or {}
  -- `ready` is `client`, or the one started in its place when a warm start fell back.
  M.when_ready(client, function(ready)
    local ok = invoke(ready, "request", method, params, function(err, result)
      if err then
        if opts.on_error then
          opts.on_error(err)
        else
          notify(("%s failed: %s"):format(method, err.message or vim.inspect(err)), vim.log.levels.ERROR)
        end
        return
      end
      if cb then
        cb(result)
      end
    end, opts.bufnr)
    if not ok then
      local message = ("could not send %s: the language server is not running"):format(method)
      if opts.on_error then
        opts.on_error({ message = message })
      else
        notify(message, vim.log.levels.ERROR)
      end
    end
  end)
end

--- `workspace/executeCommand` with one object argument.
function M.command(client, command, argument, cb, opts)
  M.request(client, "workspace/executeCommand", { command = command, arguments = { argument } }, cb, opts)
end

--- Attach every loaded file buffer (used at setup when autostart is on).
function M.attach_loaded()
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and is_file_buffer(bufnr) then
      M.start(bufnr, nil, true)
    end
  end
end

M.is_file_buffer = is_file_buffer
M.invoke = invoke

return M
