-- Context from outside the project: `:CodexAttach image PATH` sends a screenshot to the model as
-- an image, `/url URL` in the chat (or `:CodexAttach url URL`) a web page's text; both go with
-- the next message only.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

H.run("an image and a web page as context", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")
  local context = require("codex.context")

  H.eq(vim.fn.getcompletion("CodexAttach ", "cmdline"), { "image", "url" }, "what can be attached")
  vim.cmd("CodexAttach image " .. H.ws .. "/shot.png")
  local page = os.getenv("CODEX_TEST_PAGE_URL")
  -- The page from the chat's input area, as a slash command.
  vim.cmd("Codex")
  require("codex.compose").send("/url " .. page)
  H.wait("the page fetched", function()
    return #context.pending() == 2
  end)
  H.has(H.notes[#H.notes].msg, page .. " attached to the next message", "the user is told")

  local before = #H.notes
  vim.cmd("CodexAttach image " .. H.ws .. "/missing.png")
  H.has(H.notes[before + 1].msg, "no image file at", "a missing image is refused")
  table.remove(H.notes, before + 1) -- the one error this journey expects

  vim.cmd("Codex what do the screenshot and the page say?")
  H.wait("the answer", function()
    return chat_text():find("A pixel and a changelog.", 1, true) and not threads.running(threads.current)
  end)
  H.has(chat_text(), "[image " .. H.ws .. "/shot.png]", "the image named in the user's message")
  H.eq(context.pending(), {}, "the attachments went with that message")

  vim.cmd("Codex and now?")
  H.wait("the second answer", function()
    return chat_text():find("Nothing attached.", 1, true) and not threads.running(threads.current)
  end)
  H.no_errors()
end)
