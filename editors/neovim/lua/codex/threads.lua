-- codex.threads: the threads this Neovim knows (chat or inline edit), which one the chat
-- shows, and the requests that start, resume, list, message and interrupt them.
local client_mod = require("codex.client")
local config = require("codex.config")

local M = {}

M.threads = {} -- id -> { id, client_id, kind = "chat"|"edit", cwd, preview, name, turn }
M.current = nil -- id of the thread the chat shows

local function short(text, width)
  text = (text or ""):gsub("%s+", " ")
  if vim.fn.strchars(text) > width then
    return vim.fn.strcharpart(text, 0, width - 1) .. "…"
  end
  return text
end
M.short = short

--- Remember a v2 Thread object (from thread/started, start, resume or list).
function M.record(thread, client_id, kind)
  local known = M.threads[thread.id] or { id = thread.id, kind = "chat" }
  known.client_id = client_id or known.client_id
  local client = client_id and vim.lsp.get_client_by_id(client_id)
  known.root = client and client.root_dir or known.root
  known.kind = kind or known.kind
  known.cwd = thread.cwd or known.cwd
  known.preview = thread.preview or known.preview
  known.name = thread.name or known.name
  M.threads[thread.id] = known
  return known
end

function M.get(id)
  return id and M.threads[id]
end

function M.client_of(id)
  local thread = M.get(id)
  return thread and thread.client_id and vim.lsp.get_client_by_id(thread.client_id)
end

function M.turn_started(thread_id, turn)
  local thread = M.threads[thread_id] or { id = thread_id, kind = "chat" }
  M.threads[thread_id] = thread
  thread.turn = turn and turn.id
end

function M.turn_completed(thread_id, turn)
  local thread = M.threads[thread_id]
  if thread and (not turn or thread.turn == turn.id) then
    thread.turn = nil
  end
end

function M.running(thread_id)
  local thread = M.get(thread_id or M.current)
  return thread and thread.turn
end

--- The server of `client_id` went away: its threads run nothing now. Chat threads are kept
--- (marked `lost`) so the next use resumes them on a new server; returns the threads whose
--- turn was running, as { { thread = id, turn = turn id } }.
function M.forget_client(client_id)
  local cut = {}
  for _, thread in pairs(M.threads) do
    if thread.client_id == client_id then
      if thread.turn then
        table.insert(cut, { thread = thread.id, turn = thread.turn })
      end
      thread.turn = nil
      thread.client_id = nil
      thread.lost = true
    end
  end
  return cut
end

--- `thread/start` for the client's root; `opts.kind` ("chat"/"edit"), `opts.approval_policy`.
function M.start(client, opts, cb)
  opts = opts or {}
  local params = {
    cwd = client.root_dir or vim.fn.getcwd(),
    model = config.options.model,
    approvalPolicy = opts.approval_policy,
    sandbox = opts.sandbox,
    -- An inline edit's thread is not a conversation to come back to: it is not kept.
    ephemeral = opts.kind == "edit" or nil,
  }
  client_mod.request(client, "codex/thread/start", params, function(result)
    local thread = M.record(result.thread, client.id, opts.kind or "chat")
    thread.started_model = result.model -- what a mode switch names when no /model was chosen
    if cb then
      cb(thread.id, result)
    end
  end)
end

local function start_chat(client, cb)
  M.start(client, {
    kind = "chat",
    approval_policy = config.options.approval_policy,
    sandbox = config.options.sandbox,
  }, function(id)
    M.current = id
    require("codex.chat").show_thread(id)
    cb(id)
  end)
end

--- Call `cb(thread_id, client)` with the chat's thread: the current one, resumed on a new
--- server if its server went away, else a new one. Returns false when no server can start
--- (the user has been told why).
function M.ensure_chat(bufnr, cb)
  local client = M.client_of(M.current)
  if client then
    cb(M.current, client)
    return true
  end
  local lost = M.get(M.current)
  client = lost and lost.root and client_mod.for_root(lost.root) or client_mod.get(bufnr)
  if not client then
    return false
  end
  if lost and lost.lost and lost.kind == "chat" then
    M.resume_lost(client, lost, function(id)
      cb(id, client)
    end)
    return true
  end
  start_chat(client, function(id)
    cb(id, client)
  end)
  return true
end

--- Resume a thread whose server went away, keeping the chat as it is (the half answer and
--- its "stopped" mark included). Callers arriving meanwhile wait for the same resume.
function M.resume_lost(client, thread, cb)
  if thread.waiting then
    table.insert(thread.waiting, cb)
    return
  end
  thread.waiting = { cb }
  local function settle(id)
    local waiting = thread.waiting or {}
    thread.waiting = nil
    for _, fn in ipairs(waiting) do
      fn(id)
    end
  end
  client_mod.request(client, "codex/thread/resume", { threadId = thread.id }, function(result)
    M.record(result.thread, client.id, "chat")
    thread.lost = nil
    require("codex.chat").show_thread(thread.id)
    settle(thread.id)
  end, {
    on_error = function(err)
      thread.lost = nil
      client_mod.notify(
        ("could not resume thread %s (%s); starting a new one"):format(thread.id, err.message or "?"),
        vim.log.levels.WARN
      )
      start_chat(client, settle)
    end,
  })
end

--- After a crash: start the server of `root` again and resume the chat's thread on it.
function M.recover(root)
  client_mod.attach_loaded()
  local thread = M.get(M.current)
  if not (thread and thread.lost and thread.kind == "chat") then
    return
  end
  local client = client_mod.for_root(thread.root or root or client_mod.root_for(0))
  if client then
    M.resume_lost(client, thread, function() end)
  end
end

--- `:CodexNew`: a fresh chat thread.
function M.new_chat(bufnr, cb)
  local client = client_mod.get(bufnr)
  if not client then
    return
  end
  start_chat(client, function(id)
    client_mod.notify("new thread " .. id)
    if cb then
      cb(id)
    end
  end)
end

--- Send a chat message as a new turn on the chat's thread; `context` items (see codex.context)
--- go along as data through the server's `codex.message`.
function M.send(text, bufnr, context)
  return M.ensure_chat(bufnr, function(id, client)
    local thread = M.get(id)
    local model = thread and thread.model or nil
    if context and #context > 0 then
      client_mod.command(client, "codex.message", { threadId = id, text = text, context = context, model = model })
      return
    end
    local running = M.running(id)
    if running then
      -- A message written while a turn runs joins it: the model reads it at its next request.
      client_mod.request(client, "codex/turn/steer", {
        threadId = id,
        expectedTurnId = running,
        input = { { type = "text", text = text } },
      })
      return
    end
    client_mod.request(client, "codex/turn/start", {
      threadId = id,
      input = { { type = "text", text = text } },
      model = model,
    })
  end)
end

--- `/model NAME`: the chat thread's model from its next turn on.
function M.set_model(model)
  M.ensure_chat(nil, function(id)
    M.get(id).model = model
    client_mod.notify(("model for this thread: %s (from the next message)"):format(model))
  end)
end

-- The inline edit whose turn is running, the one editing `bufnr` first.
local function running_edit(bufnr)
  local found = nil
  for id, edit in pairs(require("codex.inline").edits) do
    if M.running(id) then
      if edit.bufnr == bufnr then
        return id
      end
      found = found or id
    end
  end
  return found
end

--- Interrupt the running turn of `thread_id`; by default the chat's, else an inline edit's
--- (the one in the current buffer first).
function M.interrupt(thread_id)
  if not thread_id then
    thread_id = M.current
    if not M.running(thread_id) then
      thread_id = running_edit(vim.api.nvim_get_current_buf()) or thread_id
    end
  end
  local turn = M.running(thread_id)
  local client = M.client_of(thread_id)
  if not (turn and client) then
    client_mod.notify("no turn is running")
    return
  end
  client_mod.request(client, "codex/turn/interrupt", { threadId = thread_id, turnId = turn })
end

--- Undo the last turn that changed files (of `thread_id`, default: the last one): the server
--- puts every file back on disk and in the buffers.
function M.undo_turn(thread_id)
  local client = (thread_id and M.client_of(thread_id)) or client_mod.get(0)
  if not client then
    client_mod.notify("Codex is not running")
    return
  end
  local params = thread_id and { threadId = thread_id } or vim.empty_dict()
  client_mod.request(client, "codex/turn/undo", params, function(result)
    local names = {}
    for _, path in ipairs(result.restored or {}) do
      table.insert(names, vim.fn.fnamemodify(path, ":t"))
    end
    local message = "undid the turn in " .. (#names > 0 and table.concat(names, ", ") or "no file")
    if result.skipped and #result.skipped > 0 then
      local left = {}
      for _, s in ipairs(result.skipped) do
        table.insert(left, ("%s (%s)"):format(vim.fn.fnamemodify(s.path, ":t"), s.reason))
      end
      message = message .. "; left alone: " .. table.concat(left, ", ")
    end
    client_mod.notify(message)
  end)
end

local function label(thread)
  local when = thread.updatedAt and os.date("%Y-%m-%d %H:%M", thread.updatedAt) or ""
  local title = thread.name or thread.preview
  if not title or title == "" then
    title = "(empty thread)"
  end
  return ("%s  %s  [%s]"):format(when, short(title, 60), vim.fn.fnamemodify(thread.cwd or "", ":~"))
end
M.label = label

--- Resume a thread by id: load its history into the chat and make it current.
function M.resume(client, thread_id, cb)
  client_mod.request(client, "codex/thread/resume", { threadId = thread_id }, function(result)
    local thread = M.record(result.thread, client.id, "chat")
    thread.started_model = result.model
    require("codex.transcript").load(result.thread)
    M.current = thread.id
    require("codex.chat").show_thread(thread.id)
    if cb then
      cb(thread.id)
    end
  end)
end

--- `:CodexThreads`: pick a thread with vim.ui.select and resume it in the chat.
function M.pick(bufnr)
  local client = client_mod.get(bufnr)
  if not client then
    return
  end
  client_mod.request(client, "codex/thread/list", { limit = 50, sortKey = "updated_at" }, function(result)
    local list = result.data or {}
    if #list == 0 then
      client_mod.notify("no threads yet")
      return
    end
    vim.ui.select(list, {
      prompt = "Resume a Codex thread",
      kind = "codex.thread",
      format_item = label,
    }, function(choice)
      if choice then
        M.resume(client, choice.id, function()
          require("codex.chat").open()
        end)
      end
    end)
  end)
end

return M
