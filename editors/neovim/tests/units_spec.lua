-- Plugin pieces that need no model: diff reading, rendering, the approval and question
-- prompts with synchronous (default-like) and asynchronous (picker-like) vim.ui.select, the
-- inline preview's marks for insertions and deletions, the status text, setup validation,
-- and the messages a user gets when the server cannot start.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

-- Run `fn` in a coroutine the way Neovim runs server requests; returns its result when done.
local function as_server_request(fn)
  local done, result = false, nil
  local co = coroutine.create(function()
    result = fn()
    done = true
  end)
  assert(coroutine.resume(co))
  H.wait("the request handler to answer", function()
    return done
  end)
  return result
end

local function test_diff()
  local diff = require("codex.diff")
  local text = table.concat({
    "--- a/f.txt",
    "+++ b/f.txt",
    "@@ -0,0 +1,1 @@",
    "+top",
    "@@ -2,3 +3,2 @@",
    " two",
    "-three",
    " four",
    "\\ No newline at end of file",
  }, "\n")
  local hunks = diff.parse(text)
  H.eq(#hunks, 2, "hunks")
  H.eq(hunks[2].lines, {
    { kind = " ", text = "two" },
    { kind = "-", text = "three" },
    { kind = " ", text = "four" },
  }, "second hunk lines")
  H.eq(diff.apply({ "one", "two", "three", "four", "five" }, hunks), { "top", "one", "two", "four", "five" }, "applied")
end

local function test_render()
  local render = require("codex.render")
  H.eq(render.command_text([[/bin/bash -lc 'echo '"'"'hi'"'"'']]), "echo 'hi'", "unwrapped command")
  H.eq(render.command_text("ls -la"), "ls -la", "plain command")
  H.eq(render.code_span("a `b` c"), "``a `b` c``", "code span around backticks")
  local lines = render.block({ kind = "fileChange", data = {
    status = "completed",
    changes = { { path = "x.py", kind = { type = "update" }, diff = "@@ -1 +1 @@\n-a\n+b\n" } },
  } })
  H.has(lines, "**Edit** _(applied)_", "file change header")
  H.has(lines, "```diff\n@@ -1 +1 @@\n-a\n+b\n```", "file change diff")
  -- A v2 `plan` item carries its plan as markdown text; the plan update carries steps.
  lines = render.block({ kind = "plan", data = { id = "p1", text = "1. read\n2. fix" } })
  H.eq(lines, { "**Plan**", "1. read", "2. fix", "" }, "plan item text")
  lines = render.block({ kind = "plan", data = { plan = { { step = "read", status = "completed" } } } })
  H.eq(lines, { "**Plan**", "- [x] read", "" }, "plan steps")
  lines = render.block({ kind = "subAgentActivity", data = {
    kind = "started", agentPath = "/root/helper", model = "gpt-5.5",
  } })
  H.eq(lines, { "**Spawned agent** `/root/helper` _(gpt-5.5)_", "" }, "subagent spawned")
  lines = render.block({ kind = "subAgentActivity", data = {
    kind = "completed", agentPath = "/root/helper", model = vim.NIL,
  } })
  H.eq(lines, { "**Finished: agent** `/root/helper`", "" }, "subagent finished")
  lines = render.block({ kind = "collabAgentToolCall", data = { tool = "wait", status = "completed" } })
  H.eq(lines, { "**Wait for agents** _(done)_", "" }, "wait for agents")
end

local function test_file_prompt()
  local approvals = require("codex.approvals")
  local threads = require("codex.threads")
  local params = { threadId = "t1", codexLsp = { changes = { { path = "a.py" } } }, reason = "fix it" }
  threads.current = "t1"
  H.eq(approvals.file_prompt(params), "Codex wants to change a.py — fix it (the diff is in :Codex)", "chat thread")
  -- An inline edit's thread is not the one :Codex draws: no pointer there.
  threads.current = "other"
  H.eq(approvals.file_prompt(params), "Codex wants to change a.py — fix it", "another thread")
  threads.current = nil
end

local function test_command_approval()
  local approvals = require("codex.approvals")
  local params = {
    threadId = "t",
    turnId = "u",
    itemId = "i",
    command = "/bin/bash -lc 'make test'",
    cwd = "/srv/project",
    reason = "run the tests\nwith network",
  }
  -- Like the default vim.ui.select: answers synchronously, before returning.
  local seen = nil
  vim.ui.select = function(items, opts, on_choice)
    seen = opts.prompt
    on_choice(items[2])
  end
  local answer = as_server_request(function()
    return approvals.command(params, { client_id = 0 })
  end)
  H.eq(answer, { decision = "acceptForSession" }, "synchronous select")
  H.eq(seen, "Codex wants to run `make test` in /srv/project — run the tests ⏎ with network", "prompt")

  -- Neovim's own vim.ui.select (an inputlist), answered by typing "2<CR>".
  vim.ui.select = H.default_select
  vim.api.nvim_feedkeys("2\r", "t", false)
  answer = as_server_request(function()
    return approvals.command(params, { client_id = 0 })
  end)
  H.eq(answer, { decision = "acceptForSession" }, "the default vim.ui.select")

  -- Like a picker: answers later; dismissing it declines.
  H.fake_select(function()
    return nil
  end)
  answer = as_server_request(function()
    return approvals.command(params, { client_id = 0 })
  end)
  H.eq(answer, { decision = "decline" }, "dismissed picker")

  -- Only the decisions the server offers are shown.
  local asked = H.fake_select(function(items)
    return items[#items]
  end)
  answer = as_server_request(function()
    return approvals.command(vim.tbl_extend("force", params, { availableDecisions = { "accept", "cancel" } }), {
      client_id = 0,
    })
  end)
  H.eq(asked[1].labels, { "Approve", "Deny and stop the turn" }, "offered decisions")
  H.eq(answer, { decision = "cancel" }, "cancel")
end

local function test_user_input()
  local approvals = require("codex.approvals")
  local asked = H.fake_select(function(items, opts)
    if opts.prompt:find("Database", 1, true) then
      return items[2]
    end
    return items[#items] -- "Something else…"
  end)
  local inputs = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(inputs, opts.prompt)
    on_confirm(#inputs == 1 and "blue" or "Ada")
  end
  local answer = as_server_request(function()
    return approvals.user_input({
      threadId = "t",
      questions = {
        { id = "db", header = "Database", question = "Which one?", options = {
          { label = "sqlite", description = "a file" },
          { label = "postgres", description = "a server" },
        } },
        { id = "color", question = "Colour?", isOther = true, options = { { label = "red" } } },
        { id = "name", question = "Your name?" },
      },
    }, { client_id = 0 })
  end)
  H.eq(asked[1].prompt, "Database: Which one?", "question prompt")
  H.eq(asked[1].labels, { "sqlite — a file", "postgres — a server" }, "options")
  H.eq(asked[2].labels, { "red", "Something else…" }, "other option")
  H.eq(answer, { answers = {
    db = { answers = { "postgres" } },
    color = { answers = { "blue" } },
    name = { answers = { "Ada" } },
  } }, "answers")
  H.eq(vim.json.encode(as_server_request(function()
    H.fake_select(function()
      return nil
    end)
    return approvals.user_input({ questions = { { id = "q", question = "?", options = { { label = "a" } } } } }, {})
  end)), '{"answers":{}}', "a dismissed question sends an empty answer map")
end

local function test_preview_marks()
  local preview = require("codex.preview")
  local path = vim.fn.tempname() .. ".txt"
  vim.fn.writefile({ "one", "two", "three" }, path)
  vim.cmd.edit(path)
  local buf = vim.api.nvim_get_current_buf()
  vim.keymap.set("n", "gr", "<Cmd>let g:users_gr = 1<CR>", { buffer = buf })
  local decision = nil
  local shown = preview.show({
    threadId = "t",
    codexLsp = { changes = { {
      path = path,
      kind = { type = "update" },
      diff = "@@ -0,0 +1,1 @@\n+zero\n@@ -2,2 +3,1 @@\n two\n-three\n",
    } } },
  }, { cwd = "/" }, function(d)
    decision = d
  end)
  H.ok(shown, "shown in the visible buffer")
  local removed, above = {}, {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, { details = true })) do
    if m[4].line_hl_group == "CodexPreviewDelete" then
      table.insert(removed, m[2])
    end
    if m[4].virt_lines_above and m[4].virt_lines[1][1][2] == "CodexPreviewAdd" then
      table.insert(above, vim.trim(m[4].virt_lines[1][1][1]))
    end
  end
  H.eq(removed, { 2 }, "the deleted line is marked")
  H.eq(above, { "zero" }, "an insertion at the top shows above the first line")
  H.eq(H.lines(buf), { "one", "two", "three" }, "text untouched")
  H.keys("gr")
  H.eq(decision, "decline", "reject key")
  H.eq(#vim.api.nvim_buf_get_extmarks(buf, preview.ns, 0, -1, {}), 0, "marks cleared")
  H.eq(vim.fn.maparg("ga", "n", false, true).buffer, nil, "keys removed")
  H.keys("gr")
  H.eq(vim.g.users_gr, 1, "the user's own buffer mapping is back")

  -- A change to a file no window shows is not previewed (the caller asks with a select).
  local hidden = preview.show(
    { codexLsp = { changes = { { path = "/nonexistent/x", kind = { type = "update" }, diff = "" } } } },
    {},
    function() end
  )
  H.eq(hidden, false, "nothing shown for files not on screen")
  vim.cmd("bwipeout!")
end

local function test_status()
  local status = require("codex.status")
  local threads = require("codex.threads")
  threads.current = "t-status"
  status.set_usage("t-status", {
    total = { totalTokens = 12345 },
    last = { totalTokens = 27200 },
    modelContextWindow = 272000,
  })
  status.set_rate_limits({
    primary = { usedPercent = 42, windowDurationMins = 300 },
    secondary = { usedPercent = 7, windowDurationMins = 10080 },
  })
  H.eq(status.format(), "Codex │ 12.3k tok · ctx 10% │ 5h 42% wk 7%", "status text")
  threads.current = nil
end

local function test_chat_layouts()
  local chat = require("codex.chat")
  require("codex").setup({ autostart = false, chat = { layout = "split", size = 40 } })
  local win = chat.open()
  H.eq(vim.api.nvim_win_get_config(win).relative, "", "split is a normal window")
  H.eq(vim.api.nvim_win_get_width(win), 40, "split width")
  H.eq(vim.bo[chat.buf()].filetype, "markdown", "chat filetype")
  H.eq(H.lines(chat.buf())[1], "# Codex", "empty chat header")
  chat.close()
  require("codex").setup({ autostart = false, chat = { layout = "hsplit", size = 8 } })
  win = chat.open()
  local input = require("codex.compose").win()
  H.ok(input, "the input area under the chat")
  -- The two windows and the status line between them share the configured height.
  H.eq(vim.api.nvim_win_get_height(win) + 1 + vim.api.nvim_win_get_height(input), 8, "hsplit height")
  chat.close()
  H.eq(#vim.fn.win_findbuf(chat.buf()), 0, "closed")
end

local function test_keymaps()
  require("codex").setup({ autostart = false })
  local inline = require("codex.inline")
  local real_edit, real_ask = inline.edit, inline.ask
  local calls = {}
  inline.edit = function(text, bufnr, l1, l2)
    table.insert(calls, { "edit", text, l1, l2 })
  end
  inline.ask = function(text, bufnr, l1, l2)
    table.insert(calls, { "ask", text, l1, l2 })
  end
  vim.ui.input = function(opts, on_confirm)
    on_confirm(opts.prompt == "Codex edit: " and "tidy up" or "why?")
  end
  vim.cmd.enew()
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "a", "b", "c", "d" })
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  H.keys("Vj<leader>ce")
  H.eq(vim.api.nvim_get_mode().mode, "n", "visual mode left")
  H.keys("<leader>ce")
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  H.keys("vjj<leader>ca")
  H.eq(calls, {
    { "edit", "tidy up", 2, 3 },
    { "edit", "tidy up", 3, 3 },
    { "ask", "why?", 1, 3 },
  }, "mapped actions")
  inline.edit, inline.ask = real_edit, real_ask
  vim.cmd("bwipeout!")
end

local function test_help_file()
  -- The shipped tags are what :helptags makes of the help file today.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/doc", "p")
  vim.fn.writefile(vim.fn.readfile(H.root .. "/doc/codex.txt"), dir .. "/doc/codex.txt")
  vim.cmd("helptags " .. dir .. "/doc") -- raises on a duplicate tag
  H.eq(vim.fn.readfile(H.root .. "/doc/tags"), vim.fn.readfile(dir .. "/doc/tags"), "doc/tags is up to date")
  -- From the plugin's own folder, with no :helptags run by the user.
  for _, tag in ipairs({ "codex-options", ":CodexEdit", "codex-hunks", "codex-context", ":CodexLog" }) do
    vim.cmd("help " .. tag)
    H.eq(vim.fn.expand("%:p"), H.root .. "/doc/codex.txt", "help for " .. tag)
    vim.cmd("helpclose")
  end
  -- `:help codex` opens at the top of the file, not in a section named codex-something.
  vim.cmd("help codex")
  H.eq(vim.fn.line("."), 2, ":help codex lands on the file's title")
  vim.cmd("helpclose")
end

local function test_setup_validation()
  local notes = #H.notes
  require("codex").setup({ chat = { layout = "sideways" } })
  H.has(H.notes[notes + 1].msg, "`chat.layout` must be split, hsplit or float", "bad layout")
end

local function test_server_cannot_start()
  local client = require("codex.client")
  H.stop_clients() -- a server from the tests above would be reused for the same folder
  local path = vim.fn.tempname() .. ".txt"
  vim.fn.writefile({ "x" }, path)

  require("codex").setup({ cmd = { "/nonexistent/codex-lsp", "serve" } })
  local before = #H.notes
  vim.cmd.edit(path) -- autostart tries to start it
  H.wait("the missing binary named", function()
    return H.notes[before + 1] ~= nil
  end)
  H.has(H.notes[before + 1].msg, "`/nonexistent/codex-lsp` is not an executable, so Codex is off", "missing binary")
  H.eq(H.notes[before + 1].level, vim.log.levels.WARN, "opening a file only warns")
  vim.cmd("bwipeout!")
  H.stop_clients() -- a server started for the files the tests above left open serves this folder too

  require("codex").setup({ cmd = { "sh", "-c", "echo broken >&2; exit 3" } })
  vim.cmd.edit(path)
  H.wait("the start-up failure message", function()
    for _, note in ipairs(H.notes) do
      if note.msg:find("exited during start-up (exit code 3)", 1, true) then
        return true
      end
    end
  end, nil, true)
  vim.cmd("bwipeout!")

  -- A config.toml the server cannot use: the server stays up and warns which file, line and key.
  local cmd = vim.json.decode(os.getenv("CODEX_NVIM_SERVER_CMD"))
  require("codex").setup({ cmd = cmd, cmd_env = { CODEX_HOME = os.getenv("CODEX_NVIM_BAD_HOME") } })
  vim.cmd.edit(path)
  H.ok(client.get(0), "the server starts")
  H.wait("the configuration warning", function()
    for _, note in ipairs(H.notes) do
      if note.msg:find("Invalid configuration; using defaults.", 1, true) and note.msg:find("config.toml:2:19", 1, true) then
        return true
      end
    end
  end, nil, true)
end

H.run("plugin units", function()
  H.setup({ autostart = true })
  test_diff()
  test_render()
  test_file_prompt()
  test_command_approval()
  test_user_input()
  test_preview_marks()
  test_status()
  test_chat_layouts()
  test_help_file()
  test_keymaps()
  test_setup_validation()
  test_server_cannot_start()
end)
