-- codex.handlers: the vim.lsp handler table for the codex client. Notifications named
-- `codex/<v2 method>` go to codex.events; the server's approval and question requests go to
-- codex.approvals, which answer from inside the coroutine Neovim runs them in.
local M = {}

local requests = {
  ["codex/item/commandExecution/requestApproval"] = function(params, ctx)
    return require("codex.approvals").command(params, ctx)
  end,
  ["codex/item/fileChange/requestApproval"] = function(params, ctx)
    return require("codex.approvals").file_change(params, ctx)
  end,
  ["codex/item/tool/requestUserInput"] = function(params, ctx)
    return require("codex.approvals").user_input(params, ctx)
  end,
}

local function method_not_found(method)
  local codes = vim.lsp.protocol.ErrorCodes
  return vim.lsp.rpc.rpc_response_error(codes.MethodNotFound, "the Neovim plugin does not handle " .. method)
end

-- A finding covers whole lines, and the server ends its range at the start of the next line.
-- Neovim would count that next line as part of it (quickfix ranges one line too long, code
-- actions offered there): end it at the end of its own last line instead.
local LINE_END = 2147483647 -- past any line; Neovim clamps it to the line's length

local function own_lines(diagnostic)
  local range = diagnostic.range
  if type(range) == "table" and range["end"].character == 0 and range["end"].line > range.start.line then
    range["end"] = { line = range["end"].line - 1, character = LINE_END }
  end
end

local function publish_diagnostics(err, result, ctx, ...)
  for _, diagnostic in ipairs(result and result.diagnostics or {}) do
    own_lines(diagnostic)
  end
  vim.lsp.handlers["textDocument/publishDiagnostics"](err, result, ctx, ...)
  require("codex.review").on_diagnostics(ctx.client_id)
end

-- The server's messages (a review's verdict, a configuration error) go through vim.notify,
-- so notification plugins show them like the plugin's own.
local levels = { [1] = vim.log.levels.ERROR, [2] = vim.log.levels.WARN, [3] = vim.log.levels.INFO }

local function show_message(_, params)
  if params and params.message then
    vim.notify("codex: " .. params.message, levels[params.type] or vim.log.levels.INFO)
  end
  return vim.NIL
end

-- The buffers a WorkspaceEdit changes.
local function edited_buffers(edit)
  local uris = {}
  for uri in pairs(edit.changes or {}) do
    uris[uri] = true
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      uris[change.textDocument.uri] = true
    elseif change.kind == "create" or change.kind == "rename" then
      uris[change.newUri or change.uri] = true
    end
  end
  local bufs = {}
  for uri in pairs(uris) do
    local buf = vim.uri_to_bufnr(uri)
    if vim.api.nvim_buf_is_loaded(buf) then
      table.insert(bufs, buf)
    end
  end
  return bufs
end

-- `workspace/applyEdit` as Neovim applies it (one undo step per buffer), then: rejected
-- hunks put back, and a word about files changed in buffers no window shows, which stay
-- unsaved until written.
local function apply_edit(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not (client and params and params.edit) then
    return { applied = false, failureReason = "no edit to apply" }
  end
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, params.edit, client.offset_encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  local hidden = {}
  for _, buf in ipairs(edited_buffers(params.edit)) do
    require("codex.preview").edit_applied(buf)
    if #vim.fn.win_findbuf(buf) == 0 and vim.bo[buf].modified then
      table.insert(hidden, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:."))
    end
  end
  if #hidden > 0 then
    table.sort(hidden)
    vim.notify(
      ("codex: changed %s in a buffer no window shows; it is not saved yet (:wall writes it)"):format(
        table.concat(hidden, ", ")
      ),
      vim.log.levels.INFO
    )
  end
  return { applied = true }
end

--- A fresh handler table for one client.
function M.table()
  local fixed = {
    ["textDocument/publishDiagnostics"] = publish_diagnostics,
    ["window/showMessage"] = show_message,
    ["workspace/applyEdit"] = apply_edit,
  }
  for method, fn in pairs(requests) do
    fixed[method] = function(_, params, ctx)
      return fn(params or {}, ctx)
    end
  end
  return setmetatable(fixed, {
    __index = function(_, method)
      if type(method) ~= "string" or not vim.startswith(method, "codex/") then
        return nil
      end
      -- Any other codex/* message: a notification is dispatched; a request (which Neovim also
      -- looks up here) gets a MethodNotFound error back instead of a hang.
      return function(_, params, ctx)
        require("codex.events").dispatch(ctx.client_id, method:sub(#"codex/" + 1), params or {})
        return nil, method_not_found(method)
      end
    end,
  })
end

return M
