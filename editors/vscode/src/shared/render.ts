/**
 * The conversation as HTML blocks, from the state alone. Pure, so it is unit-tested; the
 * webview puts each block in the DOM (through DOMPurify) and replaces only the blocks whose
 * HTML changed. All text goes through `escapeHtml` or the Markdown renderer; no inline script
 * or style is ever produced; buttons carry `data-action` and the webview listens once.
 */

import { turnChanges } from './changes';
import { classToken, escapeHtml as e } from './escape';
import { renderMarkdown } from './markdown';
import type { ThreadItem, ThreadItemOf, UserInput } from './protocol';
import { renderMessageImages } from './images';
import { renderFileList } from './renderFiles';
import { displayCommand } from './shellScript';
import { visible } from './visible';
import { renderChanges, renderRequest, renderSessionApprovals } from './renderRequests';
import { type ChatState, turnText, type TurnView, visibleRequests } from './state';
import { turnActivity } from './status';

export { renderAccount, renderChips, renderNotices, renderThreadList, renderToolbar, renderUsage } from './renderControls';
export { renderDiff, shortPath } from './renderFiles';

export interface Block {
  key: string;
  html: string;
  /**
   * An answer: `html` is its frame (with an empty `.md`), and the page renders `text` into it
   * piece by piece, the settled part once and only the growing tail each frame. The frame is the
   * same streaming or finished, so a finished answer keeps the pieces it was streamed in rather
   * than being rendered again whole as its turn ends. `live` while its turn runs.
   */
  stream?: { text: string; cwd?: string; live: boolean };
}

/** Each item's HTML for the options it was drawn with: items are replaced, never changed. */
const drawn = new WeakMap<ThreadItem, { options: string; html: string }>();

function renderItemOnce(item: ThreadItem, options: ItemOptions): string {
  const signature = JSON.stringify(options);
  const cached = drawn.get(item);
  if (cached && cached.options === signature) return cached.html;
  const html = renderItem(item, options);
  drawn.set(item, { options: signature, html });
  return html;
}

export function renderConversation(state: ChatState): Block[] {
  const conv = state.conversation;
  const pendingItems = new Set(visibleRequests(state).map((r) => r.itemId));
  if (!conv) {
    return [
      {
        key: 'empty',
        html:
          `<div class="empty"><p>Ask Codex anything about this workspace.</p>` +
          `<p class="muted">Type <kbd>#</kbd> to attach the current file, the selection, open editors, problems or any file. ` +
          `Select code and right-click for “Codex › Ask about selection” or “Edit selection”.</p></div>`,
      },
    ];
  }
  const blocks: Block[] = [{ key: 'title', html: `<h2 class="conv-title">${e(visible(conv.title))}</h2>` }];
  for (const turn of conv.turns) {
    const running = turn.status === 'inProgress';
    const planned = turn.items.some((i) => i.type === 'plan');
    const reviews = new Set(turn.items.map((i) => (i.type === 'exitedReviewMode' ? (i.review ?? '').trim() : '')).filter(Boolean));
    for (const item of turn.items) {
      // The server follows a review with an agent message of the same text (what the model is told).
      if (item.type === 'agentMessage' && reviews.has((item.text ?? '').trim())) continue;
      const options = { cwd: conv.cwd, compact: pendingItems.has(item.id), running, planned };
      const key = `item:${turn.id}:${item.id}`;
      if (!planned && item.type === 'agentMessage') {
        blocks.push({ key, html: ANSWER_FRAME, stream: { text: item.text ?? '', cwd: conv.cwd, live: running } });
      } else {
        blocks.push({ key, html: renderItemOnce(item, options) });
      }
    }
    const end = renderTurnEnd(turn, turn === conv.turns.at(-1) && !conv.runningTurnId);
    if (end) blocks.push({ key: `turn-end:${turn.id}`, html: end });
    if (!running) {
      const files = turnChanges(turn);
      if (files.length) blocks.push({ key: `changes:${turn.id}`, html: renderChanges(state, turn.id, files, conv.cwd) });
    }
  }
  conv.pendingUserTexts.forEach((text, n) => {
    blocks.push({ key: `pending:${n}`, html: renderUserText(text, true) });
  });
  if (conv.plan && conv.plan.steps.length) blocks.push({ key: 'plan', html: renderPlan(conv.plan) });
  const allowed = renderSessionApprovals(state);
  if (allowed) blocks.push({ key: 'session-approvals', html: allowed });
  for (const request of visibleRequests(state)) {
    blocks.push({ key: `request:${request.key}`, html: renderRequest(state, request) });
  }
  if (conv.runningTurnId) {
    const now = turnActivity(state);
    const waiting = now.kind === 'approval' || now.kind === 'question';
    const html = waiting
      ? `<div class="working waiting" aria-live="polite">${e(now.text)}</div>`
      : `<div class="working" aria-live="polite"><span class="spinner"></span>${e(`${now.text || 'Working'}…`)}</div>`;
    blocks.push({ key: 'working', html });
  }
  return blocks;
}

/** The frame of an answer; the page fills its `.md`. */
const ANSWER_FRAME = `<div class="msg agent"><div class="role">Codex</div><div class="md"></div></div>`;

function renderTurnEnd(turn: TurnView, last = false): string {
  if (turn.status === 'failed') {
    // The last turn's message can be sent again as it was, once whatever failed is fixed.
    const retry = last && turnText(turn) ? ` <button type="button" class="secondary" data-action="retry" data-turn="${e(turn.id)}" title="Send the same message again">Retry</button>` : '';
    return `<div class="turn-end failed">Turn failed${turn.error ? `: ${e(turn.error)}` : ''}${retry}</div>`;
  }
  if (turn.crashed) {
    return (
      `<div class="turn-end crashed" role="alert">The Codex server stopped during this answer: it is cut short. ` +
      `<button type="button" class="secondary" data-action="restart">Restart</button></div>`
    );
  }
  if (turn.status === 'interrupted') return `<div class="turn-end interrupted">Stopped</div>`;
  return '';
}

function renderUserText(text: string, pending = false, refs: string[] = [], images = ''): string {
  const attached = refs.length ? `<div class="refs">${refs.map((r) => `<span class="ref">${e(r)}</span>`).join('')}</div>` : '';
  return `<div class="msg user${pending ? ' pending' : ''}"><div class="role">You</div><div class="text">${e(text)}</div>${attached}${images}</div>`;
}

export interface ItemOptions {
  cwd?: string;
  /** A request about this item is on screen with the full diff: keep the item short. */
  compact?: boolean;
  /** The item's turn is still running. */
  running?: boolean;
  /** The turn has a proposed plan item, shown on its own. */
  planned?: boolean;
}

/** An answer's `<proposed_plan>` blocks, which its plan item shows already. */
const PROPOSED_PLAN = /<proposed_plan>[\s\S]*?<\/proposed_plan>/g;

export function renderItem(item: ThreadItem, options: ItemOptions = {}): string {
  switch (item.type) {
    case 'userMessage': {
      // The first text is what the user wrote; later ones name what they attached. Images
      // are shown as thumbnails.
      const content = item.content ?? [];
      const pictured = (c: UserInput) => c.type === 'localImage' || c.type === 'image';
      const [first, ...rest] = content
        .filter((c) => !pictured(c))
        .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}${inputLabel(c) ? `: ${inputLabel(c)}` : ''}]`));
      return renderUserText(first ?? '', false, rest, renderMessageImages(content));
    }
    case 'agentMessage': {
      const text = options.planned ? (item.text ?? '').replace(PROPOSED_PLAN, '').trim() : (item.text ?? '');
      if (!text && options.planned) return '';
      return `<div class="msg agent"><div class="role">Codex</div><div class="md">${renderMarkdown(text, options.cwd)}</div></div>`;
    }
    case 'plan':
      return `<div class="msg plan-item"><div class="role">Proposed plan</div><div class="md">${renderMarkdown(item.text ?? '', options.cwd)}</div></div>`;
    case 'reasoning': {
      const summary = (item.summary ?? []).filter((s) => s.trim()).join('\n\n');
      if (!summary) return options.running ? `<div class="reasoning muted">Thinking…</div>` : '';
      return `<details class="reasoning"><summary>Thinking</summary><div class="md">${renderMarkdown(summary)}</div></details>`;
    }
    case 'commandExecution':
      return renderCommand(item, options);
    case 'fileChange':
      return renderFileChange(item, options);
    case 'mcpToolCall':
      return `<div class="tool status-${statusClass(item.status, options)}">Tool <code>${e(item.server)}.${e(item.tool)}</code> <span class="status">${e(statusWord(item.status, options, 'done'))}</span>${item.error?.message ? ` — ${e(item.error.message)}` : ''}</div>`;
    case 'webSearch':
      return `<div class="tool">Searched the web: ${e(item.query ?? '')}</div>`;
    case 'enteredReviewMode':
      return options.running
        ? `<div class="review-note">Reviewing ${e(item.review ?? '')}…</div>`
        : `<div class="review-note">Reviewed ${e(item.review ?? '')}</div>`;
    case 'exitedReviewMode':
      return `<div class="msg agent review"><div class="role">Review</div><div class="md">${renderMarkdown(item.review ?? '', options.cwd)}</div></div>`;
    case 'contextCompaction':
      return `<div class="muted">Context compacted.</div>`;
    case 'subAgentActivity':
      return `<div class="tool agent-activity">${e(AGENT_ACTIVITY[item.kind ?? ''] ?? item.kind ?? '')} <code>${e(item.agentPath)}</code>${item.model ? ` (${e(item.model)})` : ''}</div>`;
    case 'collabAgentToolCall':
      return `<div class="tool status-${statusClass(item.status, options)}">${item.tool === 'wait' ? 'Wait for agents' : `Agent tool <code>${e(item.tool)}</code>`} <span class="status">${e(statusWord(item.status, options, 'done'))}</span></div>`;
    default:
      return `<div class="muted">${e(item.type)}</div>`;
  }
}

/** A subagent's activity, as the line that names it says it. */
const AGENT_ACTIVITY: Record<string, string> = {
  started: 'Spawned agent',
  interacted: 'Messaged agent',
  interrupted: 'Interrupted agent',
  completed: 'Finished: agent',
};

/** What names an attachment of a user message: a mention's or skill's name, else its path. */
function inputLabel(input: UserInput): string {
  return ('name' in input && input.name) || ('path' in input && input.path) || '';
}

/** An item's status in words; one still "inProgress" when its turn has ended was stopped. */
function statusWord(status: string | undefined, options: ItemOptions, done: string): string {
  switch (status) {
    case 'inProgress':
      return options.compact ? 'waiting for approval' : options.running ? 'running' : 'stopped';
    case 'completed':
      return done;
    case undefined:
      return '';
    default:
      return status;
  }
}

/** The class of an item's status, with a stopped one told apart from one still running. */
function statusClass(status: string | undefined, options: ItemOptions): string {
  return status === 'inProgress' && !options.running && !options.compact ? 'stopped' : classToken(status);
}

function statusLabel(item: ThreadItemOf<'commandExecution'>, options: ItemOptions): string {
  const word = statusWord(item.status, options, 'finished');
  if (item.exitCode !== undefined && item.exitCode !== null) return `${word}, exit ${item.exitCode}`;
  return word;
}

function renderCommand(item: ThreadItemOf<'commandExecution'>, options: ItemOptions): string {
  const output = item.aggregatedOutput ?? '';
  return (
    `<div class="cmd status-${statusClass(item.status, options)}">` +
    `<div class="cmd-head"><code>$ ${e(visible(displayCommand(item.command ?? '')))}</code> <span class="status">${e(statusLabel(item, options))}</span></div>` +
    (output ? `<pre class="cmd-out">${e(visible(output, true))}</pre>` : '') +
    `</div>`
  );
}

function renderFileChange(item: ThreadItemOf<'fileChange'>, options: ItemOptions): string {
  const status = statusWord(item.status, options, 'applied');
  return (
    `<div class="files status-${statusClass(item.status, options)}">` +
    `<div class="files-head">File changes <span class="status">${e(status)}</span></div>` +
    renderFileList(item.changes ?? [], { item: item.id }, options) +
    (item.output && item.status !== 'completed' ? `<pre class="files-out">${e(visible(item.output, true))}</pre>` : '') +
    `</div>`
  );
}

function renderPlan(plan: NonNullable<NonNullable<ChatState['conversation']>['plan']>): string {
  const marks: Record<string, string> = { completed: '✓', inProgress: '▸', pending: '○' };
  const steps = plan.steps
    .map((s) => `<li class="step-${classToken(s.status)}"><span class="mark">${marks[s.status] ?? '○'}</span> ${e(s.step)}</li>`)
    .join('');
  const explanation = plan.explanation ? `<div class="md">${renderMarkdown(plan.explanation)}</div>` : '';
  return `<div class="plan"><div class="role">Plan</div>${explanation}<ul class="plan-steps">${steps}</ul></div>`;
}

