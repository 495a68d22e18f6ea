-- codex.diff: reads a unified diff (one file's, as the server sends it per change) into hunks.
local M = {}

--- Parse unified diff text into { { old_start, old_count, new_start, new_count,
--- lines = { { kind = " "|"-"|"+", text } } } }. Headers (---, +++, diff, index) are skipped.
function M.parse(text)
  local hunks = {}
  local hunk = nil
  for _, line in ipairs(vim.split(text or "", "\n", { plain = true })) do
    local os_, oc, ns, nc = line:match("^@@ %-(%d+),?(%d*) %+(%d+),?(%d*) @@")
    if os_ then
      hunk = {
        old_start = tonumber(os_),
        old_count = oc == "" and 1 or tonumber(oc),
        new_start = tonumber(ns),
        new_count = nc == "" and 1 or tonumber(nc),
        lines = {},
      }
      table.insert(hunks, hunk)
    elseif hunk then
      local kind = line:sub(1, 1)
      if kind == " " or kind == "-" or kind == "+" then
        table.insert(hunk.lines, { kind = kind, text = line:sub(2) })
      elseif line == "" then
        -- An empty context line that lost its leading space, or the trailing newline.
        local seen_old, seen_new = 0, 0
        for _, l in ipairs(hunk.lines) do
          if l.kind ~= "+" then
            seen_old = seen_old + 1
          end
          if l.kind ~= "-" then
            seen_new = seen_new + 1
          end
        end
        if seen_old < hunk.old_count and seen_new < hunk.new_count then
          table.insert(hunk.lines, { kind = " ", text = "" })
        end
      end
      -- "\ No newline at end of file" and anything else is not a line of the file.
    end
  end
  return hunks
end

--- The blocks of changed lines of `hunks`: each hunk cut wherever an unchanged line separates
--- two changes, with no context lines, as the server counts hunks (zero lines of context), so
--- changes a few lines apart are decided apart.
function M.blocks(hunks)
  local out = {}
  for _, hunk in ipairs(hunks) do
    local old, new = hunk.old_start, hunk.new_start
    -- A hunk with no line on one side starts after that line; count from the next.
    if hunk.old_count == 0 then
      old = old + 1
    end
    if hunk.new_count == 0 then
      new = new + 1
    end
    local block = nil
    for _, line in ipairs(hunk.lines) do
      if line.kind == " " then
        block = nil
        old, new = old + 1, new + 1
      else
        if not block then
          block = { old_start = old, old_count = 0, new_start = new, new_count = 0, lines = {} }
          table.insert(out, block)
        end
        table.insert(block.lines, line)
        if line.kind == "-" then
          block.old_count = block.old_count + 1
          old = old + 1
        else
          block.new_count = block.new_count + 1
          new = new + 1
        end
      end
    end
  end
  for _, block in ipairs(out) do
    -- Unified diffs number an empty side by the line before it.
    if block.old_count == 0 then
      block.old_start = block.old_start - 1
    end
    if block.new_count == 0 then
      block.new_start = block.new_start - 1
    end
  end
  return out
end

--- Apply hunks to a list of lines (no fuzz): used to show the result of a change.
function M.apply(lines, hunks)
  local out, next_old = {}, 1
  for _, h in ipairs(hunks) do
    local start = h.old_count == 0 and h.old_start + 1 or h.old_start
    for i = next_old, start - 1 do
      table.insert(out, lines[i])
    end
    next_old = start
    for _, l in ipairs(h.lines) do
      if l.kind == " " then
        table.insert(out, lines[next_old])
        next_old = next_old + 1
      elseif l.kind == "-" then
        next_old = next_old + 1
      else
        table.insert(out, l.text)
      end
    end
  end
  for i = next_old, #lines do
    table.insert(out, lines[i])
  end
  return out
end

return M
