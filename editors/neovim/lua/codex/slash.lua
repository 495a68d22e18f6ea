-- codex.slash: slash commands typed as a chat message: /new, /threads, /model [name],
-- /mode, /review [target], /compact, /interrupt, /image PATH and /url URL, and the user's own prompts. Each is one of the plugin's actions or one
-- request to the server; none is sent to the model.
local M = {}

local function threads()
  return require("codex.threads")
end

local function model(arg)
  local t = threads()
  if arg ~= "" then
    t.set_model(arg)
    return
  end
  local client = require("codex.client").get(require("codex.compose").origin_buf())
  if not client then
    return
  end
  -- An empty Lua table would go out as a JSON array; the server wants an object.
  require("codex.client").request(client, "codex/model/list", vim.empty_dict(), function(result)
    local models = type(result) == "table" and result.data or {}
    if #models == 0 then
      require("codex.client").notify("the server lists no models")
      return
    end
    local thread = t.get(t.current)
    local current = thread and (thread.model or thread.started_model)
    vim.ui.select(models, {
      prompt = "Model for this thread",
      kind = "codex.model",
      format_item = function(m)
        local name = m.displayName ~= vim.NIL and m.displayName or nil
        local label = name and name ~= m.model and (m.model .. " — " .. name) or (m.model or m.id)
        -- The model the thread's next turn would use is marked.
        return ((m.model or m.id) == current and "● " or "  ") .. label
      end,
    }, function(choice)
      if choice then
        t.set_model(choice.model or choice.id)
      end
    end)
  end)
end

local function compact()
  local t = threads()
  t.ensure_chat(require("codex.compose").origin_buf(), function(thread_id, client)
    require("codex.client").request(client, "codex/thread/compact/start", { threadId = thread_id })
  end)
end

M.commands = {
  ["/new"] = { desc = "start a new thread", run = function()
    threads().new_chat(require("codex.compose").origin_buf())
  end },
  ["/threads"] = { desc = "resume a thread", run = function()
    threads().pick(require("codex.compose").origin_buf())
  end },
  ["/model"] = { desc = "choose the model for this thread's next turns", run = model },
  ["/review"] = { desc = "review changes: uncommitted | branch NAME | commit SHA", run = function(arg)
    require("codex.review").run(arg, require("codex.compose").origin_buf())
  end },
  ["/mode"] = { desc = "how Codex works from the next message: plan | agent | read-only | full", run = function(arg)
    require("codex.mode").set(arg, require("codex.compose").origin_buf())
  end },
  ["/compact"] = { desc = "summarize the thread to free context", run = compact },
  ["/interrupt"] = { desc = "interrupt the running turn", run = function()
    threads().interrupt()
  end },
  ["/image"] = { desc = "attach an image file to the next message: /image PATH", run = function(arg)
    require("codex.context").attach("image " .. arg)
  end },
  ["/url"] = { desc = "attach a web page's text to the next message: /url URL", run = function(arg)
    require("codex.context").attach("url " .. arg)
  end },
}

-- The user's prompt library: `<name>.md` files in `prompt_dir` (default: the codex/prompts
-- folder of Neovim's config), each run as `/name [text]`. Only the user's own folder is read:
-- not the project's, which the agent's commands can write.
local function prompt_dir()
  local dir = require("codex.config").options.prompt_dir
  return vim.fs.normalize(dir or vim.fs.joinpath(vim.fn.stdpath("config"), "codex", "prompts"))
end

local function prompts()
  local out = {}
  for name, kind in vim.fs.dir(prompt_dir()) do
    local stem = name:match("^([%w_%-]+)%.md$")
    if stem and kind == "file" and not M.commands["/" .. stem] then
      out["/" .. stem] = vim.fs.joinpath(prompt_dir(), name)
    end
  end
  return out
end

--- A prompt of the library with `arg` added: `$ARGUMENTS` in the file is replaced by it,
--- else it follows the prompt on a line of its own.
local function prompt_text(path, arg)
  local text = vim.trim(table.concat(vim.fn.readfile(path), "\n"))
  if text:find("$ARGUMENTS", 1, true) then
    return (text:gsub("%$ARGUMENTS", function()
      return arg
    end))
  end
  return arg ~= "" and (text .. "\n\n" .. arg) or text
end

function M.names()
  local out = vim.tbl_keys(M.commands)
  vim.list_extend(out, vim.tbl_keys(prompts()))
  table.sort(out)
  return out
end

--- Run `text` when it is a slash command. Returns (true, false) when it ran; (true, true)
--- when it looks like one but is not known (the text should stay); false otherwise, with the
--- message to send instead as a third value when it names a prompt of the library.
function M.run(text)
  local name, arg = text:match("^(/%S+)%s*(.-)%s*$")
  if not name or text:find("\n", 1, true) then
    return false
  end
  local command = M.commands[name]
  local prompt = not command and prompts()[name]
  if prompt then
    return false, false, prompt_text(prompt, arg)
  end
  if not command then
    require("codex.client").notify(
      ("unknown command %s; the commands are %s"):format(name, table.concat(M.names(), " ")),
      vim.log.levels.WARN
    )
    return true, true
  end
  command.run(arg)
  return true, false
end

return M
