/**
 * The chat state after one v2 notification from the server. Pure, like the rest of the reducer:
 * each method's params are read as the protocol types them, and a notification about a thread
 * other than the one shown only touches the lists.
 */

import type { FollowedNotification, NotificationParams, RateLimits, ThreadItem } from './protocol';
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

type Params<M extends FollowedNotification> = NotificationParams[M];

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
  const merged: ThreadItem = { ...old };
  for (const key of Object.keys(next) as (keyof ThreadItem)[]) {
    const value = next[key];
    if (value !== undefined && value !== null) Object.assign(merged, { [key]: value });
  }
  if (next.type === 'agentMessage' && !next.text && old.text) merged.text = old.text;
  if (next.type === 'commandExecution' && !next.aggregatedOutput && old.aggregatedOutput) {
    merged.aggregatedOutput = old.aggregatedOutput;
  }
  // A completed fileChange may come without its diffs; the started one had them.
  if (next.type === 'fileChange' && !next.changes?.length && old.changes?.length) merged.changes = old.changes;
  return merged;
}

function appendText(item: ThreadItem | undefined, fallback: ThreadItem, field: 'text' | 'aggregatedOutput', delta: string): ThreadItem {
  const base = item ?? fallback;
  let text = String(base[field] ?? '') + delta;
  if (field === 'aggregatedOutput' && text.length > MAX_OUTPUT_CHARS) {
    text = '…' + text.slice(text.length - MAX_OUTPUT_CHARS);
  }
  return { ...base, [field]: text };
}

function dropThread(state: ChatState, threadId: string): ChatState {
  state = { ...state, threads: state.threads.filter((t) => t.id !== threadId) };
  return state.conversation?.threadId === threadId ? { ...state, conversation: undefined } : state;
}

export function notify(state: ChatState, method: string, raw: unknown): ChatState {
  // The server sends each method with the params its protocol type says.
  const as = <M extends FollowedNotification>(_m: M) => (raw ?? {}) as Params<M>;
  switch (method) {
    case 'thread/started': {
      const p = as('thread/started');
      if (!p.thread) return state;
      state = { ...state, threads: upsertThread(state.threads, p.thread) };
      return onConversation(state, p.thread.id, (c) => ({ ...c, title: threadTitle(p.thread) }));
    }
    case 'thread/archived':
      return dropThread(state, as('thread/archived').threadId);
    case 'thread/deleted':
      return dropThread(state, as('thread/deleted').threadId);
    case 'thread/name/updated': {
      const p = as('thread/name/updated');
      const name = p.threadName ?? p.name ?? null;
      state = { ...state, threads: state.threads.map((t) => (t.id === p.threadId ? { ...t, name } : t)) };
      return onConversation(state, p.threadId, (c) => ({ ...c, title: threadTitle({ id: c.threadId, name }) }));
    }
    case 'turn/started': {
      const p = as('turn/started');
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
      const p = as('turn/completed');
      const turnId = String(p.turn?.id ?? '');
      state = { ...state, requests: state.requests.filter((r) => !(r.threadId === p.threadId && r.turnId === turnId)) };
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
      const p = as('turn/plan/updated');
      return onConversation(state, p.threadId, (c) => ({
        ...c,
        plan: { turnId: p.turnId, explanation: p.explanation, steps: p.plan ?? [] },
      }));
    }
    case 'turn/diff/updated': {
      const p = as('turn/diff/updated');
      return onConversation(state, p.threadId, (c) => ({ ...c, diff: p.diff ?? '' }));
    }
    case 'item/started':
    case 'item/completed': {
      const p = as('item/started');
      const item = p.item;
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
      const p = as('item/agentMessage/delta');
      const type = method === 'item/plan/delta' ? 'plan' : 'agentMessage';
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => appendText(old, { type, id: p.itemId, text: '' }, 'text', String(p.delta ?? ''))),
        ),
      );
    }
    case 'item/reasoning/summaryPartAdded':
    case 'item/reasoning/summaryTextDelta': {
      const p = as('item/reasoning/summaryTextDelta');
      const index = Number(p.summaryIndex ?? 0);
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => {
            const summary = [...(old?.summary ?? [])];
            while (summary.length <= index) summary.push('');
            if (method === 'item/reasoning/summaryTextDelta') summary[index] += String(p.delta ?? '');
            return { ...(old ?? { type: 'reasoning', id: p.itemId }), summary };
          }),
        ),
      );
    }
    case 'item/commandExecution/outputDelta': {
      const p = as('item/commandExecution/outputDelta');
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) =>
            appendText(old, { type: 'commandExecution', id: p.itemId, status: 'inProgress' }, 'aggregatedOutput', String(p.delta ?? '')),
          ),
        ),
      );
    }
    case 'thread/tokenUsage/updated': {
      const p = as('thread/tokenUsage/updated');
      state = { ...state, tokenUsage: p.tokenUsage };
      return onConversation(state, p.threadId, (c) => ({ ...c, tokenUsage: p.tokenUsage }));
    }
    case 'account/rateLimits/updated': {
      // Updates are sparse: keep the windows this one does not mention.
      const incoming: RateLimits = as('account/rateLimits/updated').rateLimits ?? {};
      const merged: RateLimits = { ...(state.rateLimits ?? {}) };
      if (incoming.primary) merged.primary = incoming.primary;
      if (incoming.secondary) merged.secondary = incoming.secondary;
      return { ...state, rateLimits: merged };
    }
    case 'error': {
      const p = as('error');
      const message = String(p.error?.message ?? p.message ?? 'unknown error');
      return p.willRetry ? addNotice(state, 'warning', `Retrying: ${message}`) : addNotice(state, 'error', message);
    }
    case 'warning':
      return addNotice(state, 'warning', String(as('warning').message ?? ''));
    default:
      return state;
  }
}
