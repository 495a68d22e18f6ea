-- :checkhealth codex: the Neovim version, the server binary and its version, the config
-- file and the provider's key; then the same checks failing the way a user would meet them.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function checkhealth()
  vim.cmd("checkhealth codex")
  local text = table.concat(H.lines(0), "\n")
  vim.cmd("bwipeout!")
  return text
end

H.run("checkhealth codex", function()
  H.setup({ autostart = false })
  local home = os.getenv("CODEX_HOME")

  vim.env.SCRIPTED_API_KEY = "sk-test"
  local text = checkhealth()
  H.log(text)
  H.has(text, "OK Neovim 0.", "Neovim version")
  H.has(text, "OK server version: codex-lsp ", "server version")
  H.has(text, "OK config file: " .. home .. "/config.toml", "config file")
  H.has(text, 'OK SCRIPTED_API_KEY is set for provider "scripted"', "provider key")
  H.ok(not text:find("ERROR", 1, true), "no errors when all is well")
  H.has(text, "OK help tags are in place", "help tags")
  H.has(text, "server log (:CodexLog): ", "where the log is")

  -- A global key taken over by another mapping is reported.
  vim.keymap.set("n", "<leader>cc", "<Cmd>echo 'mine'<CR>")
  text = checkhealth()
  H.has(text, "WARNING keymaps.chat: <leader>cc runs something else now", "a key clash")
  vim.keymap.del("n", "<leader>cc")

  vim.env.SCRIPTED_API_KEY = nil
  text = checkhealth()
  H.has(text, 'ERROR SCRIPTED_API_KEY is not set (provider "scripted" needs it)', "missing key")

  require("codex").setup({ autostart = false, cmd = { "/nonexistent/codex-lsp", "serve" } })
  text = checkhealth()
  H.has(text, "ERROR `/nonexistent/codex-lsp` is not executable", "missing server")
  H.has(text, "WARNING skipped: the server is needed to read the configuration", "no server")

  -- The server resolves the config itself, profiles included.
  H.setup({ autostart = false })
  vim.env.SCRIPTED_API_KEY = nil
  local profile = io.open(home .. "/local.config.toml", "w")
  profile:write('model_provider = "ollama"\nmodel_provder = "x"\n')
  profile:close()
  local cmd = vim.json.decode(os.getenv("CODEX_NVIM_SERVER_CMD"))
  vim.list_extend(cmd, { "--profile", "local" })
  require("codex").setup({ autostart = false, cmd = cmd })
  text = checkhealth()
  H.has(text, 'OK provider "ollama" needs no API key', "profile honoured")
  H.has(
    text,
    "WARNING model_provder: not a config key, so it is ignored; did you mean model_provider?",
    "a misspelt key"
  )

  H.setup({ autostart = false })
  vim.env.CODEX_HOME = home .. "/nowhere"
  text = checkhealth()
  H.has(text, "WARNING no config file at " .. home .. "/nowhere/config.toml", "missing config")
end)
