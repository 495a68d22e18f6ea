-- Approving with the change in sight: when a command or a file change waits for an answer,
-- the screen (read from an attached UI at the moment vim.ui.select is called) shows the
-- command or the diff, not a stale chat.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function find(lines, needle)
  for _, line in ipairs(lines) do
    if line:find(needle, 1, true) then
      return true
    end
  end
  return false
end

H.run("approvals with the change on screen", function()
  H.wait_for_ui()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")

  local screens = {}
  H.fake_select(function(items, opts)
    -- What the user sees while the prompt is open; the fake picker draws nothing itself.
    table.insert(screens, { kind = opts.kind, prompt = opts.prompt, lines = H.screen() })
    return items[1] -- Approve
  end)

  vim.cmd("Codex build it, then fix util.py")
  H.wait("both approvals and the answer", function()
    return #screens >= 2 and not threads.running(threads.current)
      and table.concat(require("codex.chat").lines(), "\n"):find("Both done.", 1, true)
  end)

  H.eq(screens[1].kind, "codex.command_approval", "the first prompt")
  H.ok(find(screens[1].lines, "cat build.log"), "the command is on screen while its prompt is open")
  H.ok(find(screens[1].lines, "write the build log"), "the reason is on screen")

  H.eq(screens[2].kind, "codex.file_change_approval", "the second prompt")
  -- util.py is not open anywhere: its diff is on screen next to the prompt.
  H.ok(find(screens[2].lines, "util.py"), "the file's name is on screen")
  H.ok(find(screens[2].lines, "-    return 1"), "the removed line is on screen")
  H.ok(find(screens[2].lines, "+    return 42"), "the added line is on screen")

  -- After answering, no approval window is left over.
  local floats = vim.tbl_filter(function(win)
    return vim.api.nvim_win_get_config(win).relative ~= ""
  end, vim.api.nvim_list_wins())
  H.eq(#floats, 0, "floating windows after the answers")
  H.eq(H.read(H.ws .. "/build.log"), "built ok\n", "the approved command ran")
  H.no_errors()
end)
