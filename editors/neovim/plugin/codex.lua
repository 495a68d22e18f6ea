-- plugin/codex.lua: registers the :Codex* commands at startup. Nothing else loads until a
-- command runs or setup() is called; a command run before setup() uses the defaults.
if vim.g.loaded_codex then
  return
end
vim.g.loaded_codex = true

if vim.fn.has("nvim-0.10") ~= 1 then
  vim.notify("codex.nvim needs Neovim 0.10 or newer", vim.log.levels.ERROR)
  return
end

require("codex.commands").register()
