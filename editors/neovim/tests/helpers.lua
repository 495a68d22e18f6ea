-- tests/helpers.lua: a tiny harness for the headless suites: loads the plugin from this
-- checkout, records notifications, waits on conditions and exits with the result.
-- The pytest wrapper (tests/neovim/test_neovim.py) sets the environment each suite reads.
local H = {}

H.root = assert(os.getenv("CODEX_NVIM_ROOT"), "CODEX_NVIM_ROOT is not set; run through pytest")
H.ws = os.getenv("CODEX_NVIM_WS")
H.timeout = tonumber(os.getenv("CODEX_NVIM_TIMEOUT") or "") or 60000
H.notes = {}
H.default_select = vim.ui.select -- Neovim's own, before a test replaces it
H.progress = {}

local function log(text)
  io.stderr:write(text .. "\n")
end
H.log = log

--- The server command the wrapper chose.
function H.server_cmd()
  local raw = os.getenv("CODEX_NVIM_SERVER_CMD")
  assert(raw, "CODEX_NVIM_SERVER_CMD is not set")
  return vim.json.decode(raw)
end

--- Load the plugin and call setup() with the server command the wrapper chose. Suites start
--- it cold (each its own process, nothing left running) unless they pass `warm = true`, or
--- `plugin_defaults` to leave every option but `cmd` at the plugin's default.
function H.setup(opts, plugin_defaults)
  if os.getenv("CODEX_NVIM_DEBUG") then
    vim.lsp.set_log_level("debug")
  end
  vim.opt.runtimepath:prepend(H.root)
  vim.notify = function(msg, level)
    table.insert(H.notes, { msg = tostring(msg), level = level or vim.log.levels.INFO })
    log(("[notify %s] %s"):format(level or "-", tostring(msg)))
  end
  vim.api.nvim_create_autocmd("LspProgress", {
    callback = function(ev)
      local value = ev.data and ev.data.params and ev.data.params.value or {}
      table.insert(H.progress, value.kind or "?")
    end,
  })
  vim.cmd("runtime plugin/codex.lua")
  local cmd = H.server_cmd()
  local base = plugin_defaults and { cmd = cmd } or { cmd = cmd, warm = false }
  require("codex").setup(vim.tbl_deep_extend("force", base, opts or {}))
end

--- Wait until `cond()` is true; fail the suite with `what` if it never is, or at once when
--- an error is shown to the user meanwhile (unless `allow_errors`).
function H.wait(what, cond, timeout, allow_errors)
  local seen = #H.notes
  local failed = nil
  local ok = vim.wait(timeout or H.timeout, function()
    for i = seen + 1, #H.notes do
      if not allow_errors and H.notes[i].level == vim.log.levels.ERROR then
        failed = H.notes[i].msg
        return true
      end
    end
    seen = #H.notes
    local good, value = pcall(cond)
    return good and value
  end, 20)
  if failed then
    error(("while waiting for %s, an error was shown: %s"):format(what, failed), 2)
  end
  if not ok then
    error("timed out waiting for " .. what, 2)
  end
end

local function show(v)
  return type(v) == "string" and v or vim.inspect(v)
end

function H.eq(actual, expected, what)
  if not vim.deep_equal(actual, expected) then
    error(("%s: expected %s, got %s"):format(what or "values differ", show(expected), show(actual)), 2)
  end
end

function H.ok(value, what)
  if not value then
    error((what or "expected a true value") .. (value == nil and "" or (": got " .. show(value))), 2)
  end
  return value
end

--- `needle` (plain text) occurs in `text` (a string or a list of lines).
function H.has(text, needle, what)
  if type(text) == "table" then
    text = table.concat(text, "\n")
  end
  if not text:find(needle, 1, true) then
    error(("%s: %q not found in:\n%s"):format(what or "missing text", needle, text), 2)
  end
end

function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf or 0, 0, -1, false)
end

function H.read(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("*a")
  f:close()
  return text
end

--- Type keys as a user would (mappings apply) and process them now.
function H.keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "mx", false)
end

--- No error was shown to the user.
function H.no_errors()
  for _, note in ipairs(H.notes) do
    if note.level == vim.log.levels.ERROR then
      error("an error was shown: " .. note.msg, 2)
    end
  end
end

--- The thread whose turns are running or done.
function H.thread_idle(thread_id)
  local t = require("codex.threads").get(thread_id)
  return t ~= nil and t.turn == nil
end

--- Replace vim.ui.select like a picker would: it answers later, from the event loop.
--- `choose(items, opts)` returns the item to pick (or nil to dismiss).
function H.fake_select(choose)
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    table.insert(asked, { prompt = opts.prompt, kind = opts.kind, labels = labels })
    vim.defer_fn(function()
      on_choice(choose(items, opts, labels))
    end, 1)
  end
  return asked
end

function H.stop_clients()
  for _, client in ipairs(vim.lsp.get_clients({ _uninitialized = true })) do
    if vim.fn.has("nvim-0.11") == 1 then
      client:stop(true)
    else
      client.stop(true)
    end
  end
  vim.wait(10000, function()
    return #vim.lsp.get_clients({ _uninitialized = true }) == 0
  end, 20)
end

--- The characters on screen right now, as a terminal attached to this Neovim shows them
--- (the wrapper runs the suite with `screen=True`). Nothing is redrawn for the question: a
--- screen the plugin left stale is returned stale.
local screen_token = 0
function H.screen()
  assert(os.getenv("CODEX_NVIM_SCREEN"), "run the suite with screen=True to read the screen")
  H.wait("a UI to attach", function()
    return #vim.api.nvim_list_uis() > 0
  end)
  screen_token = screen_token + 1
  local token = screen_token
  vim.rpcnotify(vim.api.nvim_list_uis()[1].chan, "codex_test_screen", token)
  H.wait("the screen", function()
    return _G.codex_test_screens ~= nil and _G.codex_test_screens[token] ~= nil
  end)
  local lines = _G.codex_test_screens[token]
  _G.codex_test_screens[token] = nil
  log("[screen]\n" .. table.concat(lines, "\n"))
  return lines
end

--- Wait for the UI, so what the plugin draws from now on reaches a screen.
function H.wait_for_ui()
  H.wait("a UI to attach", function()
    return #vim.api.nvim_list_uis() > 0
  end)
end

--- Run the suite's body; exit 0 when it passes, 1 with the traceback when it fails.
function H.run(name, body)
  local ok, err = xpcall(body, debug.traceback)
  H.stop_clients()
  if ok then
    io.stdout:write("PASS " .. name .. "\n")
    os.exit(0)
  end
  log("FAIL " .. name .. ": " .. tostring(err))
  os.exit(1)
end

return H
