-- A review of uncommitted changes: findings land as diagnostics on their lines and in the
-- quickfix list (no longer than the finding), with one message for the whole review; code
-- actions stay on the finding's lines; "Explain" shows the chat with the answer; "Fix with
-- Codex" goes through the same inline preview as an edit, and accepting it changes the buffer.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function codex_diagnostics(buf)
  local out = vim.tbl_filter(function(d)
    return d.source == "codex"
  end, vim.diagnostic.get(buf))
  table.sort(out, function(a, b)
    return a.lnum < b.lnum
  end)
  return out
end

-- The code action titles offered at `row` (1-based), and a way to run one of them.
local function actions_at(row, pick)
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local titles, done, seen = {}, false, #H.notes
  vim.lsp.buf.code_action({
    filter = function(action)
      table.insert(titles, action.title)
      return pick ~= nil and action.title:lower():find(pick, 1, true) ~= nil
    end,
    apply = pick ~= nil,
  })
  -- With nothing to pick, Neovim says "No code actions available" once the answers are in.
  H.wait("the code actions at line " .. row, function()
    done = #titles > 0
      or vim.tbl_contains(vim.tbl_map(function(n)
        return n.msg
      end, vim.list_slice(H.notes, seen + 1)), "No code actions available")
    return done
  end)
  return titles
end

H.run("review to diagnostics, explain and a previewed fix", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local original = H.lines(buf)
  local threads = require("codex.threads")

  local shown_before = #H.notes
  vim.cmd("CodexReview uncommitted")
  H.wait("two findings as diagnostics", function()
    return #codex_diagnostics(buf) == 2
  end)
  local diags = codex_diagnostics(buf)
  -- Lines 2 and 5-6 (1-based): each ends on its own last line.
  H.eq({ diags[1].lnum, diags[1].end_lnum }, { 1, 1 }, "the P3 finding's lines")
  H.eq(diags[1].severity, vim.diagnostic.severity.INFO, "P3 is listed as information, not a hint")
  H.eq({ diags[2].lnum, diags[2].end_lnum }, { 4, 5 }, "the P1 finding's lines")
  H.eq(diags[2].end_col, #"    return a / b", "the P1 finding ends at the end of its last line")
  H.eq(diags[2].severity, vim.diagnostic.severity.WARN, "P1 is a warning")
  H.has(diags[2].message, "Guard against division by zero", "the finding's title")

  H.wait("the findings in the quickfix list", function()
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    return qf.title == "Codex review" and #qf.items == 2 and not threads.running(threads.current)
  end)
  local items = vim.fn.getqflist()
  -- The most urgent first, whatever its line.
  H.eq({ items[1].lnum, items[1].end_lnum }, { 5, 6 }, "quickfix range of the P1 finding")
  H.eq({ items[2].lnum, items[2].end_lnum }, { 2, 2 }, "quickfix range of the P3 finding")
  H.eq(items[1].bufnr, buf, "quickfix buffer")
  -- One message for the review (the verdict), so no "Press ENTER" between messages.
  H.wait("the review's message", function()
    return #H.notes > shown_before
  end)
  local said = vim.tbl_map(function(n)
    return n.msg
  end, vim.list_slice(H.notes, shown_before + 1))
  H.eq(#said, 1, "messages for one review: " .. vim.inspect(said))
  H.has(said[1], "2 findings", "the verdict")
  local chat = ""
  for _, block in ipairs(require("codex.transcript").blocks(threads.current)) do
    chat = chat .. table.concat(block.lines, "\n") .. "\n"
  end
  local _, times = chat:gsub("Guard against division by zero", "")
  H.eq(times, 1, "the review's text in the chat, once: " .. chat)

  -- The line after the finding has no action of it.
  local after = actions_at(7)
  H.ok(not table.concat(after, " "):find("Guard against", 1, true), "actions on line 7: " .. vim.inspect(after))

  -- Explain: the answer appears in the chat, which opens by itself.
  local explain = actions_at(5, "explain")
  H.has(table.concat(explain, " | "):lower(), "fix with codex", "a fix action")
  H.has(table.concat(explain, " | "):lower(), "dismiss", "a dismiss action")
  H.wait("the explanation in a visible chat", function()
    local chat = require("codex.chat")
    return #vim.fn.win_findbuf(chat.buf()) > 0
      and table.concat(chat.lines(), "\n"):find("It divides by zero when b is 0.", 1, true) ~= nil
  end)
  H.eq(vim.api.nvim_get_current_buf(), buf, "the cursor stays in the file")

  -- Fix: previewed inline like an edit; nothing changes until it is accepted.
  local preview = require("codex.preview")
  actions_at(5, "fix with codex")
  H.wait("the fix's preview", function()
    return preview.showing(buf)
  end)
  H.eq(H.lines(buf), original, "the buffer while the fix is previewed")
  vim.api.nvim_set_current_buf(buf)
  H.keys("ga")
  H.wait("the fix in the buffer", function()
    return table.concat(H.lines(buf), "\n"):find("if b == 0", 1, true) ~= nil
  end)
  H.has(H.lines(buf), "        raise ValueError", "the fixed function")
  H.no_errors()
end)
