-- codex.config: the options `require("codex").setup()` accepts, their defaults, and checks.
local M = {}

--- `codex-lsp` on PATH, else the one `scripts/setup` put in this checkout's `.venv`: the
--- plugin works from a checkout without a PATH entry.
local function default_cmd()
  if vim.fn.executable("codex-lsp") == 1 then
    return { "codex-lsp", "serve" }
  end
  -- This file is <checkout>/editors/neovim/lua/codex/config.lua.
  local here = debug.getinfo(1, "S").source:sub(2)
  local bin = vim.fn.fnamemodify(here, ":p:h:h:h:h:h") .. "/.venv/bin/codex-lsp"
  if vim.fn.executable(bin) == 1 then
    return { bin, "serve" }
  end
  return { "codex-lsp", "serve" }
end

M.defaults = {
  -- How to start the language server; it must speak LSP on stdio.
  cmd = default_cmd(),
  -- Start it warm: a session forked from the per-user server that `cmd --print-launcher`
  -- names, ready in milliseconds; `cmd` itself runs when that is not possible.
  warm = true,
  -- Extra environment for the server process (e.g. { CODEX_HOME = "/path" }).
  cmd_env = nil,
  -- Files or folders that mark a project root; the server runs once per root.
  root_markers = { ".git" },
  -- Start the server (and attach file buffers) as soon as a file buffer is entered.
  autostart = true,
  -- Model for new threads; nil keeps config.toml's `model`.
  model = nil,
  -- Approval policy for chat threads: "untrusted" | "on-failure" | "on-request" | "never";
  -- nil keeps config.toml's `approval_policy`.
  approval_policy = nil,
  -- Sandbox for chat threads: "read-only" | "workspace-write" | "danger-full-access" | nil.
  sandbox = nil,
  chat = {
    -- "split" (a vertical split on the right), "hsplit" (below) or "float".
    layout = "split",
    -- Columns for "split", lines for "hsplit"; a number below 1 is a fraction of the editor.
    size = 0.4,
    -- Size of the float as fractions of the editor.
    float = { width = 0.8, height = 0.8, border = "rounded" },
    -- `:Codex` leaves the cursor in the input area; in Insert mode when this is true.
    auto_insert = false,
  },
  inline = {
    -- Inline edits run on their own thread with this policy, so every patch is previewed
    -- in the buffer before it lands.
    approval_policy = "untrusted",
    -- Normal-mode key that stops the edit, in the edited buffer while it runs (false: none).
    interrupt = "<C-c>",
  },
  review = {
    -- Open the quickfix list when a review reports findings.
    open_quickfix = true,
  },
  -- Global mappings (false disables one). A key the user has mapped already is left alone
  -- (`:checkhealth codex` lists it). `prefix` puts the keys not set here under it instead
  -- (prefix .. "e", "a", "c", "r"). Buffer-local keys are in `preview` and `chat_keys`.
  keymaps = {
    prefix = nil,
    edit = "<leader>ce", -- normal/visual: ask for an instruction, edit the selection
    ask = "<leader>ca", -- normal/visual: ask a question about the selection
    chat = "<leader>cc", -- open the chat
    review = "<leader>cr", -- review uncommitted changes
  },
  -- The prompt library: each `<name>.md` here is sent by typing `/name [text]` in the chat;
  -- nil: the codex/prompts folder of Neovim's config (stdpath("config")).
  prompt_dir = nil,
  -- Keys in a buffer showing an inline diff preview (they exist only during the preview).
  preview = {
    accept = "ga", -- accept the whole change
    reject = "gr", -- reject the whole change
    accept_hunk = "gy", -- accept the hunk under the cursor
    reject_hunk = "gn", -- reject the hunk under the cursor
    next_hunk = "]c",
    prev_hunk = "[c",
  },
  -- Keys in the chat buffer (`send` moves to the input area).
  chat_keys = { send = "<CR>", interrupt = "<C-c>", close = "q", threads = "gh", new = "gn" },
  -- Keys in the chat's input area.
  input_keys = {
    submit = "<C-s>", -- normal and insert mode
    submit_normal = "<CR>", -- normal mode
    history_prev = "<Up>", -- normal mode
    history_next = "<Down>", -- normal mode
    interrupt = "<C-c>",
    close = "q", -- normal mode
  },
}

M.options = vim.deepcopy(M.defaults)

-- The default global keys after `keymaps.prefix`.
M.key_suffixes = { edit = "e", ask = "a", chat = "c", review = "r" }

local layouts = { split = true, hsplit = true, float = true }
local policies = { untrusted = true, ["on-failure"] = true, ["on-request"] = true, never = true }
local sandboxes = { ["read-only"] = true, ["workspace-write"] = true, ["danger-full-access"] = true }

--- Merge user options over the defaults; returns nil and a message when an option is wrong.
function M.apply(user)
  user = user or {}
  local merged = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), user)
  -- Lists replace the default instead of merging into it item by item.
  for _, key in ipairs({ "cmd", "root_markers" }) do
    if user[key] ~= nil then
      merged[key] = vim.deepcopy(user[key])
    end
  end
  local prefix = merged.keymaps.prefix
  if prefix ~= nil and type(prefix) ~= "string" then
    return nil, "`keymaps.prefix` must be a string, e.g. '<leader>a'"
  end
  if prefix then
    local given = user.keymaps or {}
    for name, suffix in pairs(M.key_suffixes) do
      if given[name] == nil then
        merged.keymaps[name] = prefix .. suffix
      end
    end
  end
  if type(merged.cmd) == "string" then
    merged.cmd = { merged.cmd }
  end
  if type(merged.cmd) ~= "table" or type(merged.cmd[1]) ~= "string" then
    return nil, "`cmd` must be a list of strings, e.g. { 'codex-lsp', 'serve' }"
  end
  if type(merged.warm) ~= "boolean" then
    return nil, "`warm` must be true or false"
  end
  if not layouts[merged.chat.layout] then
    return nil, ("`chat.layout` must be split, hsplit or float, not %q"):format(tostring(merged.chat.layout))
  end
  local chosen = { -- nil values drop out: nil keeps config.toml's policy
    approval_policy = merged.approval_policy,
    ["inline.approval_policy"] = merged.inline.approval_policy,
  }
  for key, value in pairs(chosen) do
    if not policies[value] then
      return nil, ("`%s` must be untrusted, on-failure, on-request or never"):format(key)
    end
  end
  if merged.sandbox ~= nil and not sandboxes[merged.sandbox] then
    return nil, "`sandbox` must be read-only, workspace-write or danger-full-access"
  end
  M.options = merged
  return merged
end

return M
