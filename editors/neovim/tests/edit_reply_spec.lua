-- An inline edit that ends with a long answer and no change: the answer shows whole, code
-- fences and all lines, in a float by the edited window (not cut in one message line).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("an inline edit's long reply", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local inline = require("codex.inline")
  vim.cmd("2CodexEdit explain instead")
  H.wait("the edit to end", function()
    return next(inline.edits) == nil and H.progress[1] ~= nil
  end)
  H.wait("the reply float", function()
    return inline.reply_win and vim.api.nvim_win_is_valid(inline.reply_win)
  end)
  local lines = H.lines(vim.api.nvim_win_get_buf(inline.reply_win))
  local text = table.concat(lines, "\n")
  H.has(text, "It prints a greeting.", "the first line")
  H.has(text, 'print("hi")', "the code")
  H.has(text, "Line 30 of the answer.", "the end of a long answer")
  for _, note in ipairs(H.notes) do
    H.ok(not note.msg:find("```", 1, true), "no raw fence in a message: " .. note.msg)
  end
  H.no_errors()
end)
