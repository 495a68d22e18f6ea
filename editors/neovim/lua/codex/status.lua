-- codex.status: what the statusline shows: the running turn's LSP progress, the chat
-- thread's token usage and the account's rate-limit use.
local M = {}

local usage = {} -- thread id -> v2 ThreadTokenUsage
local notes = {} -- thread id -> short transient note (e.g. a retry)
local rate_limits = nil -- v2 RateLimitSnapshot
local progress = {} -- "client:token" -> latest message, while a turn's progress is open

local function redraw()
  vim.schedule(function()
    -- Without a UI there is no status line to draw (and headless redraws have crashed Neovim).
    if #vim.api.nvim_list_uis() > 0 then
      pcall(vim.cmd, "redrawstatus!")
    end
  end)
end
M.changed = redraw

function M.set_usage(thread_id, token_usage)
  usage[thread_id] = token_usage
  notes[thread_id] = nil
  redraw()
end

function M.set_rate_limits(snapshot)
  rate_limits = snapshot
  redraw()
end

function M.set_note(thread_id, text)
  notes[thread_id] = text
  redraw()
end

--- Called for each LspProgress event of a codex client.
function M.on_progress(params, client_id)
  local value = params.value or {}
  local token = ("%s:%s"):format(tostring(client_id), tostring(params.token))
  if value.kind == "end" then
    progress[token] = nil
  else
    progress[token] = value.message or value.title or progress[token] or "working"
  end
  redraw()
end

--- A server went away: its progress never ends by itself.
function M.client_exited(client_id)
  local prefix = tostring(client_id) .. ":"
  for token in pairs(progress) do
    if vim.startswith(token, prefix) then
      progress[token] = nil
    end
  end
  redraw()
end

function M.progress_messages()
  return vim.tbl_values(progress)
end

local function count(n)
  if n >= 1000000 then
    return ("%.1fM"):format(n / 1000000)
  elseif n >= 1000 then
    return ("%.1fk"):format(n / 1000)
  end
  return tostring(n)
end

local function window_name(window)
  local mins = window.windowDurationMins
  if type(mins) ~= "number" then
    return nil
  end
  if mins % 10080 == 0 then
    return mins == 10080 and "wk" or (mins / 10080 .. "wk")
  elseif mins % 1440 == 0 then
    return mins / 1440 .. "d"
  elseif mins % 60 == 0 then
    return mins / 60 .. "h"
  end
  return mins .. "m"
end

local function limits_text()
  if type(rate_limits) ~= "table" then
    return nil
  end
  local parts = {}
  for _, key in ipairs({ "primary", "secondary" }) do
    local window = rate_limits[key]
    if type(window) == "table" and type(window.usedPercent) == "number" then
      local name = window_name(window) or key
      table.insert(parts, ("%s %d%%"):format(name, window.usedPercent))
    end
  end
  return #parts > 0 and table.concat(parts, " ") or nil
end

local function usage_text(thread_id)
  local u = thread_id and usage[thread_id]
  if type(u) ~= "table" or type(u.total) ~= "table" then
    return nil
  end
  local text = count(u.total.totalTokens or 0) .. " tok"
  local window = u.modelContextWindow
  if type(window) == "number" and window > 0 and type(u.last) == "table" then
    text = text .. (" · ctx %d%%"):format(math.floor(100 * (u.last.totalTokens or 0) / window + 0.5))
  end
  return text
end

--- The status text for the chat's thread, whether or not a server runs.
function M.format()
  local threads = require("codex.threads")
  local parts = { "Codex" }
  local running = M.progress_messages()[1]
  if running then
    parts[1] = "Codex ⟳ " .. running
  elseif threads.running(threads.current) then
    parts[1] = "Codex ⟳ working"
  end
  local thread = threads.get(threads.current)
  if thread and thread.mode and thread.mode ~= "agent" then
    parts[1] = parts[1] .. " [" .. thread.mode .. "]"
  end
  local note = threads.current and notes[threads.current]
  if note then
    table.insert(parts, note)
  end
  table.insert(parts, usage_text(threads.current))
  table.insert(parts, limits_text())
  return table.concat(parts, " │ ")
end

--- A statusline component, e.g. `Codex ⟳ Running ls │ 1.2k tok · ctx 3% │ 5h 42% wk 7%`.
--- Empty when no codex server runs. Use it in 'statusline' as
--- `%{v:lua.require'codex'.statusline()}` or from a statusline plugin.
function M.statusline()
  if #vim.lsp.get_clients({ name = "codex" }) == 0 then
    return ""
  end
  return M.format()
end

function M.usage(thread_id)
  return usage[thread_id]
end

return M
