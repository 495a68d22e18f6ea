-- codex.approvals: answers the server's approval and question requests. Commands and
-- questions go through vim.ui.select / vim.ui.input (so any picker that replaces them works);
-- file changes are previewed inline when their buffer is on screen, else offered by select.
-- Every untrusted part of a prompt (command, paths, reason, options) goes through
-- codex.visible, so no escape sequence or bidi override reaches the screen.
local async = require("codex.async")
local view = require("codex.approval_view")
local threads = require("codex.threads")
local transcript = require("codex.transcript")
local shown = require("codex.visible").visible

local M = {}

local DECISIONS = {
  { label = "Approve", decision = "accept" },
  { label = "Approve for this session", decision = "acceptForSession" },
  { label = "Deny (the agent carries on)", decision = "decline" },
  { label = "Deny and say why (Codex is told)", decision = "decline", why = true },
  { label = "Deny and stop the turn", decision = "cancel" },
}

-- Offered instead of Approve while the approval window cannot hold the whole command.
local SHOW_WHOLE = { label = "Show the whole command (Approve comes after)", decision = "show" }

local function one_line(text)
  local line = tostring(text or ""):gsub("%s*\n%s*", " ⏎ ")
  return shown(line)
end

-- The choices the server allows (`availableDecisions`, when it lists plain strings).
local function choices(params)
  local allowed = params.availableDecisions
  if type(allowed) ~= "table" or #allowed == 0 then
    return DECISIONS
  end
  local set = {}
  for _, d in ipairs(allowed) do
    if type(d) == "string" then
      set[d] = true
    end
  end
  local list = vim.tbl_filter(function(c)
    return set[c.decision]
  end, DECISIONS)
  return #list > 0 and list or DECISIONS
end

local function ask(items, prompt, kind, params)
  local choice = async.select(items, {
    prompt = prompt,
    kind = kind,
    format_item = function(item)
      return item.label
    end,
    codex = params, -- the full request, for pickers that want to show more
  })
  -- A dismissed prompt declines: the agent is told and carries on.
  return choice and choice.decision or "decline", choice and choice.why
end

-- Declining with a reason: the user writes it, and it joins the running turn (`turn/steer`)
-- before the answer goes back, so the model reads it with the refusal.
local function tell_why(params, ctx)
  local reason = async.input({ prompt = "Why not? (Codex is told) " })
  if not reason or vim.trim(reason) == "" then
    return
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  async.await(function(resolve)
    require("codex.client").request(client, "codex/turn/steer", {
      threadId = params.threadId,
      expectedTurnId = params.turnId,
      input = { { type = "text", text = "I declined that. " .. vim.trim(reason) } },
    }, resolve, { on_error = resolve })
  end)
end

--- The prompt for a command approval: command, working directory and reason on one line,
--- which the default vim.ui.select and pickers alike can show.
function M.command_prompt(params)
  local command = one_line(require("codex.render").command_text(params.command or "(unknown command)"))
  local where = view.unsandboxed(params) and " OUTSIDE the sandbox" or ""
  local text = ("Codex wants to run%s `%s`"):format(where, command)
  if params.cwd and params.cwd ~= vim.NIL then
    text = text .. " in " .. shown(vim.fn.fnamemodify(params.cwd, ":~"))
  end
  local net = params.networkApprovalContext
  if type(net) == "table" and net.host then
    text = text .. (" (network access to %s)"):format(shown(net.host))
  end
  if params.reason and params.reason ~= vim.NIL and params.reason ~= "" then
    text = text .. " — " .. one_line(params.reason)
  end
  return text
end

--- `codex/item/commandExecution/requestApproval` -> { decision }.
function M.command(params, ctx)
  transcript.set_awaiting(params.threadId, params.turnId, params.itemId, true)
  local title = view.unsandboxed(params) and "Codex wants to run a command OUTSIDE the sandbox"
    or "Codex wants to run a command"
  local lines = view.command_lines(params)
  local prompt = M.command_prompt(params)
  local float = view.open(title, lines, "sh")
  local ok, decision, why
  if float.cut then
    -- Approve waits until the whole command has been in sight.
    local first = { SHOW_WHOLE }
    for _, c in ipairs(choices(params)) do
      if c.decision == "decline" or c.decision == "cancel" then
        table.insert(first, c)
      end
    end
    ok, decision, why = pcall(ask, first, prompt, "codex.command_approval", params)
    if ok and decision == SHOW_WHOLE.decision then
      view.close(float)
      ok, decision = pcall(view.read_whole, title, lines)
      float = view.open(title, lines, "sh")
      if ok then
        ok, decision, why = pcall(ask, choices(params), prompt, "codex.command_approval", params)
      end
    end
  else
    ok, decision, why = pcall(ask, choices(params), prompt, "codex.command_approval", params)
  end
  view.close(float)
  if ok and why then
    ok = pcall(tell_why, params, ctx)
  end
  transcript.set_awaiting(params.threadId, params.turnId, params.itemId, false)
  if not ok then
    error(decision, 0)
  end
  return { decision = decision }
end

--- The changes an approval is about: codex-lsp's own copy (`codexLsp.changes`), else those
--- of the `fileChange` item announced before it (the v2 request names the item only).
function M.changes_of(params)
  local extras = params.codexLsp
  if type(extras) == "table" and type(extras.changes) == "table" then
    return extras.changes
  end
  if type(params.changes) == "table" then
    return params.changes
  end
  local item = transcript.item_data(params.threadId, params.turnId, params.itemId)
  return item and type(item.changes) == "table" and item.changes or {}
end

--- The select prompt for a file change not previewed inline.
function M.file_prompt(params)
  local names = {}
  for _, change in ipairs(M.changes_of(params)) do
    table.insert(names, shown(vim.fn.fnamemodify(change.path or "?", ":~:.")))
  end
  local text = "Codex wants to change " .. (#names > 0 and table.concat(names, ", ") or "files")
  if params.reason and params.reason ~= vim.NIL and params.reason ~= "" then
    text = text .. " — " .. one_line(params.reason)
  end
  if params.grantRoot and params.grantRoot ~= vim.NIL then
    text = text .. " (and to write anywhere under " .. shown(params.grantRoot) .. ")"
  end
  -- :Codex draws the chat's current thread only (not an inline edit's, nor another chat's).
  if params.threadId ~= nil and params.threadId == threads.current then
    text = text .. " (the diff is in :Codex)"
  end
  return text
end

--- `codex/item/fileChange/requestApproval` -> { decision, declinedHunks? }: hunks rejected in
--- the inline preview are named, and the server applies the rest.
function M.file_change(params, ctx)
  transcript.set_awaiting(params.threadId, params.turnId, params.itemId, true)
  local thread = threads.get(params.threadId)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local cwd = (thread and thread.cwd) or (client and client.root_dir)
  local changes = M.changes_of(params)
  local float = nil
  local decision, declined, why = async.await(function(resolve)
    local proposal = vim.tbl_extend("force", params, { changes = changes })
    local inline = require("codex.preview").show(proposal, { cwd = cwd, client_id = ctx.client_id }, resolve)
    if inline then
      view.redraw()
    else
      float = view.open("Codex wants to change files", view.change_lines(changes, params), "diff")
      vim.ui.select(choices(params), {
        prompt = M.file_prompt(params),
        kind = "codex.file_change_approval",
        format_item = function(item)
          return item.label
        end,
        codex = params,
      }, function(choice)
        resolve(choice and choice.decision or "decline", nil, choice and choice.why)
      end)
    end
  end)
  view.close(float)
  if why then
    tell_why(params, ctx)
  end
  transcript.set_awaiting(params.threadId, params.turnId, params.itemId, false)
  return { decision = decision, declinedHunks = declined }
end

local OTHER = "Something else…"

local function answer_question(q)
  local title = q.header and q.header ~= vim.NIL and q.header ~= "" and (q.header .. ": ") or ""
  local prompt = one_line(title .. (q.question or ""))
  local options = type(q.options) == "table" and q.options or {}
  if #options > 0 then
    local items = vim.deepcopy(options)
    if q.isOther then
      table.insert(items, { label = OTHER })
    end
    local choice = async.select(items, {
      prompt = prompt,
      kind = "codex.user_input",
      format_item = function(o)
        if o.description and o.description ~= vim.NIL and o.description ~= "" then
          return shown(o.label) .. " — " .. one_line(o.description)
        end
        return shown(o.label)
      end,
      codex = q,
    })
    if not choice then
      return nil
    end
    if choice.label ~= OTHER then
      return choice.label
    end
  end
  if q.isSecret then
    local ok, secret = pcall(vim.fn.inputsecret, prompt .. " ")
    return ok and secret ~= "" and secret or nil
  end
  return async.input({ prompt = prompt .. " " })
end

--- `codex/item/tool/requestUserInput` -> { answers = { [id] = { answers = { ... } } } }.
--- A cancelled question ends the asking; the answers so far are sent.
function M.user_input(params, ctx)
  local answers = vim.empty_dict()
  for _, q in ipairs(params.questions or {}) do
    local answer = answer_question(q)
    if answer == nil then
      break
    end
    answers[q.id] = { answers = { answer } }
  end
  return { answers = answers }
end

return M
