-- codex.render: turns v2 ThreadItems (and plans, notes) into markdown lines for the chat.
local M = {}

local OUTPUT_LINES = 200 -- a command's output shown in the chat is cut to its last lines

local function split(text)
  if text == nil or text == "" then
    return {}
  end
  return vim.split(text, "\n", { plain = true })
end

local function append(out, list)
  for _, line in ipairs(list) do
    table.insert(out, line)
  end
  return out
end

--- A fence longer than any run of backticks in `text`, so the text cannot close it.
local function fence_for(text)
  local longest = 2
  for run in (text or ""):gmatch("`+") do
    longest = math.max(longest, #run)
  end
  return string.rep("`", longest + 1)
end

--- `text` as an inline code span that its own backticks cannot end.
local function code_span(text)
  local longest = 0
  for run in text:gmatch("`+") do
    longest = math.max(longest, #run)
  end
  local delim = string.rep("`", longest + 1)
  local pad = (text:sub(1, 1) == "`" or text:sub(-1) == "`") and " " or ""
  return delim .. pad .. text .. pad .. delim
end
M.code_span = code_span

local function fenced(out, lang, text)
  local fence = fence_for(text)
  table.insert(out, fence .. (lang or ""))
  local lines = split(text)
  if lines[#lines] == "" then
    table.remove(lines)
  end
  append(out, lines)
  table.insert(out, fence)
  return out
end

-- A thread rebuilt from its rollout (resume, read) has the message and the labels of its
-- attached context joined in one text, the labels last: split them back off.
local function split_labels(text)
  local lines = vim.split(text or "", "\n", { plain = true })
  local first = #lines + 1
  while first > 2 and lines[first - 1]:match("^Context: .") do
    first = first - 1
  end
  if first > #lines then
    return text, {}
  end
  return table.concat(vim.list_slice(lines, 1, first - 1), "\n"), vim.list_slice(lines, first)
end

local function user_text(item)
  local parts = {}
  local texts = 0
  local content = item.content or {}
  local text_inputs = vim.tbl_filter(function(input)
    return input.type == "text"
  end, content)
  for _, input in ipairs(content) do
    if input.type == "text" then
      texts = texts + 1
      if texts == 1 and #text_inputs == 1 then
        local message, labels = split_labels(input.text)
        table.insert(parts, message)
        for n, label in ipairs(labels) do
          table.insert(parts, (n == 1 and "\n" or "") .. "> " .. label)
        end
      elseif texts == 1 then
        table.insert(parts, input.text)
      else
        -- Attached context follows the message: its first line says what it is.
        local first = vim.split(input.text or "", "\n", { plain = true })[1]
        table.insert(parts, (texts == 2 and "\n" or "") .. "> " .. first)
      end
    elseif input.type == "image" or input.type == "localImage" then
      table.insert(parts, "[image " .. (input.path or input.url or "") .. "]")
    elseif input.name then
      table.insert(parts, "[" .. input.type .. " " .. input.name .. "]")
    end
  end
  return table.concat(parts, "\n")
end

local function tail(text, n)
  local lines = split(text)
  if lines[#lines] == "" then
    table.remove(lines)
  end
  if #lines <= n then
    return lines, 0
  end
  return vim.list_slice(lines, #lines - n + 1), #lines - n
end

--- The command a user would have typed: `bash -lc '<script>'` wrappers are taken off.
function M.command_text(command)
  command = tostring(command or "?")
  local script = command:match("^%S*bash %-l?c '(.*)'$")
  if script then
    return (script:gsub([['"'"']], "'"))
  end
  return command
end

local command_state = {
  inProgress = "running…",
  completed = "done",
  failed = "failed",
  declined = "declined",
}

local function command(item)
  local state = command_state[item.status] or item.status or ""
  if item.awaiting then
    state = "waiting for approval"
  elseif item.exitCode ~= nil and item.exitCode ~= vim.NIL and item.status ~= "declined" then
    state = ("exit %d"):format(item.exitCode)
  end
  local out = { ("**$** %s  _(%s)_"):format(code_span(M.command_text(item.command)), state) }
  if item.cwd then
    table.insert(out, ("_in %s_"):format(vim.fn.fnamemodify(item.cwd, ":~")))
  end
  local output = item.output
  if item.aggregatedOutput and item.aggregatedOutput ~= vim.NIL and item.aggregatedOutput ~= "" then
    output = item.aggregatedOutput
  end
  if output and output ~= "" then
    local lines, hidden = tail(output, OUTPUT_LINES)
    local fence = fence_for(output)
    table.insert(out, fence .. "text")
    if hidden > 0 then
      table.insert(out, ("… %d earlier lines"):format(hidden))
    end
    append(out, lines)
    table.insert(out, fence)
  end
  return out
end

local change_kind = { add = "add", delete = "delete", update = "update" }

local function file_change(item)
  local state = command_state[item.status] or item.status or ""
  if item.awaiting then
    state = "waiting for approval"
  elseif item.status == "completed" then
    state = "applied"
  end
  local out = { ("**Edit** _(%s)_"):format(state) }
  for _, change in ipairs(item.changes or {}) do
    local kind = type(change.kind) == "table" and change.kind.type or change.kind
    local path = vim.fn.fnamemodify(change.path or "?", ":~:.")
    table.insert(out, ("%s %s"):format(change_kind[kind] or kind or "change", code_span(path)))
    if change.diff and change.diff ~= "" then
      fenced(out, "diff", change.diff)
    end
  end
  return out
end

local agent_activity = {
  started = "Spawned agent",
  interacted = "Messaged agent",
  interrupted = "Interrupted agent",
  completed = "Finished: agent",
}

local plan_marks = { completed = "[x]", inProgress = "[~]", pending = "[ ]" }

--- Lines for one transcript block.
function M.block(block)
  local d = block.data
  local kind = block.kind
  local out
  if kind == "userMessage" then
    out = append({ "## You", "" }, split(user_text(d)))
  elseif kind == "agentMessage" then
    out = append({ "## Codex", "" }, split(d.text))
  elseif kind == "reasoning" then
    local summary = d.summaryText
    if (not summary or summary == "") and type(d.summary) == "table" then
      summary = table.concat(d.summary, "\n")
    end
    if not summary or summary == "" then
      return { "> _thinking…_" }
    end
    out = {}
    for _, line in ipairs(split(summary)) do
      table.insert(out, "> " .. line)
    end
  elseif kind == "commandExecution" then
    out = command(d)
  elseif kind == "fileChange" then
    out = file_change(d)
  elseif kind == "plan" then
    -- Two sources share this kind: `turn/plan/updated` (explanation + steps) and a v2
    -- `plan` ThreadItem (a proposed plan as markdown `text`).
    out = { "**Plan**" }
    if type(d.text) == "string" and d.text ~= "" then
      append(out, split(d.text))
    end
    if d.explanation and d.explanation ~= vim.NIL and d.explanation ~= "" then
      append(out, split(d.explanation))
    end
    for _, step in ipairs(d.plan or {}) do
      table.insert(out, ("- %s %s"):format(plan_marks[step.status] or "[ ]", step.step))
    end
  elseif kind == "enteredReviewMode" then
    out = { ("## Review: %s"):format(d.review or "") }
  elseif kind == "exitedReviewMode" or kind == "codeReview" then
    out = append({ "## Review" , "" }, split(d.review or d.text or ""))
  elseif kind == "mcpToolCall" then
    local name = ("%s/%s"):format(d.server or "?", d.tool or "?")
    out = { ("**Tool** %s _(%s)_"):format(code_span(name), d.status or "") }
  elseif kind == "webSearch" then
    out = { ("**Web search** %s"):format(code_span(d.query or "")) }
  elseif kind == "contextCompaction" then
    out = { "_Context compacted._" }
  elseif kind == "subAgentActivity" then
    local model = type(d.model) == "string" and (" _(%s)_"):format(d.model) or ""
    out = { ("**%s** %s%s"):format(agent_activity[d.kind] or d.kind or "Agent", code_span(d.agentPath or "?"), model) }
  elseif kind == "collabAgentToolCall" then
    local name = d.tool == "wait" and "Wait for agents" or ("Agent tool %s"):format(code_span(d.tool or "?"))
    out = { ("**%s** _(%s)_"):format(name, command_state[d.status] or d.status or "") }
  elseif kind == "note" then
    local prefix = ({
      error = "**Error:** ",
      interrupted = "",
      failed = "**Turn failed:** ",
      stopped = "**Stopped:** ",
    })[d.level] or ""
    out = { "> " .. prefix .. (d.text or "") }
  else
    out = { ("_%s_"):format(kind) }
  end
  table.insert(out, "")
  return out
end

M.fence_for = fence_for

return M
