-- codex.async: wait for a user's answer inside the coroutine Neovim runs server requests in.
local M = {}

--- True when running inside a coroutine that may yield (not the main thread).
function M.can_yield()
  local co, is_main = coroutine.running()
  return co ~= nil and not is_main
end

--- Call `start(resolve)` and suspend the running coroutine until `resolve(...)` is called.
--- `resolve` may be called synchronously (the default vim.ui.select does) or later (pickers);
--- only its first call counts. Returns the values passed to `resolve`.
function M.await(start)
  local co = coroutine.running()
  local settled = false
  start(function(...)
    if settled then
      return
    end
    settled = true
    local values = vim.F.pack_len(...)
    -- Resuming from a scheduled callback makes sure the coroutine has yielded first.
    vim.schedule(function()
      local ok, err = coroutine.resume(co, vim.F.unpack_len(values))
      if not ok then
        vim.notify("codex: " .. tostring(err), vim.log.levels.ERROR)
      end
    end)
  end)
  return coroutine.yield()
end

--- vim.ui.select as a blocking call inside a coroutine: returns the chosen item or nil.
function M.select(items, opts)
  return M.await(function(resolve)
    vim.ui.select(items, opts, function(choice)
      resolve(choice)
    end)
  end)
end

--- vim.ui.input as a blocking call inside a coroutine: returns the text or nil.
function M.input(opts)
  return M.await(function(resolve)
    vim.ui.input(opts, function(text)
      resolve(text)
    end)
  end)
end

return M
