-- An inline edit whose answer takes long can be stopped: `:CodexInterrupt`, or `<C-c>` in the
-- buffer being edited, ends its turn (no chat is open).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("stopping an inline edit", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local inline = require("codex.inline")
  local threads = require("codex.threads")

  vim.cmd("2CodexEdit now wait forever")
  local id
  H.wait("the edit's turn to run", function()
    id = next(inline.edits)
    return id ~= nil and threads.running(id) ~= nil
  end)
  H.eq(vim.api.nvim_get_current_buf(), buf, "still in the file")
  if os.getenv("CODEX_NVIM_STOP_KEY") == "1" then
    H.keys("<C-c>")
  else
    vim.cmd("CodexInterrupt")
  end
  H.wait("the edit to stop", function()
    return inline.edits[id] == nil
  end, 20000)
  local said = vim.tbl_map(function(n)
    return n.msg
  end, H.notes)
  H.ok(vim.tbl_contains(said, "codex: the edit was interrupted"), "the user is told it stopped")
  H.ok(not vim.tbl_contains(said, "codex: no turn is running"), "the interrupt found the edit")
  H.eq(vim.fn.maparg("<C-c>", "n"), "", "the stop key is gone with the edit")
  H.no_errors()
end)
