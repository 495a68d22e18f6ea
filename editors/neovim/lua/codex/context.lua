-- codex.context: what `#buffer`, `#selection`, `#diagnostics` and `@path` in a chat message
-- attach. They become data for the server's `codex.message` (a document URI, a range, a path,
-- the editor's diagnostics); the server reads them and words them for the model. `:CodexAttach`
-- adds an image (sent to the model as an image) or a web page's text to the next message.
local M = {}

local pending = {} -- items `:CodexAttach` added, sent with the next message
local URL_MAX_BYTES = 512 * 1024

local NAMES = { "#buffer", "#selection", "#diagnostics" }

function M.names()
  return vim.list_slice(NAMES)
end

local function has_word(text, word)
  local init = 1
  while true do
    local first, last = text:find(word, init, true)
    if not first then
      return false
    end
    -- The name must stand alone: `#buffers` or `a#buffer` is not `#buffer`.
    local before = first > 1 and text:sub(first - 1, first - 1) or " "
    local after = text:sub(last + 1, last + 1)
    if not before:match("[%w_]") and not after:match("[%w_]") then
      return true
    end
    init = last + 1
  end
end

local function range_of_marks(buf)
  local first = vim.api.nvim_buf_get_mark(buf, "<")
  local last = vim.api.nvim_buf_get_mark(buf, ">")
  if first[1] == 0 or last[1] == 0 then
    return nil
  end
  -- Whole lines: the server reads the lines the selection touches.
  return { start = { line = first[1] - 1, character = 0 }, ["end"] = { line = last[1], character = 0 } }
end

local function lsp_diagnostics(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, {
      range = {
        start = { line = d.lnum, character = d.col },
        ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
      },
      message = d.message,
      severity = d.severity,
      source = d.source,
      code = d.code,
    })
  end
  return out
end

--- The `@path` words of `text`, in order, each once.
function M.paths(text)
  local out, seen = {}, {}
  for path in (" " .. text):gmatch("[%s%(%[]@([%w%._%-/~]+[%w_/])") do
    if not seen[path] then
      seen[path] = true
      table.insert(out, path)
    end
  end
  return out
end

--- The context items `text` asks for, read from the file buffer `origin` the user came from.
--- A name that needs a file when there is none is reported and left out.
function M.collect(text, origin)
  local items = {}
  local uri = origin and vim.uri_from_bufnr(origin)
  local function need_file(name)
    if not uri then
      vim.notify(("codex: %s needs a file buffer to come from; it was left out"):format(name), vim.log.levels.WARN)
      return false
    end
    return true
  end
  if has_word(text, "#buffer") and need_file("#buffer") then
    table.insert(items, { type = "buffer", uri = uri })
  end
  if has_word(text, "#selection") and need_file("#selection") then
    local range = range_of_marks(origin)
    if range then
      table.insert(items, { type = "selection", uri = uri, range = range })
    else
      vim.notify("codex: #selection: nothing was selected in that buffer yet; it was left out", vim.log.levels.WARN)
    end
  end
  if has_word(text, "#diagnostics") and need_file("#diagnostics") then
    table.insert(items, { type = "diagnostics", uri = uri, diagnostics = lsp_diagnostics(origin) })
  end
  for _, path in ipairs(M.paths(text)) do
    table.insert(items, { type = "file", path = vim.startswith(path, "~") and vim.fn.expand(path) or path })
  end
  vim.list_extend(items, pending)
  pending = {}
  return items
end

--- What `:CodexAttach` added for the next message.
function M.pending()
  return vim.deepcopy(pending)
end

local function attached(item, what)
  table.insert(pending, item)
  require("codex.client").notify(("%s attached to the next message"):format(what))
end

-- The page at `url`, fetched by curl into a file named after it (the server reads files; the
-- name tells the model where the text came from).
local function fetch(url)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local name = url:gsub("^%a[%w+.-]*://", ""):gsub("[^%w%._-]+", "_"):sub(1, 120)
  local file = dir .. "/" .. name
  -- Web pages only, redirects included: never a file:// or another scheme curl knows.
  local cmd = {
    "curl", "-fsSL", "--proto", "=http,https", "--proto-redir", "=http,https",
    "--max-time", "20", "--max-filesize", tostring(URL_MAX_BYTES), "-o", file, "--", url,
  }
  local ok, started = pcall(vim.system, cmd, { text = true }, function(done)
    vim.schedule(function()
      if done.code ~= 0 then
        local why = vim.trim(done.stderr or "")
        require("codex.client").notify(
          ("could not fetch %s: %s"):format(url, why ~= "" and why or ("curl exit code " .. done.code)),
          vim.log.levels.ERROR
        )
        return
      end
      attached({ type = "file", path = file }, url)
    end)
  end)
  if not ok then
    require("codex.client").notify(("could not fetch %s: %s"):format(url, tostring(started)), vim.log.levels.ERROR)
  end
end

--- `:CodexAttach image PATH` or `:CodexAttach url URL`: context for the next message.
function M.attach(args)
  local kind, what = vim.trim(args or ""):match("^(%S+)%s+(.+)$")
  if kind == "image" then
    local path = vim.fn.fnamemodify(vim.fn.expand(vim.trim(what)), ":p")
    if vim.fn.filereadable(path) ~= 1 then
      require("codex.client").notify(("no image file at %s"):format(path), vim.log.levels.ERROR)
      return
    end
    attached({ type = "image", path = path }, vim.fn.fnamemodify(path, ":~:."))
  elseif kind == "url" and vim.trim(what):match("^https?://%S+$") then
    fetch(vim.trim(what))
  else
    require("codex.client").notify("usage: :CodexAttach image PATH | :CodexAttach url https://…", vim.log.levels.ERROR)
  end
end

local function project_files(root)
  local ok, out = pcall(vim.fn.systemlist, { "git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard" })
  if ok and vim.v.shell_error == 0 then
    return out
  end
  local files = {}
  for name, kind in vim.fs.dir(root, { depth = 4 }) do
    if kind == "file" and not name:match("^%.git/") then
      table.insert(files, name)
    end
    if #files > 5000 then
      break
    end
  end
  return files
end

--- `@` completions: project files (relative to the project root) whose path contains `part`.
function M.complete_path(part, origin)
  local root = require("codex.client").root_for(origin or 0)
  local out = {}
  for _, file in ipairs(project_files(root)) do
    if part == "" or file:find(part, 1, true) then
      table.insert(out, "@" .. file)
    end
  end
  table.sort(out, function(a, b)
    local pa, pb = vim.startswith(a, "@" .. part), vim.startswith(b, "@" .. part)
    if pa ~= pb then
      return pa
    end
    return a < b
  end)
  return out
end

return M
