/**
 * The chat page. It keeps its own copy of the state (same reducer as the host), renders it
 * in blocks and replaces only the blocks whose HTML changed, so streaming a long answer
 * leaves the rest of the page, the scroll position and any typed answer alone.
 */

import type { FromWebview, ToWebview } from '../shared/messages';
import type { Decision, UserInputAnswers } from '../shared/protocol';
import { type Block, renderConversation, renderNotices, renderThreadList, renderToolbar, renderUsage } from '../shared/render';
import { type ChatState, initialState, reduce } from '../shared/state';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): { draft?: string; threadsOpen?: boolean } | undefined;
  setState(state: { draft?: string; threadsOpen?: boolean }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let state: ChatState = initialState();
let scheduled = false;
const saved = vscode.getState() ?? {};

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const log = $<HTMLDivElement>('log');
const input = $<HTMLTextAreaElement>('input');
const send = $<HTMLButtonElement>('send');
const stop = $<HTMLButtonElement>('stop');
const threads = $<HTMLDivElement>('threads');
const threadsToggle = $<HTMLButtonElement>('threads-toggle');
const lastHtml = new Map<string, string>();

input.value = saved.draft ?? '';
setThreadsOpen(!!saved.threadsOpen);

function post(message: FromWebview) {
  vscode.postMessage(message);
}

function saveUi() {
  vscode.setState({ draft: input.value, threadsOpen: !threads.hidden });
}

function setThreadsOpen(open: boolean) {
  threads.hidden = !open;
  threadsToggle.setAttribute('aria-expanded', String(open));
}

/** Replace `el`'s content only when it changed (keeps focus and open <select>s alone). */
function setHtml(el: HTMLElement, html: string) {
  if (lastHtml.get(el.id) !== html) {
    lastHtml.set(el.id, html);
    el.innerHTML = html;
  }
}

/** Keyed update of the conversation: reuse a block's node when its HTML is unchanged. */
function patchBlocks(container: HTMLElement, blocks: Block[]) {
  const existing = new Map<string, HTMLElement>();
  for (const child of Array.from(container.children) as HTMLElement[]) existing.set(child.dataset.key ?? '', child);
  let previous: Element | null = null;
  for (const block of blocks) {
    let node = existing.get(block.key);
    existing.delete(block.key);
    if (!node) {
      node = document.createElement('div');
      node.className = 'block';
      node.dataset.key = block.key;
      node.innerHTML = block.html;
      node.dataset.html = block.html;
    } else if (node.dataset.html !== block.html) {
      node.innerHTML = block.html;
      node.dataset.html = block.html;
    }
    const expected: Element | null = previous ? previous.nextElementSibling : container.firstElementChild;
    if (expected !== node) container.insertBefore(node, expected);
    previous = node;
  }
  for (const node of existing.values()) node.remove();
}

function render() {
  scheduled = false;
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  setHtml($('toolbar'), renderToolbar(state));
  setHtml($('notices'), renderNotices(state));
  setHtml($('usage'), renderUsage(state));
  if (!threads.hidden) setHtml(threads, renderThreadList(state));
  patchBlocks(log, renderConversation(state));
  const running = !!state.conversation?.runningTurnId;
  const up = state.server.state === 'ready';
  send.disabled = running || !up;
  stop.disabled = !running;
  document.body.dataset.server = state.server.state;
  document.body.dataset.running = String(running);
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function schedule() {
  if (!scheduled) {
    scheduled = true;
    requestAnimationFrame(render);
  }
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  if (message.type === 'snapshot') {
    state = message.state;
    lastHtml.clear();
    schedule();
  } else if (message.type === 'action') {
    state = reduce(state, message.action);
    schedule();
  } else if (message.type === 'focusInput') {
    input.focus();
  }
});

function submit() {
  const text = input.value;
  if (!text.trim() || send.disabled) return;
  post({ type: 'send', text });
  input.value = '';
  saveUi();
}

function collectAnswers(key: string): UserInputAnswers {
  const answers: UserInputAnswers = {};
  const box = log.querySelector(`[data-request="${CSS.escape(key)}"]`);
  if (!box) return answers;
  for (const fieldset of Array.from(box.querySelectorAll<HTMLFieldSetElement>('fieldset[data-question]'))) {
    const id = fieldset.dataset.question!;
    const free = fieldset.querySelector<HTMLInputElement>('input.free');
    const chosen = fieldset.querySelector<HTMLInputElement>('input[type=radio]:checked');
    const value = free && free.value.trim() ? free.value.trim() : chosen?.value;
    if (value) answers[id] = { answers: [value] };
  }
  return answers;
}

document.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-action]');
  if (!target || target.tagName === 'SELECT') return;
  const data = target.dataset;
  switch (data.action) {
    case 'send':
      submit();
      break;
    case 'stop':
      post({ type: 'stop' });
      break;
    case 'newThread':
      post({ type: 'newThread' });
      break;
    case 'toggleThreads':
      setThreadsOpen(threads.hidden);
      if (!threads.hidden) {
        post({ type: 'refreshThreads' });
        lastHtml.delete(threads.id);
        render();
      }
      saveUi();
      break;
    case 'resume':
      post({ type: 'resume', threadId: data.thread! });
      setThreadsOpen(false);
      saveUi();
      break;
    case 'archive':
      post({ type: 'archive', threadId: data.thread! });
      break;
    case 'decide':
      target.closest('.request')?.classList.add('answered');
      post({ type: 'decide', key: data.key!, decision: data.decision as Decision });
      break;
    case 'answer':
      post({ type: 'answer', key: data.key!, answers: collectAnswers(data.key!) });
      break;
    case 'answer-skip':
      post({ type: 'answer', key: data.key!, answers: {} });
      break;
    case 'openDiff':
      post({ type: 'openDiff', key: data.key, itemId: data.item, index: Number(data.index ?? 0) });
      break;
    case 'dismiss':
      post({ type: 'dismiss', id: Number(data.id) });
      break;
    case 'showLog':
      post({ type: 'showLog' });
      break;
    case 'restart':
      post({ type: 'restart' });
      break;
  }
});

document.addEventListener('change', (event) => {
  const target = event.target as HTMLSelectElement;
  if (target.dataset.action === 'model') post({ type: 'select', model: target.value });
  if (target.dataset.action === 'policy') post({ type: 'select', approvalPolicy: target.value });
});

input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});
input.addEventListener('input', saveUi);

post({ type: 'ready' });
