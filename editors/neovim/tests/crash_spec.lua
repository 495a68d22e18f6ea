-- The server dies (kill -9) in the middle of an answer: the user is told what happened and
-- where the log is, nothing stays "running", the half answer is marked as stopped, the server
-- comes back with the same thread resumed (and the review's findings shown again), and the
-- next message continues that thread.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function codex_diagnostics(buf)
  return vim.tbl_filter(function(d)
    return d.source == "codex"
  end, vim.diagnostic.get(buf))
end

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

local function server_pids()
  return vim.api.nvim_get_proc_children(vim.fn.getpid())
end

H.run("server crash mid-answer, then the same thread goes on", function()
  H.setup()
  -- The plugin's statusline component, drawn on a screen: what the user reads.
  H.wait_for_ui()
  vim.o.laststatus = 2
  vim.o.statusline = "%{v:lua.require'codex'.statusline()}"
  vim.cmd.edit(H.ws .. "/app.py")
  local buf = vim.api.nvim_get_current_buf()
  local threads = require("codex.threads")
  local codex = require("codex")

  vim.cmd("CodexReview")
  H.wait("the review's finding", function()
    return #codex_diagnostics(buf) == 1 and not threads.running(threads.current)
  end)
  local thread_id = threads.current
  H.ok(thread_id, "the chat has a thread")

  vim.cmd("Codex tell me a long story")
  H.wait("the first words of the answer", function()
    return chat_text():find("Once upon a time", 1, true) ~= nil
  end)
  H.has(codex.statusline(), "⟳", "the statusline while the answer streams")
  H.wait("the streaming answer on the drawn statusline", function()
    return table.concat(H.screen(), "\n"):find("⟳", 1, true) ~= nil
  end)

  local pids = server_pids()
  H.eq(#pids, 1, "one server process")
  local seen = #H.notes
  vim.uv.kill(pids[1], 9)

  H.wait("a message about the crash", function()
    for i = seen + 1, #H.notes do
      if H.notes[i].level == vim.log.levels.ERROR and H.notes[i].msg:find("stopped", 1, true) then
        return true
      end
    end
  end, nil, true)
  local told = ""
  for i = seen + 1, #H.notes do
    told = told .. H.notes[i].msg .. "\n"
  end
  H.has(told, ":CodexLog", "the message names a command that shows the log")
  H.ok(vim.fn.exists(":CodexLog") == 2, ":CodexLog exists")
  H.ok(not codex.statusline():find("⟳", 1, true), "the statusline no longer says running: " .. codex.statusline())
  -- Before the new server is up, the drawn statusline says it too (give a redraw its time).
  vim.wait(300)
  local drawn = table.concat(H.screen(), "\n")
  H.ok(not drawn:find("⟳", 1, true), "the drawn statusline no longer says running:\n" .. drawn)
  H.ok(not threads.running(thread_id), "the turn is no longer running")
  H.has(chat_text(), "Once upon a time", "the half answer stays in the chat")
  H.has(chat_text(), "Stopped", "the half answer is marked as stopped")

  -- The server comes back: the same thread, the review's finding shown again.
  H.wait("a new server", function()
    local now = server_pids()
    return #now == 1 and now[1] ~= pids[1]
  end)
  H.wait("the finding back on its line", function()
    return #codex_diagnostics(buf) == 1
  end)
  H.eq(codex_diagnostics(buf)[1].lnum, 1, "the finding's line")

  vim.cmd("Codex and then?")
  H.wait("the answer on the same thread", function()
    return chat_text():find("The end.", 1, true) ~= nil and not threads.running(threads.current)
  end)
  H.eq(threads.current, thread_id, "the chat's thread after the crash")
  H.has(chat_text(), "tell me a long story", "the earlier conversation is still in the chat")

  vim.cmd("CodexLog")
  H.ok(vim.api.nvim_buf_get_name(0):find("lsp.log", 1, true) or vim.bo.filetype == "codexlog", ":CodexLog opened the log")
  local errors = vim.tbl_filter(function(note)
    return note.level == vim.log.levels.ERROR
  end, vim.list_slice(H.notes, seen + 1))
  H.eq(#errors, 1, "errors shown from the crash on (the crash itself)")
end)
