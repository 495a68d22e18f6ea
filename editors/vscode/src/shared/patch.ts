/**
 * Rebuild the text on each side of a file change, so VS Code's diff editor can show it
 * before the user approves. The server sends a unified diff per file; applying it to the
 * file's current text gives the proposed text.
 */

import type { FileUpdateChange } from './protocol';

interface Hunk {
  oldStart: number;
  oldLines: string[];
  newLines: string[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function splitKeepEnds(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

export function parseHunks(diff: string): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk | undefined;
  let last: { side: 'old' | 'new' | 'both' } | undefined;
  for (const raw of splitKeepEnds(diff)) {
    const header = HUNK_HEADER.exec(raw);
    if (header) {
      current = { oldStart: parseInt(header[1], 10), oldLines: [], newLines: [] };
      hunks.push(current);
      last = undefined;
      continue;
    }
    if (!current) continue; // `---` / `+++` headers and anything before the first hunk
    const line = raw.endsWith('\n') ? raw : raw + '\n';
    const body = line.slice(1);
    switch (line[0]) {
      case ' ':
        current.oldLines.push(body);
        current.newLines.push(body);
        last = { side: 'both' };
        break;
      case '-':
        current.oldLines.push(body);
        last = { side: 'old' };
        break;
      case '+':
        current.newLines.push(body);
        last = { side: 'new' };
        break;
      case '\\': {
        // "\ No newline at end of file": the line before it has no newline.
        if (!last) break;
        const strip = (lines: string[]) => {
          const n = lines.length - 1;
          if (n >= 0) lines[n] = lines[n].replace(/\n$/, '');
        };
        if (last.side !== 'new') strip(current.oldLines);
        if (last.side !== 'old') strip(current.newLines);
        break;
      }
      default:
        if (line === '\n') {
          // Some tools drop the space of an empty context line.
          current.oldLines.push('\n');
          current.newLines.push('\n');
        }
    }
  }
  return hunks;
}

function matchesAt(lines: string[], block: string[], at: number): boolean {
  if (at < 0 || at + block.length > lines.length) return false;
  return block.every((line, k) => lines[at + k] === line || lines[at + k] + '\n' === line);
}

/** `before` with `diff` applied, or undefined when the diff does not fit this text. */
export function applyUnifiedDiff(before: string, diff: string): string | undefined {
  const hunks = parseHunks(diff);
  if (!hunks.length) return undefined;
  const lines = splitKeepEnds(before);
  const out: string[] = [];
  let cursor = 0;
  for (const hunk of hunks) {
    const expected = Math.max(0, hunk.oldStart - (hunk.oldLines.length ? 1 : 0));
    let at = -1;
    if (matchesAt(lines, hunk.oldLines, expected)) {
      at = expected;
    } else {
      // The file moved under the diff: look for the old lines nearest the stated place.
      for (let d = 1; d <= lines.length && at < 0; d++) {
        if (expected - d >= cursor && matchesAt(lines, hunk.oldLines, expected - d)) at = expected - d;
        else if (matchesAt(lines, hunk.oldLines, expected + d)) at = expected + d;
      }
    }
    if (at < cursor) return undefined;
    out.push(...lines.slice(cursor, at), ...hunk.newLines);
    cursor = at + hunk.oldLines.length;
  }
  out.push(...lines.slice(cursor));
  return out.join('');
}

export function changeKind(change: FileUpdateChange): 'add' | 'delete' | 'update' {
  const kind = typeof change.kind === 'string' ? change.kind : change.kind?.type;
  return kind === 'add' || kind === 'delete' ? kind : 'update';
}

export function movePath(change: FileUpdateChange): string | undefined {
  return typeof change.kind === 'object' && 'movePath' in change.kind && change.kind.movePath ? change.kind.movePath : undefined;
}

function isUnifiedDiff(text: string): boolean {
  return /^@@ /m.test(text);
}

/**
 * The two sides of a change: `current` is the file's text now (the open buffer, else the
 * disk, else '' when it does not exist). An add or delete may carry the whole text instead
 * of a diff. Undefined when an update's diff does not apply to `current`.
 */
export function sidesOfChange(
  change: FileUpdateChange,
  current: string,
): { before: string; after: string } | undefined {
  const kind = changeKind(change);
  const diff = change.diff ?? '';
  if (kind === 'add') {
    return { before: '', after: isUnifiedDiff(diff) ? applyUnifiedDiff('', diff) ?? '' : diff };
  }
  if (kind === 'delete') {
    return { before: current || (isUnifiedDiff(diff) ? '' : diff), after: '' };
  }
  const after = applyUnifiedDiff(current, diff);
  return after === undefined ? undefined : { before: current, after };
}

/** The diff that takes `diff`'s change back: its added and removed lines swap sides. */
export function reverseUnifiedDiff(diff: string): string {
  return splitKeepEnds(diff)
    .map((line) => {
      const header = HUNK_HEADER.exec(line);
      if (header) {
        const [, oldStart, oldCount, newStart, newCount] = header;
        const side = (start: string, count: string | undefined) => (count === undefined ? start : `${start},${count}`);
        return line.replace(HUNK_HEADER, `@@ -${side(newStart, newCount)} +${side(oldStart, oldCount)} @@`);
      }
      if (line.startsWith('+++') || line.startsWith('---')) return line;
      if (line.startsWith('+')) return '-' + line.slice(1);
      if (line.startsWith('-')) return '+' + line.slice(1);
      return line;
    })
    .join('');
}

/**
 * The text before `changes` (applied in order) from the text after them, or undefined when
 * the file has moved on and a diff no longer fits. An added file was empty before it.
 */
export function textBefore(changes: FileUpdateChange[], current: string): string | undefined {
  let text = current;
  for (const change of [...changes].reverse()) {
    const kind = changeKind(change);
    if (kind === 'add') {
      text = '';
      continue;
    }
    if (kind === 'delete') {
      const diff = change.diff ?? '';
      text = isUnifiedDiff(diff) ? sidesOfDeleted(diff) : diff;
      continue;
    }
    const before = applyUnifiedDiff(text, reverseUnifiedDiff(change.diff ?? ''));
    if (before === undefined) return undefined;
    text = before;
  }
  return text;
}

function sidesOfDeleted(diff: string): string {
  return parseHunks(diff)
    .flatMap((h) => h.oldLines)
    .join('');
}
