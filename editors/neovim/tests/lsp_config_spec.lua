-- Neovim 0.11: the server is the lsp-config "codex", enabled with vim.lsp.enable. Neovim
-- itself starts it for a file buffer, in the buffer's project root, with what the user added
-- through vim.lsp.config; the plugin's commands use that same client.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("the server as an lsp-config", function()
  vim.cmd("filetype on")
  H.setup()
  local client_mod = require("codex.client")
  -- A user's own additions, the 0.11 way (before the plugin registers its config, which it
  -- does with the first file buffer: they still apply).
  vim.lsp.config("codex", { settings = { codex = { probe = "from the user" } } })

  vim.cmd.edit(H.ws .. "/app.py")
  H.ok(client_mod.uses_lsp_config(), "the plugin registered an lsp-config")
  H.ok(vim.lsp.is_enabled("codex"), "and enabled it")
  H.eq(vim.lsp.config.codex.cmd, vim.json.decode(os.getenv("CODEX_NVIM_SERVER_CMD")), "cmd from setup()")
  local buf = vim.api.nvim_get_current_buf()
  local client
  H.wait("Neovim to start and attach the server", function()
    client = vim.lsp.get_clients({ bufnr = buf, name = "codex" })[1]
    return client ~= nil and client.initialized
  end)
  H.eq(client.root_dir, H.ws, "the project root")
  H.eq(client.config.settings.codex.probe, "from the user", "the user's vim.lsp.config applies")
  H.eq(client_mod.get(buf).id, client.id, "the plugin's commands use the same client")

  vim.cmd("Codex hello")
  H.wait("the answer", function()
    local text = table.concat(require("codex.chat").lines(), "\n")
    return text:find("Hello from the config.", 1, true) ~= nil
  end)
  H.eq(#vim.lsp.get_clients({ name = "codex" }), 1, "one server for the project")

  -- setup() with autostart off disables it (Neovim then stops it, as vim.lsp.enable does).
  require("codex").setup({ cmd = vim.lsp.config.codex.cmd, autostart = false })
  H.ok(not vim.lsp.is_enabled("codex"), "disabled")
  H.no_errors()
end)
