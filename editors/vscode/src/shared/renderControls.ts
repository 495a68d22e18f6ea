/**
 * The panel's controls as HTML strings, from the state alone: the pickers, the thread list,
 * the notices (with a failed server's own output), the usage line and the composer's context
 * chips. Pure and unit-tested; every piece of text goes through `escapeHtml`.
 */

import { classToken, escapeHtml as e } from './escape';
import { imageThumb } from './images';
import { visible } from './visible';
import { formatRateLimits, formatTokenUsage } from './format';
import { APPROVAL_POLICIES, type Mode, MODES, type ModelInfo, REASONING_EFFORTS } from './protocol';
import { type ChatState, threadTitle } from './state';

export function button(label: string, action: string, data: Record<string, string | number> = {}, cls = '', title = ''): string {
  const attrs = Object.entries(data)
    .map(([k, v]) => ` data-${k}="${e(v)}"`)
    .join('');
  const klass = cls ? ` class="${cls}"` : '';
  const tip = title ? ` title="${e(title)}"` : '';
  return `<button type="button"${klass} data-action="${e(action)}"${attrs}${tip}>${e(label)}</button>`;
}

function option(value: string, label: string, selected: boolean): string {
  return `<option value="${e(value)}"${selected ? ' selected' : ''}>${e(label)}</option>`;
}

function asConfigured(what: string, value: string | undefined): string {
  return value ? `${what}: as configured (${value})` : `${what}: as configured`;
}

/** The short form for the narrow pickers: the value first, so a cut label still says it. */
function configuredValue(what: string, value: string | undefined): string {
  return value ? `${what}: ${value} (as configured)` : `${what}: as configured`;
}

/** The model the pickers stand for: the pick, else the configured one. */
function pickedModel(state: ChatState): ModelInfo | undefined {
  const id = state.model || state.configured.model;
  return state.models.find((m) => (m.model || m.id) === id);
}

export function renderToolbar(state: ChatState): string {
  const models = [option('', asConfigured('Model', state.configured.model), !state.model)]
    .concat(
      state.models
        .filter((m) => !m.hidden || (m.model || m.id) === state.model)
        .map((m) => {
          const id = m.model || m.id;
          return option(id, m.displayName || id, id === state.model);
        }),
    )
    .join('');
  const model = pickedModel(state);
  const supported = model?.supportedReasoningEfforts?.map((o) => o.reasoningEffort) ?? REASONING_EFFORTS;
  const configuredEffort = state.configured.effort || model?.defaultReasoningEffort || undefined;
  const efforts = [option('', configuredValue('Effort', configuredEffort ?? undefined), !state.effort)]
    .concat(supported.map((effort) => option(effort, `Effort: ${effort}`, effort === state.effort)))
    .join('');
  const mode = MODES[state.mode];
  // The mode's policy holds over config.toml's, as in codex's IDE extension; a pick replaces it.
  const unpicked = `Approvals: ${mode.approvalPolicy} (${mode.label} mode)`;
  const overridden = state.configured.approvalPolicy ? `; the mode's replaces config.toml's approval_policy (${state.configured.approvalPolicy})` : '';
  const policies = [option('', unpicked, !state.approvalPolicy)]
    .concat(APPROVAL_POLICIES.map((p) => option(p, `Approvals: ${p}`, p === state.approvalPolicy)))
    .join('');
  const modes = (Object.keys(MODES) as Mode[])
    .map((m) => `<option value="${m}" title="${e(MODES[m].description)}"${m === state.mode ? ' selected' : ''}>${e(MODES[m].label)}</option>`)
    .join('');
  return (
    `<select id="mode" data-action="mode" title="${e(`Mode: ${mode.description}`)}" aria-label="Mode">${modes}</select>` +
    `<select id="model" data-action="model" title="Model for the next turns" aria-label="Model">${models}</select>` +
    `<select id="effort" data-action="effort" title="Reasoning effort for the next turns" aria-label="Reasoning effort">${efforts}</select>` +
    `<select id="policy" data-action="policy" title="${e(`When Codex asks before running commands and changing files${overridden}`)}" aria-label="Approval policy">${policies}</select>`
  );
}

function when(seconds: number | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ') : '';
}

export function renderThreadList(state: ChatState): string {
  if (!state.threads.length) {
    return state.threadQuery
      ? `<p class="muted">No thread matches “${e(state.threadQuery)}”.</p>`
      : `<p class="muted">No threads yet.</p>`;
  }
  const current = state.conversation?.threadId;
  const rows = state.threads.map((t) => {
    const cls = t.id === current ? 'thread current' : 'thread';
    return (
      `<li class="${cls}" data-thread="${e(t.id)}">` +
      `<button type="button" class="thread-open link" data-action="resume" data-thread="${e(t.id)}" title="${e(visible(t.preview ?? ''))}">` +
      `<span class="thread-title">${e(visible(threadTitle(t)))}</span></button>` +
      `<span class="thread-meta"><span class="muted thread-when">${e(when(t.updatedAt))}</span><span class="spacer"></span>` +
      `<span class="thread-actions">` +
      button('Rename', 'rename', { thread: t.id }, 'secondary icon', 'Rename this thread') +
      button('Archive', 'archive', { thread: t.id }, 'secondary icon', 'Archive this thread') +
      button('Delete', 'delete', { thread: t.id }, 'secondary icon danger', 'Delete this thread for good') +
      `</span></span>` +
      `</li>`
    );
  });
  return `<ul class="threads">${rows.join('')}</ul>`;
}

export function renderNotices(state: ChatState): string {
  const server = state.server;
  let head = '';
  if (server.state === 'error') {
    const output = server.output ? `<pre class="server-output">${e(server.output)}</pre>` : '';
    head =
      `<div class="notice error server-down" role="alert"><div>${e(server.message ?? 'The Codex server is not running.')}</div>` +
      output +
      `<div class="actions">${server.installable ? button('Install the Codex server', 'installServer') : ''}${button('Open settings', 'openSettings', {}, server.installable ? 'secondary' : '')}${button('Restart', 'restart', {}, 'secondary')}${button('Show log', 'showLog', {}, 'secondary')}</div>` +
      `</div>`;
  } else if (server.state === 'installing') {
    head = `<div class="notice info">Installing the Codex server into the extension's storage… ${button('Show log', 'showLog', {}, 'secondary')}</div>`;
  } else if (server.state === 'starting') {
    head = `<div class="notice info">Starting the Codex server…</div>`;
  } else if (server.state === 'stopped') {
    head = `<div class="notice warning">The Codex server stopped. ${button('Restart', 'restart', {}, 'secondary')}</div>`;
  }
  const notices = state.notices
    .map((n) => `<div class="notice ${classToken(n.kind)}">${e(visible(n.text, true))} ${button('Dismiss', 'dismiss', { id: n.id }, 'secondary')}</div>`)
    .join('');
  return head + notices;
}

/** Who Codex signs in as, with Sign out; or, when the model needs a sign-in, the ways to sign in. */
export function renderAccount(state: ChatState): string {
  const info = state.account;
  if (!info) return '';
  const account = info.account;
  if (account) {
    const who =
      account.type === 'apiKey'
        ? 'Signed in with an API key'
        : account.type === 'chatgpt'
          ? `Signed in with ChatGPT${account.email ? ` as ${account.email}` : ''}${account.planType ? ` (${account.planType})` : ''}`
          : 'Signed in with Amazon Bedrock';
    return `<div class="account signed-in"><span>${e(visible(who))}</span> ${button('Sign out', 'logout', {}, 'secondary link')}</div>`;
  }
  if (!info.requiresOpenaiAuth) return '';
  const error = info.error ? `<div class="account-error" role="alert">${e(visible(info.error, true))}</div>` : '';
  const pending = info.pendingLogin ? `<div class="muted">Finish signing in in your browser; this panel follows.</div>` : '';
  return (
    `<div class="account signin"><div class="account-title">Sign in to use Codex</div>` +
    `<form class="account-key"><input id="api-key" type="password" autocomplete="off" spellcheck="false" placeholder="OpenAI API key" aria-label="OpenAI API key">` +
    `${button('Sign in', 'loginApiKey')}</form>` +
    `${button('Sign in with ChatGPT', 'loginChatgpt', {}, 'secondary')}${pending}${error}</div>`
  );
}

export function renderUsage(state: ChatState): string {
  const usage = formatTokenUsage(state.conversation?.tokenUsage);
  const parts = [usage ? `This thread: ${usage}` : ''];
  const limits = formatRateLimits(state.rateLimits);
  if (limits) parts.push(`rate limits: ${limits}`);
  return e(parts.filter(Boolean).join(' · '));
}

const CHIP_ICON = { file: '▤', selection: '✂', problems: '⚠', image: '▣' } as const;

export function renderChips(state: ChatState): string {
  return state.attachments
    .map(
      (a) =>
        `<span class="chip" data-kind="${classToken(a.kind)}" title="${e(a.path ?? a.label)}">` +
        (a.kind === 'image' && a.path ? imageThumb(a.path, 'chip-thumb') : `<span class="chip-icon" aria-hidden="true">${CHIP_ICON[a.kind]}</span>`) +
        e(a.label) +
        `<button type="button" class="chip-remove" data-action="detach" data-id="${e(a.id)}" aria-label="Remove ${e(a.label)}" title="Remove">×</button></span>`,
    )
    .join('');
}
