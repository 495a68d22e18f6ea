-- codex.editor_context: answers the server's questions about the editor (codex/editor/*), which
-- back the model's editor_* tools: the open file buffers, a buffer's text with its unsaved
-- changes, the selection and cursor of the file being worked on, and the diagnostics every
-- language server published. Positions are LSP's, in the client's offset encoding.
local M = {}

local function client_of(ctx)
  return ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
end

local function encoding(ctx)
  local client = client_of(ctx)
  return client and client.offset_encoding or "utf-16"
end

local function file_buffers()
  local bufs = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and require("codex.client").is_file_buffer(buf) then
      table.insert(bufs, buf)
    end
  end
  return bufs
end

-- The loaded buffer showing the file `uri` names, or nil.
local function buffer_for(uri)
  local ok, path = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  return require("codex.preview").find_buffer(path)
end

local function language(buf)
  local ft = vim.bo[buf].filetype
  return ft ~= "" and ft or nil
end

-- The character offset (in the client's encoding) of byte `col` on line `row` of `buf`.
local function character(buf, row, col, enc)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
  col = math.min(col, #line)
  if vim.fn.has("nvim-0.11") == 1 then
    return vim.str_utfindex(line, enc, col, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, col)
  return enc == "utf-32" and utf32 or enc == "utf-8" and col or utf16
end

local function position(buf, row, col, enc)
  return { line = row, character = character(buf, row, col, enc) }
end

--- `codex/editor/openBuffers` -> { buffers = { { uri, languageId?, modified } } }
function M.open_buffers(_, ctx)
  local out = {}
  for _, buf in ipairs(file_buffers()) do
    table.insert(out, { uri = vim.uri_from_bufnr(buf), languageId = language(buf), modified = vim.bo[buf].modified })
  end
  return { buffers = out }
end

--- `codex/editor/readBuffer` { uri } -> { uri, text, languageId?, modified } or null
function M.read_buffer(params, ctx)
  local buf = params.uri and buffer_for(params.uri)
  if not buf then
    return vim.NIL
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if vim.bo[buf].eol and vim.api.nvim_buf_line_count(buf) > 0 and text ~= "" then
    text = text .. "\n"
  end
  return { uri = params.uri, text = text, languageId = language(buf), modified = vim.bo[buf].modified }
end

-- The window of the file being worked on: the current one when it shows a file, else the
-- window the chat was opened from, else any window showing a file.
local function focused_window()
  local current = vim.api.nvim_get_current_win()
  local client = require("codex.client")
  if client.is_file_buffer(vim.api.nvim_win_get_buf(current)) then
    return current
  end
  local ok, compose = pcall(require, "codex.compose")
  local origin = ok and compose.origin_buf and compose.origin_buf() or nil
  if origin and vim.api.nvim_buf_is_valid(origin) then
    local win = vim.fn.win_findbuf(origin)[1]
    if win then
      return win
    end
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if client.is_file_buffer(vim.api.nvim_win_get_buf(win)) then
      return win
    end
  end
end

-- The selection in `win`: the live one in Visual mode, else the last one ('< and '>).
local function selected_range(win, buf)
  local mode = vim.api.nvim_get_mode().mode
  local start, finish, kind
  if win == vim.api.nvim_get_current_win() and mode:match("^[vV\22]") then
    local v, cur = vim.fn.getpos("v"), vim.fn.getpos(".")
    start, finish, kind = { v[2], v[3] - 1 }, { cur[2], cur[3] - 1 }, mode:sub(1, 1)
  else
    start, finish = vim.api.nvim_buf_get_mark(buf, "<"), vim.api.nvim_buf_get_mark(buf, ">")
    kind = vim.fn.visualmode()
    if start[1] == 0 or finish[1] == 0 then
      return nil
    end
  end
  if start[1] > finish[1] or (start[1] == finish[1] and start[2] > finish[2]) then
    start, finish = finish, start
  end
  local sr, sc, er, ec = start[1] - 1, start[2], finish[1] - 1, finish[2]
  local last = vim.api.nvim_buf_get_lines(buf, er, er + 1, false)[1] or ""
  if kind == "V" then
    sc, ec = 0, #last
  else
    -- The end of a characterwise selection is inclusive: take the whole last character.
    ec = math.min(#last, ec + math.max(1, #(vim.fn.strcharpart(last:sub(ec + 1), 0, 1))))
  end
  return sr, sc, er, ec
end

--- `codex/editor/selection` -> { uri, languageId?, selections = { { range, text } }, cursor? }
--- or null when no window shows a file.
function M.selection(_, ctx)
  local win = focused_window()
  if not win then
    return vim.NIL
  end
  local buf = vim.api.nvim_win_get_buf(win)
  local enc = encoding(ctx)
  local cursor = vim.api.nvim_win_get_cursor(win)
  local result = {
    uri = vim.uri_from_bufnr(buf),
    languageId = language(buf),
    selections = {},
    cursor = position(buf, cursor[1] - 1, cursor[2], enc),
  }
  local sr, sc, er, ec = selected_range(win, buf)
  if sr then
    local text = table.concat(vim.api.nvim_buf_get_text(buf, sr, sc, er, ec, {}), "\n")
    table.insert(result.selections, {
      range = { start = position(buf, sr, sc, enc), ["end"] = position(buf, er, ec, enc) },
      text = text,
    })
  end
  return result
end

--- `codex/editor/diagnostics` { uri? } -> { files = { { uri, diagnostics } } }: what every
--- language server (and anything else using vim.diagnostic) reports.
function M.diagnostics(params, ctx)
  local enc = encoding(ctx)
  local wanted = nil
  if params.uri and params.uri ~= vim.NIL then
    wanted = buffer_for(params.uri)
    if not wanted then
      return { files = {} }
    end
  end
  local by_buf = {}
  for _, d in ipairs(vim.diagnostic.get(wanted)) do
    if vim.api.nvim_buf_is_valid(d.bufnr) then
      by_buf[d.bufnr] = by_buf[d.bufnr] or {}
      table.insert(by_buf[d.bufnr], {
        range = {
          start = position(d.bufnr, d.lnum, d.col, enc),
          ["end"] = position(d.bufnr, d.end_lnum or d.lnum, d.end_col or d.col, enc),
        },
        message = d.message,
        severity = d.severity,
        source = d.source,
        code = d.code,
      })
    end
  end
  local files = {}
  for buf, found in pairs(by_buf) do
    table.insert(files, { uri = vim.uri_from_bufnr(buf), diagnostics = found })
  end
  table.sort(files, function(a, b)
    return a.uri < b.uri
  end)
  return { files = files }
end

return M
