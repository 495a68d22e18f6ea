/**
 * The chat panel as HTML strings, from the state alone. Pure, so it is unit-tested; the
 * webview puts the strings in the DOM block by block. All text goes through `escapeHtml` or
 * the Markdown renderer; no inline script or style is ever produced (the panel's CSP would
 * refuse them anyway); buttons carry `data-action` and the webview listens once for clicks.
 */

import { classToken, escapeHtml as e } from './escape';
import { formatRateLimits, formatTokenUsage } from './format';
import { renderMarkdown } from './markdown';
import { changeKind, movePath } from './patch';
import {
  APPROVAL_POLICIES,
  COMMAND_APPROVAL,
  FILE_CHANGE_APPROVAL,
  type FileUpdateChange,
  type ThreadItem,
  type UserInputQuestion,
} from './protocol';
import { type ChatState, findItem, type PendingRequest, threadTitle, type TurnView, visibleRequests } from './state';

export interface Block {
  key: string;
  html: string;
}

const KIND_LETTER = { add: 'A', delete: 'D', update: 'M' } as const;

/** `path` relative to `cwd` when it is under it. */
export function shortPath(path: string, cwd: string | undefined): string {
  if (!cwd) return path;
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

function button(label: string, action: string, data: Record<string, string | number> = {}, cls = ''): string {
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${e(v)}"`)
    .join('');
  const klass = cls ? ` class="${cls}"` : '';
  return `<button type="button"${klass} data-action="${e(action)}"${attrs}>${e(label)}</button>`;
}

export function renderToolbar(state: ChatState): string {
  const models = [`<option value="">Model: as configured</option>`]
    .concat(
      state.models
        .filter((m) => !m.hidden || m.id === state.model)
        .map((m) => {
          const id = m.model || m.id;
          const selected = id === state.model ? ' selected' : '';
          return `<option value="${e(id)}"${selected}>${e(m.displayName || id)}</option>`;
        }),
    )
    .join('');
  const policies = [`<option value="">Approvals: as configured</option>`]
    .concat(
      APPROVAL_POLICIES.map((p) => {
        const selected = p === state.approvalPolicy ? ' selected' : '';
        return `<option value="${e(p)}"${selected}>Approvals: ${e(p)}</option>`;
      }),
    )
    .join('');
  return (
    `<select id="model" data-action="model" title="Model for the next turns">${models}</select>` +
    `<select id="policy" data-action="policy" title="Approval policy for the next turns">${policies}</select>`
  );
}

export function renderThreadList(state: ChatState): string {
  if (!state.threads.length) return `<p class="muted">No threads yet.</p>`;
  const current = state.conversation?.threadId;
  const rows = state.threads.map((t) => {
    const when = t.updatedAt ? new Date(t.updatedAt * 1000).toISOString().slice(0, 16).replace('T', ' ') : '';
    const cls = t.id === current ? 'thread current' : 'thread';
    return (
      `<li class="${cls}" data-thread="${e(t.id)}">` +
      `<div class="thread-info"><div class="thread-title" title="${e(t.preview ?? '')}">${e(threadTitle(t))}</div>` +
      `<div class="muted thread-when">${e(when)}</div></div>` +
      button('Open', 'resume', { thread: t.id }) +
      button('Archive', 'archive', { thread: t.id }, 'secondary') +
      `</li>`
    );
  });
  return `<ul class="threads">${rows.join('')}</ul>`;
}

export function renderNotices(state: ChatState): string {
  const server =
    state.server.state === 'error'
      ? `<div class="notice error">${e(state.server.message ?? 'The Codex server is not running.')} ` +
        button('Show log', 'showLog') +
        button('Restart', 'restart') +
        `</div>`
      : state.server.state === 'starting'
        ? `<div class="notice info">Starting the Codex server…</div>`
        : '';
  const notices = state.notices
    .map(
      (n) =>
        `<div class="notice ${classToken(n.kind)}">${e(n.text)} ${button('Dismiss', 'dismiss', { id: n.id }, 'secondary')}</div>`,
    )
    .join('');
  return server + notices;
}

export function renderUsage(state: ChatState): string {
  const parts = [formatTokenUsage(state.conversation?.tokenUsage ?? state.tokenUsage)];
  const limits = formatRateLimits(state.rateLimits);
  if (limits) parts.push(`rate limits: ${limits}`);
  return e(parts.filter(Boolean).join(' · '));
}

export function renderConversation(state: ChatState): Block[] {
  const conv = state.conversation;
  const pendingItems = new Set(visibleRequests(state).map((r) => r.itemId));
  if (!conv) {
    return [
      {
        key: 'empty',
        html: `<div class="empty"><p>Ask Codex anything about this workspace.</p><p class="muted">Select code and run “Codex: Ask about selection” or “Codex: Edit selection”.</p></div>`,
      },
    ];
  }
  const blocks: Block[] = [{ key: 'title', html: `<h2 class="conv-title">${e(conv.title)}</h2>` }];
  for (const turn of conv.turns) {
    for (const item of turn.items) {
      const options = { cwd: conv.cwd, compact: pendingItems.has(item.id) };
      blocks.push({ key: `item:${turn.id}:${item.id}`, html: renderItem(item, options) });
    }
    const end = renderTurnEnd(turn);
    if (end) blocks.push({ key: `turn-end:${turn.id}`, html: end });
  }
  conv.pendingUserTexts.forEach((text, n) => {
    blocks.push({ key: `pending:${n}`, html: renderUserText(text, true) });
  });
  if (conv.plan && conv.plan.steps.length) blocks.push({ key: 'plan', html: renderPlan(conv.plan) });
  for (const request of visibleRequests(state)) {
    blocks.push({ key: `request:${request.key}`, html: renderRequest(state, request) });
  }
  if (conv.runningTurnId) {
    blocks.push({ key: 'working', html: `<div class="working" aria-live="polite">Working…</div>` });
  }
  return blocks;
}

function renderTurnEnd(turn: TurnView): string {
  if (turn.status === 'failed') {
    return `<div class="turn-end failed">Turn failed${turn.error ? `: ${e(turn.error)}` : ''}</div>`;
  }
  if (turn.status === 'interrupted') return `<div class="turn-end interrupted">Interrupted</div>`;
  return '';
}

function renderUserText(text: string, pending = false): string {
  return `<div class="msg user${pending ? ' pending' : ''}"><div class="role">You</div><div class="text">${e(text)}</div></div>`;
}

export interface ItemOptions {
  cwd?: string;
  /** A request about this item is on screen with the full diff: keep the item short. */
  compact?: boolean;
}

export function renderItem(item: ThreadItem, options: ItemOptions = {}): string {
  switch (item.type) {
    case 'userMessage': {
      const text = (item.content ?? [])
        .map((c) => (c.type === 'text' ? c.text ?? '' : `[${c.type}${c.path ? `: ${c.path}` : ''}]`))
        .join('\n');
      return renderUserText(text);
    }
    case 'agentMessage':
      return `<div class="msg agent"><div class="role">Codex</div><div class="md">${renderMarkdown(item.text ?? '')}</div></div>`;
    case 'plan':
      return `<div class="msg plan-item"><div class="role">Proposed plan</div><div class="md">${renderMarkdown(item.text ?? '')}</div></div>`;
    case 'reasoning': {
      const summary = (item.summary ?? []).filter((s) => s.trim()).join('\n\n');
      if (!summary) return `<div class="reasoning muted">Thinking…</div>`;
      return `<details class="reasoning"><summary>Thinking</summary><div class="md">${renderMarkdown(summary)}</div></details>`;
    }
    case 'commandExecution':
      return renderCommand(item, options);
    case 'fileChange':
      return renderFileChange(item, options);
    case 'mcpToolCall':
      return `<div class="tool status-${classToken(item.status)}">Tool <code>${e(item.server)}.${e(item.tool)}</code> <span class="status">${e(item.status ?? '')}</span>${item.error?.message ? ` — ${e(item.error.message)}` : ''}</div>`;
    case 'webSearch':
      return `<div class="tool">Searched the web: ${e(item.query ?? '')}</div>`;
    case 'enteredReviewMode':
      return `<div class="review-note">Reviewing ${e(item.review ?? '')}…</div>`;
    case 'exitedReviewMode':
      return `<div class="msg agent review"><div class="role">Review</div><div class="md">${renderMarkdown(item.review ?? '')}</div></div>`;
    case 'contextCompaction':
      return `<div class="muted">Context compacted.</div>`;
    default:
      return `<div class="muted">${e(item.type)}</div>`;
  }
}

function statusLabel(item: ThreadItem, options: ItemOptions): string {
  const status = item.status ?? '';
  if (status === 'inProgress') return options.compact ? 'waiting for approval' : 'running';
  if (item.exitCode !== undefined && item.exitCode !== null) return `${status}, exit ${item.exitCode}`;
  return status;
}

function renderCommand(item: ThreadItem, options: ItemOptions): string {
  const output = item.aggregatedOutput ?? '';
  return (
    `<div class="cmd status-${classToken(item.status)}">` +
    `<div class="cmd-head"><code>$ ${e(item.command ?? '')}</code> <span class="status">${e(statusLabel(item, options))}</span></div>` +
    (output ? `<pre class="cmd-out">${e(output)}</pre>` : '') +
    `</div>`
  );
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
      return `<span class="${cls}">${e(line) || ' '}</span>`;
    })
    .join('');
  return `<pre class="diff">${body}</pre>`;
}

function renderChanges(
  changes: FileUpdateChange[],
  openData: Record<string, string>,
  options: ItemOptions,
): string {
  return changes
    .map((change, index) => {
      const kind = changeKind(change);
      const moved = movePath(change);
      const title = `${KIND_LETTER[kind]} ${shortPath(change.path, options.cwd)}${moved ? ` → ${shortPath(moved, options.cwd)}` : ''}`;
      return (
        `<div class="file-change">` +
        `<div class="file-head"><code title="${e(change.path)}">${e(title)}</code> ${button('Open diff', 'openDiff', { ...openData, index })}</div>` +
        (options.compact ? '' : renderDiff(change.diff ?? '')) +
        `</div>`
      );
    })
    .join('');
}

function renderFileChange(item: ThreadItem, options: ItemOptions): string {
  return (
    `<div class="files status-${classToken(item.status)}">` +
    `<div class="files-head">File changes <span class="status">${e(item.status ?? '')}</span></div>` +
    renderChanges(item.changes ?? [], { item: item.id }, options) +
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

const DECISION_BUTTONS: [string, string, string][] = [
  ['Approve', 'accept', 'approve'],
  ['Approve for session', 'acceptForSession', 'approve secondary'],
  ['Deny', 'decline', 'deny secondary'],
  ['Abort', 'cancel', 'abort secondary'],
];

function decisionButtons(key: string): string {
  return `<div class="actions">${DECISION_BUTTONS.map(([label, decision, cls]) => button(label, 'decide', { key, decision }, cls)).join('')}</div>`;
}

export function renderRequest(state: ChatState, request: PendingRequest): string {
  const p = request.params as Record<string, any>;
  const reason = p.reason ? `<div class="reason">Reason: ${e(p.reason)}</div>` : '';
  if (request.method === COMMAND_APPROVAL) {
    const item = findItem(state, request.itemId);
    const command = p.command ?? item?.command ?? '';
    const cwd = p.cwd ?? item?.cwd;
    return (
      `<div class="request approval" data-request="${e(request.key)}">` +
      `<div class="request-title">Run this command?</div>` +
      `<pre class="cmd-line">$ ${e(command)}</pre>` +
      (cwd ? `<div class="muted">in ${e(cwd)}</div>` : '') +
      reason +
      decisionButtons(request.key) +
      `</div>`
    );
  }
  if (request.method === FILE_CHANGE_APPROVAL) {
    const changes: FileUpdateChange[] = p.codexLsp?.changes ?? findItem(state, request.itemId)?.changes ?? [];
    const grant = p.grantRoot ? `<div class="reason">Also asks to write anywhere under ${e(p.grantRoot)}</div>` : '';
    return (
      `<div class="request approval" data-request="${e(request.key)}">` +
      `<div class="request-title">Apply ${changes.length === 1 ? 'this change' : `these ${changes.length} changes`}?</div>` +
      renderChanges(changes, { key: request.key }, { cwd: state.conversation?.cwd }) +
      reason +
      grant +
      decisionButtons(request.key) +
      `</div>`
    );
  }
  const questions: UserInputQuestion[] = Array.isArray(p.questions) ? p.questions : [];
  return (
    `<div class="request question" data-request="${e(request.key)}">` +
    `<div class="request-title">Codex asks</div>` +
    questions.map((q, n) => renderQuestion(request.key, q, n)).join('') +
    `<div class="actions">${button('Submit', 'answer', { key: request.key })}${button('Skip', 'answer-skip', { key: request.key }, 'secondary')}</div>` +
    `</div>`
  );
}

function renderQuestion(key: string, q: UserInputQuestion, n: number): string {
  const name = `q-${key}-${n}`;
  const options = (q.options ?? [])
    .map(
      (o, k) =>
        `<label class="option"><input type="radio" name="${e(name)}" value="${e(o.label)}"${k === 0 ? ' checked' : ''}> ` +
        `<span class="option-label">${e(o.label)}</span>${o.description ? ` <span class="muted">${e(o.description)}</span>` : ''}</label>`,
    )
    .join('');
  const free =
    q.isOther || !(q.options ?? []).length
      ? `<label class="option"><input type="${q.isSecret ? 'password' : 'text'}" class="free" data-for="${e(name)}" placeholder="${(q.options ?? []).length ? 'Or type an answer' : 'Your answer'}"></label>`
      : '';
  return (
    `<fieldset class="q" data-question="${e(q.id)}" data-name="${e(name)}">` +
    (q.header ? `<legend>${e(q.header)}</legend>` : '') +
    `<div class="q-text">${e(q.question)}</div>${options}${free}</fieldset>`
  );
}
