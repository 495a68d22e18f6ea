-- A turn whose model requests fail after their retries: the statusline's "retrying" note goes
-- with the turn, and the chat says it failed.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("a failed turn's statusline", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")
  local status = require("codex.status")
  local retried = false
  vim.cmd("Codex hello")
  H.wait("the turn to fail", function()
    retried = retried or status.format():find("retrying", 1, true) ~= nil
    return threads.current and threads.get(threads.current).turn == nil
      and table.concat(require("codex.chat").lines(), "\n"):find("failed", 1, true) ~= nil
  end, nil, true)
  H.ok(retried, "the retries showed in the statusline")
  H.ok(not status.format():find("retrying", 1, true), "no retry note after the turn: " .. status.format())
end)
