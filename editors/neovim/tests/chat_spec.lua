-- A chat round trip: a message from :Codex, a command approval answered through a
-- replaced vim.ui.select (as a picker would), the command's output, the plan and the
-- streamed markdown answer in the chat; then interrupt, a new thread and resuming the first.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

H.run("chat round trip with a command approval", function()
  H.setup({ chat = { layout = "float" } })
  vim.cmd.edit(H.ws .. "/app.py")
  local file_win = vim.api.nvim_get_current_win()
  local threads = require("codex.threads")
  local chat = require("codex.chat")

  local asked = H.fake_select(function(items, opts, labels)
    if opts.kind == "codex.thread" then
      for i, label in ipairs(labels) do
        if label:find("build it and tell me", 1, true) then
          return items[i]
        end
      end
      return nil
    end
    return items[1] -- "Approve"
  end)

  vim.cmd("Codex build it and tell me")
  H.eq(vim.api.nvim_get_current_buf(), require("codex.compose").buf(), "the cursor is in the input area")
  local win = vim.fn.win_findbuf(chat.buf())[1]
  H.ok(vim.api.nvim_win_get_config(win).relative ~= "", "the chat is a float")

  H.wait("the command approval prompt", function()
    return #asked >= 1
  end)
  local prompt = asked[1].prompt
  H.eq(asked[1].kind, "codex.command_approval", "prompt kind")
  H.has(prompt, "`printf 'built ok\\n' > build.log; cat build.log`", "the command in the prompt")
  -- The model asked to leave the sandbox: the prompt says so before the choices.
  H.has(prompt, "wants to run OUTSIDE the sandbox", "the escalation in the prompt")
  H.has(prompt, "in " .. vim.fn.fnamemodify(H.ws, ":~"), "the cwd in the prompt")
  H.has(prompt, "write the build log", "the reason in the prompt")
  H.eq(asked[1].labels, {
    "Approve",
    "Approve for this session",
    "Deny (the agent carries on)",
    "Deny and say why (Codex is told)",
    "Deny and stop the turn",
  }, "approval choices")

  H.wait("the streamed answer", function()
    return chat_text():find("All **done**", 1, true) and not threads.running(threads.current)
  end)
  local text = chat_text()
  H.has(text, "## You\n\nbuild it and tell me", "your message")
  H.has(text, "**$** `printf", "the command")
  H.has(text, "_(exit 0)_", "the command's status")
  H.has(text, "built ok", "the command's output")
  H.has(text, "**Plan**", "the plan")
  H.has(text, "- [x] Build", "a finished step")
  H.has(text, "- [~] Report", "a running step")
  H.has(text, "## Codex\n\nAll **done**: `build.log` says *built ok*.", "the markdown answer")
  H.eq(H.read(H.ws .. "/build.log"), "built ok\n", "the approved command ran")

  -- Status: token usage from the thread, and the turn's LSP progress came and went.
  H.has(require("codex").statusline(), "tok", "statusline")
  H.wait("the turn's LSP progress to begin and end", function()
    return vim.tbl_contains(H.progress, "begin") and vim.tbl_contains(H.progress, "end")
  end)

  -- A second message from the chat's input area; its turn stalls and the interrupt key stops it.
  local first_thread = threads.current
  vim.api.nvim_set_current_win(win)
  H.keys("<CR>now wait forever<C-s>")
  H.wait("the second turn to run", function()
    return threads.running(first_thread) and chat_text():find("now wait forever", 1, true)
  end)
  H.has(require("codex").statusline(), "⟳", "statusline while running")
  vim.api.nvim_set_current_win(win)
  H.keys("<C-c>")
  H.wait("the interrupted turn", function()
    return chat_text():find("_Interrupted._", 1, true) and not threads.running(first_thread)
  end)

  -- A new thread empties the chat; :CodexThreads brings the first one back.
  vim.cmd("CodexNew")
  H.wait("the new thread", function()
    return threads.current ~= first_thread and threads.current ~= nil
  end)
  H.ok(not chat_text():find("build it and tell me", 1, true), "the new thread's chat is empty")
  vim.cmd("CodexThreads")
  H.wait("the resumed thread", function()
    return threads.current == first_thread and chat_text():find("All **done**", 1, true)
  end)
  H.has(chat_text(), "built ok", "the resumed history shows the command output")

  -- :CodexAsk on a selection of the file: the question and the lines go to the chat's thread.
  vim.api.nvim_set_current_win(file_win)
  H.eq(vim.api.nvim_buf_get_name(0), H.ws .. "/app.py", "back in the file")
  vim.cmd("2CodexAsk what does this line do?")
  H.wait("the answer in the chat", function()
    return chat_text():find("It prints a greeting.", 1, true) and not threads.running(first_thread)
  end)
  H.eq(threads.current, first_thread, "asked on the chat's thread")
  H.has(chat_text(), "what does this line do?", "the question in the chat")
  H.no_errors()
end)
