-- codex.handlers: the vim.lsp handler table for the codex client. Notifications named
-- `codex/<v2 method>` go to codex.events; the server's approval and question requests go to
-- codex.approvals, which answer from inside the coroutine Neovim runs them in; its questions
-- about the editor (`codex/editor/*`) go to codex.editor_context.
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
  ["codex/editor/openBuffers"] = function(params, ctx)
    return require("codex.editor_context").open_buffers(params, ctx)
  end,
  ["codex/editor/readBuffer"] = function(params, ctx)
    return require("codex.editor_context").read_buffer(params, ctx)
  end,
  ["codex/editor/selection"] = function(params, ctx)
    return require("codex.editor_context").selection(params, ctx)
  end,
  ["codex/editor/diagnostics"] = function(params, ctx)
    return require("codex.editor_context").diagnostics(params, ctx)
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

-- The URIs a WorkspaceEdit changes.
local function edited_uris(edit)
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
  return uris
end

-- The buffers of `uris` that are loaded now (names compared whole: bufnr() takes a pattern).
local function loaded_buffers(uris)
  local names = {}
  for uri in pairs(uris) do
    names[vim.fs.normalize(vim.uri_to_fname(uri))] = true
  end
  local bufs = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and names[vim.fs.normalize(vim.api.nvim_buf_get_name(buf))] then
      bufs[buf] = true
    end
  end
  return bufs
end

-- `workspace/applyEdit` as Neovim applies it (one undo step per buffer), then written: the
-- agent's next command reads the disk, and no buffer is left modified by the agent alone
-- (`:qa` works). Unsaved text of the user's in an edited buffer was read by the agent and is
-- written with its change. A buffer loaded only to take the edit is unloaded again.
local function apply_edit(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not (client and params and params.edit) then
    return { applied = false, failureReason = "no edit to apply" }
  end
  local uris = edited_uris(params.edit)
  local before = loaded_buffers(uris)
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, params.edit, client.offset_encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  for buf in pairs(loaded_buffers(uris)) do
    if vim.bo[buf].modified and vim.bo[buf].buftype == "" then
      -- No autocommands: a formatter on save would make the disk differ from the edit.
      local wrote, problem = pcall(vim.api.nvim_buf_call, buf, function()
        vim.cmd("silent noautocmd lockmarks update")
      end)
      if not wrote then
        -- The edit is in the buffer; the server writes the disk when the editor did not.
        vim.notify("codex: could not write " .. vim.api.nvim_buf_get_name(buf) .. ": " .. tostring(problem), vim.log.levels.WARN)
      end
    end
    if not before[buf] and #vim.fn.win_findbuf(buf) == 0 and not vim.bo[buf].modified then
      pcall(vim.api.nvim_buf_delete, buf, { unload = true })
    end
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
