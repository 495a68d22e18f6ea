-- A review of uncommitted changes: findings land as diagnostics on the right lines and in the
-- quickfix list, and the "Fix" code action changes the buffer through the server's edit.
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

H.run("review to diagnostics and a fix", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()

  vim.cmd("CodexReview uncommitted")
  H.wait("two findings as diagnostics", function()
    return #codex_diagnostics(buf) == 2
  end)
  local diags = codex_diagnostics(buf)
  -- Lines 2 and 5-6 (1-based) of the findings; each range ends at the start of the next line.
  H.eq({ diags[1].lnum, diags[1].end_lnum, diags[1].end_col }, { 1, 2, 0 }, "the P3 finding's lines")
  H.eq(diags[1].severity, vim.diagnostic.severity.HINT, "P3 is a hint")
  H.eq({ diags[2].lnum, diags[2].end_lnum, diags[2].end_col }, { 4, 6, 0 }, "the P1 finding's lines")
  H.eq(diags[2].severity, vim.diagnostic.severity.WARN, "P1 is a warning")
  H.has(diags[2].message, "Guard against division by zero", "the finding's title")

  H.wait("the findings in the quickfix list", function()
    local qf = vim.fn.getqflist({ title = 1, items = 1 })
    return qf.title == "Codex review" and #qf.items == 2
  end)
  local items = vim.fn.getqflist()
  H.eq({ items[1].lnum, items[2].lnum }, { 2, 5 }, "quickfix lines")
  H.eq(items[1].bufnr, buf, "quickfix buffer")

  -- The fix, from the finding under the cursor.
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  local titles = {}
  vim.lsp.buf.code_action({
    filter = function(action)
      table.insert(titles, action.title)
      return action.title:lower():find("fix", 1, true) ~= nil
    end,
    apply = true,
  })
  H.wait("the code actions", function()
    return #titles > 0
  end)
  local all = table.concat(titles, " | "):lower()
  H.has(all, "fix", "a fix action")
  H.has(all, "explain", "an explain action")
  H.has(all, "dismiss", "a dismiss action")

  local preview = require("codex.preview")
  H.wait("the fix to arrive", function()
    if preview.showing(buf) then
      H.keys("ga") -- the thread's policy asked: accept the previewed fix
    end
    return table.concat(H.lines(buf), "\n"):find("if b == 0", 1, true) ~= nil
  end)
  H.has(H.lines(buf), "        raise ValueError", "the fixed function")
  H.no_errors()
end)
