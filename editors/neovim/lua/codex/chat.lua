-- codex.chat: the chat buffer and its window (split or float): draws the current thread's
-- transcript as markdown, follows it as it streams, and maps keys to send and interrupt.
local config = require("codex.config")

local M = {}

local HEADER = 2 -- lines above the first block
local state = {
  buf = nil,
  thread = nil, -- the thread drawn in the buffer
  heights = {}, -- lines drawn per block position
}

local function valid_buf()
  return state.buf and vim.api.nvim_buf_is_valid(state.buf)
end

local function windows()
  if not valid_buf() then
    return {}
  end
  return vim.fn.win_findbuf(state.buf)
end

local function header_lines()
  local threads = require("codex.threads")
  local thread = threads.get(state.thread)
  if not thread then
    return { "# Codex", "" }
  end
  local title = thread.name or thread.preview
  if not title or title == "" then
    -- Before the server has a preview, the first message says what the thread is about.
    for _, block in ipairs(require("codex.transcript").blocks(thread.id)) do
      if block.kind == "userMessage" then
        title = block.lines[3]
        break
      end
    end
  end
  if not title or title == "" then
    title = "new thread"
  end
  return { ("# Codex — %s"):format(threads.short(title, 60)), "" }
end

-- Write lines [first, last) of the buffer, which is otherwise read-only; windows whose
-- cursor sat on the last line keep following the end.
local function set_lines(first, last, lines)
  local buf = state.buf
  local follow = {}
  local count = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(windows()) do
    local row = vim.api.nvim_win_get_cursor(win)[1]
    if row >= count - 1 or win ~= vim.api.nvim_get_current_win() then
      table.insert(follow, win)
    end
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, first, last, false, lines)
  vim.bo[buf].modifiable = false
  local new_count = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(follow) do
    pcall(vim.api.nvim_win_set_cursor, win, { new_count, 0 })
  end
end

--- Redraw the whole buffer for `state.thread`.
local function draw_all()
  if not valid_buf() then
    return
  end
  local lines = header_lines()
  state.heights = {}
  if state.thread then
    for i, block in ipairs(require("codex.transcript").blocks(state.thread)) do
      vim.list_extend(lines, block.lines)
      state.heights[i] = #block.lines
    end
  end
  set_lines(0, -1, lines)
end

--- A block of `thread_id` was added or changed; redraw just its lines.
function M.block_changed(thread_id, pos)
  if thread_id ~= state.thread or not valid_buf() then
    return
  end
  local blocks = require("codex.transcript").blocks(thread_id)
  local block = blocks[pos]
  if not block or pos > #state.heights + 1 then
    draw_all()
    return
  end
  local first = HEADER
  for i = 1, pos - 1 do
    first = first + (state.heights[i] or 0)
  end
  set_lines(first, first + (state.heights[pos] or 0), block.lines)
  state.heights[pos] = #block.lines
  if pos == 1 then
    set_lines(0, HEADER, header_lines()) -- the title may come from the first message
  end
end

local function map(buf, lhs, fn, desc)
  if lhs then
    vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
end

local function ensure_buf()
  if valid_buf() then
    return state.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  state.buf = buf
  state.heights = {}
  vim.api.nvim_buf_set_name(buf, "codex://chat")
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].modifiable = false
  local keys = config.options.chat_keys
  map(buf, keys.send, function()
    M.prompt()
  end, "Codex: write a message (in the input area)")
  -- The transcript is read-only: the keys that would start Insert mode write in the input
  -- area instead, so what the user types next is not run as Normal-mode commands.
  for _, lhs in ipairs({ "i", "a", "o", "I", "A", "O" }) do
    if lhs ~= keys.send then
      map(buf, lhs, function()
        M.prompt(lhs == "o" or lhs == "O")
      end, "Codex: write a message (in the input area)")
    end
  end
  -- A change previewed in a file window is decided from here too (`ga` would only print the
  -- character under the cursor).
  local preview_keys = config.options.preview
  map(buf, preview_keys.accept, function()
    require("codex.preview").accept()
  end, "Codex: accept the proposed change")
  map(buf, preview_keys.reject, function()
    require("codex.preview").reject()
  end, "Codex: reject the proposed change")
  map(buf, keys.interrupt, function()
    require("codex.threads").interrupt()
  end, "Codex: interrupt the running turn")
  map(buf, keys.close, function()
    M.close()
  end, "Codex: close the chat")
  map(buf, keys.threads, function()
    require("codex.threads").pick()
  end, "Codex: resume a thread")
  map(buf, keys.new, function()
    require("codex.threads").new_chat()
  end, "Codex: new thread")
  draw_all()
  return buf
end

local function size(value, total)
  if value < 1 then
    return math.max(10, math.floor(total * value))
  end
  return math.floor(value)
end

local function open_window(buf)
  local chat = config.options.chat
  if chat.layout == "float" then
    local width = size(chat.float.width, vim.o.columns)
    local height = size(chat.float.height, vim.o.lines - 2)
    return vim.api.nvim_open_win(buf, true, {
      relative = "editor",
      width = width,
      height = height,
      row = math.floor((vim.o.lines - height) / 2) - 1,
      col = math.floor((vim.o.columns - width) / 2),
      border = chat.float.border,
      title = " Codex ",
      title_pos = "center",
      style = "minimal",
    })
  end
  if chat.layout == "hsplit" then
    vim.cmd("botright " .. size(chat.size, vim.o.lines) .. "split")
  else
    vim.cmd("botright " .. size(chat.size, vim.o.columns) .. "vsplit")
  end
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = "no"
  return win
end

--- The chat buffer number (created if needed).
function M.buf()
  return ensure_buf()
end

--- Show `thread_id` in the chat buffer (without opening a window).
function M.show_thread(thread_id)
  state.thread = thread_id
  if valid_buf() then
    draw_all()
  end
end

function M.thread()
  return state.thread
end

--- `:Codex`: open (or focus) the chat window for the current thread, with its input area.
function M.open()
  local threads = require("codex.threads")
  local compose = require("codex.compose")
  local from = vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_buf(from) ~= state.buf and vim.api.nvim_win_get_buf(from) ~= compose.buf() then
    compose.set_origin(from)
  end
  local buf = ensure_buf()
  if state.thread ~= threads.current then
    M.show_thread(threads.current)
  end
  local wins = windows()
  local win = wins[1] or open_window(buf)
  compose.attach(win)
  vim.api.nvim_set_current_win(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
  return win
end

function M.close()
  require("codex.compose").close()
  for _, win in ipairs(windows()) do
    if #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, win, false)
    end
  end
end

--- Move to the input area under the chat, ready to type a message (on a line of its own
--- after what is already written when `new_line`).
function M.prompt(new_line)
  local compose = require("codex.compose")
  local win = compose.focus(windows()[1] or M.open())
  local input = compose.buf()
  local count = vim.api.nvim_buf_line_count(input)
  if new_line and compose.text() ~= "" then
    vim.api.nvim_buf_set_lines(input, count, count, false, { "" })
    vim.api.nvim_win_set_cursor(win, { count + 1, 0 })
  end
  return win
end

--- The chat buffer's lines (for tests and statuslines).
function M.lines()
  if not valid_buf() then
    return {}
  end
  return vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
end

return M
