-- The model asks the editor: a chat turn whose model calls the editor_* tools gets the
-- buffer's unsaved text, the selection, another source's diagnostic and the open buffers,
-- answered by the plugin from Neovim's own state.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("the editor answers the model's editor tools", function()
  vim.cmd("filetype on") -- as in any user's config: buffers get their language
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local threads = require("codex.threads")

  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { "# typed, not saved" })
  H.keys("3GV<Esc>") -- select line 3 (the first line of main's body, after the new line)
  local ns = vim.api.nvim_create_namespace("another-linter")
  vim.diagnostic.set(ns, buf, {
    { lnum = 2, col = 4, end_col = 9, message = "print is frowned upon", severity = vim.diagnostic.severity.WARN, source = "lint", code = "P001" },
  })

  vim.cmd("Codex what am I looking at?")
  H.wait("the answer", function()
    local text = table.concat(require("codex.chat").lines(), "\n")
    return text:find("Seen it all.", 1, true) and not threads.running(threads.current)
  end)
  H.ok(vim.bo[buf].modified, "the buffer is still unsaved")
  H.no_errors()
end)
