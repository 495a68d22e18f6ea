-- codex.inline: the inline assistant. `:CodexEdit` sends the selection, its file and the
-- instruction to a turn on an edit thread (whose patches are previewed in the buffer by
-- codex.preview); `:CodexAsk` sends a question about the selection to the chat.
local client_mod = require("codex.client")
local config = require("codex.config")
local events = require("codex.events")
local threads = require("codex.threads")

local M = {}

M.edits = {} -- thread id -> { bufnr, instruction, turn } for inline edits under way

--- The LSP range of lines l1..l2 (1-based, inclusive) of `bufnr`, in the client's encoding.
local function line_range(client, bufnr, l1, l2)
  local last = vim.api.nvim_buf_get_lines(bufnr, l2 - 1, l2, false)[1] or ""
  local encoding = client.offset_encoding or "utf-16"
  local character = #last
  if encoding ~= "utf-8" then
    if vim.fn.has("nvim-0.11") == 1 then
      character = vim.str_utfindex(last, encoding)
    else
      local utf32, utf16 = vim.str_utfindex(last)
      character = encoding == "utf-16" and utf16 or utf32
    end
  end
  return {
    start = { line = l1 - 1, character = 0 },
    ["end"] = { line = l2 - 1, character = character },
  }
end

local function selection_args(client, bufnr, l1, l2, prompt, thread_id)
  return {
    threadId = thread_id,
    prompt = prompt,
    uri = vim.uri_from_bufnr(bufnr),
    range = l1 and line_range(client, bufnr, l1, l2) or nil,
  }
end

-- While an edit runs, the stop key in its buffer interrupts it, unless the user mapped that
-- key there; the mapping goes with the edit.
local function map_stop(thread_id, bufnr)
  local lhs = config.options.inline.interrupt
  if not lhs or vim.fn.maparg(lhs, "n", false, true).buffer == 1 then
    return
  end
  vim.api.nvim_buf_call(bufnr, function()
    if vim.fn.maparg(lhs, "n", false, true).buffer == 1 then
      return
    end
    vim.keymap.set("n", lhs, function()
      threads.interrupt(thread_id)
    end, { buffer = bufnr, desc = "Codex: stop the inline edit" })
    M.edits[thread_id].stop_key = lhs
  end)
end

local function unmap_stop(edit)
  if edit.stop_key and vim.api.nvim_buf_is_valid(edit.bufnr) then
    pcall(vim.keymap.del, "n", edit.stop_key, { buffer = edit.bufnr })
  end
end

--- Start an inline edit of lines l1..l2 of `bufnr` following `instruction`.
function M.edit(instruction, bufnr, l1, l2)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if not client_mod.is_file_buffer(bufnr) then
    client_mod.notify(":CodexEdit works on a file buffer", vim.log.levels.WARN)
    return
  end
  local client = client_mod.get(bufnr)
  if not client then
    return
  end
  l1 = l1 or vim.fn.line(".")
  l2 = l2 or l1
  threads.start(client, { kind = "edit", approval_policy = config.options.inline.approval_policy }, function(thread_id)
    M.edits[thread_id] = { bufnr = bufnr, instruction = instruction, client_id = client.id }
    map_stop(thread_id, bufnr)
    local args = selection_args(client, bufnr, l1, l2, nil, thread_id)
    args.instruction = instruction
    -- The server words the request; the plugin only forwards the user's instruction.
    client_mod.command(client, "codex.edit", args, function(result)
      local edit = M.edits[thread_id]
      if edit and result and type(result.turn) == "table" then
        edit.turn = result.turn.id
      end
    end, { bufnr = bufnr })
    client_mod.notify("editing: " .. threads.short(instruction, 60))
  end)
end

--- Fix review finding `finding_id` on a thread of its own (whose policy previews every patch),
--- through the server's `codex.fixFinding`; the change is shown in `bufnr` before it lands.
function M.fix(client, finding_id, bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  threads.start(client, { kind = "edit", approval_policy = config.options.inline.approval_policy }, function(thread_id)
    M.edits[thread_id] = { bufnr = bufnr, instruction = "fix", client_id = client.id }
    map_stop(thread_id, bufnr)
    client_mod.command(client, "codex.fixFinding", { findingId = finding_id, threadId = thread_id }, function(result)
      local edit = M.edits[thread_id]
      if edit and result and type(result.turn) == "table" then
        edit.turn = result.turn.id
      end
    end)
    client_mod.notify("fixing the finding")
  end)
end

--- Ask a question about lines l1..l2 of `bufnr` (or no selection) on the chat's thread.
function M.ask(question, bufnr, l1, l2)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local chat = require("codex.chat")
  if not l1 or not client_mod.is_file_buffer(bufnr) then
    threads.send(question, bufnr)
    chat.open()
    return
  end
  local origin = vim.api.nvim_get_current_win()
  threads.ensure_chat(bufnr, function(thread_id, client)
    client_mod.command(client, "codex.ask", selection_args(client, bufnr, l1, l2, question, thread_id), nil, {
      bufnr = bufnr,
    })
    chat.open()
    if vim.api.nvim_win_is_valid(origin) then
      vim.api.nvim_set_current_win(origin)
    end
  end)
end

-- When an edit's turn ends without an accepted change, say what the agent said instead.
events.on("turn/completed", function(p)
  local edit = M.edits[p.threadId]
  if not edit then
    return
  end
  M.edits[p.threadId] = nil
  unmap_stop(edit)
  local turn = p.turn or {}
  if turn.status == "failed" then
    local err = type(turn.error) == "table" and turn.error.message or "unknown error"
    client_mod.notify("the edit failed: " .. err, vim.log.levels.ERROR)
    return
  end
  if turn.status == "interrupted" then
    client_mod.notify("the edit was interrupted")
    return
  end
  local text = require("codex.transcript").last_agent_text(p.threadId, turn.id)
  if text and text ~= "" then
    M.show_reply(text, edit.bufnr)
  end
end)

--- The reply of an edit that ended without a change: a short one as a message, a longer one
--- (several lines, code) whole in a markdown float by the edited window.
function M.show_reply(text, bufnr)
  text = vim.trim(text)
  if not text:find("\n") and vim.fn.strchars(text) <= 120 then
    client_mod.notify(text)
    return
  end
  local win = vim.fn.bufwinid(bufnr)
  local function open()
    local _, float = vim.lsp.util.open_floating_preview(vim.split(text, "\n", { plain = true }), "markdown", {
      border = "rounded",
      title = " Codex ",
      max_width = math.max(40, math.floor(vim.o.columns * 0.8)),
      max_height = math.max(5, math.floor(vim.o.lines * 0.6)),
      focus_id = "codex_edit_reply",
    })
    M.reply_win = float
  end
  if win ~= -1 then
    vim.api.nvim_win_call(win, open)
  else
    open()
  end
  client_mod.notify("the edit ended without a change; its answer is in the float")
end

-- A server that went away ends its edits: nothing will complete them.
events.on("$/clientExited", function(p)
  for thread_id, edit in pairs(M.edits) do
    if edit.client_id == p.clientId then
      M.edits[thread_id] = nil
      unmap_stop(edit)
      client_mod.notify("the edit stopped with the server", vim.log.levels.WARN)
    end
  end
end)

--- Read the instruction with vim.ui.input, then edit the lines.
function M.prompt_edit(bufnr, l1, l2)
  vim.ui.input({ prompt = "Codex edit: " }, function(text)
    if text and vim.trim(text) ~= "" then
      M.edit(text, bufnr, l1, l2)
    end
  end)
end

function M.prompt_ask(bufnr, l1, l2)
  vim.ui.input({ prompt = "Ask Codex: " }, function(text)
    if text and vim.trim(text) ~= "" then
      M.ask(text, bufnr, l1, l2)
    end
  end)
end

return M
