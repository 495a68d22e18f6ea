/**
 * The chat's state and the one reducer that changes it. Pure: the extension host and the
 * webview both run it over the same actions, so the panel can be rebuilt from a snapshot at
 * any time. Updates are immutable and touch only what changed, so the renderer can skip
 * items whose object is the same as last time. What the server says arrives as `notify`
 * actions, reduced in `notify.ts`.
 */

import { notify } from './notify';
import { DEFAULT_MODE, isMode, type Mode } from './protocol';
import type {
  Account,
  FollowedNotification,
  InlineRequest,
  LspRange,
  ModelInfo,
  PlanStep,
  RateLimits,
  SessionApproval,
  Thread,
  ThreadItem,
  ThreadItemOf,
  ThreadItemType,
  TokenUsage,
  Turn,
} from './protocol';

export type ServerState = 'starting' | 'installing' | 'ready' | 'error' | 'stopped';

export interface ServerInfo {
  state: ServerState;
  message?: string;
  /** The last lines the server printed before it exited, and how it exited. */
  output?: string;
  exitCode?: number | null;
  /** The server the extension carries can be installed to fix this. */
  installable?: boolean;
}

export interface TurnView {
  id: string;
  status: string;
  items: ThreadItem[];
  error?: string;
  /** The server stopped while this turn ran: what it streamed is kept, cut short. */
  crashed?: boolean;
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

/** A server request waiting for the user: an approval or a question, by its method. */
export type PendingRequest = InlineRequest & {
  key: string;
  threadId: string;
  turnId?: string;
  itemId?: string;
};

export interface Notice {
  id: number;
  kind: 'error' | 'warning' | 'info';
  text: string;
}

/** Context attached in the composer, shown as a chip until the message is sent. */
export interface Attachment {
  id: string;
  kind: 'file' | 'selection' | 'problems' | 'image';
  label: string;
  path?: string;
  range?: LspRange;
}

export type ChangeMark = 'kept' | 'undone';

export interface ChatState {
  server: ServerInfo;
  threads: Thread[];
  /** The thread list's search text (the server filters by it). */
  threadQuery: string;
  conversation?: Conversation;
  requests: PendingRequest[];
  models: ModelInfo[];
  /** The pickers; empty means "as configured". */
  model: string;
  effort: string;
  approvalPolicy: string;
  /** Chat, Agent, Full access or Plan: the sandbox and collaboration mode of the next turns. */
  mode: Mode;
  /** What the user's config.toml says, for "as configured (…)" and for going back to it. */
  configured: { model?: string; effort?: string; approvalPolicy?: string };
  attachments: Attachment[];
  /** Keep / Undo of each file a turn changed, by `changeKey(turnId, path)`. */
  changeMarks: Record<string, ChangeMark>;
  tokenUsage?: TokenUsage;
  rateLimits?: RateLimits;
  notices: Notice[];
  nextNoticeId: number;
  /** Who the server signs in as (`account/read`); undefined until read. */
  account?: AccountInfo;
  /** What a thread allows for the rest of its session without asking, with its id. */
  sessionApprovals?: { threadId: string; approvals: SessionApproval[] };
}

export interface AccountInfo {
  account: Account | null;
  requiresOpenaiAuth: boolean;
  /** A ChatGPT sign-in under way in the browser. */
  pendingLogin?: boolean;
  /** Why the last sign-in failed. */
  error?: string;
}

export type Action =
  | { type: 'server'; state: ServerState; message?: string; output?: string; exitCode?: number | null; installable?: boolean }
  | { type: 'threads'; threads: Thread[] }
  | { type: 'threadQuery'; query: string }
  | { type: 'models'; models: ModelInfo[] }
  | { type: 'configured'; model?: string; effort?: string; approvalPolicy?: string }
  | { type: 'select'; model?: string; effort?: string; approvalPolicy?: string; mode?: string }
  | { type: 'open'; thread: Thread }
  | { type: 'close' }
  | { type: 'userText'; text: string }
  | ({ type: 'notify' } & FollowedNotification)
  | ({ type: 'request'; key: string } & InlineRequest)
  | { type: 'requestDone'; key: string }
  | { type: 'attach'; attachment: Attachment }
  | { type: 'detach'; id: string }
  | { type: 'clearAttachments' }
  | { type: 'changeMark'; turnId: string; path: string; mark: ChangeMark }
  | { type: 'notice'; kind: Notice['kind']; text: string }
  | { type: 'dismissNotice'; id: number }
  | { type: 'account'; account: AccountInfo }
  | { type: 'sessionApprovals'; threadId: string; approvals: SessionApproval[] };

export const MAX_NOTICES = 3;
/** Live command output kept per command; the head is dropped past this. */
export const MAX_OUTPUT_CHARS = 64 * 1024;
export const LOCAL_PREFIX = 'local-';
export const NEW_THREAD_TITLE = 'New thread';

export function initialState(): ChatState {
  return {
    server: { state: 'starting' },
    threads: [],
    threadQuery: '',
    requests: [],
    models: [],
    model: '',
    effort: '',
    approvalPolicy: '',
    mode: DEFAULT_MODE,
    configured: {},
    attachments: [],
    changeMarks: {},
    notices: [],
    nextNoticeId: 1,
  };
}

export function threadTitle(thread: Pick<Thread, 'id' | 'name' | 'preview'>): string {
  const text = (thread.name || thread.preview || '').trim().split('\n')[0];
  return text ? (text.length > 80 ? text.slice(0, 79) + '…' : text) : NEW_THREAD_TITLE;
}

export function changeKey(turnId: string, path: string): string {
  return `${turnId}\n${path}`;
}

export function reviewTitle(item: ThreadItemOf<'enteredReviewMode'>): string {
  return `Review of ${item.review || 'changes'}`;
}

export function conversationFrom(thread: Thread): Conversation {
  const turns = (thread.turns ?? []).map(turnView);
  const running = [...turns].reverse().find((t) => t.status === 'inProgress');
  const review = turns[0]?.items.find((i) => i.type === 'enteredReviewMode');
  const title = threadTitle(thread);
  return {
    threadId: thread.id,
    title: title === NEW_THREAD_TITLE && review ? reviewTitle(review) : title,
    cwd: thread.cwd,
    turns,
    pendingUserTexts: [],
    runningTurnId: running?.id,
  };
}

/** The server went down: the running turn ends there, with what it streamed so far. */
function crashTurn(conv: Conversation | undefined): Conversation | undefined {
  if (!conv?.runningTurnId) return conv;
  const turns = conv.turns.map((t) => (t.id === conv.runningTurnId ? { ...t, status: 'interrupted', crashed: true } : t));
  return { ...conv, turns, runningTurnId: undefined, pendingUserTexts: [] };
}

/**
 * The same thread resumed after the server came back: its record of a turn cut short by the
 * crash lacks what was streamed and not yet saved, so the panel keeps its own.
 */
function keepCrashedTurns(old: Conversation | undefined, fresh: Conversation): Conversation {
  const crashed = old?.threadId === fresh.threadId ? old.turns.filter((t) => t.crashed) : [];
  if (!crashed.length) return fresh;
  const byId = new Map(crashed.map((t) => [t.id, t]));
  const turns = fresh.turns.map((t) => byId.get(t.id) ?? t);
  const missing = crashed.filter((t) => !fresh.turns.some((f) => f.id === t.id));
  const runningTurnId = fresh.runningTurnId && byId.has(fresh.runningTurnId) ? undefined : fresh.runningTurnId;
  return { ...fresh, turns: [...turns, ...missing], runningTurnId };
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
    case 'account':
      return { ...state, account: action.account };
    case 'sessionApprovals':
      return { ...state, sessionApprovals: { threadId: action.threadId, approvals: action.approvals } };
    case 'server': {
      const { state: serverState, message, output, exitCode, installable } = action;
      // A server that came (back) up makes the earlier failures' banners stale.
      const notices = serverState === 'ready' ? [] : state.notices;
      const down = serverState !== 'ready' && serverState !== 'installing';
      const conversation = down ? crashTurn(state.conversation) : state.conversation;
      return { ...state, notices, conversation, server: { state: serverState, message, output, exitCode, installable } };
    }
    case 'threads': {
      // The server may not list a thread until it has a turn: keep the one on screen listed.
      const conv = state.conversation;
      const shown =
        conv && !state.threadQuery && !action.threads.some((t) => t.id === conv.threadId)
          ? state.threads.filter((t) => t.id === conv.threadId)
          : [];
      return { ...state, threads: [...shown, ...action.threads] };
    }
    case 'threadQuery':
      return { ...state, threadQuery: action.query };
    case 'models':
      return { ...state, models: action.models };
    case 'configured':
      return {
        ...state,
        configured: { model: action.model, effort: action.effort, approvalPolicy: action.approvalPolicy },
      };
    case 'select':
      return {
        ...state,
        model: action.model ?? state.model,
        effort: action.effort ?? state.effort,
        approvalPolicy: action.approvalPolicy ?? state.approvalPolicy,
        mode: isMode(action.mode) ? action.mode : state.mode,
      };
    case 'open':
      // Banners belong to what was on screen: another thread starts clean.
      return {
        ...state,
        notices: [],
        conversation: keepCrashedTurns(state.conversation, conversationFrom(action.thread)),
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
      const { type: _, ...inline } = action;
      const params = inline.params;
      const request: PendingRequest = {
        ...inline,
        threadId: params.threadId ?? '',
        turnId: params.turnId,
        itemId: params.itemId,
      };
      return { ...state, requests: [...state.requests.filter((r) => r.key !== action.key), request] };
    }
    case 'requestDone':
      return { ...state, requests: state.requests.filter((r) => r.key !== action.key) };
    case 'attach':
      if (state.attachments.some((a) => a.id === action.attachment.id)) return state;
      return { ...state, attachments: [...state.attachments, action.attachment] };
    case 'detach':
      return { ...state, attachments: state.attachments.filter((a) => a.id !== action.id) };
    case 'clearAttachments':
      return state.attachments.length ? { ...state, attachments: [] } : state;
    case 'changeMark':
      return {
        ...state,
        changeMarks: { ...state.changeMarks, [changeKey(action.turnId, action.path)]: action.mark },
      };
    case 'notice':
      return addNotice(state, action.kind, action.text);
    case 'dismissNotice':
      return { ...state, notices: state.notices.filter((n) => n.id !== action.id) };
    case 'notify':
      return notify(state, action);
  }
}

export function addNotice(state: ChatState, kind: Notice['kind'], text: string): ChatState {
  const notice = { id: state.nextNoticeId, kind, text };
  return {
    ...state,
    notices: [...state.notices, notice].slice(-MAX_NOTICES),
    nextNoticeId: state.nextNoticeId + 1,
  };
}

export function upsertThread(threads: Thread[], thread: Thread): Thread[] {
  // The list keeps summaries only: a thread's turns live in the conversation.
  const { turns: _turns, ...summary } = thread;
  const rest = threads.filter((t) => t.id !== thread.id);
  return [summary, ...rest];
}

/** The requests to show with the current conversation, oldest first: its own, and those of the
 *  agents it spawned, which ask on their own threads. */
export function visibleRequests(state: ChatState): PendingRequest[] {
  const id = state.conversation?.threadId;
  const children = new Set<string>();
  for (const turn of state.conversation?.turns ?? []) {
    for (const item of turn.items) {
      if (item.type === 'subAgentActivity' && item.agentThreadId) children.add(item.agentThreadId);
    }
  }
  return state.requests.filter((r) => r.threadId === id || (r.threadId !== undefined && children.has(r.threadId)));
}

/** The item `itemId` of the conversation shown, when it is of type `type`. */
export function findItem<T extends ThreadItemType>(
  state: ChatState,
  itemId: string | undefined,
  type: T,
): ThreadItemOf<T> | undefined {
  if (!itemId || !state.conversation) return undefined;
  for (const turn of state.conversation.turns) {
    const item = turn.items.find((i) => i.id === itemId);
    if (item) return item.type === type ? (item as ThreadItemOf<T>) : undefined;
  }
  return undefined;
}

/** What the model picker stands for: the pick, else the configured model. */
export function effectiveModel(state: ChatState): string | undefined {
  return state.model || state.configured.model || undefined;
}

/** What the user wrote to start `turn`: the text of its user messages. */
export function turnText(turn: TurnView): string {
  return turn.items
    .flatMap((item) => (item.type === 'userMessage' ? (item.content ?? []) : []))
    .map((input) => (input.type === 'text' ? input.text : ''))
    .filter(Boolean)
    .join('\n');
}
