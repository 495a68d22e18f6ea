-- An inline edit on a selection: the patch is previewed in the buffer, accepted with the
-- accept key, lands as the server's workspace edit, and one `u` takes it back.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("inline edit accepted then undone", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local original = H.lines(buf)
  local preview = require("codex.preview")

  vim.cmd("2,2CodexEdit make the greeting say hello")
  H.wait("the inline diff preview", function()
    return preview.showing(buf)
  end)

  -- The preview leaves the text alone: the removed line is highlighted, the new one virtual.
  H.eq(H.lines(buf), original, "buffer text during the preview")
  local marks = vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, { details = true })
  local removed, added = {}, {}
  for _, m in ipairs(marks) do
    local d = m[4]
    if d.line_hl_group == "CodexPreviewDelete" then
      table.insert(removed, m[2])
    end
    for _, vl in ipairs(d.virt_lines or {}) do
      if vl[1][2] == "CodexPreviewAdd" then
        table.insert(added, { row = m[2], text = vim.trim(vl[1][1]) })
      end
    end
  end
  H.eq(removed, { 1 }, "rows marked removed")
  H.eq(added, { { row = 1, text = 'print("hello")' } }, "virtual added lines")

  H.keys("ga")
  H.wait("the accepted edit in the buffer", function()
    return H.lines(buf)[2] == '    print("hello")'
  end)
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, {}), 0, "preview marks after accepting")
  H.eq(H.lines(buf), { "def main():", '    print("hello")', "", "main()" }, "buffer after the edit")
  -- The change is written at once, so the agent's next command reads it; nothing is left unsaved.
  H.has(H.read(H.ws .. "/app.py"), 'print("hello")', "file on disk")
  H.eq(vim.bo[buf].modified, false, "the buffer is saved")

  local edits = require("codex.inline").edits
  H.wait("the edit turn to finish", function()
    return next(edits) == nil
  end)

  vim.cmd("normal! u")
  H.eq(H.lines(buf), original, "buffer after one undo")
  H.no_errors()
end)
