-- codex.approval_view: what an approval is about, on screen while its prompt is open. A
-- prompt (vim.ui.select) may block Neovim before it redraws, so the command or the diff is
-- put in a float and the screen is redrawn before the question is asked. The float wraps its
-- lines and is as tall as they need, so the whole command is in sight, and every untrusted
-- part (command, paths, reason, diff) goes through codex.visible.
local M = {}

local render = require("codex.render")
local shown = require("codex.visible").visible

local function split(text)
  local lines = vim.split(text or "", "\n", { plain = true })
  if lines[#lines] == "" then
    table.remove(lines)
  end
  return lines
end

local function present(value)
  return value ~= nil and value ~= vim.NIL and value ~= ""
end

-- Each line of `text`, its control characters named (a buffer line holds no newline).
local function shown_lines(text)
  return vim.tbl_map(function(line)
    return shown(line, true)
  end, split(text))
end

--- Whether approving runs the command outside the sandbox (codex-lsp says so in its extras).
function M.unsandboxed(params)
  local extras = params.codexLsp
  return type(extras) == "table" and extras.runUnsandboxed == true
end

M.UNSANDBOXED_NOTE = "Approving runs this command outside the sandbox: it can read, change and send anything you can."

--- The lines that describe a command approval: the command, its folder and the reason.
function M.command_lines(params)
  local lines = {}
  for i, line in ipairs(shown_lines(render.command_text(params.command or "(unknown command)"))) do
    table.insert(lines, (i == 1 and "$ " or "  ") .. line)
  end
  if present(params.cwd) then
    table.insert(lines, "in " .. shown(vim.fn.fnamemodify(params.cwd, ":~")))
  end
  local net = params.networkApprovalContext
  if type(net) == "table" and present(net.host) then
    table.insert(lines, "network access to " .. shown(net.host))
  end
  if present(params.reason) then
    table.insert(lines, "")
    vim.list_extend(lines, shown_lines("Reason: " .. params.reason))
  end
  if M.unsandboxed(params) then
    table.insert(lines, "")
    table.insert(lines, M.UNSANDBOXED_NOTE)
  end
  return lines
end

local kind_words = { add = "add", delete = "delete", update = "update" }

--- The lines that describe a file change: each file and its unified diff.
function M.change_lines(changes, params)
  local lines = {}
  for _, change in ipairs(changes or {}) do
    local kind = type(change.kind) == "table" and change.kind.type or change.kind
    local path = shown(vim.fn.fnamemodify(change.path or "?", ":~:."))
    if #lines > 0 then
      table.insert(lines, "")
    end
    table.insert(lines, ("%s %s"):format(kind_words[kind] or kind or "change", path))
    vim.list_extend(lines, shown_lines(change.diff))
  end
  if #lines == 0 then
    table.insert(lines, "(the proposed change was not sent)")
  end
  if params and present(params.reason) then
    table.insert(lines, "")
    vim.list_extend(lines, shown_lines("Reason: " .. params.reason))
  end
  if params and present(params.grantRoot) then
    table.insert(lines, "It also asks to write anywhere under " .. shown(params.grantRoot))
  end
  return lines
end

--- Show `lines` in a float titled `title` and redraw; returns a handle for `close`, whose
--- `cut` says that the float could not hold them all (the screen is too small for them).
function M.open(title, lines, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  local width = math.max(20, vim.fn.strdisplaywidth(title) + 4)
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width + 1, math.max(20, vim.o.columns - 4))
  -- Long lines wrap: as many screen rows as the wrapped lines take, so nothing is cut off.
  local rows = 0
  for _, line in ipairs(lines) do
    rows = rows + math.max(1, math.ceil(vim.fn.strdisplaywidth(line) / width))
  end
  -- The prompt takes the bottom of the screen: keep the float above it.
  local height = math.min(rows, math.max(3, vim.o.lines - 9))
  local win = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    row = 1,
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = height,
    border = "rounded",
    title = " " .. title .. " ",
    title_pos = "center",
    style = "minimal",
    zindex = 200,
  })
  vim.wo[win].wrap = true
  M.redraw()
  return { win = win, buf = buf, cut = rows > height }
end

--- Show `lines` in a tab page of their own, where the user can scroll through them, and wait
--- (in the request's coroutine) until that tab is closed.
function M.read_whole(title, lines)
  local async = require("codex.async")
  async.await(function(resolve)
    vim.cmd.tabnew()
    local buf = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].modifiable = false
    vim.b[buf].codex_whole_command = true
    vim.wo.wrap = true
    vim.wo.winbar = title .. ": the whole command. Close this tab (:q) to answer."
    vim.api.nvim_create_autocmd("BufWipeout", { buffer = buf, once = true, callback = function()
      resolve()
    end })
  end)
end

function M.close(handle)
  if handle and vim.api.nvim_win_is_valid(handle.win) then
    pcall(vim.api.nvim_win_close, handle.win, true)
  end
  M.redraw()
end

--- Bring the screen up to date now (a blocking prompt would otherwise show a stale one).
function M.redraw()
  if #vim.api.nvim_list_uis() > 0 then
    pcall(vim.cmd.redraw)
  end
end

return M
