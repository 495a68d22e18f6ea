-- A message sent while a turn runs steers it: the model's next request carries both, and one
-- answer comes back (the wrapper checks what the model was sent).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("steering a running turn", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")
  vim.cmd("Codex first question")
  H.wait("the turn to run", function()
    return threads.current and threads.running(threads.current) ~= nil
  end)
  vim.cmd("Codex and also this")
  H.wait("the answer", function()
    local text = table.concat(require("codex.chat").lines(), "\n")
    return text:find("Answered both.", 1, true) and not threads.running(threads.current)
  end)
  H.no_errors()
end)
