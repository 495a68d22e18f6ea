/**
 * What Codex is doing right now, in a few words, from the state alone: the status bar's text
 * and the panel's "working" line say the same thing. Pure, so it is unit-tested.
 */

import { formatCount, formatRateLimits, formatTokenUsage, highestRateLimit } from './format';
import { displayCommand } from './shellScript';
import { type ChatState, visibleRequests } from './state';

export type ActivityKind = 'down' | 'starting' | 'approval' | 'question' | 'command' | 'editing' | 'thinking' | 'writing' | 'failed' | 'idle';

export interface Activity {
  kind: ActivityKind;
  text: string;
}

function shortCommand(command: string): string {
  const line = displayCommand(command).split('\n')[0];
  return line.length > 40 ? line.slice(0, 39) + '…' : line;
}

export function activity(state: ChatState): Activity {
  if (state.server.state === 'error' || state.server.state === 'stopped') return { kind: 'down', text: 'Server not running' };
  if (state.server.state === 'starting') return { kind: 'starting', text: 'Starting' };
  if (state.server.state === 'installing') return { kind: 'starting', text: 'Installing the server' };
  return turnActivity(state);
}

/** What the running turn is doing, or what waits on the user. */
export function turnActivity(state: ChatState): Activity {
  // Requests first: any thread's approval waits on the user, not only the one shown.
  const waiting = state.requests[0];
  if (waiting) {
    return waiting.method === 'item/tool/requestUserInput'
      ? { kind: 'question', text: 'Waiting for your answer' }
      : { kind: 'approval', text: 'Waiting for approval' };
  }
  const conv = state.conversation;
  const turn = conv?.runningTurnId ? conv.turns.find((t) => t.id === conv.runningTurnId) : undefined;
  if (conv?.runningTurnId) {
    const last = turn?.items[turn.items.length - 1];
    if (last?.type === 'commandExecution' && last.status === 'inProgress') {
      return { kind: 'command', text: `Running ${shortCommand(last.command ?? 'a command')}` };
    }
    if (last?.type === 'fileChange' && last.status === 'inProgress') return { kind: 'editing', text: 'Editing files' };
    if (last?.type === 'agentMessage') return { kind: 'writing', text: 'Writing the answer' };
    return { kind: 'thinking', text: 'Thinking' };
  }
  const lastTurn = conv?.turns[conv.turns.length - 1];
  if (lastTurn?.status === 'failed') return { kind: 'failed', text: 'Last turn failed' };
  return { kind: 'idle', text: '' };
}

const ICONS: Record<ActivityKind, string> = {
  down: '$(error)',
  starting: '$(sync~spin)',
  approval: '$(bell-dot)',
  question: '$(question)',
  command: '$(terminal)',
  editing: '$(edit)',
  thinking: '$(loading~spin)',
  writing: '$(loading~spin)',
  failed: '$(warning)',
  idle: '$(comment-discussion)',
};

export function statusText(state: ChatState): { text: string; tooltip: string; error: boolean; attention: boolean } {
  const now = activity(state);
  const parts = [`${ICONS[now.kind]} Codex`];
  if (now.text) parts.push(now.text);
  const usage = state.conversation?.tokenUsage;
  if (now.kind === 'idle' && usage?.total) parts.push(`${formatCount(usage.total.totalTokens)} tok`);
  const limit = highestRateLimit(state.rateLimits);
  if (limit !== undefined) parts.push(`${Math.round(limit)}%`);
  const pending = visibleRequests(state).length;
  const lines = [
    `Codex server: ${state.server.state}${state.server.message ? ` — ${state.server.message}` : ''}`,
    now.text && now.kind !== 'down' ? now.text : '',
    pending ? 'Click to answer in the chat.' : '',
    usage ? `This thread: ${formatTokenUsage(usage)}` : '',
    state.rateLimits ? `Rate limits: ${formatRateLimits(state.rateLimits)}` : '',
  ];
  return {
    text: parts.join(' '),
    tooltip: lines.filter(Boolean).join('\n'),
    error: now.kind === 'down',
    attention: now.kind === 'approval' || now.kind === 'question' || now.kind === 'failed',
  };
}
