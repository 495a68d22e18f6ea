-- setup() never replaces a user's mapping: a global `<leader>cc` stays the user's, a
-- buffer-local `<leader>ca` (an LSP setup's code action, as LazyVim maps it) stays in front of
-- Codex's, and `:checkhealth codex` names both. `keymaps.prefix` moves the defaults.
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

local function checkhealth()
  vim.cmd("checkhealth codex")
  local text = table.concat(H.lines(0), "\n")
  vim.cmd("bwipeout!")
  return text
end

H.run("default keys leave the user's alone", function()
  vim.g.mapleader = " "
  vim.keymap.set("n", "<leader>cc", "<Cmd>let g:mine = 1<CR>", { desc = "my own chat" })
  vim.api.nvim_create_autocmd("BufReadPost", {
    callback = function(ev)
      vim.keymap.set("n", "<leader>ca", "<Cmd>let g:action = 1<CR>", { buffer = ev.buf, desc = "Code Action" })
    end,
  })
  H.setup({ autostart = false })
  vim.cmd.edit(H.ws .. "/app.py")

  H.eq(vim.fn.maparg("<leader>cc", "n", false, true).desc, "my own chat", "the user's global key stays")
  H.eq(vim.fn.maparg("<leader>ce", "n", false, true).desc, "Codex: edit with an instruction", "a free key is Codex's")
  H.keys(" cc")
  H.eq(vim.g.mine, 1, "the user's key runs the user's command")

  local text = checkhealth()
  H.has(text, "WARNING keymaps.chat: <leader>cc was already mapped (n mode), so setup() left it alone", "the global clash")
  H.has(text, "WARNING keymaps.ask: <leader>ca is mapped in app.py by another plugin (Code Action)", "the buffer-local clash")

  require("codex").setup({ autostart = false, keymaps = { prefix = "<leader>x" } })
  H.eq(vim.fn.maparg("<leader>xc", "n", false, true).desc, "Codex: open the chat", "the keys under the prefix")
  H.eq(vim.fn.maparg("<leader>xa", "x", false, true).desc, "Codex: ask about the code", "in Visual mode too")
  H.no_errors()
end)
