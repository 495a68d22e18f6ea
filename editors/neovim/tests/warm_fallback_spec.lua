-- A warm launcher that cannot start (here it exits at once) is not the end: the plugin says so,
-- forgets the launcher and starts `cmd` itself, and what the user asked for still happens.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function chat_text()
  return table.concat(require("codex.chat").lines(), "\n")
end

H.run("a failed warm start falls back to a cold one", function()
  H.setup(nil, true)
  vim.cmd.edit(H.ws .. "/app.py")
  vim.cmd("Codex say hello")
  H.wait("the answer from the cold server", function()
    return chat_text():find("Hello from a cold start.", 1, true) ~= nil
  end, nil, true)

  local warned = false
  for _, note in ipairs(H.notes) do
    if note.level == vim.log.levels.WARN and note.msg:find("warm start failed", 1, true) then
      warned = true
    end
    H.ok(note.level ~= vim.log.levels.ERROR, "no error was shown: " .. note.msg)
  end
  H.ok(warned, "the user is told the warm start failed")
  local client = vim.lsp.get_clients({ name = "codex" })[1]
  H.eq(client.config.cmd, H.server_cmd(), "the cold command runs")
  H.ok(not vim.uv.fs_stat(vim.fn.stdpath("cache") .. "/codex/launcher.json"), "the launcher is forgotten")
end)
