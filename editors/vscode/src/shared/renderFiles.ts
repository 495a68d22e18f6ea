/**
 * File changes as HTML: a path shown relative to the thread's folder, a coloured diff, and a
 * list of changes each with an "Open diff" button (which opens VS Code's diff editor).
 */

import { escapeHtml as e } from './escape';
import { changeKind, movePath } from './patch';
import type { FileUpdateChange } from './protocol';
import { visible } from './visible';

export const KIND_LETTER = { add: 'A', delete: 'D', update: 'M' } as const;

/** `path` relative to `cwd` when it is under it. */
export function shortPath(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

export function renderDiff(diff: string): string {
  const lines = diff.replace(/\n$/, '').split('\n');
  const body = lines
    .map((line) => {
      const cls =
        line.startsWith('+++') || line.startsWith('---')
          ? 'd-file'
          : line.startsWith('@@')
            ? 'd-hunk'
            : line.startsWith('+')
              ? 'd-add'
              : line.startsWith('-')
                ? 'd-del'
                : 'd-ctx';
      return `<span class="${cls}">${e(visible(line, true)) || ' '}</span>`;
    })
    .join('');
  return `<pre class="diff">${body}</pre>`;
}

/** Each change with an "Open diff" button; the diff itself unless `compact`. */
export function renderFileList(changes: FileUpdateChange[], openData: Record<string, string>, options: { cwd?: string; compact?: boolean }): string {
  return changes
    .map((change, index) => {
      const kind = changeKind(change);
      const moved = movePath(change);
      const title = `${KIND_LETTER[kind]} ${shortPath(change.path, options.cwd)}${moved ? ` → ${shortPath(moved, options.cwd)}` : ''}`;
      const data = Object.entries({ ...openData, index })
        .map(([k, v]) => ` data-${k}="${e(v)}"`)
        .join('');
      return (
        `<div class="file-change">` +
        `<div class="file-head"><code title="${e(visible(change.path))}">${e(visible(title))}</code> <button type="button" class="secondary" data-action="openDiff"${data}>Open diff</button></div>` +
        (options.compact ? '' : renderDiff(change.diff ?? '')) +
        `</div>`
      );
    })
    .join('');
}

