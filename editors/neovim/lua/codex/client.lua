-- codex.client: starts `codex-lsp serve` through vim.lsp (one server per project root),
-- attaches file buffers to it, and sends requests to it. By default the server is started warm
-- (`codex.launcher`): a session forked from the per-user server, cold when that cannot start.
-- On Neovim 0.11 the server is an lsp-config named "codex" (vim.lsp.config / vim.lsp.enable), so
-- `vim.lsp.config("codex", ...)` adjusts it like any other server; older versions start it with
-- vim.lsp.start directly.
local config = require("codex.config")
local launcher = require("codex.launcher")

local M = {}

M.name = "codex"

local has_011 = vim.fn.has("nvim-0.11") == 1
-- Whether this Neovim has the lsp-config API (0.11); read at setup, so a test can hide it.
local function has_lsp_config()
  return type(vim.lsp.config) == "table" and type(vim.lsp.enable) == "function"
end
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
  -- Approvals arrive as codex/* requests we render ourselves (inline diff, vim.ui.select);
  -- the model may ask about the editor (codex/editor/*, answered by codex.editor_context).
  caps.experimental.codex = { richApprovals = true, editorContext = true }
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
  local client = vim.lsp.get_client_by_id(client_id)
  local root = client and client.root_dir
  local started_cmd = client and M.cmdline(client)
  local cmd = ours[client_id]
    or (type(started_cmd) == "table" and table.concat(started_cmd, " "))
    or table.concat(config.options.cmd, " ")
  -- Neovim itself starts the lsp-config's clients (0.11), with the warm launcher as their cmd.
  local was_warm = warm[client_id] or (type(started_cmd) == "table" and launcher.is_warm(started_cmd))
  if queued == nil and client and not client.initialized then
    queued = {} -- it never answered `initialize`, though nothing waited for it
  end
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
      if uses_lsp_config then
        -- The clients Neovim starts from now on start cold too.
        vim.lsp.config(M.name, { cmd = config.options.cmd })
      end
      notify(
        ("the warm start failed (%s); starting `%s` directly."):format(
          how_it_ended(code, signal),
          table.concat(config.options.cmd, " ")
        ),
        vim.log.levels.WARN
      )
      local cold = M.start(nil, root, false, client_id, config.options.cmd)
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
  -- A server Neovim started for us (vim.lsp.enable) is ours too.
  ours[client.id] = ours[client.id] or table.concat(M.cmdline(client) or config.options.cmd, " ")
  local queued = ready_queue[client.id] or {}
  ready_queue[client.id] = nil
  for _, fn in ipairs(queued) do
    local ok, err = pcall(fn, client)
    if not ok then
      notify(tostring(err), vim.log.levels.ERROR)
    end
  end
end

local function stopped(client)
  return invoke(client, "is_stopped")
end

-- vim.lsp.start's reuse test: the same server serves every buffer of one project root.
local function same_root(client, cfg)
  return client.name == M.name and not stopped(client) and client.root_dir == cfg.root_dir
end

-- What every codex client shares, whatever its root; `cmd` is the command line to run.
local function base_config(cmd)
  return {
    name = M.name,
    cmd = cmd,
    cmd_env = config.options.cmd_env,
    capabilities = capabilities(),
    handlers = require("codex.handlers").table(),
    on_init = on_init,
    on_exit = on_exit,
    -- Changes go out at once: an approval answered right after typing must reach the server
    -- after the text it is about, or a change would be applied to text that is gone.
    -- Quitting Neovim waits this long for the server to end after `shutdown`, then ends it:
    -- no launcher or session outlives the editor.
    flags = { debounce_text_changes = 0, exit_timeout = 1000 },
  }
end

local uses_lsp_config = false
local registered = false -- the lsp-config was registered once

-- The command line each warm-configured client was started with, by its RPC object.
local launched = setmetatable({}, { __mode = "k" })

-- The lsp-config's `cmd` with the warm start on: the launcher is looked up when a server is
-- first started, not when Neovim starts, and then comes from memory or the cache.
local function start_lazily(dispatchers, cfg)
  local argv, is_warm = launcher.server_cmd()
  local rpc = vim.lsp.rpc.start(argv, dispatchers, {
    cwd = cfg and cfg.cmd_cwd,
    env = config.options.cmd_env,
    detached = cfg and cfg.detached,
  })
  launched[rpc] = { argv = argv, warm = is_warm }
  return rpc
end

--- The command line `client` runs.
function M.cmdline(client)
  local started = client.rpc and launched[client.rpc]
  if started then
    return started.argv
  end
  return type(client.config.cmd) == "table" and client.config.cmd or nil
end

--- Register the "codex" lsp-config (Neovim 0.11): Neovim starts it for file buffers once it is
--- enabled, each in its project root. Returns false on older versions.
function M.register_config()
  uses_lsp_config = has_lsp_config()
  if not uses_lsp_config then
    return false
  end
  local cfg = base_config(config.options.warm and start_lazily or config.options.cmd)
  if not registered then
    -- What the user gave vim.lsp.config("codex", ...) before the first file buffer wins.
    local given = type(vim.lsp.config._configs) == "table" and vim.lsp.config._configs[M.name]
    cfg = vim.tbl_deep_extend("force", cfg, given or {})
    registered = true
  end
  cfg.reuse_client = same_root
  cfg.root_dir = function(bufnr, on_dir)
    if is_file_buffer(bufnr) and M.check_cmd(true) then
      on_dir(M.root_for(bufnr))
    end
  end
  vim.lsp.config(M.name, cfg)
  return true
end

--- Whether the server is an lsp-config (Neovim 0.11) rather than started by hand.
function M.uses_lsp_config()
  return uses_lsp_config
end

local function enabled()
  return vim.lsp.is_enabled == nil or vim.lsp.is_enabled(M.name)
end

--- Start the server for file buffers as they are opened (`on`), or stop doing so: vim.lsp.enable
--- on 0.11 (then the buffers already open are attached), else the plugin's own autocommand.
function M.autostart(on)
  local group = vim.api.nvim_create_augroup("codex_autostart", { clear = true })
  if uses_lsp_config then
    if not on then
      if enabled() then
        -- Disabling stops the running servers too: only when it was on.
        vim.lsp.enable(M.name, false)
      end
      return
    end
    vim.lsp.enable(M.name)
  elseif not on then
    return
  end
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    callback = function(ev)
      -- Neovim starts an enabled lsp-config on FileType, which a file of no known type never
      -- has; those (and every file before 0.11) are started here.
      local by_neovim = uses_lsp_config and vim.bo[ev.buf].filetype ~= ""
      if is_file_buffer(ev.buf) and not by_neovim and (not uses_lsp_config or enabled()) then
        M.start(ev.buf, nil, true)
      end
    end,
  })
  M.attach_loaded()
end

-- The config to start a client for `root` with, and whether it is the warm start: the
-- lsp-config as the user left it (0.11), else the plugin's own.
local function client_config(root, cmd_override)
  local cfg, is_warm
  if cmd_override then
    cfg, is_warm = base_config(cmd_override), false
  elseif uses_lsp_config and vim.lsp.config[M.name] then
    cfg = vim.deepcopy(vim.lsp.config[M.name])
    if cfg.cmd == start_lazily then
      cfg.cmd, is_warm = launcher.server_cmd()
    else
      is_warm = type(cfg.cmd) == "table" and launcher.is_warm(cfg.cmd)
    end
  else
    local cmd
    cmd, is_warm = launcher.server_cmd()
    cfg = base_config(cmd)
  end
  cfg.root_dir = root
  cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  return cfg, is_warm
end

--- Can the configured server command run at all? Returns false and says why when it cannot:
--- every time for a command the user ran, once for the automatic start on opening a file.
function M.check_cmd(automatic)
  local exe = config.options.cmd[1]
  if vim.fn.executable(exe) == 1 then
    return true
  end
  if automatic then
    -- Opening a file is not a Codex command: one short warning, once, outside the autocommand
    -- (an error there comes with "Press ENTER").
    if not warned_missing[exe] then
      warned_missing[exe] = true
      vim.schedule(function()
        notify(("`%s` is not an executable, so Codex is off; see :checkhealth codex"):format(exe), vim.log.levels.WARN)
      end)
    end
    return false
  end
  notify(
    ("cannot start the language server: `%s` is not an executable. Install codex-lsp "
      .. "(`./scripts/setup` in a codex-lsp checkout puts it in .venv/bin/codex-lsp) and set "
      .. "`cmd` in require('codex').setup() to its path; see :checkhealth codex."):format(exe),
    vim.log.levels.ERROR
  )
  return false
end

local active = false

--- Register the server with Neovim and start it for file buffers when autostart is on. Runs
--- once, when the first file buffer opens (autostart) or the first command needs a server, not
--- when Neovim starts: an idle plugin loads none of vim.lsp. `again` applies changed options.
function M.activate(again)
  if active and not again then
    return
  end
  active = true
  require("codex.review").register_commands()
  M.register_config()
  M.autostart(config.options.autostart)
end

function M.activated()
  return active
end

--- Start (or reuse) the server for `bufnr`'s project (or `root`) and attach the buffer when it
--- is a file of that project. Returns the client, or nil when the server cannot be started (the
--- user has been told). `automatic` marks the start on opening a file; `gone` is the id of a
--- client that exited and must not be reused; `cmd` starts it with that command line instead.
function M.start(bufnr, root, automatic, gone, cmd)
  M.activate()
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not M.check_cmd(automatic) then
    return nil
  end
  root = root or M.root_for(bufnr)
  local attach = is_file_buffer(bufnr) and M.root_for(bufnr) == root
  local cfg, is_warm = client_config(root, cmd)
  cmd = cfg.cmd
  local id = vim.lsp.start(cfg, {
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
    ours[id] = type(cmd) == "table" and table.concat(cmd, " ") or tostring(cmd)
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
