-- The agent's edits reach the disk its commands run on: a patch to the open app.py and to
-- lib.py (never opened) is on disk before the next command reads it, no buffer is left
-- modified (`:qa` would work), and :CodexUndoTurn puts both files back.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

local function modified_file_buffers()
  local out = {}
  for _, info in ipairs(vim.fn.getbufinfo({ bufmodified = 1 })) do
    if vim.bo[info.bufnr].buftype == "" then
      table.insert(out, info.name)
    end
  end
  return out
end

H.run("patches on disk before the next command, then undo this turn", function()
  H.setup({ chat = { layout = "float" } })
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local original = H.lines(buf)
  local threads = require("codex.threads")

  vim.cmd("Codex greet louder and check")
  H.wait("the answer", function()
    return chat_text():find("Checked both files", 1, true) and not threads.running(threads.current)
  end)

  H.eq(H.lines(buf)[2], '    print("hello")', "the open buffer has the change")
  H.has(H.read(H.ws .. "/app.py"), 'print("hello")', "app.py on disk")
  H.has(H.read(H.ws .. "/lib.py"), "LIB = 2", "lib.py on disk")
  H.eq(modified_file_buffers(), {}, "modified file buffers after the turn")
  H.eq(vim.fn.bufloaded(H.ws .. "/lib.py"), 0, "lib.py is not left in a buffer")

  -- One `u` in the buffer is the agent's change (it was written, so `u` makes it modified).
  vim.cmd("CodexUndoTurn")
  H.wait("the files put back", function()
    return H.read(H.ws .. "/lib.py") == "LIB = 1\n" and H.lines(buf)[2] == '    print("hi")'
  end)
  H.eq(H.lines(buf), original, "the buffer after undoing the turn")
  H.has(H.read(H.ws .. "/app.py"), 'print("hi")', "app.py on disk after undoing the turn")
  H.eq(modified_file_buffers(), {}, "modified file buffers after undoing the turn")
  H.no_errors()
end)
