/**
 * What waits on the user, as HTML: approvals (with the offered decisions only), questions, and
 * a finished turn's changed files with Diff / Keep / Undo.
 */

import type { FileChangeSummary } from './changes';
import { escapeHtml as e } from './escape';
import {
  type ApprovalRequest,
  COMMAND_APPROVAL,
  ALWAYS_ALLOW,
  type CommandDecision,
  type Decision,
  DECISIONS,
  FILE_CHANGE_APPROVAL,
  type FileUpdateChange,
  type UserInputParams,
  USER_INPUT,
  type UserInputQuestion,
} from './protocol';
import { button } from './renderControls';
import { KIND_LETTER, renderFileList, shortPath } from './renderFiles';
import { changeKey, type ChatState, findItem, type PendingRequest, visibleRequests } from './state';
import { runsUnsandboxed, UNSANDBOXED_NOTE } from './approvalNotice';
import { visible } from './visible';

const DECISION_BUTTONS: Record<Decision, [string, string]> = {
  accept: ['Approve', 'approve'],
  acceptForSession: ['Approve for session', 'approve secondary'],
  decline: ['Deny', 'deny secondary'],
  cancel: ['Abort', 'abort secondary'],
};

/**
 * The decisions to offer: of a command, the server's `availableDecisions` we can give, else all
 * four (a file change offers all four).
 */
export function offeredDecisions(request: ApprovalRequest): Decision[] {
  const offered = request.method === COMMAND_APPROVAL ? request.params.availableDecisions : undefined;
  if (!offered?.length) return DECISIONS;
  const ours = DECISIONS.filter((d) => offered.includes(d));
  return ours.length ? ours : DECISIONS;
}

/** The command prefix a command approval offers to allow from now on, if it offers one. */
export function proposedPrefix(request: ApprovalRequest): string[] | undefined {
  if (request.method !== COMMAND_APPROVAL) return undefined;
  const offered = request.params.availableDecisions ?? [];
  const amendment = offered.find((d): d is Extract<CommandDecision, { acceptWithExecpolicyAmendment: unknown }> => typeof d === 'object' && d !== null && ALWAYS_ALLOW in d);
  const words = amendment?.acceptWithExecpolicyAmendment.execpolicy_amendment;
  return words?.length ? words : (request.params.proposedExecpolicyAmendment ?? undefined) || undefined;
}

/** The server's own decision object for the proposed rule, to send back as it offered it. */
export function amendmentDecision(request: ApprovalRequest): CommandDecision | undefined {
  const words = proposedPrefix(request);
  return words ? { acceptWithExecpolicyAmendment: { execpolicy_amendment: words } } : undefined;
}

/** The keys that answer the oldest approval shown (the `codexChat.approve` / `deny` keybindings). */
export const APPROVAL_KEYS: Partial<Record<Decision, string>> = { accept: 'Ctrl+Alt+Y', decline: 'Ctrl+Alt+N' };

/** The oldest approval shown with the conversation: the one the approval keys answer. */
export function firstApproval(state: ChatState): PendingRequest | undefined {
  return visibleRequests(state).find((r) => r.method !== USER_INPUT);
}

function decisionButton(key: string, decision: Decision, shortcut: boolean): string {
  const [label, cls] = DECISION_BUTTONS[decision];
  const keys = shortcut ? APPROVAL_KEYS[decision] : undefined;
  if (!keys) return button(label, 'decide', { key, decision }, cls);
  return `<button type="button" class="${cls}" data-action="decide" data-key="${e(key)}" data-decision="${decision}" title="${e(`${label} (${keys})`)}">${e(label)} <kbd>${e(keys)}</kbd></button>`;
}

function decisionButtons(key: string, decisions: Decision[], prefix?: string[], shortcut = false): string {
  const buttons = decisions.map((d) => decisionButton(key, d, shortcut));
  if (prefix) {
    // After "Approve for session": the widest approval comes last of the approvals.
    const at = decisions.includes('acceptForSession') ? decisions.indexOf('acceptForSession') + 1 : 0;
    const label = `Always allow commands starting with “${visible(prefix.join(' '))}”`;
    buttons.splice(at, 0, button(label, 'decide', { key, decision: ALWAYS_ALLOW }, 'approve secondary always'));
  }
  return `<div class="actions">${buttons.join('')}</div>`;
}

/** A file-change approval's diffs: on the request (codex-lsp servers) or on its item. */
export function requestChanges(state: ChatState, request: PendingRequest): FileUpdateChange[] {
  const sent = request.method === FILE_CHANGE_APPROVAL ? (request.params.codexLsp?.changes ?? request.params.changes) : undefined;
  return sent ?? findItem(state, request.itemId, 'fileChange')?.changes ?? [];
}

export function renderRequest(state: ChatState, request: PendingRequest): string {
  if (request.method === USER_INPUT) return renderQuestions(request.key, request.params);
  const why = request.params.reason;
  const reason = why ? `<div class="reason">Reason: ${e(visible(why, true))}</div>` : '';
  const decisions = offeredDecisions(request);
  const shortcut = firstApproval(state)?.key === request.key;
  if (request.method === COMMAND_APPROVAL) {
    const item = findItem(state, request.itemId, 'commandExecution');
    const command = request.params.command ?? item?.command ?? '';
    const cwd = request.params.cwd ?? item?.cwd;
    const outside = runsUnsandboxed(request.params);
    return (
      `<div class="request approval" data-request="${e(request.key)}" role="alert">` +
      `<div class="request-title">${outside ? 'Run this command OUTSIDE the sandbox?' : 'Run this command?'}</div>` +
      `<pre class="cmd-line">$ ${e(visible(command))}</pre>` +
      (cwd ? `<div class="muted">in ${e(visible(cwd))}</div>` : '') +
      reason +
      (outside ? `<div class="reason">${e(UNSANDBOXED_NOTE)}</div>` : '') +
      decisionButtons(request.key, decisions, proposedPrefix(request), shortcut) +
      `</div>`
    );
  }
  if (request.method === FILE_CHANGE_APPROVAL) {
    const changes = requestChanges(state, request);
    const root = request.params.grantRoot;
    const grant = root ? `<div class="reason">Also asks to write anywhere under ${e(visible(root))}</div>` : '';
    const what = changes.length === 1 ? 'this change' : changes.length ? `these ${changes.length} changes` : 'the proposed change';
    return (
      `<div class="request approval" data-request="${e(request.key)}" role="alert">` +
      `<div class="request-title">Apply ${what}?</div>` +
      renderFileList(changes, { key: request.key }, { cwd: state.conversation?.cwd }) +
      reason +
      grant +
      decisionButtons(request.key, decisions, undefined, shortcut) +
      `</div>`
    );
  }
  return '';
}

function renderQuestions(key: string, params: UserInputParams): string {
  const questions: UserInputQuestion[] = Array.isArray(params.questions) ? params.questions : [];
  return (
    `<div class="request question" data-request="${e(key)}" role="alert">` +
    `<div class="request-title">Codex asks</div>` +
    questions.map((q, n) => renderQuestion(key, q, n)).join('') +
    `<div class="actions">${button('Submit', 'answer', { key })}${button('Skip', 'answer-skip', { key }, 'secondary')}</div>` +
    `</div>`
  );
}

function renderQuestion(key: string, q: UserInputQuestion, n: number): string {
  const name = `q-${key}-${n}`;
  const options = (q.options ?? [])
    .map(
      (o, k) =>
        `<label class="option"><input type="radio" name="${e(name)}" value="${e(o.label)}"${k === 0 ? ' checked' : ''}> ` +
        `<span class="option-label">${e(visible(o.label))}</span>${o.description ? ` <span class="muted">${e(visible(o.description, true))}</span>` : ''}</label>`,
    )
    .join('');
  const free =
    q.isOther || !(q.options ?? []).length
      ? `<label class="option"><input type="${q.isSecret ? 'password' : 'text'}" class="free" data-for="${e(name)}" placeholder="${(q.options ?? []).length ? 'Or type an answer' : 'Your answer'}"></label>`
      : '';
  return (
    `<fieldset class="q" data-question="${e(q.id)}" data-name="${e(name)}">` +
    (q.header ? `<legend>${e(visible(q.header))}</legend>` : '') +
    `<div class="q-text">${e(visible(q.question, true))}</div>${options}${free}</fieldset>`
  );
}

/** A finished turn's changed files: each with its counts, Diff, and Keep / Undo until decided. */
export function renderChanges(state: ChatState, turnId: string, files: FileChangeSummary[], cwd: string | undefined): string {
  const rows = files.map((file) => {
    const mark = state.changeMarks[changeKey(turnId, file.path)];
    const data = { turn: turnId, path: file.path };
    const name = `${KIND_LETTER[file.kind]} ${shortPath(file.path, cwd)}${file.movePath ? ` → ${shortPath(file.movePath, cwd)}` : ''}`;
    const decided = mark
      ? `<span class="change-mark ${mark}">${mark === 'kept' ? 'Kept' : 'Undone'}</span>`
      : button('Keep', 'keepChange', data, 'secondary') + button('Undo', 'undoChange', data, 'secondary');
    return (
      `<li class="change-row" data-path="${e(file.path)}">` +
      `<code class="change-name" title="${e(file.path)}">${e(name)}</code>` +
      `<span class="change-counts"><span class="plus">+${file.added}</span> <span class="minus">-${file.removed}</span></span>` +
      button('Diff', 'changeDiff', data, 'secondary') +
      decided +
      `</li>`
    );
  });
  const open = files.filter((f) => !state.changeMarks[changeKey(turnId, f.path)]);
  const all = open.length > 1 ? `<div class="actions">${button('Keep all', 'keepAll', { turn: turnId }, 'secondary')}${button('Undo all', 'undoAll', { turn: turnId }, 'secondary')}</div>` : '';
  const count = files.length === 1 ? '1 file' : `${files.length} files`;
  const undone = files.every((f) => state.changeMarks[changeKey(turnId, f.path)] === 'undone');
  const noun = undone ? `Undone: ${count} put back` : `${count} changed`;
  return `<div class="changes" data-turn="${e(turnId)}"><div class="changes-head">${noun}</div><ul class="change-list">${rows.join('')}</ul>${all}</div>`;
}

/** What the shown thread allows without asking for the rest of its session, each with Revoke. */
export function renderSessionApprovals(state: ChatState): string {
  const shown = state.sessionApprovals;
  if (!shown?.approvals.length || shown.threadId !== state.conversation?.threadId) return '';
  const rows = shown.approvals.map(
    (a) =>
      `<li class="session-approval" data-approval="${e(a.id)}">` +
      `<span class="muted">${a.kind === 'file' ? 'Changes to' : 'Command'}</span> <code title="${e(visible(a.description))}">${e(visible(a.description))}</code> ` +
      button('Revoke', 'revokeApproval', { thread: shown.threadId, id: a.id }, 'secondary', 'Ask again before this runs') +
      `</li>`,
  );
  return `<div class="session-approvals"><div class="changes-head">Allowed for this session without asking</div><ul class="change-list">${rows.join('')}</ul></div>`;
}
