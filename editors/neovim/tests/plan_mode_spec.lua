-- Plan mode from Neovim: `:CodexMode plan` makes the chat's thread plan without changing
-- anything (the server refuses the patch the model tries) and the proposed plan shows in the
-- chat; `:CodexMode agent` lets the next turn work, its checklist updating in place as the
-- steps are done.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

local function said(text)
  for _, note in ipairs(H.notes) do
    if note.msg == text then
      return true
    end
  end
  return false
end

H.run("plan mode", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")

  vim.cmd("CodexMode plan")
  H.wait("the switch", function()
    return said("codex: mode: plan (from the next message)")
  end)
  H.has(require("codex.status").format(), "Codex [plan]", "the statusline names the mode")
  vim.cmd("Codex plan a file")
  H.wait("the plan", function()
    return chat_text():find("1. Add planned.txt", 1, true) and not threads.running(threads.current)
  end)
  H.has(chat_text(), "**Plan**\n1. Add planned.txt", "the proposed plan in the chat")
  H.ok(not vim.uv.fs_stat(H.ws .. "/planned.txt"), "nothing was written in Plan mode")

  vim.cmd("CodexMode agent")
  H.wait("the switch back", function()
    return said("codex: mode: agent (from the next message)")
  end)
  vim.cmd("Codex do it")
  H.wait("the work", function()
    return chat_text():find("Done.", 1, true) and not threads.running(threads.current)
  end)
  local text = chat_text()
  H.has(text, "**Plan**\n- [x] Add planned.txt\n- [~] Report", "the checklist as it stands now")
  H.ok(not text:find("- [~] Add planned.txt", 1, true), "the checklist was updated in place: " .. text)
  H.eq(H.read(H.ws .. "/planned.txt"), "from the plan\n", "the file was written")
  H.no_errors()
end)
