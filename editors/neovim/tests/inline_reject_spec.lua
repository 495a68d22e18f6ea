-- An inline edit rejected with the reject key: the preview goes away, the buffer is
-- unchanged, and the turn goes on (the model is told; the wrapper checks what it heard).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("inline edit rejected", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local original = H.lines(buf)
  local preview = require("codex.preview")

  -- Visual selection + :CodexEdit, as a user would type it.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  H.keys("Vj:CodexEdit make the greeting say hello<CR>")
  H.wait("the inline diff preview", function()
    return preview.showing(buf)
  end)
  H.ok(#vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, {}) > 0, "preview marks")

  H.keys("gr")
  H.eq(preview.showing(buf), false, "preview after rejecting")
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, {}), 0, "preview marks after rejecting")

  local inline = require("codex.inline")
  H.wait("the edit turn to finish", function()
    return next(inline.edits) == nil
  end)
  H.eq(H.lines(buf), original, "buffer after rejecting")
  H.eq(vim.bo[buf].modified, false, "buffer modified flag")
  -- The agent's reply after the refusal is shown to the user.
  H.wait("the agent's reply", function()
    for _, note in ipairs(H.notes) do
      if note.msg:find("Understood, leaving it.", 1, true) then
        return true
      end
    end
  end)
  -- The chat transcript of the edit thread shows the change as declined.
  local thread_id = nil
  for id, t in pairs(require("codex.threads").threads) do
    if t.kind == "edit" then
      thread_id = id
    end
  end
  local lines = {}
  for _, block in ipairs(require("codex.transcript").blocks(thread_id)) do
    vim.list_extend(lines, block.lines)
  end
  H.has(lines, "**Edit** _(declined)_", "edit thread transcript")
  H.no_errors()
end)
