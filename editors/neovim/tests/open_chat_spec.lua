-- `:Codex` opens with the cursor in the input area (in Insert mode when `chat.auto_insert` is
-- set), and keys typed in the read-only transcript that would start Insert mode move to the
-- input area instead: no typed line is lost or run as a Normal-mode command.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("opening the chat", function()
  H.setup({ chat = { auto_insert = os.getenv("CODEX_NVIM_AUTO_INSERT") == "1" } })
  vim.cmd.edit(H.ws .. "/app.py")
  local compose = require("codex.compose")
  local chat = require("codex.chat")

  -- Typed as a user would: the command, then the message at once.
  if os.getenv("CODEX_NVIM_AUTO_INSERT") == "1" then
    H.keys(":Codex<CR>first line<CR>second line<Esc>")
  else
    H.keys(":Codex<CR>ifirst line<CR>second line<Esc>")
  end
  H.eq(vim.api.nvim_get_current_buf(), compose.buf(), "the cursor is in the input area")
  H.eq(compose.text(), "first line\nsecond line", "both typed lines are in the input area")

  -- Back in the transcript, `o` / `i` / `A` write in the input area, not in the transcript.
  vim.api.nvim_set_current_win(vim.fn.win_findbuf(chat.buf())[1])
  H.keys("othird line<Esc>")
  H.eq(vim.api.nvim_get_current_buf(), compose.buf(), "typing moved to the input area")
  H.eq(compose.text(), "first line\nsecond line\nthird line", "the third line joined the others")
  H.eq(H.lines(chat.buf())[1], "# Codex", "the transcript is untouched")
  H.no_errors()
end)
