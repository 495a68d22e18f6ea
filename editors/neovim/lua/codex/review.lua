-- codex.review: `:CodexReview [uncommitted|branch NAME|commit SHA]` starts a review on the
-- chat's thread; the server publishes findings as diagnostics (source "codex"), which this
-- module mirrors into the quickfix list. Fix / explain / dismiss are the server's code actions.
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

--- Every codex diagnostic, as quickfix items sorted by file and line.
function M.items()
  local diags = vim.tbl_filter(function(d)
    return d.source == "codex"
  end, vim.diagnostic.get(nil))
  table.sort(diags, function(a, b)
    if a.bufnr ~= b.bufnr then
      return vim.api.nvim_buf_get_name(a.bufnr) < vim.api.nvim_buf_get_name(b.bufnr)
    end
    return a.lnum < b.lnum
  end)
  return vim.diagnostic.toqflist(diags)
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

--- `:CodexReview`: start a review; findings arrive as diagnostics.
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
      client_mod.notify("review started")
    end)
  end)
end

events.on("turn/completed", function(p)
  local turn = p.turn or {}
  if not running[p.threadId] or running[p.threadId] ~= turn.id then
    return
  end
  running[p.threadId] = nil
  -- Diagnostics may still be on their way; give them a moment before summing up.
  vim.defer_fn(function()
    local items = M.refresh_quickfix()
    if turn.status ~= "completed" then
      client_mod.notify("the review did not finish (" .. tostring(turn.status) .. ")", vim.log.levels.WARN)
      return
    end
    client_mod.notify(("review done: %d finding%s"):format(#items, #items == 1 and "" or "s"))
    if #items > 0 and config.options.review.open_quickfix then
      local win = vim.api.nvim_get_current_win()
      vim.cmd("botright copen")
      if vim.api.nvim_win_is_valid(win) then
        vim.api.nvim_set_current_win(win)
      end
    end
  end, 100)
end)

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
