-- codex.transcript: each thread's conversation as an ordered list of blocks (one per item,
-- plan or note), kept up to date from notifications; the chat draws the current thread's.
local render = require("codex.render")

local M = {}

local by_thread = {} -- thread id -> { blocks = {}, index = { key -> block }, notes = n }

local function get(thread_id)
  local t = by_thread[thread_id]
  if not t then
    t = { blocks = {}, index = {}, notes = 0 }
    by_thread[thread_id] = t
  end
  return t
end

--- The thread's blocks in order; each has `lines` (rendered markdown).
function M.blocks(thread_id)
  return get(thread_id).blocks
end

-- The server follows a review's `exitedReviewMode` item with an agent message of the same
-- text (what the model is told); the chat shows the review once.
local function repeats_review(thread_id, block)
  if block.kind ~= "agentMessage" or type(block.data.text) ~= "string" then
    return false
  end
  local turn = block.key:match("^(.*):[^:]*$")
  for _, other in ipairs(get(thread_id).blocks) do
    if
      other.kind == "exitedReviewMode"
      and other.key:match("^(.*):[^:]*$") == turn
      and vim.trim(other.data.review or "") == vim.trim(block.data.text)
    then
      return true
    end
  end
  return false
end

local function redraw(thread_id, block, old_len)
  block.lines = repeats_review(thread_id, block) and {} or render.block(block)
  local ok, chat = pcall(require, "codex.chat")
  if ok then
    chat.block_changed(thread_id, block.pos, old_len)
  end
end

-- Create or update the block `key`; `update(data)` changes its data in place.
local function upsert(thread_id, key, kind, update)
  local t = get(thread_id)
  local block = t.index[key]
  if not block then
    block = { key = key, kind = kind, data = {}, lines = {} }
    table.insert(t.blocks, block)
    block.pos = #t.blocks
    t.index[key] = block
  end
  local old_len = #block.lines
  update(block.data)
  redraw(thread_id, block, old_len)
  return block
end

local function item_key(turn_id, item_id)
  return ("%s:%s"):format(turn_id or "?", item_id or "?")
end

--- An item/started (final=false) or item/completed (final=true) notification.
function M.item(thread_id, turn_id, item, final)
  if not item or not item.type then
    return
  end
  upsert(thread_id, item_key(turn_id, item.id), item.type, function(data)
    for k, v in pairs(item) do
      if v ~= vim.NIL then
        data[k] = v
      end
    end
    if final then
      data.awaiting = nil
    end
  end)
end

--- A streamed delta: appended to `field` of the item's data.
function M.append(thread_id, turn_id, item_id, kind, field, delta)
  if not delta or delta == "" then
    return
  end
  upsert(thread_id, item_key(turn_id, item_id), kind, function(data)
    data[field] = (data[field] or "") .. delta
  end)
end

--- What is known of an item (from item/started, item/completed and deltas), or nil.
function M.item_data(thread_id, turn_id, item_id)
  local block = get(thread_id).index[item_key(turn_id, item_id)]
  return block and block.data
end

--- Mark an item as waiting (or no longer waiting) for the user's approval.
function M.set_awaiting(thread_id, turn_id, item_id, awaiting)
  local block = get(thread_id).index[item_key(turn_id, item_id)]
  if block then
    local old_len = #block.lines
    block.data.awaiting = awaiting or nil
    redraw(thread_id, block, old_len)
  end
end

function M.plan(thread_id, turn_id, params)
  upsert(thread_id, item_key(turn_id, "plan"), "plan", function(data)
    data.explanation = params.explanation
    data.plan = params.plan
  end)
end

function M.note(thread_id, turn_id, level, text)
  local t = get(thread_id)
  t.notes = t.notes + 1
  upsert(thread_id, item_key(turn_id, "note" .. t.notes), "note", function(data)
    data.level = level
    data.text = text
  end)
end

function M.turn_started(thread_id, turn)
  get(thread_id).last_turn = turn and turn.id
end

function M.turn_completed(thread_id, turn)
  if turn.status == "interrupted" then
    M.note(thread_id, turn.id, "interrupted", "_Interrupted._")
  elseif turn.status == "failed" then
    local err = type(turn.error) == "table" and turn.error.message or "unknown error"
    M.note(thread_id, turn.id, "failed", err)
  end
end

--- The text of the last agent message of a turn (or of the thread), or nil.
function M.last_agent_text(thread_id, turn_id)
  local blocks = get(thread_id).blocks
  for i = #blocks, 1, -1 do
    local b = blocks[i]
    if b.kind == "agentMessage" and (turn_id == nil or vim.startswith(b.key, turn_id .. ":")) then
      return b.data.text
    end
  end
end

--- Replace a thread's transcript with the turns of a v2 Thread (thread/resume, thread/read).
function M.load(thread)
  by_thread[thread.id] = nil
  for _, turn in ipairs(thread.turns or {}) do
    for _, item in ipairs(turn.items or {}) do
      M.item(thread.id, turn.id, item, true)
    end
    M.turn_completed(thread.id, turn)
  end
  get(thread.id)
end

return M
