-- Accepting a proposal after editing the buffer: the proposal no longer fits the text, so it
-- is not applied, and the user is told so (Codex is told too, and proposes again). The buffer
-- keeps the user's text.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("accept after a buffer change", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local preview = require("codex.preview")
  local inline = require("codex.inline")

  vim.cmd("2CodexEdit make the greeting say hello")
  H.wait("the preview", function()
    return preview.showing(buf)
  end)
  vim.api.nvim_buf_set_lines(buf, 1, 2, false, { '    print("mine")' })
  local seen = #H.notes
  H.keys("ga")
  H.wait("a message about the changed buffer", function()
    for i = seen + 1, #H.notes do
      if H.notes[i].level == vim.log.levels.WARN and H.notes[i].msg:find("changed", 1, true) then
        return true
      end
    end
  end)
  H.wait("the edit to finish", function()
    return next(inline.edits) == nil
  end)
  H.eq(H.lines(buf), { "def main():", '    print("mine")', "", "main()" }, "the buffer keeps the user's text")
  H.no_errors()
end)
