/**
 * The chat state after one v2 notification from the server. Pure, like the rest of the reducer:
 * the notification is discriminated by its method, so each case reads the params the protocol's
 * generated types give that method, and a notification about a thread other than the one shown
 * only touches the lists.
 */

import type { FollowedNotification, RateLimits, ThreadItem, ThreadItemOf } from './protocol';
import {
  addNotice,
  type ChatState,
  type Conversation,
  LOCAL_PREFIX,
  MAX_OUTPUT_CHARS,
  NEW_THREAD_TITLE,
  reviewTitle,
  threadTitle,
  type TurnView,
  upsertThread,
} from './state';

/** Apply `change` to the current conversation when `threadId` is the one shown. */
function onConversation(
  state: ChatState,
  threadId: string | undefined,
  change: (conv: Conversation) => Conversation,
): ChatState {
  const conv = state.conversation;
  if (!conv || (threadId !== undefined && threadId !== conv.threadId)) return state;
  const next = change(conv);
  return next === conv ? state : { ...state, conversation: next };
}

function withTurn(conv: Conversation, turnId: string, change: (turn: TurnView) => TurnView): Conversation {
  const index = conv.turns.findIndex((t) => t.id === turnId);
  if (index < 0) {
    // An item for a turn we did not see start (the panel opened mid-turn).
    const turn = change({ id: turnId, status: 'inProgress', items: [] });
    return { ...conv, turns: [...conv.turns, turn] };
  }
  const turn = change(conv.turns[index]);
  if (turn === conv.turns[index]) return conv;
  const turns = conv.turns.slice();
  turns[index] = turn;
  return { ...conv, turns };
}

function withItem(turn: TurnView, itemId: string, change: (item: ThreadItem | undefined) => ThreadItem): TurnView {
  const index = turn.items.findIndex((i) => i.id === itemId);
  const items = turn.items.slice();
  if (index < 0) items.push(change(undefined));
  else items[index] = change(items[index]);
  return { ...turn, items };
}

/** Later fields win, except that a missing or null one keeps what streaming built up. */
function mergeItem(old: ThreadItem | undefined, next: ThreadItem): ThreadItem {
  if (!old) return next;
  const merged = { ...old } as Record<string, unknown>;
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined && value !== null) merged[key] = value;
  }
  const item = merged as ThreadItem;
  if (item.type === 'agentMessage' && old.type === 'agentMessage' && next.type === 'agentMessage') {
    if (!next.text && old.text) item.text = old.text;
  }
  if (item.type === 'commandExecution' && old.type === 'commandExecution' && next.type === 'commandExecution') {
    if (!next.aggregatedOutput && old.aggregatedOutput) item.aggregatedOutput = old.aggregatedOutput;
  }
  // A completed fileChange may come without its diffs; the started one had them.
  if (item.type === 'fileChange' && old.type === 'fileChange' && next.type === 'fileChange') {
    if (!next.changes?.length && old.changes?.length) item.changes = old.changes;
  }
  return item;
}

/** An item that streams text, with the text it has so far. */
type Streamed = ThreadItemOf<'agentMessage' | 'plan'>;

function appendText(item: ThreadItem | undefined, fallback: Streamed, delta: string): ThreadItem {
  const base = item?.type === fallback.type ? item : fallback;
  return { ...base, text: (base.text ?? '') + delta };
}

function appendOutput(item: ThreadItem | undefined, itemId: string, delta: string): ThreadItem {
  const base: ThreadItemOf<'commandExecution'> =
    item?.type === 'commandExecution' ? item : { type: 'commandExecution', id: itemId, status: 'inProgress' };
  let text = (base.aggregatedOutput ?? '') + delta;
  if (text.length > MAX_OUTPUT_CHARS) text = '…' + text.slice(text.length - MAX_OUTPUT_CHARS);
  return { ...base, aggregatedOutput: text };
}

function dropThread(state: ChatState, threadId: string): ChatState {
  state = { ...state, threads: state.threads.filter((t) => t.id !== threadId) };
  return state.conversation?.threadId === threadId ? { ...state, conversation: undefined } : state;
}

export function notify(state: ChatState, notification: FollowedNotification): ChatState {
  switch (notification.method) {
    case 'thread/started': {
      const p = notification.params;
      if (!p.thread) return state;
      state = { ...state, threads: upsertThread(state.threads, p.thread) };
      return onConversation(state, p.thread.id, (c) => ({ ...c, title: threadTitle(p.thread) }));
    }
    case 'thread/archived':
    case 'thread/deleted':
      return dropThread(state, notification.params.threadId);
    case 'thread/name/updated': {
      const p = notification.params;
      // Older servers named the field `name`.
      const name = p.threadName ?? (p as { name?: string | null }).name ?? null;
      state = { ...state, threads: state.threads.map((t) => (t.id === p.threadId ? { ...t, name } : t)) };
      return onConversation(state, p.threadId, (c) => ({ ...c, title: threadTitle({ id: c.threadId, name }) }));
    }
    case 'turn/started': {
      const p = notification.params;
      // The list names a thread by its first message too, without waiting to be listed again.
      const first = state.conversation?.threadId === p.threadId ? state.conversation.pendingUserTexts[0] : undefined;
      if (first?.trim()) {
        state = { ...state, threads: state.threads.map((t) => (t.id === p.threadId && !t.name && !t.preview ? { ...t, preview: first } : t)) };
      }
      return onConversation(state, p.threadId, (c) => {
        const turnId = String(p.turn?.id ?? '');
        const locals: ThreadItem[] = c.pendingUserTexts.map((text, n) => ({
          type: 'userMessage',
          id: `${LOCAL_PREFIX}${turnId}-${n}`,
          content: [{ type: 'text', text }],
        }));
        const next = withTurn(c, turnId, (t) => ({ ...t, status: 'inProgress', items: [...locals, ...t.items] }));
        // A new thread is known by its first message until the server names it.
        const title =
          c.title === NEW_THREAD_TITLE && c.pendingUserTexts.length
            ? threadTitle({ id: c.threadId, preview: c.pendingUserTexts[0] })
            : c.title;
        return { ...next, title, pendingUserTexts: [], runningTurnId: turnId };
      });
    }
    case 'turn/completed': {
      const p = notification.params;
      const turnId = String(p.turn?.id ?? '');
      state = { ...state, requests: state.requests.filter((r) => !(r.threadId === p.threadId && r.turnId === turnId)) };
      // A turn that succeeded answers the errors and retries shown before it.
      if (p.turn?.status === 'completed' && p.threadId === state.conversation?.threadId) {
        state = { ...state, notices: state.notices.filter((n) => n.kind === 'info') };
      }
      return onConversation(state, p.threadId, (c) => {
        const next = withTurn(c, turnId, (t) => ({
          ...t,
          status: p.turn?.status ?? 'completed',
          error: p.turn?.error?.message ?? t.error,
        }));
        return { ...next, runningTurnId: c.runningTurnId === turnId ? undefined : c.runningTurnId };
      });
    }
    case 'turn/plan/updated': {
      const p = notification.params;
      return onConversation(state, p.threadId, (c) => ({
        ...c,
        plan: { turnId: p.turnId, explanation: p.explanation, steps: p.plan ?? [] },
      }));
    }
    case 'turn/diff/updated': {
      const p = notification.params;
      return onConversation(state, p.threadId, (c) => ({ ...c, diff: p.diff ?? '' }));
    }
    case 'item/started':
    case 'item/completed': {
      const p = notification.params;
      const item: ThreadItem = p.item;
      if (!item?.id) return state;
      return onConversation(state, p.threadId, (c) => {
        // A new thread is known by its first request (a review by what it reviews) until named.
        if (c.title === NEW_THREAD_TITLE) {
          if (item.type === 'enteredReviewMode') c = { ...c, title: reviewTitle(item) };
          const first = item.type === 'userMessage' ? item.content?.find((part) => part.type === 'text')?.text : undefined;
          if (first?.trim()) c = { ...c, title: threadTitle({ id: c.threadId, preview: first }) };
        }
        return withTurn(c, String(p.turnId ?? ''), (t) => {
          let next = withItem(t, item.id, (old) => mergeItem(old, item));
          if (item.type === 'userMessage') {
            // The server's own copy of what we sent replaces the one shown while sending.
            next = { ...next, items: next.items.filter((i) => !i.id.startsWith(LOCAL_PREFIX)) };
          }
          return next;
        });
      });
    }
    case 'item/agentMessage/delta':
    case 'item/plan/delta': {
      const p = notification.params;
      const type = notification.method === 'item/plan/delta' ? 'plan' : 'agentMessage';
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => appendText(old, { type, id: p.itemId, text: '' }, String(p.delta ?? ''))),
        ),
      );
    }
    case 'item/reasoning/summaryPartAdded':
    case 'item/reasoning/summaryTextDelta': {
      const p = notification.params;
      const delta = notification.method === 'item/reasoning/summaryTextDelta' ? String(notification.params.delta ?? '') : '';
      const index = Number(p.summaryIndex ?? 0);
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => {
            const base: ThreadItemOf<'reasoning'> = old?.type === 'reasoning' ? old : { type: 'reasoning', id: p.itemId };
            const summary = [...(base.summary ?? [])];
            while (summary.length <= index) summary.push('');
            summary[index] += delta;
            return { ...base, summary };
          }),
        ),
      );
    }
    case 'item/commandExecution/outputDelta': {
      const p = notification.params;
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) => withItem(t, p.itemId, (old) => appendOutput(old, p.itemId, String(p.delta ?? '')))),
      );
    }
    case 'item/fileChange/outputDelta': {
      const p = notification.params;
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => {
            const base: ThreadItemOf<'fileChange'> = old?.type === 'fileChange' ? old : { type: 'fileChange', id: p.itemId };
            return { ...base, output: (base.output ?? '') + String(p.delta ?? '') };
          }),
        ),
      );
    }
    case 'thread/tokenUsage/updated': {
      const p = notification.params;
      state = { ...state, tokenUsage: p.tokenUsage };
      return onConversation(state, p.threadId, (c) => ({ ...c, tokenUsage: p.tokenUsage }));
    }
    case 'account/rateLimits/updated': {
      // Updates are sparse: keep the windows this one does not mention.
      const incoming: RateLimits = notification.params.rateLimits ?? {};
      const merged: RateLimits = { ...(state.rateLimits ?? {}) };
      if (incoming.primary) merged.primary = incoming.primary;
      if (incoming.secondary) merged.secondary = incoming.secondary;
      return { ...state, rateLimits: merged };
    }
    case 'account/login/completed': {
      const p = notification.params;
      if (!state.account) return state;
      return { ...state, account: { ...state.account, pendingLogin: false, error: p.success ? undefined : (p.error ?? 'the sign-in failed') } };
    }
    case 'account/updated':
      // Who it is now comes from `account/read`; a sign-out needs nothing more.
      if (!state.account || notification.params.authMode) return state;
      return { ...state, account: { ...state.account, account: null } };
    case 'error': {
      const p = notification.params;
      // Older servers put the message at the top level.
      const message = String(p.error?.message ?? (p as { message?: string }).message ?? 'unknown error');
      return p.willRetry ? addNotice(state, 'warning', `Retrying: ${message}`) : addNotice(state, 'error', message);
    }
    case 'warning':
      return addNotice(state, 'warning', String(notification.params.message ?? ''));
    default:
      return state;
  }
}
