-- Slash commands in the chat's input area: /model NAME sets the model of the thread's next
-- turns, /model alone offers the server's models in a picker, and /compact summarizes the
-- thread (the chat says so) so the next turn starts from the summary.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

local function noted(text)
  for _, note in ipairs(H.notes) do
    if note.msg:find(text, 1, true) then
      return true
    end
  end
  return false
end

H.run("slash commands /model and /compact", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")
  local compose = require("codex.compose")

  local function send(text)
    vim.api.nvim_set_current_win(compose.win())
    H.keys("<Esc>i" .. text .. "<C-s>")
  end
  local function answered(text)
    H.wait("the answer " .. text, function()
      return chat_text():find(text, 1, true) and not threads.running(threads.current)
    end)
  end

  vim.cmd("Codex first question")
  answered("First answer.")
  local thread = threads.current

  send("/model gpt-5.4-mini")
  H.ok(noted("model for this thread: gpt-5.4-mini (from the next message)"), "/model NAME is confirmed")
  H.eq(compose.text(), "", "a slash command is not left in the input area")
  send("second question")
  answered("Second answer.")

  local chosen = nil
  local asked = H.fake_select(function(items, opts, labels)
    for _, item in ipairs(items) do
      if item.model ~= "gpt-5.4-mini" and item.model ~= "gpt-5.4" then
        chosen = item.model
        return item
      end
    end
  end)
  send("/model")
  H.wait("the model picker", function()
    return chosen ~= nil and noted("model for this thread: " .. chosen)
  end)
  H.eq(asked[1].kind, "codex.model", "the picker is the model picker")
  H.ok(#asked[1].labels >= 2, "the server's models are offered")
  H.ok(vim.tbl_contains(asked[1].labels, "● gpt-5.4-mini") or vim.tbl_filter(function(label)
    return vim.startswith(label, "● gpt-5.4-mini")
  end, asked[1].labels)[1] ~= nil, "the current model is marked: " .. vim.inspect(asked[1].labels))
  io.stdout:write("CHOSEN " .. chosen .. "\n")
  send("third question")
  answered("Third answer.")

  send("/compact")
  H.wait("the compaction in the chat", function()
    return chat_text():find("_Context compacted._", 1, true) and not threads.running(threads.current)
  end)
  send("after compacting")
  answered("Fourth answer.")
  H.eq(threads.current, thread, "all on one thread")
  H.no_errors()
end)
