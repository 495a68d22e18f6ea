-- The approval window with a command that hides behind control characters: a carriage return,
-- ANSI escapes and a right-to-left override, longer than the screen is wide, that asks to leave
-- the sandbox. While the prompt is open the screen (read from an attached UI) shows the whole
-- command, every hidden character by name, wrapped in the float, and says "OUTSIDE the sandbox".
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local ESC, RLO = "\27", "\226\128\174" -- U+202E in UTF-8
local RAW = { ESC, "\r", RLO, "\7", "\194\155" } -- ..., BEL, U+009B

local filler = {}
for n = 0, 19 do
  table.insert(filler, ("--option-%d=value"):format(n))
end
filler = table.concat(filler, " ")
local script = "ls -la\r" .. ESC .. "[2K" .. ESC .. "[8m " .. filler .. "; printf pwned > pwned.txt #" .. ESC .. "[0m" .. RLO .. "\7"
local SHOWN = "ls -la\\r\\x1b[2K\\x1b[8m " .. filler .. "; printf pwned > pwned.txt #\\x1b[0m<U+202E>\\x07"

local function no_raw(text, what)
  for _, raw in ipairs(RAW) do
    H.ok(not text:find(raw, 1, true), ("%s: a raw %q"):format(what, raw))
  end
end

-- The float's rows as the screen shows them, between its borders, joined: a wrapped line
-- comes back whole.
local function float_text(screen)
  local parts = {}
  for _, row in ipairs(screen) do
    local inner = row:match("│(.*)│")
    if inner then
      table.insert(parts, inner)
    end
  end
  return table.concat(parts)
end

local function test_the_whole_command_is_on_screen()
  local approvals = require("codex.approvals")
  local params = {
    threadId = "t",
    turnId = "u",
    itemId = "c1",
    command = "/bin/bash -lc '" .. script .. "'",
    cwd = "/srv/project",
    reason = "list" .. ESC .. "[1A\rfiles",
    codexLsp = { runUnsandboxed = true },
  }
  local seen = {}
  vim.ui.select = function(items, opts, on_choice)
    seen.prompt = opts.prompt
    seen.labels = vim.tbl_map(opts.format_item, items)
    seen.screen = H.screen()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then
        seen.wrap = vim.wo[win].wrap
        seen.lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
      end
    end
    on_choice(items[3]) -- Deny
  end
  local done, answer = false, nil
  coroutine.wrap(function()
    answer = approvals.command(params, { client_id = 0 })
    done = true
  end)()
  H.wait("the approval to be answered", function()
    return done
  end)
  H.eq(answer, { decision = "decline" }, "the answer")

  local text = table.concat(seen.lines, "\n")
  no_raw(text, "the approval window")
  H.eq(seen.lines[1], "$ " .. SHOWN, "the command line, whole")
  H.has(text, "Reason: list\\x1b[1A\\rfiles", "the reason")
  H.has(text, "Approving runs this command outside the sandbox", "the sandbox note")
  H.ok(seen.wrap, "the approval window wraps its lines")
  H.ok(#("$ " .. SHOWN) > vim.o.columns, "the command is wider than the screen")

  local on_screen = float_text(seen.screen)
  no_raw(table.concat(seen.screen, "\n"), "the screen")
  H.has(on_screen, "$ " .. SHOWN, "the whole command, on screen")
  H.has(on_screen, "outside the sandbox", "the sandbox note, on screen")
  H.has(table.concat(seen.screen, "\n"), "OUTSIDE the sandbox", "the window's title")

  no_raw(seen.prompt, "the prompt")
  H.has(seen.prompt, "Codex wants to run OUTSIDE the sandbox `" .. SHOWN .. "`", "the prompt")
  for _, label in ipairs(seen.labels) do
    no_raw(label, "a choice")
  end
end

local function test_a_sandboxed_command_says_nothing_of_leaving()
  local approvals = require("codex.approvals")
  local prompt = approvals.command_prompt({ command = "touch a\nb" .. ESC .. "[8m", cwd = "/srv" })
  H.eq(prompt, "Codex wants to run `touch a ⏎ b\\x1b[8m` in /srv", "a sandboxed prompt")
  local lines = require("codex.approval_view").command_lines({ command = "touch a\nb\r" })
  H.eq(lines, { "$ touch a", "  b\\r" }, "a sandboxed command's lines")
end

local function test_visible()
  local visible = require("codex.visible").visible
  H.eq(visible("a\27b\r\n\tc"), "a\\x1bb\\r\\n\\tc", "one line")
  H.eq(visible("a\27b\r\n\tc\rd", true), "a\\x1bb\n\tc\\rd", "several lines")
  H.eq(visible("\127\194\128\194\159"), "\\x7f\\x80\\x9f", "DEL and C1")
  -- U+202A..U+202E, U+2066..U+2069, LRM, RLM, ALM, ZWSP, ZWNJ, ZWJ, WJ, BOM, LS, a tag
  local named = {
    "\226\128\170", "\226\128\174", "\226\129\166", "\226\129\169", "\226\128\142",
    "\226\128\143", "\216\156", "\226\128\139", "\226\128\141", "\226\129\160",
    "\239\187\191", "\226\128\168", "\243\160\128\129",
  }
  local names = {
    "<U+202A>", "<U+202E>", "<U+2066>", "<U+2069>", "<U+200E>", "<U+200F>", "<U+061C>",
    "<U+200B>", "<U+200D>", "<U+2060>", "<U+FEFF>", "<U+2028>", "<U+E0001>",
  }
  for i, char in ipairs(named) do
    H.eq(visible("a" .. char .. "b"), "a" .. names[i] .. "b", names[i])
  end
  H.eq(visible("a\255b"), "a\\xffb", "a byte that is not UTF-8")
  local plain = "héllo 你好 мир 🙂 `x` \\x1b"
  H.eq(visible(plain), plain, "ordinary text")
end

local function test_a_command_taller_than_the_screen_is_read_whole_before_approve()
  local approvals = require("codex.approvals")
  local parts = {}
  for n = 1, vim.o.lines + 20 do
    table.insert(parts, ("echo line-%d"):format(n))
  end
  table.insert(parts, "rm -rf ~/.cache/hidden-at-the-end")
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(opts.format_item, items)
    table.insert(asked, labels)
    if #asked == 1 then
      vim.schedule(function()
        on_choice(items[1]) -- show the whole command
      end)
    else
      on_choice(items[#items]) -- Deny and stop the turn
    end
  end
  local done, answer = false, nil
  coroutine.wrap(function()
    answer = approvals.command({ threadId = "t", turnId = "u", itemId = "c2", command = table.concat(parts, "\n") }, { client_id = 0 })
    done = true
  end)()
  H.wait("the whole command in a tab of its own", function()
    return vim.b.codex_whole_command == true
  end)
  H.eq(asked[1], { "Show the whole command (Approve comes after)", "Deny (the agent carries on)", "Deny and say why (Codex is told)", "Deny and stop the turn" },
    "no Approve while part of the command is out of sight")
  local whole = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  H.eq(whole[#whole], "  rm -rf ~/.cache/hidden-at-the-end", "the command's last line, in the tab")
  H.eq(#whole, #parts, "every line of the command")
  vim.cmd.quit()
  H.wait("the approval to be answered", function()
    return done
  end)
  H.eq(asked[2][1], "Approve", "Approve, once the command was read")
  H.eq(answer, { decision = "cancel" }, "the answer")
  H.eq(#vim.api.nvim_list_tabpages(), 1, "the tab is gone")
end

H.run("approval display", function()
  H.wait_for_ui()
  vim.opt.runtimepath:prepend(H.root)
  test_visible()
  test_a_sandboxed_command_says_nothing_of_leaving()
  test_the_whole_command_is_on_screen()
  test_a_command_taller_than_the_screen_is_read_whole_before_approve()
end)
