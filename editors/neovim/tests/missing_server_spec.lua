-- With no server installed, every command that needs it says so, not only the first one.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("missing server on several commands", function()
  H.setup({ cmd = { "/nonexistent/codex-lsp", "serve" } })
  vim.cmd.edit(H.ws .. "/app.py") -- the automatic start says it once
  local file = vim.api.nvim_get_current_buf()
  local function errors_after(n)
    local out = {}
    for i = n + 1, #H.notes do
      if H.notes[i].level == vim.log.levels.ERROR then
        table.insert(out, H.notes[i].msg)
      end
    end
    return out
  end

  -- Opening the file warned once, without an error (no "Press ENTER" on opening a file).
  H.wait("the warning", function()
    return #H.notes > 0
  end)
  H.eq(#H.notes, 1, "one message on opening the file")
  H.eq(H.notes[1].level, vim.log.levels.WARN, "a warning")
  H.has(H.notes[1].msg, "`/nonexistent/codex-lsp` is not an executable, so Codex is off", "what it says")

  for _, command in ipairs({ "Codex hi", "2CodexEdit make it loud", "CodexAsk why?", "CodexReview", "CodexThreads", "CodexNew" }) do
    vim.cmd("silent! only")
    vim.api.nvim_set_current_buf(file)
    local before = #H.notes
    vim.cmd(command)
    local errors = errors_after(before)
    H.eq(#errors, 1, ":" .. command .. " errors shown")
    H.has(errors[1], "`/nonexistent/codex-lsp` is not an executable", ":" .. command .. " says why")
    H.ok(not errors[1]:find("pip install", 1, true), "no advice that does not work")
    if command == "Codex hi" then
      H.eq(require("codex.compose").text(), "hi", "the message waits in the input area")
    end
  end
end)
