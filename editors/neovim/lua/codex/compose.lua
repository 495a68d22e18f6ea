-- codex.compose: the chat's input area, a small editable buffer under the transcript. Write a
-- message over as many lines as you like, send it with a key, walk back through what you sent.
-- `#buffer`, `#selection`, `#diagnostics` and `@path` in a message attach that context (sent to
-- the server as data, which reads and words it); a message that is a slash command runs it.
local config = require("codex.config")

local M = {}

local state = {
  buf = nil,
  history = {}, -- sent messages, oldest first
  at = nil, -- position while walking the history
  origin = nil, -- { buf, win }: the file the user came from, for #buffer / #selection
}

local HEIGHT = 6

local function valid_buf()
  return state.buf and vim.api.nvim_buf_is_valid(state.buf)
end

--- Remember the file window the chat was opened from.
function M.set_origin(win)
  win = win or vim.api.nvim_get_current_win()
  if not vim.api.nvim_win_is_valid(win) then
    return
  end
  local buf = vim.api.nvim_win_get_buf(win)
  if require("codex.client").is_file_buffer(buf) then
    state.origin = { buf = buf, win = win }
  end
end

function M.origin_buf()
  local origin = state.origin
  return origin and vim.api.nvim_buf_is_valid(origin.buf) and origin.buf or nil
end

local function set_text(lines)
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, lines)
  for _, win in ipairs(vim.fn.win_findbuf(state.buf)) do
    local last = #lines
    pcall(vim.api.nvim_win_set_cursor, win, { last, #(lines[last] or "") })
  end
end

--- The text in the input area.
function M.text()
  if not valid_buf() then
    return ""
  end
  return table.concat(vim.api.nvim_buf_get_lines(state.buf, 0, -1, false), "\n")
end

-- Walk the history: -1 back, +1 forward; past the newest entry the area is empty again.
local function walk(step)
  if #state.history == 0 then
    return
  end
  local at = (state.at or (#state.history + 1)) + step
  at = math.max(1, math.min(at, #state.history + 1))
  state.at = at
  local entry = state.history[at] or ""
  set_text(vim.split(entry, "\n", { plain = true }))
end

--- Send `text` on the chat's thread with the context it names, or run it when it is a slash
--- command. Returns false when it was not understood (an unknown slash command).
function M.send(text)
  local ran, unknown, prompt = require("codex.slash").run(text)
  if unknown then
    return false
  end
  -- A prompt of the library goes out as its file words it; the history keeps `/name`.
  local message = prompt or (not ran and text) or nil
  if message then
    local context = require("codex.context").collect(message, M.origin_buf())
    if not require("codex.threads").send(message, M.origin_buf(), context) then
      return false -- no server: the text stays where it was written
    end
  end
  table.insert(state.history, text)
  state.at = nil
  return true
end

--- Put `text` in the input area (a message that could not be sent, to send again).
function M.set_text(text)
  M.buf()
  set_text(vim.split(text, "\n", { plain = true }))
end

--- Send what is in the input area; it empties, unless the text was not understood.
function M.submit()
  local text = vim.trim(M.text())
  if text ~= "" and M.send(text) then
    set_text({ "" })
  end
end

--- Completion for the input area ('omnifunc'): `@` file paths of the project, `#` context
--- names, and `/` commands at the start of the message.
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local line = vim.api.nvim_get_current_line():sub(1, vim.fn.col(".") - 1)
    local start = line:find("[@#/][^%s]*$")
    return start and start - 1 or -3
  end
  local lead = base:sub(1, 1)
  if lead == "@" then
    return require("codex.context").complete_path(base:sub(2), M.origin_buf())
  elseif lead == "#" then
    return vim.tbl_filter(function(word)
      return vim.startswith(word, base)
    end, require("codex.context").names())
  elseif lead == "/" then
    return vim.tbl_filter(function(word)
      return vim.startswith(word, base)
    end, require("codex.slash").names())
  end
  return {}
end

local function map(modes, lhs, fn, desc)
  if lhs then
    vim.keymap.set(modes, lhs, fn, { buffer = state.buf, nowait = true, silent = true, desc = desc })
  end
end

local function ensure_buf()
  if valid_buf() then
    return state.buf
  end
  state.buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(state.buf, "codex://input")
  vim.bo[state.buf].buftype = "nofile"
  vim.bo[state.buf].bufhidden = "hide"
  vim.bo[state.buf].swapfile = false
  vim.bo[state.buf].filetype = "markdown"
  vim.bo[state.buf].omnifunc = "v:lua.require'codex.compose'.omnifunc"
  local keys = config.options.input_keys
  map({ "n", "i" }, keys.submit, M.submit, "Codex: send the message")
  map("n", keys.submit_normal, M.submit, "Codex: send the message")
  map("n", keys.history_prev, function()
    walk(-1)
  end, "Codex: the previous message")
  map("n", keys.history_next, function()
    walk(1)
  end, "Codex: the next message")
  map({ "n", "i" }, keys.interrupt, function()
    require("codex.threads").interrupt()
  end, "Codex: interrupt the running turn")
  map("n", keys.close, function()
    require("codex.chat").close()
  end, "Codex: close the chat")
  return state.buf
end

function M.buf()
  return ensure_buf()
end

--- The window showing the input area, if any.
function M.win()
  if not valid_buf() then
    return nil
  end
  return vim.fn.win_findbuf(state.buf)[1]
end

--- Show the input area under the chat window `chat_win` (once); returns its window.
function M.attach(chat_win)
  local buf = ensure_buf()
  local existing = M.win()
  if existing then
    return existing
  end
  local cfg = vim.api.nvim_win_get_config(chat_win)
  local win
  if cfg.relative ~= "" then
    -- A float: the transcript gives up its bottom lines to a float of its own.
    local height = math.max(3, cfg.height - HEIGHT - 2)
    vim.api.nvim_win_set_config(chat_win, vim.tbl_extend("force", cfg, { height = height }))
    local row = type(cfg.row) == "table" and cfg.row[false] or cfg.row
    local col = type(cfg.col) == "table" and cfg.col[false] or cfg.col
    win = vim.api.nvim_open_win(buf, false, {
      relative = "editor",
      row = row + height + 2,
      col = col,
      width = cfg.width,
      height = HEIGHT,
      border = cfg.border,
      title = " Message (" .. (config.options.input_keys.submit or "send") .. " sends) ",
      title_pos = "center",
      style = "minimal",
    })
  else
    -- The chat's size (see codex-chat-opts) holds both: the input takes at most a third.
    local height = math.min(HEIGHT, math.max(2, math.floor(vim.api.nvim_win_get_height(chat_win) / 3)))
    vim.api.nvim_win_call(chat_win, function()
      vim.cmd("belowright " .. height .. "split")
      win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(win, buf)
    end)
    vim.wo[win].winfixheight = true
    vim.wo[win].number = false
    vim.wo[win].relativenumber = false
    vim.wo[win].signcolumn = "no"
  end
  vim.wo[win].wrap = true
  vim.wo[win].winbar = "Message · " .. (config.options.input_keys.submit or "") .. " sends"
  return win
end

--- Move to the input area (opening it under `chat_win`), ready to type: in Insert mode at the
--- end of the text unless `insert` is false.
function M.focus(chat_win, insert)
  local win = M.attach(chat_win)
  vim.api.nvim_set_current_win(win)
  if insert ~= false then
    vim.cmd("startinsert!")
  end
  return win
end

function M.close()
  local win = M.win()
  if win and #vim.api.nvim_list_wins() > 1 then
    pcall(vim.api.nvim_win_close, win, false)
  end
end

function M.history()
  return vim.list_slice(state.history)
end

return M
