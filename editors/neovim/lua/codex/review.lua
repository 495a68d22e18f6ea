-- codex.review: `:CodexReview [uncommitted|branch NAME|commit SHA]` starts a review on the
-- chat's thread; the server publishes findings as diagnostics (source "codex"), which this
-- module mirrors into the quickfix list, and says the verdict itself. Fix / explain / dismiss
-- are the server's code actions; fix and explain are routed here first, so a fix is previewed
-- like an inline edit and an explanation shows up in the chat.
local client_mod = require("codex.client")
local config = require("codex.config")
local events = require("codex.events")
local threads = require("codex.threads")

local M = {}

local QF_TITLE = "Codex review"
local qf_id = nil
local running = {} -- thread id -> turn id of a review under way
M.used = false -- set once a review ran, so the quickfix list is ours to refresh

--- The v2 ReviewTarget for the command's arguments, or nil and the usage text.
function M.parse(args)
  local words = vim.split(vim.trim(args or ""), "%s+", { trimempty = true })
  local what = words[1] or "uncommitted"
  if what == "uncommitted" and #words <= 1 then
    return { type = "uncommittedChanges" }
  elseif what == "branch" and words[2] and #words == 2 then
    return { type = "baseBranch", branch = words[2] }
  elseif what == "commit" and words[2] and #words == 2 then
    return { type = "commit", sha = words[2] }
  end
  return nil, "usage: :CodexReview [uncommitted | branch NAME | commit SHA]"
end

-- A finding's priority (its code, "P0" most urgent), else its severity.
local function urgency(d)
  local p = type(d.code) == "string" and tonumber(d.code:match("^P(%d)$")) or nil
  return p or (d.severity or 4) + 10
end

--- Every codex diagnostic, as quickfix items: the most urgent first, then by file and line.
function M.items()
  local diags = vim.tbl_filter(function(d)
    return d.source == "codex"
  end, vim.diagnostic.get(nil))
  table.sort(diags, function(a, b)
    if urgency(a) ~= urgency(b) then
      return urgency(a) < urgency(b)
    end
    if a.bufnr ~= b.bufnr then
      return vim.api.nvim_buf_get_name(a.bufnr) < vim.api.nvim_buf_get_name(b.bufnr)
    end
    return a.lnum < b.lnum
  end)
  -- toqflist sorts by file and line: one diagnostic at a time keeps this order.
  local items = {}
  for _, d in ipairs(diags) do
    vim.list_extend(items, vim.diagnostic.toqflist({ d }))
  end
  return items
end

--- Put the current findings in the quickfix list (replacing our earlier list, if any).
function M.refresh_quickfix()
  local items = M.items()
  local existing = qf_id and vim.fn.getqflist({ id = qf_id, title = 0 })
  if existing and existing.id ~= 0 and existing.title == QF_TITLE then
    vim.fn.setqflist({}, "r", { id = qf_id, items = items, title = QF_TITLE })
  else
    vim.fn.setqflist({}, " ", { items = items, title = QF_TITLE })
    qf_id = vim.fn.getqflist({ id = 0 }).id
  end
  return items
end

--- Called after each publishDiagnostics from a codex client.
function M.on_diagnostics(_client_id)
  if M.used then
    M.refresh_quickfix()
  end
end

--- `:CodexReview`: start a review; findings arrive as diagnostics, the verdict as a message.
function M.run(args, bufnr)
  local target, usage = M.parse(args)
  if not target then
    client_mod.notify(usage, vim.log.levels.ERROR)
    return
  end
  M.used = true
  threads.ensure_chat(bufnr, function(thread_id, client)
    client_mod.request(client, "codex/review/start", { threadId = thread_id, target = target }, function(result)
      if type(result) == "table" and type(result.turn) == "table" then
        running[thread_id] = result.turn.id
      end
    end)
  end)
end

-- The findings are published before the server says the review is complete.
events.on("review/completed", function(p)
  running[p.threadId] = nil
  local items = M.refresh_quickfix()
  if #items > 0 and config.options.review.open_quickfix then
    local win = vim.api.nvim_get_current_win()
    vim.cmd("botright copen")
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_set_current_win(win)
    end
  end
end)

events.on("turn/completed", function(p)
  if running[p.threadId] and running[p.threadId] == (p.turn or {}).id then
    running[p.threadId] = nil -- failed or interrupted: the server has said so
  end
end)

local function finding_id(command)
  local argument = type(command.arguments) == "table" and command.arguments[1] or nil
  return type(argument) == "table" and argument.findingId or nil
end

--- The "Fix with Codex" code action: the fix runs on a thread of its own whose policy asks
--- before every patch, so it is previewed in the buffer like an inline edit.
function M.fix(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local id = finding_id(command)
  if not (client and id) then
    return
  end
  require("codex.inline").fix(client, id, ctx.bufnr)
end

--- The "Explain" code action: the answer goes to the review's thread, shown in the chat.
function M.explain(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  local origin = vim.api.nvim_get_current_win()
  client_mod.command(client, command.command, command.arguments and command.arguments[1], function(result)
    if type(result) ~= "table" or type(result.threadId) ~= "string" then
      return
    end
    threads.record({ id = result.threadId }, client.id, "chat")
    threads.current = result.threadId
    require("codex.chat").open()
    if vim.api.nvim_win_is_valid(origin) then
      vim.api.nvim_set_current_win(origin)
    end
  end)
end

--- Route the server's fix and explain commands through this module.
function M.register_commands()
  vim.lsp.commands["codex.fixFinding"] = M.fix
  vim.lsp.commands["codex.explainFinding"] = M.explain
end

--- Completion for :CodexReview.
function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+", { trimempty = true })
  local n = #words - (arglead == "" and 0 or 1)
  if n <= 1 then
    return vim.tbl_filter(function(w)
      return vim.startswith(w, arglead)
    end, { "uncommitted", "branch", "commit" })
  end
  if n == 2 and words[2] == "branch" then
    local ok, out = pcall(vim.fn.systemlist, { "git", "branch", "--format=%(refname:short)" })
    if ok and vim.v.shell_error == 0 then
      return vim.tbl_filter(function(b)
        return vim.startswith(b, arglead)
      end, out)
    end
  end
  return {}
end

return M
