/**
 * Untrusted text (a command, a path, a file name, the model's words) made safe to show a person:
 * every character that acts on a display instead of appearing in it is shown by name. C0 and C1
 * controls and DEL as `\x1b` (`\r`, `\t`, `\n` by their usual names), bidi, format, zero-width
 * and line-separator characters and lone surrogates as `<U+202E>`. A newline (and a tab) stays
 * only where the display is multi-line; a command shown on one line shows `\n`.
 *
 * The same rules as the server's `codex_lsp/display.py` and the Neovim plugin's
 * `codex.visible`. HTML escaping is a separate step (`escape.ts`): this text is still text.
 */

/** Unicode's Cc, Cf, Zl, Zp and Cs characters (Unicode 14), as inclusive ranges. */
const HIDDEN: ReadonlyArray<readonly [number, number]> = [
  [0x0, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x600, 0x605], [0x61c, 0x61c], [0x6dd, 0x6dd],
  [0x70f, 0x70f], [0x890, 0x891], [0x8e2, 0x8e2], [0x180e, 0x180e], [0x200b, 0x200f],
  [0x2028, 0x202e], [0x2060, 0x2064], [0x2066, 0x206f], [0xd800, 0xdfff], [0xfeff, 0xfeff],
  [0xfff9, 0xfffb], [0x110bd, 0x110bd], [0x110cd, 0x110cd], [0x13430, 0x13438],
  [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0001, 0xe0001], [0xe0020, 0xe007f],
];

const NAMED: Record<number, string> = { 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t' };

/** Whether the code point `code` acts on the display instead of appearing in it. */
export function isHidden(code: number): boolean {
  for (const [first, last] of HIDDEN) {
    if (code < first) return false;
    if (code <= last) return true;
  }
  return false;
}

function nameOf(code: number): string {
  const named = NAMED[code];
  if (named !== undefined) return named;
  if (code < 0xa0) return `\\x${code.toString(16).padStart(2, '0')}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/**
 * `text` with every control, bidi and invisible character shown by name. With `multiline`,
 * newlines (a CR LF pair as one) and tabs stay as they are.
 */
export function visible(text: unknown, multiline = false): string {
  let s = String(text ?? '');
  if (multiline) s = s.replace(/\r\n/g, '\n');
  // Printable ASCII needs no look.
  if (!/[^\x20-\x7e]/.test(s)) return s;
  let out = '';
  // Iterating a string yields code points; a lone surrogate comes as itself.
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (multiline && (code === 0x0a || code === 0x09)) out += ch;
    else out += isHidden(code) ? nameOf(code) : ch;
  }
  return out;
}
