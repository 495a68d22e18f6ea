/**
 * A small Markdown renderer for model text in the chat. Safety comes first: every character
 * of the source is HTML-escaped on its way out, the only tags produced are the fixed set
 * below, and the only attributes are `href` (http, https or mailto only) and `class` (from a
 * fixed alphabet). Raw HTML in the source is shown as text, never interpreted.
 *
 * Covered: paragraphs, ATX headings, fenced code (also an unclosed fence while a message is
 * still streaming), indented-by-marker lists (nested by indentation), block quotes, rules,
 * inline code, strong, emphasis, strike-through, links and bare URLs.
 */

import { classToken, escapeHtml, isSafeUrl } from './escape';

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  return renderBlocks(lines, 0);
}

function renderBlocks(lines: string[], depth: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) {
      out.push(`<p>${renderInline(paragraph.join('\n'))}</p>`);
      paragraph = [];
    }
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1];
      const body: string[] = [];
      i++;
      while (i < lines.length && !isClosingFence(lines[i], marker)) {
        body.push(lines[i]);
        i++;
      }
      i++; // the closing fence, or past the end while the message is still streaming
      const lang = classToken(fence[2]);
      const cls = lang ? ` class="language-${lang}"` : '';
      out.push(`<pre><code${cls}>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      flush();
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
      i++;
      continue;
    }
    if (RULE.test(line)) {
      flush();
      out.push('<hr>');
      i++;
      continue;
    }
    if (QUOTE.test(line) && depth < 8) {
      flush();
      const quoted: string[] = [];
      let m: RegExpExecArray | null;
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
        quoted.push(m[1]);
        i++;
      }
      out.push(`<blockquote>${renderBlocks(quoted, depth + 1)}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line) && depth < 8) {
      flush();
      const start = i;
      i++;
      while (i < lines.length) {
        const next = lines[i];
        const keep = next.trim() === ''
          ? isListContinuation(lines, i)
          : LIST_ITEM.test(next) || /^\s+\S/.test(next);
        if (!keep) break; // an unindented line that is not an item ends the list
        i++;
      }
      out.push(renderList(lines.slice(start, i), depth));
      continue;
    }
    paragraph.push(line);
    i++;
  }
  flush();
  return out.join('');
}

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.length >= marker.length && trimmed === marker[0].repeat(trimmed.length);
}

function isListContinuation(lines: string[], i: number): boolean {
  // A blank line stays in the list when the next non-blank line is an item or indented.
  let j = i;
  while (j < lines.length && lines[j].trim() === '') j++;
  return j < lines.length && (LIST_ITEM.test(lines[j]) || /^\s+\S/.test(lines[j]));
}

/** Items at the list's own indentation; deeper lines belong to the item above them. */
function renderList(lines: string[], depth: number): string {
  const first = LIST_ITEM.exec(lines[0]);
  if (!first) return '';
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const items: string[][] = [];
  for (const line of lines) {
    const m = LIST_ITEM.exec(line);
    if (m && m[1].length <= indent) {
      items.push([m[3]]);
    } else if (items.length) {
      items[items.length - 1].push(line.slice(Math.min(indent + 2, leadingSpaces(line))));
    }
  }
  const tag = ordered ? 'ol' : 'ul';
  const startNumber = ordered ? parseInt(first[2], 10) : 1;
  const startAttr = ordered && startNumber !== 1 ? ` start="${startNumber}"` : '';
  const body = items
    .map((item) => {
      const [head, ...rest] = item;
      const nested = rest.some((l) => l.trim()) ? renderBlocks(trimBlank(rest), depth + 1) : '';
      return `<li>${renderInline(head)}${nested}</li>`;
    })
    .join('');
  return `<${tag}${startAttr}>${body}</${tag}>`;
}

function leadingSpaces(line: string): number {
  return line.length - line.trimStart().length;
}

function trimBlank(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && !lines[end - 1].trim()) end--;
  return lines.slice(0, end);
}

const LINK = /^\[([^\]\n]{0,500})\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))+)>?(?:\s+"[^"\n]*")?\s*\)/;
const BARE_URL = /^https?:\/\/[^\s<>"'`]+/;
const PUNCTUATION = /[!-/:-@[-`{-~]/;

/** Inline spans. Every character of `text` leaves through `escapeHtml` or as a fixed tag. */
export function renderInline(text: string, inLink = false): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const rest = text.slice(i);
    if (ch === '\\' && i + 1 < text.length && PUNCTUATION.test(text[i + 1])) {
      out += escapeHtml(text[i + 1]);
      i += 2;
      continue;
    }
    if (ch === '`') {
      const run = /^`+/.exec(rest)![0];
      const close = text.indexOf(run, i + run.length);
      if (close > 0) {
        let code = text.slice(i + run.length, close);
        if (/^ .* $/.test(code)) code = code.slice(1, -1);
        out += `<code>${escapeHtml(code)}</code>`;
        i = close + run.length;
        continue;
      }
      out += escapeHtml(run);
      i += run.length;
      continue;
    }
    if (ch === '[' && !inLink) {
      const m = LINK.exec(rest);
      if (m) {
        const label = renderInline(m[1], true);
        out += isSafeUrl(m[2]) ? `<a href="${escapeHtml(m[2])}">${label}</a>` : label;
        i += m[0].length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H') && !inLink && (i === 0 || /[\s(]/.test(text[i - 1]))) {
      const m = BARE_URL.exec(rest);
      if (m) {
        const url = m[0].replace(/[.,;:!?)]+$/, '');
        out += `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
        i += url.length;
        continue;
      }
    }
    if (ch === '*' || ch === '_' || ch === '~') {
      const span = emphasis(text, i);
      if (span) {
        out += `<${span.tag}>${renderInline(span.inner, inLink)}</${span.tag}>`;
        i = span.end;
        continue;
      }
    }
    out += escapeHtml(ch);
    i++;
  }
  return out;
}

function emphasis(
  text: string,
  i: number,
): { tag: string; inner: string; end: number } | undefined {
  const ch = text[i];
  const double = text[i + 1] === ch;
  if (ch === '~' && !double) return undefined;
  const marker = double ? ch + ch : ch;
  const after = text[i + marker.length];
  if (after === undefined || /\s/.test(after) || after === ch) return undefined;
  // `_` inside a word (snake_case) is not emphasis.
  if (ch === '_' && i > 0 && /[A-Za-z0-9]/.test(text[i - 1])) return undefined;
  let search = i + marker.length;
  while (search < text.length) {
    const close = text.indexOf(marker, search);
    if (close < 0) return undefined;
    const before = text[close - 1];
    const next = text[close + marker.length];
    const closesWord = ch !== '_' || next === undefined || !/[A-Za-z0-9]/.test(next);
    if (!/\s/.test(before) && (marker.length === 2 || next !== ch) && closesWord) {
      const tag = ch === '~' ? 'del' : double ? 'strong' : 'em';
      return { tag, inner: text.slice(i + marker.length, close), end: close + marker.length };
    }
    search = close + 1;
  }
  return undefined;
}
