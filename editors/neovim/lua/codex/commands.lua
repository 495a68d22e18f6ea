-- codex.commands: defines the :Codex* user commands. Called from plugin/codex.lua at startup
-- and again from setup(), so adding the plugin to 'runtimepath' late still gets them.
local M = {}

local function codex()
  return require("codex")
end

function M.register()
  local command = vim.api.nvim_create_user_command

  command("Codex", function(o)
    codex().chat(o.args)
  end, { nargs = "*", desc = "Open the Codex chat (and send a message)" })

  command("CodexAsk", function(o)
    if o.range > 0 then
      codex().ask(o.args, 0, o.line1, o.line2)
    else
      codex().ask(o.args)
    end
  end, { nargs = "*", range = true, desc = "Ask Codex about the selected lines" })

  command("CodexEdit", function(o)
    codex().edit(o.args, 0, o.line1, o.line2)
  end, { nargs = "*", range = true, desc = "Let Codex edit the selected lines" })

  command("CodexNew", function()
    codex().new_thread()
  end, { desc = "Start a new Codex thread" })

  command("CodexThreads", function()
    codex().threads()
  end, { desc = "Pick a Codex thread to resume" })

  command("CodexInterrupt", function()
    codex().interrupt()
  end, { desc = "Interrupt the running Codex turn" })

  command("CodexMode", function(o)
    require("codex").ensure_setup()
    require("codex.mode").set(vim.trim(o.args))
  end, {
    nargs = 1,
    complete = function(arglead)
      return require("codex.mode").complete(arglead)
    end,
    desc = "How Codex works from the next message: plan | agent | read-only | full",
  })

  command("CodexUndoTurn", function()
    codex().undo_turn()
  end, { desc = "Undo the last Codex turn: every file it changed, on disk and in buffers" })

  command("CodexReview", function(o)
    codex().review(o.args)
  end, {
    nargs = "*",
    complete = function(arglead, cmdline)
      return require("codex.review").complete(arglead, cmdline)
    end,
    desc = "Review changes with Codex: uncommitted | branch NAME | commit SHA",
  })

  command("CodexAttach", function(o)
    require("codex").ensure_setup()
    require("codex.context").attach(o.args)
  end, {
    nargs = "+",
    complete = function(arglead, cmdline)
      if cmdline:match("^%S+%s+image%s") then
        return vim.fn.getcompletion(arglead, "file")
      end
      return vim.tbl_filter(function(kind)
        return vim.startswith(kind, arglead)
      end, { "image", "url" })
    end,
    desc = "Attach an image file or a web page to the next Codex message: image PATH | url URL",
  })

  command("CodexLog", function()
    codex().log()
  end, { desc = "Open the log the Codex language server writes to (Neovim's LSP log)" })

  command("CodexAccept", function()
    codex().accept()
  end, { desc = "Accept the change Codex proposes in this buffer" })

  command("CodexReject", function()
    codex().reject()
  end, { desc = "Reject the change Codex proposes in this buffer" })
end

return M
