/**
 * What the editor's inline edit shows, as pure functions: the lines a proposed change removes
 * and inserts (for the decorations in place), the proposal as a diff for the comment thread,
 * and a short status of the running turn ("Thinking…", the command it runs, its answer). All of
 * it is untrusted text, shown through `visible`.
 */

import type { TurnView } from './state';
import { visible } from './visible';

/** One run of changed lines: `removed` lines from `start` (0-based, in the text before) give way to `inserted`. */
export interface LineChange {
  start: number;
  removed: string[];
  inserted: string[];
}

function lines(text: string): string[] {
  if (!text) return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

/** Past this many cells the diff gives up on matching and replaces the middle as one run. */
const MAX_CELLS = 4_000_000;

/** The changed runs from `before` to `after`, line by line (a longest common subsequence). */
export function lineChanges(before: string, after: string): LineChange[] {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (!x.length && !y.length) return [];
  if ((x.length + 1) * (y.length + 1) > MAX_CELLS) return [{ start: head, removed: x, inserted: y }];
  // lcs[i][j]: the longest common run of x[i..] and y[j..].
  const width = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * width);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * width + j] = x[i] === y[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const changes: LineChange[] = [];
  let current: LineChange | undefined;
  const open = (i: number): LineChange => {
    current ??= { start: head + i, removed: [], inserted: [] };
    return current;
  };
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      if (current) changes.push(current);
      current = undefined;
      i++;
      j++;
    } else if (j < y.length && (i >= x.length || lcs[i * width + j + 1] >= lcs[(i + 1) * width + j])) {
      open(i).inserted.push(y[j++]);
    } else {
      open(i).removed.push(x[i++]);
    }
  }
  if (current) changes.push(current);
  return changes;
}

/** Text shown as typed in Markdown: every character Markdown reads is escaped. */
export function markdownLiteral(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&');
}

/** A fence longer than any run of backticks in `text`, so the text cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

/** The proposal of one file as a Markdown diff block: its changed lines with their line numbers. */
export function proposalDiff(name: string, changes: LineChange[]): string {
  const body = changes
    .map((c) => {
      const where = c.removed.length > 1 ? `lines ${c.start + 1}–${c.start + c.removed.length}` : `line ${c.start + 1}`;
      return [`@@ ${where} @@`, ...c.removed.map((l) => `-${visible(l, true)}`), ...c.inserted.map((l) => `+${visible(l, true)}`)].join('\n');
    })
    .join('\n');
  const mark = fence(body);
  return `${markdownLiteral(visible(name))}\n\n${mark}diff\n${body}\n${mark}`;
}

/** The text shown after a line a change replaces or follows: its first new line, and how many more. */
export function insertedHint(change: LineChange): string | undefined {
  if (!change.inserted.length) return undefined;
  const first = visible(change.inserted[0].trim()) || '(blank line)';
  const more = change.inserted.length - 1;
  return more ? `→ ${first}  (+${more} more line${more === 1 ? '' : 's'})` : `→ ${first}`;
}

const ANSWER_LIMIT = 1200;

/** What the turn is doing now, for the thread in the editor; the answer once the agent gives one. */
export function turnStatus(turn: TurnView | undefined): string {
  if (!turn) return 'Starting…';
  let status = turn.status === 'inProgress' ? 'Thinking…' : '';
  for (const item of turn.items) {
    if (item.type === 'agentMessage' && item.text?.trim()) status = visible(item.text.trim(), true);
    else if (item.type === 'commandExecution' && item.status === 'inProgress') status = `Running \`${visible(item.command ?? '').replace(/`/g, "'")}\`…`;
    else if (item.type === 'reasoning' && turn.status === 'inProgress') status = 'Thinking…';
  }
  if (turn.error) status = `${status ? `${status}\n\n` : ''}Error: ${visible(turn.error, true)}`;
  return status.length > ANSWER_LIMIT ? `${status.slice(0, ANSWER_LIMIT)}…` : status;
}
