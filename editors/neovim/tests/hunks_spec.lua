-- A proposal with two hunks: move between them with ]c / [c, accept the first and reject the
-- second. The buffer gets only the first; one `u` takes the whole change back.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function cursor_row()
  return vim.api.nvim_win_get_cursor(0)[1]
end

H.run("per-hunk accept and reject", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/calc.py")
  local buf = vim.api.nvim_get_current_buf()
  local original = H.lines(buf)
  local preview = require("codex.preview")

  vim.cmd("%CodexEdit make both numbers bigger")
  H.wait("the preview", function()
    return preview.showing(buf)
  end)
  local hunks = preview.hunks(buf)
  H.eq(#hunks, 2, "hunks in the proposal")
  H.eq(cursor_row(), 2, "the cursor starts on the first hunk")
  H.keys("]c")
  H.eq(cursor_row(), 13, "]c goes to the second hunk")
  H.keys("[c")
  H.eq(cursor_row(), 2, "[c comes back to the first")

  H.keys("gy") -- accept this hunk: the cursor moves on to the one left
  H.eq(cursor_row(), 13, "after deciding, the next undecided hunk")
  H.ok(preview.showing(buf), "still showing while a hunk is undecided")
  H.keys("gn") -- reject the second: every hunk is decided

  H.wait("the first hunk in the buffer", function()
    return H.lines(buf)[2] == "    return 10"
  end)
  H.eq(H.lines(buf)[13], "    return 2", "the rejected hunk is not applied")
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, {}), 0, "no marks left")
  H.wait("the edit turn to finish", function()
    return next(require("codex.inline").edits) == nil
  end)
  vim.cmd("normal! u")
  H.eq(H.lines(buf), original, "one undo takes the change back")
  H.no_errors()
end)
