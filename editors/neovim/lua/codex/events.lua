-- codex.events: routes the server's codex/* notifications to the thread state, the
-- transcript and the status line, then to any module that subscribed with `on`.
local threads = require("codex.threads")
local transcript = require("codex.transcript")
local status = require("codex.status")

local M = {}

local listeners = {} -- v2 method -> { fn(params, client_id) }

--- Subscribe to a v2 notification (without the codex/ prefix); returns an unsubscribe function.
function M.on(method, fn)
  listeners[method] = listeners[method] or {}
  table.insert(listeners[method], fn)
  return function()
    local list = listeners[method] or {}
    for i, f in ipairs(list) do
      if f == fn then
        table.remove(list, i)
        return
      end
    end
  end
end

local core = {
  ["thread/started"] = function(p, client_id)
    if p.thread then
      threads.record(p.thread, client_id)
    end
  end,
  ["thread/name/updated"] = function(p)
    local thread = threads.get(p.threadId)
    if thread then
      thread.name = p.threadName
    end
  end,
  ["turn/started"] = function(p)
    threads.turn_started(p.threadId, p.turn)
    transcript.turn_started(p.threadId, p.turn)
    status.changed()
  end,
  ["turn/completed"] = function(p)
    threads.turn_completed(p.threadId, p.turn)
    status.set_note(p.threadId, nil) -- a retry note ends with its turn
    transcript.turn_completed(p.threadId, p.turn or {})
    require("codex.preview").turn_ended(p.threadId)
    status.changed()
  end,
  ["item/started"] = function(p)
    transcript.item(p.threadId, p.turnId, p.item, false)
  end,
  ["item/completed"] = function(p)
    transcript.item(p.threadId, p.turnId, p.item, true)
  end,
  ["item/agentMessage/delta"] = function(p)
    transcript.append(p.threadId, p.turnId, p.itemId, "agentMessage", "text", p.delta)
  end,
  ["item/reasoning/summaryTextDelta"] = function(p)
    transcript.append(p.threadId, p.turnId, p.itemId, "reasoning", "summaryText", p.delta)
  end,
  ["item/commandExecution/outputDelta"] = function(p)
    transcript.append(p.threadId, p.turnId, p.itemId, "commandExecution", "output", p.delta)
  end,
  ["turn/plan/updated"] = function(p)
    transcript.plan(p.threadId, p.turnId, p)
  end,
  ["thread/tokenUsage/updated"] = function(p)
    status.set_usage(p.threadId, p.tokenUsage)
  end,
  ["account/rateLimits/updated"] = function(p)
    status.set_rate_limits(p.rateLimits)
  end,
  ["error"] = function(p)
    local err = p.error or {}
    local message = err.message or "unknown error"
    if p.willRetry then
      status.set_note(p.threadId, "retrying: " .. message)
      return
    end
    -- The chat shows it when the turn completes as failed.
    vim.notify("codex: " .. message, vim.log.levels.ERROR)
  end,
  ["warning"] = function(p)
    if p.message then
      vim.notify("codex: " .. p.message, vim.log.levels.WARN)
    end
  end,
}

--- Handle one notification; errors in one consumer never stop the others.
function M.dispatch(client_id, method, params)
  local handler = core[method]
  if handler then
    local ok, err = pcall(handler, params, client_id)
    if not ok then
      vim.notify(("codex: handling %s failed: %s"):format(method, err), vim.log.levels.ERROR)
    end
  end
  for _, fn in ipairs(vim.list_slice(listeners[method] or {})) do
    local ok, err = pcall(fn, params, client_id)
    if not ok then
      vim.notify(("codex: a %s listener failed: %s"):format(method, err), vim.log.levels.ERROR)
    end
  end
end

--- The server went away (`crashed`: by itself): nothing of its threads is running any more,
--- and a turn cut short says so in the chat. Listeners of "$/clientExited" hear of it too.
function M.client_exited(client_id, crashed)
  for _, cut in ipairs(threads.forget_client(client_id)) do
    local why = crashed and "the server stopped before the turn finished."
      or "the server was shut down before the turn finished."
    transcript.note(cut.thread, cut.turn, "stopped", why)
  end
  require("codex.preview").client_exited(client_id)
  status.client_exited(client_id)
  for _, fn in ipairs(vim.list_slice(listeners["$/clientExited"] or {})) do
    pcall(fn, { clientId = client_id, crashed = crashed }, client_id)
  end
end

return M
