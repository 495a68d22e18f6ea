-- Two changes three lines apart (one hunk of the diff): ]c stops at each, `gy` takes the first
-- alone and `gn` leaves the second out.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("nearby changes decided apart", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/calc.py")
  local buf = vim.api.nvim_get_current_buf()
  local preview = require("codex.preview")

  vim.cmd("%CodexEdit make both numbers bigger")
  H.wait("the preview", function()
    return preview.showing(buf)
  end)
  H.eq(#preview.hunks(buf), 2, "two changes, two hunks")
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 2, "the cursor starts on the first change")
  H.keys("]c")
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 6, "]c stops at the second change")
  H.keys("[cgy")
  H.eq(vim.api.nvim_win_get_cursor(0)[1], 6, "after deciding, the next undecided hunk")
  -- Until the second is decided, the accepted change is still shown as it will land.
  local shown = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(buf, preview.ns, { 0, 0 }, { 2, 0 }, { details = true })) do
    for _, line in ipairs(mark[4].virt_lines or {}) do
      table.insert(shown, vim.trim(line[1][1]))
    end
  end
  H.ok(vim.tbl_contains(shown, "return 10"), "the accepted change is still drawn: " .. vim.inspect(shown))
  H.ok(vim.tbl_contains(shown, "✓ hunk accepted (lands when every hunk is decided)"), "and marked accepted")
  H.keys("gn")
  H.wait("the first change in the buffer", function()
    return H.lines(buf)[2] == "    return 10"
  end)
  H.eq(H.lines(buf)[6], "    return 2", "the declined change is not applied")
  H.wait("the edit turn to finish", function()
    return next(require("codex.inline").edits) == nil
  end)
  H.no_errors()
end)
