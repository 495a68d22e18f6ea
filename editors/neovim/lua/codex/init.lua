-- codex: the public entry points of the plugin: setup(), the actions behind the :Codex*
-- commands and keymaps, and the statusline component.
local M = {}

local configured = false

-- Global keys left alone because the user had mapped them: { { name, lhs, mode } }.
M.skipped_keys = {}

-- Map `lhs` in `mode` unless something that is not ours is mapped there already.
local function map_unless_taken(name, mode, lhs, rhs, desc)
  local existing = vim.fn.maparg(lhs, mode, false, true)
  if not vim.tbl_isempty(existing) and not (existing.desc or ""):find("^Codex") then
    table.insert(M.skipped_keys, { name = name, lhs = lhs, mode = mode })
    return
  end
  vim.keymap.set(mode, lhs, rhs, { desc = desc })
end

local function set_keymaps(keys)
  M.skipped_keys = {}
  local function both(lhs, normal, visual, desc, name)
    if not lhs then
      return
    end
    map_unless_taken(name, "n", lhs, normal, desc)
    map_unless_taken(name, "x", lhs, visual, desc)
  end
  -- In a visual-mode mapping the selection is still live: read its lines, then leave it.
  local function selected_lines()
    local a, b = vim.fn.line("v"), vim.fn.line(".")
    vim.cmd.normal({ args = { vim.keycode("<Esc>") }, bang = true })
    return math.min(a, b), math.max(a, b)
  end
  both(keys.edit, function()
    local line = vim.fn.line(".")
    require("codex.inline").prompt_edit(0, line, line)
  end, function()
    local l1, l2 = selected_lines()
    require("codex.inline").prompt_edit(0, l1, l2)
  end, "Codex: edit with an instruction", "edit")
  both(keys.ask, function()
    require("codex.inline").prompt_ask(0)
  end, function()
    local l1, l2 = selected_lines()
    require("codex.inline").prompt_ask(0, l1, l2)
  end, "Codex: ask about the code", "ask")
  if keys.chat then
    map_unless_taken("chat", "n", keys.chat, function()
      M.chat()
    end, "Codex: open the chat")
  end
  if keys.review then
    map_unless_taken("review", "n", keys.review, function()
      M.review("uncommitted")
    end, "Codex: review uncommitted changes")
  end
end


local function watch_progress()
  local group = vim.api.nvim_create_augroup("codex_progress", { clear = true })
  vim.api.nvim_create_autocmd("LspProgress", {
    group = group,
    callback = function(ev)
      local data = ev.data or {}
      local client = data.client_id and vim.lsp.get_client_by_id(data.client_id)
      if client and client.name == "codex" and data.params then
        require("codex.status").on_progress(data.params, client.id)
      end
    end,
  })
end

local function file_buffer_loaded()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" and vim.api.nvim_buf_get_name(buf) ~= "" then
      return true
    end
  end
  return false
end

-- The server side of the plugin (vim.lsp, the lsp-config, autostart) is set up when it is first
-- needed: the first file buffer with autostart on, else the first command. A second setup()
-- applies its options at once.
local function activate_when_needed(options)
  local client = package.loaded["codex.client"]
  if client and client.activated() then
    client.activate(true)
    return
  end
  local group = vim.api.nvim_create_augroup("codex_activate", { clear = true })
  if not options.autostart then
    return
  end
  if file_buffer_loaded() then
    require("codex.client").activate()
    return
  end
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
    group = group,
    once = true,
    callback = function()
      vim.api.nvim_del_augroup_by_id(group)
      -- Autostart attaches the buffers already open, this one included.
      require("codex.client").activate()
    end,
  })
end

-- The plugin's folder (two levels above this file), where doc/ is.
local plugin_root = vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(debug.getinfo(1, "S").source:sub(2))))

--- Generate the help tags when they are missing (a checkout without them, a package manager
--- that dropped them), so `:help codex` works at once. A read-only folder is left alone.
function M.ensure_helptags()
  local doc = vim.fs.joinpath(plugin_root, "doc")
  if vim.uv.fs_stat(vim.fs.joinpath(doc, "tags")) == nil and vim.uv.fs_stat(doc) ~= nil then
    pcall(vim.cmd.helptags, vim.fn.fnameescape(doc))
  end
  return doc
end

--- Configure the plugin. Options are described in :help codex-options.
function M.setup(opts)
  local options, err = require("codex.config").apply(opts)
  if not options then
    vim.notify("codex: invalid setup() options: " .. err, vim.log.levels.ERROR)
    return
  end
  configured = true
  M.ensure_helptags()
  require("codex.commands").register()
  set_keymaps(options.keymaps)
  watch_progress()
  activate_when_needed(options)
end

function M.configured()
  return configured
end

--- setup() with defaults, for commands run before the user called it.
function M.ensure_setup()
  if not configured then
    M.setup({})
  end
end

function M.chat(message)
  M.ensure_setup()
  local compose = require("codex.compose")
  compose.set_origin()
  local unsent = nil
  if message and vim.trim(message) ~= "" and not compose.send(vim.trim(message)) then
    unsent = vim.trim(message)
  end
  local win = require("codex.chat").open()
  if unsent then
    compose.set_text(unsent) -- kept in the input area, to send once the server runs
  end
  require("codex.compose").focus(win, require("codex.config").options.chat.auto_insert)
  return win
end

function M.new_thread()
  M.ensure_setup()
  require("codex.threads").new_chat()
end

function M.threads()
  M.ensure_setup()
  require("codex.threads").pick()
end

function M.interrupt()
  M.ensure_setup()
  require("codex.threads").interrupt()
end

--- Undo the last Codex turn that changed files, on disk and in the buffers.
function M.undo_turn(thread_id)
  M.ensure_setup()
  require("codex.threads").undo_turn(thread_id)
end

--- Edit lines l1..l2 of `bufnr` (default: current line) following `instruction`;
--- without an instruction, ask for one.
function M.edit(instruction, bufnr, l1, l2)
  M.ensure_setup()
  if not instruction or vim.trim(instruction) == "" then
    return require("codex.inline").prompt_edit(bufnr, l1, l2)
  end
  require("codex.inline").edit(instruction, bufnr, l1, l2)
end

--- Ask about lines l1..l2 (or nothing selected) in the chat.
function M.ask(question, bufnr, l1, l2)
  M.ensure_setup()
  if not question or vim.trim(question) == "" then
    return require("codex.inline").prompt_ask(bufnr, l1, l2)
  end
  require("codex.inline").ask(question, bufnr, l1, l2)
end

function M.review(args)
  M.ensure_setup()
  require("codex.review").run(args)
end

function M.accept()
  return require("codex.preview").accept()
end

function M.reject()
  return require("codex.preview").reject()
end

--- `:CodexLog`: the LSP log, where Neovim writes the server's stderr and log messages.
function M.log()
  local path = vim.lsp.get_log_path()
  vim.cmd("botright split " .. vim.fn.fnameescape(path))
  vim.bo.readonly = true
  vim.cmd("normal! G")
  return path
end

--- Statusline component; see :help codex-statusline.
function M.statusline()
  return require("codex.status").statusline()
end

return M
