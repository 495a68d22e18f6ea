-- codex.mode: how the chat's thread works from its next turn on. `plan` only reads and proposes
-- a plan (the server refuses changes in Plan mode); `agent` works in the workspace and asks
-- before leaving it; `read-only` may not write; `full` runs without sandbox or questions.
-- One `thread/settings/update` each: the collaboration mode, and for the last three the
-- approval policy and sandbox.
local client_mod = require("codex.client")
local threads = require("codex.threads")

local M = {}

M.modes = {
  plan = { collaboration = "plan" },
  agent = { collaboration = "default", approval = "on-request", sandbox = { type = "workspaceWrite" } },
  ["read-only"] = { collaboration = "default", approval = "on-request", sandbox = { type = "readOnly" } },
  full = { collaboration = "default", approval = "never", sandbox = { type = "dangerFullAccess" } },
}

function M.names()
  local out = vim.tbl_keys(M.modes)
  table.sort(out)
  return out
end

--- The mode the chat's thread was last switched to, or nil.
function M.current()
  local thread = threads.get(threads.current)
  return thread and thread.mode
end

--- Switch the chat's thread to mode `name`.
function M.set(name, bufnr)
  local mode = M.modes[name]
  if not mode then
    client_mod.notify(
      ("unknown mode %q; the modes are %s"):format(name or "", table.concat(M.names(), " ")),
      vim.log.levels.WARN
    )
    return
  end
  threads.ensure_chat(bufnr, function(id, client)
    local thread = threads.get(id)
    local params = {
      threadId = id,
      collaborationMode = {
        mode = mode.collaboration,
        settings = { model = thread.model or thread.started_model },
      },
      approvalPolicy = mode.approval,
      sandboxPolicy = mode.sandbox,
    }
    client_mod.request(client, "codex/thread/settings/update", params, function()
      thread.mode = name
      client_mod.notify(("mode: %s (from the next message)"):format(name))
      require("codex.status").changed()
    end)
  end)
end

--- Completion for :CodexMode.
function M.complete(arglead)
  return vim.tbl_filter(function(name)
    return vim.startswith(name, arglead)
  end, M.names())
end

return M
