-- The chat's input area: a multi-line message written there reaches the model intact, with
-- the context it names (#buffer, #selection, #diagnostics, @file); up/down walk the history;
-- completion offers files, context names and commands; slash commands run; the thread picker
-- lists conversations, not the threads of inline edits.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

-- What the input area's 'omnifunc' offers with the cursor after `line`, as Vim asks it.
local function complete(line)
  local compose = require("codex.compose")
  vim.api.nvim_buf_set_lines(compose.buf(), 0, -1, false, { line })
  vim.api.nvim_win_set_cursor(0, { 1, #line })
  -- The cursor sits after the last character, as in Insert mode.
  vim.fn.cursor(1, #line + 1)
  local start = compose.omnifunc(1, "")
  local words = compose.omnifunc(0, line:sub(start + 1))
  vim.api.nvim_buf_set_lines(compose.buf(), 0, -1, false, { "" })
  return words
end

H.run("the chat's input area", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local file = vim.api.nvim_get_current_buf()
  local file_win = vim.api.nvim_get_current_win()
  local threads = require("codex.threads")
  local compose = require("codex.compose")

  -- An inline edit first, rejected: its thread is not a conversation to resume later.
  local preview = require("codex.preview")
  vim.cmd("2CodexEdit make the greeting loud")
  H.wait("the inline preview", function()
    return preview.showing(file)
  end)
  H.keys("gr")
  H.wait("the edit to finish", function()
    return next(require("codex.inline").edits) == nil
  end)

  -- Unsaved text, a selection (line 2) and a diagnostic from another source.
  vim.api.nvim_buf_set_lines(file, 0, 0, false, { "# unsaved line" })
  H.keys("3GV<Esc>")
  local ns = vim.api.nvim_create_namespace("other-linter")
  vim.diagnostic.set(ns, file, { { lnum = 2, col = 4, message = "print is frowned upon", severity = vim.diagnostic.severity.WARN, source = "lint" } })

  vim.cmd("Codex")
  local chat_win = vim.api.nvim_get_current_win()
  H.ok(compose.win(), "the input area is open under the chat")
  H.keys("<CR>")
  H.eq(vim.api.nvim_get_current_win(), compose.win(), "the send key moves to the input area")
  -- (Typed keys end Insert mode when they run out, so each batch starts with `i`.)
  H.keys("ifirst line<CR>second line, see #buffer and #selection<CR>third: @util.py and #diagnostics<C-s>")
  H.eq(compose.text(), "", "the input area empties once sent")
  H.wait("the answer", function()
    return chat_text():find("Got it.", 1, true) and not threads.running(threads.current)
  end)
  H.has(chat_text(), "## You\n\nfirst line\nsecond line, see #buffer and #selection\nthird: @util.py and #diagnostics", "the message in the chat")
  H.has(chat_text(), "> Context: app.py", "the attached buffer, named in the chat")
  local chat_thread = threads.current

  -- History: up brings the last message back, down goes back to an empty area.
  vim.cmd("stopinsert")
  vim.api.nvim_set_current_win(compose.win())
  H.keys("<Esc><Up>")
  H.eq(compose.text(), "first line\nsecond line, see #buffer and #selection\nthird: @util.py and #diagnostics", "<Up>")
  H.keys("<Down>")
  H.eq(compose.text(), "", "<Down>")

  -- Completion.
  H.ok(vim.tbl_contains(complete("look at @uti"), "@util.py"), "@ completes project files")
  H.eq(complete("with #se"), { "#selection" }, "# completes context names")
  H.eq(complete("/mo"), { "/mode", "/model" }, "/ completes commands")

  -- Slash commands: /new starts a thread, /threads lists the chat thread but not the edit's.
  vim.api.nvim_set_current_win(compose.win())
  H.keys("i/new<C-s>")
  H.wait("the new thread", function()
    return threads.current ~= nil and threads.current ~= chat_thread
  end)
  local asked = H.fake_select(function(items, opts, labels)
    for i, label in ipairs(labels) do
      if label:find("first line", 1, true) then
        return items[i]
      end
    end
  end)
  vim.api.nvim_set_current_win(compose.win())
  H.keys("<Esc>i/threads<C-s>")
  H.wait("the thread picker and the resumed thread", function()
    return #asked == 1 and threads.current == chat_thread
  end)
  H.ok(not table.concat(asked[1].labels, "\n"):find("make the greeting loud", 1, true), "the picker lists no edit threads: " .. vim.inspect(asked[1].labels))
  H.has(chat_text(), "## You\n\nfirst line\nsecond line, see #buffer and #selection\nthird: @util.py and #diagnostics\n\n> Context: app.py", "the resumed message, its context quoted as it was live")
  local before = #H.notes
  vim.api.nvim_set_current_win(compose.win())
  H.keys("<Esc>i/nonsense<C-s>")
  H.has(H.notes[before + 1].msg, "unknown command /nonsense", "an unknown command is reported")
  H.eq(compose.text(), "/nonsense", "and its text stays")
  vim.api.nvim_set_current_win(file_win)
  H.no_errors()
  H.ok(chat_win, "the chat window")
end)
