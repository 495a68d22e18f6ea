/**
 * The chat's state and the one reducer that changes it. Pure: the extension host and the
 * webview both run it over the same actions, so the panel can be rebuilt from a snapshot at
 * any time. Updates are immutable and touch only what changed, so the renderer can skip
 * items whose object is the same as last time.
 */

import type {
  InlineRequestMethod,
  ModelInfo,
  PlanStep,
  RateLimits,
  Thread,
  ThreadItem,
  TokenUsage,
  Turn,
} from './protocol';

export type ServerState = 'starting' | 'ready' | 'error' | 'stopped';

export interface TurnView {
  id: string;
  status: string;
  items: ThreadItem[];
  error?: string;
}

export interface Conversation {
  threadId: string;
  title: string;
  /** The thread's working directory: paths under it are shown relative. */
  cwd?: string;
  turns: TurnView[];
  /** Text sent but not yet acknowledged by `turn/started`. */
  pendingUserTexts: string[];
  runningTurnId?: string;
  plan?: { turnId: string; explanation?: string | null; steps: PlanStep[] };
  diff?: string;
  tokenUsage?: TokenUsage;
}

/** A server request waiting for the user: an approval or a question. */
export interface PendingRequest {
  key: string;
  method: InlineRequestMethod;
  threadId: string;
  turnId?: string;
  itemId?: string;
  params: Record<string, unknown>;
}

export interface Notice {
  id: number;
  kind: 'error' | 'warning' | 'info';
  text: string;
}

export interface ChatState {
  server: { state: ServerState; message?: string };
  threads: Thread[];
  conversation?: Conversation;
  requests: PendingRequest[];
  models: ModelInfo[];
  /** Overrides sent with each turn; empty means "as configured". */
  model: string;
  approvalPolicy: string;
  tokenUsage?: TokenUsage;
  rateLimits?: RateLimits;
  notices: Notice[];
  nextNoticeId: number;
}

export type Action =
  | { type: 'server'; state: ServerState; message?: string }
  | { type: 'threads'; threads: Thread[] }
  | { type: 'models'; models: ModelInfo[] }
  | { type: 'select'; model?: string; approvalPolicy?: string }
  | { type: 'open'; thread: Thread }
  | { type: 'close' }
  | { type: 'userText'; text: string }
  | { type: 'notify'; method: string; params: any }
  | {
      type: 'request';
      key: string;
      method: InlineRequestMethod;
      params: Record<string, unknown>;
    }
  | { type: 'requestDone'; key: string }
  | { type: 'notice'; kind: Notice['kind']; text: string }
  | { type: 'dismissNotice'; id: number };

export const MAX_NOTICES = 3;
/** Live command output kept per command; the head is dropped past this. */
export const MAX_OUTPUT_CHARS = 64 * 1024;
const LOCAL_PREFIX = 'local-';

export function initialState(): ChatState {
  return {
    server: { state: 'starting' },
    threads: [],
    requests: [],
    models: [],
    model: '',
    approvalPolicy: '',
    notices: [],
    nextNoticeId: 1,
  };
}

export const NEW_THREAD_TITLE = 'New thread';

export function threadTitle(thread: Pick<Thread, 'id' | 'name' | 'preview'>): string {
  const text = (thread.name || thread.preview || '').trim().split('\n')[0];
  return text ? (text.length > 80 ? text.slice(0, 79) + '…' : text) : NEW_THREAD_TITLE;
}

export function conversationFrom(thread: Thread): Conversation {
  const turns = (thread.turns ?? []).map(turnView);
  const running = [...turns].reverse().find((t) => t.status === 'inProgress');
  return {
    threadId: thread.id,
    title: threadTitle(thread),
    cwd: thread.cwd,
    turns,
    pendingUserTexts: [],
    runningTurnId: running?.id,
  };
}

function turnView(turn: Turn): TurnView {
  return {
    id: turn.id,
    status: turn.status,
    items: [...(turn.items ?? [])],
    error: turn.error?.message ?? undefined,
  };
}

export function reduce(state: ChatState, action: Action): ChatState {
  switch (action.type) {
    case 'server':
      return { ...state, server: { state: action.state, message: action.message } };
    case 'threads': {
      // The server may not list a thread until it has a turn: keep the one on screen listed.
      const conv = state.conversation;
      const shown = conv && !action.threads.some((t) => t.id === conv.threadId)
        ? state.threads.filter((t) => t.id === conv.threadId)
        : [];
      return { ...state, threads: [...shown, ...action.threads] };
    }
    case 'models':
      return { ...state, models: action.models };
    case 'select':
      return {
        ...state,
        model: action.model ?? state.model,
        approvalPolicy: action.approvalPolicy ?? state.approvalPolicy,
      };
    case 'open':
      return {
        ...state,
        conversation: conversationFrom(action.thread),
        threads: upsertThread(state.threads, action.thread),
      };
    case 'close':
      return { ...state, conversation: undefined };
    case 'userText': {
      const conv = state.conversation;
      if (!conv) return state;
      return {
        ...state,
        conversation: { ...conv, pendingUserTexts: [...conv.pendingUserTexts, action.text] },
      };
    }
    case 'request': {
      const params = action.params as { threadId?: string; turnId?: string; itemId?: string };
      const request: PendingRequest = {
        key: action.key,
        method: action.method,
        threadId: String(params.threadId ?? ''),
        turnId: params.turnId,
        itemId: params.itemId,
        params: action.params,
      };
      return { ...state, requests: [...state.requests.filter((r) => r.key !== action.key), request] };
    }
    case 'requestDone':
      return { ...state, requests: state.requests.filter((r) => r.key !== action.key) };
    case 'notice':
      return addNotice(state, action.kind, action.text);
    case 'dismissNotice':
      return { ...state, notices: state.notices.filter((n) => n.id !== action.id) };
    case 'notify':
      return notify(state, action.method, action.params ?? {});
  }
}

function addNotice(state: ChatState, kind: Notice['kind'], text: string): ChatState {
  const notice = { id: state.nextNoticeId, kind, text };
  return {
    ...state,
    notices: [...state.notices, notice].slice(-MAX_NOTICES),
    nextNoticeId: state.nextNoticeId + 1,
  };
}

function upsertThread(threads: Thread[], thread: Thread): Thread[] {
  // The list keeps summaries only: a thread's turns live in the conversation.
  const { turns: _turns, ...summary } = thread;
  const rest = threads.filter((t) => t.id !== thread.id);
  return [summary, ...rest];
}

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

function withItem(
  turn: TurnView,
  itemId: string,
  change: (item: ThreadItem | undefined) => ThreadItem,
): TurnView {
  const index = turn.items.findIndex((i) => i.id === itemId);
  const items = turn.items.slice();
  if (index < 0) items.push(change(undefined));
  else items[index] = change(items[index]);
  return { ...turn, items };
}

/** Later fields win, except that a missing or null one keeps what streaming built up. */
function mergeItem(old: ThreadItem | undefined, next: ThreadItem): ThreadItem {
  if (!old) return next;
  const merged: Record<string, unknown> = { ...old };
  for (const [key, value] of Object.entries(next)) {
    if (value !== undefined && value !== null) merged[key] = value;
  }
  if (next.type === 'agentMessage' && !next.text && old.text) merged.text = old.text;
  if (next.type === 'commandExecution' && !next.aggregatedOutput && old.aggregatedOutput) {
    merged.aggregatedOutput = old.aggregatedOutput;
  }
  return merged as unknown as ThreadItem;
}

function appendText(item: ThreadItem | undefined, fallback: ThreadItem, field: 'text' | 'aggregatedOutput', delta: string): ThreadItem {
  const base = item ?? fallback;
  let text = String(base[field] ?? '') + delta;
  if (field === 'aggregatedOutput' && text.length > MAX_OUTPUT_CHARS) {
    text = '…' + text.slice(text.length - MAX_OUTPUT_CHARS);
  }
  return { ...base, [field]: text };
}

function notify(state: ChatState, method: string, p: any): ChatState {
  switch (method) {
    case 'thread/started':
      if (!p.thread) return state;
      state = { ...state, threads: upsertThread(state.threads, p.thread) };
      return onConversation(state, p.thread.id, (c) => ({ ...c, title: threadTitle(p.thread) }));
    case 'thread/archived': {
      state = { ...state, threads: state.threads.filter((t) => t.id !== p.threadId) };
      return state.conversation?.threadId === p.threadId ? { ...state, conversation: undefined } : state;
    }
    case 'thread/name/updated': {
      const name = p.threadName ?? p.name;
      state = {
        ...state,
        threads: state.threads.map((t) => (t.id === p.threadId ? { ...t, name } : t)),
      };
      return onConversation(state, p.threadId, (c) => ({ ...c, title: threadTitle({ id: c.threadId, name }) }));
    }
    case 'turn/started':
      return onConversation(state, p.threadId, (c) => {
        const turnId = String(p.turn?.id ?? '');
        const locals = c.pendingUserTexts.map((text, n) => ({
          type: 'userMessage',
          id: `${LOCAL_PREFIX}${turnId}-${n}`,
          content: [{ type: 'text', text }],
        }));
        const next = withTurn(c, turnId, (t) => ({
          ...t,
          status: 'inProgress',
          items: [...locals, ...t.items],
        }));
        // A new thread is known by its first message until the server names it.
        const title = c.title === NEW_THREAD_TITLE && c.pendingUserTexts.length ? threadTitle({ id: c.threadId, preview: c.pendingUserTexts[0] }) : c.title;
        return { ...next, title, pendingUserTexts: [], runningTurnId: turnId };
      });
    case 'turn/completed': {
      const turnId = String(p.turn?.id ?? '');
      state = {
        ...state,
        requests: state.requests.filter((r) => !(r.threadId === p.threadId && r.turnId === turnId)),
      };
      return onConversation(state, p.threadId, (c) => {
        const next = withTurn(c, turnId, (t) => ({
          ...t,
          status: p.turn?.status ?? 'completed',
          error: p.turn?.error?.message ?? t.error,
        }));
        return { ...next, runningTurnId: c.runningTurnId === turnId ? undefined : c.runningTurnId };
      });
    }
    case 'turn/plan/updated':
      return onConversation(state, p.threadId, (c) => ({
        ...c,
        plan: { turnId: p.turnId, explanation: p.explanation, steps: p.plan ?? [] },
      }));
    case 'turn/diff/updated':
      return onConversation(state, p.threadId, (c) => ({ ...c, diff: p.diff ?? '' }));
    case 'item/started':
    case 'item/completed': {
      const item: ThreadItem | undefined = p.item;
      if (!item?.id) return state;
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) => {
          let next = withItem(t, item.id, (old) => mergeItem(old, item));
          if (item.type === 'userMessage') {
            // The server's own copy of what we sent replaces the one shown while sending.
            next = { ...next, items: next.items.filter((i) => !i.id.startsWith(LOCAL_PREFIX)) };
          }
          return next;
        }),
      );
    }
    case 'item/agentMessage/delta':
    case 'item/plan/delta': {
      const type = method === 'item/plan/delta' ? 'plan' : 'agentMessage';
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) => appendText(old, { type, id: p.itemId, text: '' }, 'text', String(p.delta ?? ''))),
        ),
      );
    }
    case 'item/reasoning/summaryPartAdded':
    case 'item/reasoning/summaryTextDelta': {
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
    case 'item/commandExecution/outputDelta':
      return onConversation(state, p.threadId, (c) =>
        withTurn(c, String(p.turnId ?? ''), (t) =>
          withItem(t, p.itemId, (old) =>
            appendText(
              old,
              { type: 'commandExecution', id: p.itemId, status: 'inProgress' },
              'aggregatedOutput',
              String(p.delta ?? ''),
            ),
          ),
        ),
      );
    case 'thread/tokenUsage/updated': {
      state = { ...state, tokenUsage: p.tokenUsage };
      return onConversation(state, p.threadId, (c) => ({ ...c, tokenUsage: p.tokenUsage }));
    }
    case 'account/rateLimits/updated': {
      // Updates are sparse: keep the windows this one does not mention.
      const incoming: RateLimits = p.rateLimits ?? {};
      const merged: RateLimits = { ...(state.rateLimits ?? {}) };
      if (incoming.primary) merged.primary = incoming.primary;
      if (incoming.secondary) merged.secondary = incoming.secondary;
      return { ...state, rateLimits: merged };
    }
    case 'error': {
      const message = String(p.error?.message ?? p.message ?? 'unknown error');
      return p.willRetry
        ? addNotice(state, 'warning', `Retrying: ${message}`)
        : addNotice(state, 'error', message);
    }
    case 'warning':
      return addNotice(state, 'warning', String(p.message ?? ''));
    default:
      return state;
  }
}

/** The requests to show with the current conversation, oldest first. */
export function visibleRequests(state: ChatState): PendingRequest[] {
  const id = state.conversation?.threadId;
  return state.requests.filter((r) => r.threadId === id);
}

/** The item a pending request is about, when the conversation has it. */
export function findItem(state: ChatState, itemId: string | undefined): ThreadItem | undefined {
  if (!itemId || !state.conversation) return undefined;
  for (const turn of state.conversation.turns) {
    const item = turn.items.find((i) => i.id === itemId);
    if (item) return item;
  }
  return undefined;
}
