-- codex.preview: shows a proposed file change inside the buffers it touches as an inline
-- diff (removed lines highlighted, added lines as virtual lines; the text itself is left
-- alone) and turns the keys into the approval decision: accept or reject it all, or move
-- between hunks and decide each. A mix of decisions accepts the change and names the declined
-- hunks in the answer: the server applies the others and tells the agent which were left out.
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

-- Draw one hunk in `buf`; sets `hunk.row` (its first changed row) and `hunk.marks`.
local function draw_hunk(buf, hunk)
  local count = vim.api.nvim_buf_line_count(buf)
  local set = vim.api.nvim_buf_set_extmark
  hunk.marks = {}
  -- For a pure insertion (`-N,0`) the new lines go after old line N.
  local row = hunk.old_count == 0 and hunk.old_start or hunk.old_start - 1
  local added = {}
  local function mark(r, opts)
    table.insert(hunk.marks, set(buf, M.ns, r, 0, opts))
  end
  local function flush()
    if #added == 0 then
      return
    end
    local virt = {}
    for _, text in ipairs(added) do
      table.insert(virt, { { padded(buf, text), "CodexPreviewAdd" } })
    end
    if row <= 0 then
      mark(0, { virt_lines = virt, virt_lines_above = true })
    else
      mark(math.min(row - 1, count - 1), { virt_lines = virt })
    end
    hunk.row = hunk.row or math.max(0, math.min(row - 1, count - 1))
    added = {}
  end
  for _, line in ipairs(hunk.lines) do
    if line.kind == "+" then
      table.insert(added, line.text)
    else
      flush()
      if line.kind == "-" and row < count then
        mark(row, {
          line_hl_group = "CodexPreviewDelete",
          sign_text = "-",
          sign_hl_group = "CodexPreviewDeleteSign",
        })
        hunk.row = hunk.row or row
      end
      row = row + 1
    end
  end
  flush()
  hunk.row = hunk.row or math.max(0, math.min(hunk.old_start - 1, count - 1))
end

-- Draw the hunks in `buf`; returns the row of the first change.
local function draw(buf, hunks)
  local first = nil
  for _, hunk in ipairs(hunks) do
    draw_hunk(buf, hunk)
    first = first and math.min(first, hunk.row) or hunk.row
  end
  return first or 0
end

-- Mark a decided hunk with a note of the decision. A rejected one shows its text as it stays;
-- an accepted one keeps showing the change it makes, which lands once every hunk is decided.
local function mark_decided(buf, hunk)
  for _, id in ipairs(hunk.marks or {}) do
    pcall(vim.api.nvim_buf_del_extmark, buf, M.ns, id)
  end
  local text = "✗ hunk rejected"
  if hunk.decision == "accept" then
    draw_hunk(buf, hunk)
    text = "✓ hunk accepted (lands when every hunk is decided)"
  else
    hunk.marks = {}
  end
  table.insert(hunk.marks, vim.api.nvim_buf_set_extmark(buf, M.ns, hunk.row, 0, {
    virt_lines = { { { text, "CodexPreviewHint" } } },
    virt_lines_above = true,
  }))
end

-- Scroll `win` so the first hunk (its header, old lines and the new ones drawn below them)
-- is on screen when it would run past the window's bottom.
local function into_view(win, first, hunk)
  if not hunk then
    return
  end
  vim.api.nvim_win_call(win, function()
    local view = vim.fn.winsaveview()
    local row = first + 1
    local needed = #hunk.lines + 2 -- the header above and a line to spare
    if row - view.topline + needed > vim.api.nvim_win_get_height(win) then
      vim.fn.winrestview({ topline = math.max(1, row - 2) })
    end
  end)
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

-- The buffers whose text differs from when the proposal was shown.
local function changed_since_shown(p)
  local changed = {}
  for _, buf in ipairs(p.bufs) do
    if vim.api.nvim_buf_is_valid(buf) and not vim.deep_equal(p.texts[buf], vim.api.nvim_buf_get_lines(buf, 0, -1, false)) then
      table.insert(changed, vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":~:."))
    end
  end
  return changed
end

-- The decision a set of hunk decisions adds up to, and with "accept" the hunks declined (as
-- the server names them: the change's path and the hunk's place in its diff, from 0).
local function overall(p)
  local accepted, total, declined = 0, 0, {}
  for _, buf in ipairs(p.bufs) do
    for index, hunk in ipairs(p.hunks[buf]) do
      total = total + 1
      if hunk.decision == "accept" then
        accepted = accepted + 1
      else
        table.insert(declined, { path = p.paths[buf], index = index - 1 })
      end
    end
  end
  if accepted == 0 then
    return "decline", nil, 0, total
  end
  return "accept", (#declined > 0 and declined or nil), accepted, total
end

local function finish(p, decision, declined)
  if p.done then
    return
  end
  p.done = true
  if decision == "accept" then
    local changed = changed_since_shown(p)
    if #changed > 0 then
      -- The server applies a change only to the text it was made for; it tells the agent,
      -- which may propose it again.
      vim.notify(
        ("codex: %s changed after Codex proposed this change, so it was not applied; "
          .. "Codex is told and may propose it again."):format(table.concat(changed, ", ")),
        vim.log.levels.WARN
      )
    elseif declined then
      vim.notify(
        ("codex: applying %d of %d hunks; Codex is told which you declined"):format(p.accepted, p.total),
        vim.log.levels.INFO
      )
    end
  end
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
  p.resolve(decision, declined)
end

-- Every hunk is decided: answer for the whole change.
local function settle_if_decided(p)
  for _, buf in ipairs(p.bufs) do
    for _, hunk in ipairs(p.hunks[buf]) do
      if not hunk.decision then
        return false
      end
    end
  end
  local decision, declined, accepted, total = overall(p)
  p.accepted, p.total = accepted, total
  finish(p, decision, declined)
  return true
end

local function cursor_row(buf)
  local win = vim.fn.win_findbuf(buf)[1]
  if win == vim.api.nvim_get_current_win() or not win then
    win = vim.api.nvim_get_current_win()
  end
  return vim.api.nvim_win_get_cursor(win)[1] - 1
end

-- The hunk the cursor is in or after (else the first): the one a per-hunk key acts on.
local function hunk_at(p, buf)
  local row, found = cursor_row(buf), nil
  for _, hunk in ipairs(p.hunks[buf] or {}) do
    if hunk.row <= row then
      found = hunk
    end
  end
  return found or (p.hunks[buf] or {})[1]
end

local function jump(buf, hunk)
  if hunk then
    pcall(vim.api.nvim_win_set_cursor, 0, { hunk.row + 1, 0 })
  end
end

local function next_hunk(p, buf, backwards, undecided_only)
  local row = cursor_row(buf)
  local list = p.hunks[buf] or {}
  local from, to, step = 1, #list, 1
  if backwards then
    from, to, step = #list, 1, -1
  end
  for i = from, to, step do
    local hunk = list[i]
    local beyond = backwards and hunk.row < row or (not backwards and hunk.row > row)
    if beyond and not (undecided_only and hunk.decision) then
      return hunk
    end
  end
end

local function decide_hunk(p, buf, decision)
  local hunk = hunk_at(p, buf)
  if not hunk or p.done then
    return
  end
  hunk.decision = decision
  mark_decided(buf, hunk)
  if not settle_if_decided(p) then
    local following = next_hunk(p, buf, false, true) or next_hunk(p, buf, true, true)
    jump(buf, following)
  end
end

local function decide_all(p, decision)
  for _, buf in ipairs(p.bufs) do
    for _, hunk in ipairs(p.hunks[buf]) do
      hunk.decision = hunk.decision or decision
    end
  end
  settle_if_decided(p)
end

--- Show the file changes of an approval request in their buffers. Returns false (and shows
--- nothing) when none of the changed files is open in a window, so the caller asks otherwise.
--- `opts` = { cwd, client_id }; `resolve(decision, declined)` is called once with "accept",
--- "decline" or "cancel", and with "accept" the declined hunks ({ path, index }) if any.
function M.show(params, opts, resolve)
  local cwd = opts.cwd
  define_highlights()
  local targets, others = {}, {}
  for _, change in ipairs(require("codex.approvals").changes_of(params)) do
    local buf = kind_of(change) == "update" and M.find_buffer(change.path, cwd)
    local moved = type(change.kind) == "table" and change.kind.movePath
    if buf and not active[buf] and (moved == nil or moved == vim.NIL) then
      table.insert(targets, { buf = buf, hunks = diff.blocks(diff.parse(change.diff)), path = change.path })
    else
      table.insert(others, vim.fn.fnamemodify(change.path or "?", ":~:."))
    end
  end
  local visible = vim.tbl_filter(function(t)
    return #vim.fn.win_findbuf(t.buf) > 0
  end, targets)
  -- A change also touching files that cannot be previewed here is asked about as a whole.
  if #visible == 0 or #others > 0 then
    return false
  end

  next_id = next_id + 1
  local keys = config.options.preview
  local p = {
    id = next_id,
    thread_id = params.threadId,
    client_id = opts.client_id,
    bufs = {},
    hunks = {},
    paths = {}, -- bufnr -> the change's path, as the server named it
    keys = {},
    saved = {},
    texts = {},
    resolve = resolve,
    group = vim.api.nvim_create_augroup("codex_preview_" .. next_id, { clear = true }),
  }
  local actions = {
    { key = keys.accept, desc = "accept the whole proposed change", fn = function()
      decide_all(p, "accept")
    end },
    { key = keys.reject, desc = "reject the whole proposed change", fn = function()
      decide_all(p, "reject")
    end },
    { key = keys.accept_hunk, desc = "accept the hunk under the cursor", fn = function()
      decide_hunk(p, vim.api.nvim_get_current_buf(), "accept")
    end },
    { key = keys.reject_hunk, desc = "reject the hunk under the cursor", fn = function()
      decide_hunk(p, vim.api.nvim_get_current_buf(), "reject")
    end },
    { key = keys.next_hunk, desc = "next hunk of the proposed change", fn = function()
      local buf = vim.api.nvim_get_current_buf()
      jump(buf, next_hunk(p, buf, false, false))
    end },
    { key = keys.prev_hunk, desc = "previous hunk of the proposed change", fn = function()
      local buf = vim.api.nvim_get_current_buf()
      jump(buf, next_hunk(p, buf, true, false))
    end },
  }
  for _, action in ipairs(actions) do
    if action.key then
      table.insert(p.keys, action.key)
    end
  end
  local hint = ("%s accept · %s reject"):format(keys.accept or ":CodexAccept", keys.reject or ":CodexReject")
  if keys.accept_hunk and keys.reject_hunk then
    hint = hint .. (" · %s/%s this hunk"):format(keys.accept_hunk, keys.reject_hunk)
  end
  if keys.next_hunk and keys.prev_hunk then
    hint = hint .. (" · %s/%s move"):format(keys.next_hunk, keys.prev_hunk)
  end
  for _, t in ipairs(targets) do
    local buf = t.buf
    table.insert(p.bufs, buf)
    p.hunks[buf] = t.hunks
    p.paths[buf] = t.path
    p.texts[buf] = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
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
    for _, action in ipairs(actions) do
      if action.key then
        vim.keymap.set("n", action.key, action.fn, { buffer = buf, nowait = true, desc = "Codex: " .. action.desc })
      end
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
      into_view(win, first, t.hunks[1])
    end
  end
  if #p.bufs == 0 then
    return false
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
  decide_all(p, "accept")
  return true
end

function M.reject(bufnr)
  local p = proposal_for(bufnr)
  if not p then
    vim.notify("codex: no proposed change to reject", vim.log.levels.WARN)
    return false
  end
  decide_all(p, "reject")
  return true
end

--- Is a proposal showing in `bufnr`?
function M.showing(bufnr)
  return active[bufnr] ~= nil
end

--- The hunks of the proposal showing in `bufnr` (each with `row`, 0-based, and `decision`).
function M.hunks(bufnr)
  local p = active[bufnr]
  return p and p.hunks[bufnr] or {}
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
