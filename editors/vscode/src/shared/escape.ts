/** HTML escaping for every piece of text that reaches the webview's DOM. */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for element content and for quoted attribute values alike. */
export function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"'`]/g, (ch) => ENTITIES[ch]);
}

/** Only these schemes become links; anything else (javascript:, data:, command:, ...) stays text. */
const SAFE_URL = /^(https?:\/\/|mailto:)[^\s<>]*$/i;

export function isSafeUrl(url: string): boolean {
  return SAFE_URL.test(url);
}

/** A token usable inside a class name (a code block's language tag, a status). */
export function classToken(text: unknown): string {
  return String(text ?? '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
}
