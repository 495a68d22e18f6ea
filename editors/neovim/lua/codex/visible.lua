-- codex.visible: untrusted text (a command, a path, the model's words) made safe to show. Every
-- character that acts on a display instead of appearing in it is shown by name: C0/C1 controls
-- and DEL as `\x1b` (`\r`, `\t`, `\n` by their usual names), bidi, format, zero-width and line
-- separator characters as `<U+202E>`, bytes that are not UTF-8 as `\xff`. A newline (and a tab)
-- stays only where the display is multi-line. The same rules as the server's
-- `codex_lsp/display.py` and the VS Code extension's `shared/visible.ts`.
local M = {}

-- Unicode's Cc, Cf, Zl, Zp and Cs characters (Unicode 14), as inclusive ranges.
local HIDDEN = {
  { 0x0, 0x1F }, { 0x7F, 0x9F }, { 0xAD, 0xAD }, { 0x600, 0x605 }, { 0x61C, 0x61C },
  { 0x6DD, 0x6DD }, { 0x70F, 0x70F }, { 0x890, 0x891 }, { 0x8E2, 0x8E2 }, { 0x180E, 0x180E },
  { 0x200B, 0x200F }, { 0x2028, 0x202E }, { 0x2060, 0x2064 }, { 0x2066, 0x206F },
  { 0xD800, 0xDFFF }, { 0xFEFF, 0xFEFF }, { 0xFFF9, 0xFFFB }, { 0x110BD, 0x110BD },
  { 0x110CD, 0x110CD }, { 0x13430, 0x13438 }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A },
  { 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F },
}

local NAMED = { [0x0A] = "\\n", [0x0D] = "\\r", [0x09] = "\\t" }

--- Whether the code point `code` acts on the display instead of appearing in it.
function M.is_hidden(code)
  for _, range in ipairs(HIDDEN) do
    if code < range[1] then
      return false
    end
    if code <= range[2] then
      return true
    end
  end
  return false
end

local function name(code)
  if NAMED[code] then
    return NAMED[code]
  end
  if code < 0xA0 then
    return ("\\x%02x"):format(code)
  end
  return ("<U+%04X>"):format(code)
end

-- The code point at byte `i` of `s` and the byte after it; nil for a byte that starts no
-- well-formed UTF-8 sequence.
local function decode(s, i)
  local b = s:byte(i)
  local len, code
  if b < 0x80 then
    return b, i + 1
  elseif b >= 0xC2 and b <= 0xDF then
    len, code = 2, b - 0xC0
  elseif b >= 0xE0 and b <= 0xEF then
    len, code = 3, b - 0xE0
  elseif b >= 0xF0 and b <= 0xF4 then
    len, code = 4, b - 0xF0
  else
    return nil, i + 1
  end
  for j = i + 1, i + len - 1 do
    local c = s:byte(j)
    if not c or c < 0x80 or c > 0xBF then
      return nil, i + 1
    end
    code = code * 64 + (c - 0x80)
  end
  local least = ({ [2] = 0x80, [3] = 0x800, [4] = 0x10000 })[len]
  if code < least or code > 0x10FFFF then
    return nil, i + 1
  end
  return code, i + len
end

--- `text` with every control, bidi and invisible character shown by name. With `multiline`,
--- newlines (a CR LF pair as one) and tabs stay as they are.
function M.visible(text, multiline)
  local s = tostring(text == nil and "" or text)
  if multiline then
    s = s:gsub("\r\n", "\n")
  end
  -- Printable ASCII needs no look.
  if not s:find("[^\32-\126]") then
    return s
  end
  local out, i = {}, 1
  while i <= #s do
    local code, next_i = decode(s, i)
    if code == nil then
      table.insert(out, ("\\x%02x"):format(s:byte(i)))
    elseif multiline and (code == 0x0A or code == 0x09) then
      table.insert(out, s:sub(i, next_i - 1))
    elseif M.is_hidden(code) then
      table.insert(out, name(code))
    else
      table.insert(out, s:sub(i, next_i - 1))
    end
    i = next_i
  end
  return table.concat(out)
end

return M
