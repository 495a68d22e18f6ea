/**
 * The files a turn changed, from its applied `fileChange` items: one entry per file, in the
 * order they were first changed, with every diff that touched it (a turn may patch a file
 * twice). The chat lists them with Diff / Keep / Undo.
 */

import { changeKind, movePath } from './patch';
import type { FileUpdateChange } from './protocol';
import type { TurnView } from './state';

export interface FileChangeSummary {
  path: string;
  kind: 'add' | 'delete' | 'update';
  movePath?: string;
  /** The applied changes of this file, oldest first. */
  changes: FileUpdateChange[];
  added: number;
  removed: number;
}

export function turnChanges(turn: TurnView): FileChangeSummary[] {
  const byPath = new Map<string, FileChangeSummary>();
  for (const item of turn.items) {
    if (item.type !== 'fileChange' || item.status !== 'completed') continue;
    for (const change of item.changes ?? []) {
      const counts = countLines(change);
      const known = byPath.get(change.path);
      if (known) {
        known.changes.push(change);
        known.added += counts.added;
        known.removed += counts.removed;
        if (changeKind(change) === 'delete') known.kind = 'delete';
        known.movePath = movePath(change) ?? known.movePath;
        continue;
      }
      byPath.set(change.path, {
        path: change.path,
        kind: changeKind(change),
        movePath: movePath(change),
        changes: [change],
        ...counts,
      });
    }
  }
  return [...byPath.values()];
}

function countLines(change: FileUpdateChange): { added: number; removed: number } {
  const diff = change.diff ?? '';
  if (!/^@@ /m.test(diff)) {
    // An add or delete may carry the whole text rather than a diff.
    const lines = diff ? diff.replace(/\n$/, '').split('\n').length : 0;
    return changeKind(change) === 'delete' ? { added: 0, removed: lines } : { added: lines, removed: 0 };
  }
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return { added, removed };
}
