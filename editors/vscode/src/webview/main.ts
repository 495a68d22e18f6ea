/**
 * The chat page. It keeps its own copy of the state (same reducer as the host), renders it in
 * blocks and replaces only the blocks whose HTML changed, so streaming a long answer leaves the
 * rest of the page, the scroll position and any typed answer alone. Every piece of HTML goes
 * through DOMPurify on its way into the DOM.
 */

import DOMPurify from 'dompurify';
import { escapeHtml } from '../shared/escape';
import type { FromWebview, ToWebview } from '../shared/messages';
import type { PanelDecision, UserInputAnswers } from '../shared/protocol';
import {
  renderChips,
  renderConversation,
  renderAccount,
  renderNotices,
  renderThreadList,
  renderToolbar,
  renderUsage,
} from '../shared/render';
import { type ChatState, initialState, reduce } from '../shared/state';
import { Blocks } from './blocks';
import { acceptPastedImages, ImagePreviews } from './images';
import { ContextMenu } from './picker';

interface UiState {
  draft?: string;
  threadsOpen?: boolean;
}

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): UiState | undefined;
  setState(state: UiState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let state: ChatState = initialState();
let scheduled = false;
/** Actions arrived that the host has not heard were drawn: it sends no more until it has. */
let owesDrawn = false;
const saved = vscode.getState() ?? {};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = $<HTMLDivElement>('log');
const input = $<HTMLTextAreaElement>('input');
const send = $<HTMLButtonElement>('send');
const stop = $<HTMLButtonElement>('stop');
const threadsPanel = $<HTMLDivElement>('threads-panel');
const threads = $<HTMLDivElement>('threads');
const threadsToggle = $<HTMLButtonElement>('threads-toggle');
const threadSearch = $<HTMLInputElement>('thread-search');
const lastHtml = new Map<string, string>();
/** Requests the user has not had brought into view yet. */
const unseenRequests = new Set<string>();

function post(message: FromWebview) {
  vscode.postMessage(message);
}

const picker = new ContextMenu($<HTMLDivElement>('picker'), input, {
  query: (query) => post({ type: 'contextQuery', query }),
  pick: (option) => post({ type: 'attach', option }),
});

const previews = new ImagePreviews((paths) => post({ type: 'wantPreviews', paths }));
acceptPastedImages(
  input,
  (dataUrl) => post({ type: 'pasteImage', dataUrl }),
  (text) => {
    state = reduce(state, { type: 'notice', kind: 'warning', text });
    schedule();
  },
);

input.value = saved.draft ?? '';
setThreadsOpen(!!saved.threadsOpen);

function clean(html: string): string {
  return DOMPurify.sanitize(html);
}

function saveUi() {
  vscode.setState({ draft: input.value, threadsOpen: !threadsPanel.hidden });
}

function setThreadsOpen(open: boolean) {
  threadsPanel.hidden = !open;
  threadsToggle.setAttribute('aria-expanded', String(open));
}

/** Replace `el`'s content only when it changed (keeps focus and open <select>s alone). */
function setHtml(el: HTMLElement, html: string) {
  if (lastHtml.get(el.id) !== html) {
    lastHtml.set(el.id, html);
    el.innerHTML = clean(html);
  }
}

const blocks = new Blocks(log, clean, (key) => unseenRequests.add(key));

/** Bring a waiting request into view, once the panel is laid out to show it. */
function revealRequests(force = false) {
  for (const key of [...unseenRequests]) {
    const node = log.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
    if (!node) {
      unseenRequests.delete(key);
      continue;
    }
    if (node.getBoundingClientRect().height === 0 && !force) continue;
    node.scrollIntoView({ block: 'nearest' });
    unseenRequests.delete(key);
  }
}

/**
 * Whether the log follows its end: kept from the user's scrolling, so a frame need not measure
 * the log before changing it.
 */
let atBottom = true;
/** The thread shown: another one opens at its end, wherever the last one was scrolled to. */
let shownThread: string | undefined;
log.addEventListener('scroll', () => {
  atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
}, { passive: true });

function render() {
  scheduled = false;
  if (state.conversation?.threadId !== shownThread) {
    shownThread = state.conversation?.threadId;
    atBottom = true;
  }
  setHtml($('toolbar'), renderToolbar(state));
  setHtml($('notices'), renderNotices(state));
  setHtml($('account'), renderAccount(state));
  setHtml($('usage'), renderUsage(state));
  setHtml($('chips'), renderChips(state));
  if (!threadsPanel.hidden) setHtml(threads, renderThreadList(state));
  blocks.patch(renderConversation(state));
  const running = !!state.conversation?.runningTurnId;
  const up = state.server.state === 'ready';
  send.disabled = !up;
  // While a turn runs, Enter steers it: the button says so.
  send.textContent = running ? 'Steer' : 'Send';
  send.title = running ? 'Send to the running turn: Codex reads it at its next step' : 'Send (Enter)';
  stop.hidden = !running;
  document.body.dataset.server = state.server.state;
  document.body.dataset.running = String(running);
  previews.fill(document);
  if (atBottom) log.scrollTop = log.scrollHeight;
  revealRequests();
  if (owesDrawn) {
    owesDrawn = false;
    post({ type: 'drawn' });
  }
}

function schedule() {
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(render);
  }
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'snapshot':
      state = message.state;
      lastHtml.clear();
      schedule();
      break;
    case 'action':
      state = reduce(state, message.action);
      schedule();
      break;
    case 'actions':
      for (const action of message.actions) state = reduce(state, action);
      owesDrawn = true;
      schedule();
      break;
    case 'focusInput':
      input.focus();
      break;
    case 'revealRequests':
      requestAnimationFrame(() => revealRequests(true));
      break;
    case 'contextOptions':
      picker.show(message.query, message.options);
      break;
    case 'imagePreviews':
      previews.add(message.previews);
      schedule();
      break;
  }
});

document.addEventListener('visibilitychange', () => revealRequests());
window.addEventListener('resize', () => revealRequests());

function submit() {
  const text = input.value;
  if (!text.trim() || send.disabled) return;
  post({ type: 'send', text });
  input.value = '';
  picker.hide();
  saveUi();
}

function collectAnswers(key: string): UserInputAnswers {
  const answers: UserInputAnswers = {};
  const box = log.querySelector(`[data-request="${CSS.escape(key)}"]`);
  if (!box) return answers;
  for (const fieldset of Array.from(box.querySelectorAll<HTMLFieldSetElement>('fieldset[data-question]'))) {
    const id = fieldset.dataset.question ?? '';
    const free = fieldset.querySelector<HTMLInputElement>('input.free');
    const chosen = fieldset.querySelector<HTMLInputElement>('input[type=radio]:checked');
    const value = free && free.value.trim() ? free.value.trim() : chosen?.value;
    if (value) answers[id] = { answers: [value] };
  }
  return answers;
}

function codeOf(target: HTMLElement): { code: string; language: string } {
  const block = target.closest<HTMLElement>('.code-block');
  return { code: block?.querySelector('code')?.textContent ?? '', language: block?.dataset.lang ?? '' };
}

/** Rename in place: the title becomes an input; Enter renames, Escape or leaving cancels. */
function startRename(row: HTMLElement, threadId: string) {
  const title = row.querySelector<HTMLElement>('.thread-title');
  if (!title || row.querySelector('input.rename')) return;
  const field = document.createElement('input');
  field.className = 'rename';
  field.value = title.textContent ?? '';
  field.setAttribute('aria-label', 'New name');
  const open = row.querySelector<HTMLElement>('.thread-open');
  open?.replaceWith(field);
  field.focus();
  field.select();
  let done = false;
  const finish = (commit: boolean) => {
    if (done) return;
    done = true;
    if (commit && field.value.trim()) post({ type: 'rename', threadId, name: field.value.trim() });
    lastHtml.delete(threads.id);
    render();
  };
  field.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') finish(true);
    if (event.key === 'Escape') finish(false);
  });
  field.addEventListener('blur', () => finish(false));
}

/** Deleting cannot be undone: the row asks first, in place. */
function confirmDelete(row: HTMLElement, threadId: string) {
  for (const b of Array.from(row.querySelectorAll('button.icon'))) b.remove();
  const ask = document.createElement('span');
  ask.className = 'confirm-delete';
  ask.innerHTML = clean(
    `<span class="muted">Delete for good?</span>` +
      `<button type="button" class="danger-solid" data-action="confirmDelete" data-thread="${escapeHtml(threadId)}">Delete</button>` +
      `<button type="button" class="secondary" data-action="cancelDelete">Cancel</button>`,
  );
  row.appendChild(ask);
  ask.querySelector<HTMLButtonElement>('[data-action="cancelDelete"]')?.focus();
}

/** Send the API key field's key to the server once; the panel keeps no copy. */
function loginWithKey(): void {
  const field = document.getElementById('api-key') as HTMLInputElement | null;
  const apiKey = field?.value.trim() ?? '';
  if (!field || !apiKey) return field?.focus();
  field.value = '';
  post({ type: 'login', apiKey });
}

document.addEventListener('submit', (event) => {
  if (!(event.target as HTMLElement).closest('.account-key')) return;
  event.preventDefault();
  loginWithKey();
});

document.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
  if (!target || target.tagName === 'SELECT') return;
  const data = target.dataset;
  if (target.tagName === 'A') event.preventDefault();
  switch (data.action) {
    case 'send':
      submit();
      break;
    case 'stop':
      post({ type: 'stop' });
      break;
    case 'retry':
      post({ type: 'retry', turnId: data.turn ?? '' });
      break;
    case 'newThread':
      post({ type: 'newThread' });
      break;
    case 'toggleThreads':
      setThreadsOpen(threadsPanel.hidden);
      if (!threadsPanel.hidden) {
        post({ type: 'refreshThreads' });
        lastHtml.delete(threads.id);
        render();
        threadSearch.focus();
      }
      saveUi();
      break;
    case 'resume':
      post({ type: 'resume', threadId: data.thread ?? '' });
      setThreadsOpen(false);
      saveUi();
      break;
    case 'rename':
      startRename(target.closest<HTMLElement>('li.thread') ?? target, data.thread ?? '');
      break;
    case 'archive':
      post({ type: 'archive', threadId: data.thread ?? '' });
      break;
    case 'delete':
      confirmDelete(target.closest<HTMLElement>('li.thread') ?? target, data.thread ?? '');
      break;
    case 'confirmDelete':
      post({ type: 'delete', threadId: data.thread ?? '' });
      break;
    case 'cancelDelete':
      lastHtml.delete(threads.id);
      render();
      break;
    case 'decide':
      target.closest('.request')?.classList.add('answered');
      post({ type: 'decide', key: data.key ?? '', decision: data.decision as PanelDecision });
      break;
    case 'revokeApproval':
      post({ type: 'revokeApproval', threadId: data.thread ?? '', id: data.id ?? '' });
      break;
    case 'answer':
      post({ type: 'answer', key: data.key ?? '', answers: collectAnswers(data.key ?? '') });
      break;
    case 'answer-skip':
      post({ type: 'answer', key: data.key ?? '', answers: {} });
      break;
    case 'openDiff':
      post({ type: 'openDiff', key: data.key, itemId: data.item, index: Number(data.index ?? 0) });
      break;
    case 'dismiss':
      post({ type: 'dismiss', id: Number(data.id) });
      break;
    case 'loginApiKey':
      loginWithKey();
      break;
    case 'loginChatgpt':
      post({ type: 'login' });
      break;
    case 'logout':
      post({ type: 'logout' });
      break;
    case 'showLog':
    case 'installServer':
    case 'openSettings':
    case 'restart':
      post({ type: data.action });
      break;
    case 'openPicker':
      picker.open();
      break;
    case 'detach':
      post({ type: 'detach', id: data.id ?? '' });
      break;
    case 'attachImage':
      post({ type: 'attachImage' });
      break;
    case 'copyCode':
      post({ type: 'copyCode', code: codeOf(target).code });
      break;
    case 'insertCode':
      post({ type: 'insertCode', code: codeOf(target).code });
      break;
    case 'applyCode':
      post({ type: 'applyCode', ...codeOf(target) });
      break;
    case 'openFile':
      post({ type: 'openFile', path: data.path ?? '', line: data.line ? Number(data.line) : undefined });
      break;
    case 'openLink': {
      const href = target.getAttribute('href');
      if (href) post({ type: 'openLink', href });
      break;
    }
    case 'changeDiff':
      post({ type: 'changeDiff', turnId: data.turn ?? '', path: data.path ?? '' });
      break;
    case 'keepChange':
    case 'undoChange':
      post({ type: data.action, turnId: data.turn ?? '', path: data.path });
      break;
    case 'keepAll':
      post({ type: 'keepChange', turnId: data.turn ?? '' });
      break;
    case 'undoAll':
      post({ type: 'undoChange', turnId: data.turn ?? '' });
      break;
  }
});

document.addEventListener('change', (event) => {
  const target = event.target as HTMLSelectElement;
  if (target.dataset.action === 'model') post({ type: 'select', model: target.value });
  if (target.dataset.action === 'effort') post({ type: 'select', effort: target.value });
  if (target.dataset.action === 'policy') post({ type: 'select', approvalPolicy: target.value });
  if (target.dataset.action === 'mode') post({ type: 'select', mode: target.value });
});

// The messages sent from this panel, oldest first, for ArrowUp / ArrowDown in an empty box.
const sentHistory: string[] = [];
let historyAt = -1;

input.addEventListener('keydown', (event) => {
  if (picker.keydown(event)) return;
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    const text = input.value;
    if (text.trim() && !send.disabled && sentHistory.at(-1) !== text) sentHistory.push(text);
    historyAt = -1;
    submit();
    return;
  }
  if (event.key === 'Escape' && state.conversation?.runningTurnId) {
    event.preventDefault();
    post({ type: 'stop' });
    return;
  }
  // Earlier messages come back only into an empty box (or one showing a recalled message),
  // so the arrows still move the cursor through text being written.
  const recalling = historyAt >= 0 && input.value === sentHistory[historyAt];
  if ((event.key === 'ArrowUp' || event.key === 'ArrowDown') && sentHistory.length && (!input.value || recalling)) {
    const up = event.key === 'ArrowUp';
    const from = historyAt < 0 ? sentHistory.length : historyAt;
    const next = up ? Math.max(0, from - 1) : from + 1;
    event.preventDefault();
    historyAt = next >= sentHistory.length ? -1 : next;
    input.value = historyAt < 0 ? '' : sentHistory[historyAt];
  }
});
input.addEventListener('input', () => {
  picker.onInput();
  saveUi();
});

let searchTimer: ReturnType<typeof setTimeout> | undefined;
threadSearch.addEventListener('input', () => {
  // Ask the server once the user pauses, not on every key.
  if (searchTimer) clearTimeout(searchTimer);
  searchTimer = setTimeout(() => post({ type: 'searchThreads', query: threadSearch.value }), 200);
});

post({ type: 'ready' });
