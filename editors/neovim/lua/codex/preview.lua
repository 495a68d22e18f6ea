-- codex.preview: shows a proposed file change inside the buffers it touches as an inline
-- diff (removed lines highlighted, added lines as virtual lines; the text itself is left
-- alone) and turns the accept/reject keys into the approval decision.
local config = require("codex.config")
local diff = require("codex.diff")

local M = {}

M.ns = vim.api.nvim_create_namespace("codex_preview")

local active = {} -- bufnr -> proposal showing in it
local order = {} -- proposals, oldest first
local next_id = 0

local function define_highlights()
  local set = vim.api.nvim_set_hl
  set(0, "CodexPreviewAdd", { link = "DiffAdd", default = true })
  set(0, "CodexPreviewDelete", { link = "DiffDelete", default = true })
  set(0, "CodexPreviewDeleteSign", { link = "DiffDelete", default = true })
  set(0, "CodexPreviewHeader", { link = "Title", default = true })
  set(0, "CodexPreviewHint", { link = "Comment", default = true })
end

local function same_file(a, b)
  if a == b then
    return true
  end
  local ra, rb = vim.uv.fs_realpath(a), vim.uv.fs_realpath(b)
  return ra ~= nil and ra == rb
end

--- The loaded buffer editing `path` (relative paths are taken from `cwd`), or nil.
function M.find_buffer(path, cwd)
  if not path then
    return nil
  end
  if not vim.startswith(path, "/") and cwd then
    path = cwd .. "/" .. path
  end
  path = vim.fs.normalize(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
      local name = vim.api.nvim_buf_get_name(buf)
      if name ~= "" and same_file(vim.fs.normalize(name), path) then
        return buf
      end
    end
  end
end

local function kind_of(change)
  return type(change.kind) == "table" and change.kind.type or change.kind
end

local function padded(buf, text)
  text = text:gsub("\t", string.rep(" ", vim.bo[buf].tabstop))
  local width = vim.fn.strdisplaywidth(text)
  return text .. string.rep(" ", math.max(0, vim.o.columns - width))
end

-- Draw the hunks in `buf`; returns the row of the first change.
local function draw(buf, hunks)
  local count = vim.api.nvim_buf_line_count(buf)
  local first_row = nil
  local set = vim.api.nvim_buf_set_extmark
  for _, hunk in ipairs(hunks) do
    -- For a pure insertion (`-N,0`) the new lines go after old line N.
    local row = hunk.old_count == 0 and hunk.old_start or hunk.old_start - 1
    local added = {}
    local function flush()
      if #added == 0 then
        return
      end
      local virt = {}
      for _, text in ipairs(added) do
        table.insert(virt, { { padded(buf, text), "CodexPreviewAdd" } })
      end
      if row <= 0 then
        set(buf, M.ns, 0, 0, { virt_lines = virt, virt_lines_above = true })
      else
        set(buf, M.ns, math.min(row - 1, count - 1), 0, { virt_lines = virt })
      end
      first_row = first_row or math.max(0, math.min(row - 1, count - 1))
      added = {}
    end
    for _, line in ipairs(hunk.lines) do
      if line.kind == "+" then
        table.insert(added, line.text)
      else
        flush()
        if line.kind == "-" and row < count then
          set(buf, M.ns, row, 0, {
            line_hl_group = "CodexPreviewDelete",
            sign_text = "-",
            sign_hl_group = "CodexPreviewDeleteSign",
          })
          first_row = first_row or row
        end
        row = row + 1
      end
    end
    flush()
  end
  return first_row or 0
end

-- A buffer-local mapping of the user's on `lhs`, to put back after the preview.
local function save_map(buf, lhs)
  local existing = vim.api.nvim_buf_call(buf, function()
    return vim.fn.maparg(lhs, "n", false, true)
  end)
  if type(existing) == "table" and existing.buffer == 1 then
    return existing
  end
end

local function finish(p, decision)
  if p.done then
    return
  end
  p.done = true
  for _, buf in ipairs(p.bufs) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
      for _, lhs in ipairs(p.keys) do
        pcall(vim.keymap.del, "n", lhs, { buffer = buf })
        local saved = p.saved[buf] and p.saved[buf][lhs]
        if saved then
          vim.api.nvim_buf_call(buf, function()
            pcall(vim.fn.mapset, "n", false, saved)
          end)
        end
      end
    end
    if active[buf] == p then
      active[buf] = nil
    end
  end
  for i, q in ipairs(order) do
    if q == p then
      table.remove(order, i)
      break
    end
  end
  pcall(vim.api.nvim_del_augroup_by_id, p.group)
  p.resolve(decision)
end

--- Show the file changes of an approval request in their buffers. Returns false (and shows
--- nothing) when none of the changed files is open in a window, so the caller asks otherwise.
--- `opts` = { cwd, client_id }; `resolve(decision)` is called once with "accept", "decline"
--- or "cancel".
function M.show(params, opts, resolve)
  local cwd = opts.cwd
  define_highlights()
  local targets, others = {}, {}
  for _, change in ipairs(require("codex.approvals").changes_of(params)) do
    local buf = kind_of(change) == "update" and M.find_buffer(change.path, cwd)
    local moved = type(change.kind) == "table" and change.kind.movePath
    if buf and not active[buf] and (moved == nil or moved == vim.NIL) then
      table.insert(targets, { buf = buf, hunks = diff.parse(change.diff) })
    else
      table.insert(others, vim.fn.fnamemodify(change.path or "?", ":~:."))
    end
  end
  local visible = vim.tbl_filter(function(t)
    return #vim.fn.win_findbuf(t.buf) > 0
  end, targets)
  if #visible == 0 then
    return false
  end

  next_id = next_id + 1
  local keys = config.options.preview
  local p = {
    id = next_id,
    thread_id = params.threadId,
    client_id = opts.client_id,
    bufs = {},
    keys = {},
    saved = {},
    resolve = resolve,
    group = vim.api.nvim_create_augroup("codex_preview_" .. next_id, { clear = true }),
  }
  for _, lhs in ipairs({ keys.accept, keys.reject }) do
    if lhs then
      table.insert(p.keys, lhs)
    end
  end
  local hint = ("%s accept · %s reject"):format(keys.accept or ":CodexAccept", keys.reject or ":CodexReject")
  if #others > 0 then
    hint = hint .. " · also changes " .. table.concat(others, ", ")
  end
  for _, t in ipairs(targets) do
    local buf = t.buf
    table.insert(p.bufs, buf)
    active[buf] = p
    local first = draw(buf, t.hunks)
    vim.api.nvim_buf_set_extmark(buf, M.ns, first, 0, {
      virt_lines = { { { "Codex proposes a change  ", "CodexPreviewHeader" }, { hint, "CodexPreviewHint" } } },
      virt_lines_above = true,
    })
    p.saved[buf] = {}
    for _, lhs in ipairs(p.keys) do
      p.saved[buf][lhs] = save_map(buf, lhs)
    end
    if keys.accept then
      vim.keymap.set("n", keys.accept, function()
        finish(p, "accept")
      end, { buffer = buf, nowait = true, desc = "Codex: accept the proposed change" })
    end
    if keys.reject then
      vim.keymap.set("n", keys.reject, function()
        finish(p, "decline")
      end, { buffer = buf, nowait = true, desc = "Codex: reject the proposed change" })
    end
    vim.api.nvim_create_autocmd({ "BufUnload", "BufWipeout" }, {
      group = p.group,
      buffer = buf,
      callback = function()
        finish(p, "decline")
      end,
    })
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      pcall(vim.api.nvim_win_set_cursor, win, { first + 1, 0 })
    end
  end
  table.insert(order, p)
  vim.notify(("codex: proposed change shown inline — %s"):format(hint), vim.log.levels.INFO)
  return true
end

local function proposal_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return active[bufnr] or order[#order]
end

--- Accept the change shown in `bufnr` (default: current buffer, else the latest proposal).
function M.accept(bufnr)
  local p = proposal_for(bufnr)
  if not p then
    vim.notify("codex: no proposed change to accept", vim.log.levels.WARN)
    return false
  end
  finish(p, "accept")
  return true
end

function M.reject(bufnr)
  local p = proposal_for(bufnr)
  if not p then
    vim.notify("codex: no proposed change to reject", vim.log.levels.WARN)
    return false
  end
  finish(p, "decline")
  return true
end

--- Is a proposal showing in `bufnr`?
function M.showing(bufnr)
  return active[bufnr] ~= nil
end

--- The turn that asked went away: drop its previews (the server no longer waits).
function M.turn_ended(thread_id)
  for _, p in ipairs(vim.list_slice(order)) do
    if p.thread_id == thread_id then
      finish(p, "cancel")
    end
  end
end

function M.client_exited(client_id)
  for _, p in ipairs(vim.list_slice(order)) do
    if p.client_id == client_id then
      finish(p, "cancel")
    end
  end
end

return M
