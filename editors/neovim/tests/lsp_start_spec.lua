-- A Neovim without vim.lsp.config / vim.lsp.enable (before 0.11): the plugin starts the server
-- itself with vim.lsp.start, from its own autocommand, one per project root.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("the server started with vim.lsp.start", function()
  -- What 0.10 lacks, gone before the plugin looks.
  vim.lsp.config = nil
  vim.lsp.enable = nil
  H.setup()
  local client_mod = require("codex.client")
  vim.cmd.edit(H.ws .. "/app.py")
  H.ok(not client_mod.uses_lsp_config(), "no lsp-config without the API")
  H.ok(#vim.api.nvim_get_autocmds({ group = "codex_autostart" }) > 0, "the plugin's own autostart")
  local buf = vim.api.nvim_get_current_buf()
  local client
  H.wait("the plugin to start and attach the server", function()
    client = vim.lsp.get_clients({ bufnr = buf, name = "codex" })[1]
    return client ~= nil and client.initialized
  end)
  H.eq(client.root_dir, H.ws, "the project root")
  H.eq(client_mod.get(buf).id, client.id, "the plugin's commands use it")

  vim.cmd("Codex hello")
  H.wait("the answer", function()
    local text = table.concat(require("codex.chat").lines(), "\n")
    return text:find("Hello from the start.", 1, true) ~= nil
  end)
  H.eq(#vim.lsp.get_clients({ name = "codex" }), 1, "one server for the project")
  H.no_errors()
end)
