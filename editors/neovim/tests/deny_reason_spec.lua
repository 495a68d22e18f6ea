-- Denying a command with a reason: the user picks "Deny and say why", writes the reason, and
-- the model reads it with the refusal (the wrapper checks what the model was sent).
local H = dofile(os.getenv("CODEX_NVIM_ROOT") .. "/tests/helpers.lua")

H.run("deny with a reason", function()
  H.setup()
  vim.cmd.edit(H.ws .. "/app.py")
  local threads = require("codex.threads")
  local asked = H.fake_select(function(items, _, labels)
    for i, label in ipairs(labels) do
      if label == "Deny and say why (Codex is told)" then
        return items[i]
      end
    end
  end)
  local prompts = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(prompts, opts.prompt)
    vim.defer_fn(function()
      on_confirm("use make instead, the script is stale")
    end, 1)
  end

  vim.cmd("Codex build it")
  H.wait("the answer after the refusal", function()
    local text = table.concat(require("codex.chat").lines(), "\n")
    return text:find("Using make.", 1, true) and not threads.running(threads.current)
  end)
  H.eq(#asked, 1, "one approval prompt")
  H.eq(prompts, { "Why not? (Codex is told) " }, "the reason was asked for")
  H.no_errors()
end)
