/**
 * The app-server v2 wire types the extension reads and writes. Every v2 method `M` is the LSP
 * request `codex/M`, every v2 notification `N` the LSP notification `codex/N`. The shapes come
 * from the server's own `generate-ts` bindings in `../generated` (see
 * scripts/generate-vscode-types); this module names the ones the extension uses and adds the few
 * types of its own: the chat's view of an item while it streams, and the lists its pickers offer.
 */

import type * as v2 from '../generated';

export type {
  AgentMessageDeltaNotification,
  ContextItem,
  EditorProblem,
  FileContextItem,
  LspPosition,
  LspRange,
  ProblemsContextItem,
  ReasoningEffortOption,
  RateLimitWindow,
  ServerNotification,
  ThreadListResponse as ThreadListResult,
  ThreadStartResponse as ThreadStartResult,
  ConfigReadResponse as ConfigReadResult,
  TurnStartResponse as TurnStartResult,
  TurnTask,
  ThreadTokenUsage as TokenUsage,
  TurnPlanStep as PlanStep,
  Model as ModelInfo,
  TurnStatus,
  UserInput,
} from '../generated';

export type ApprovalPolicy = 'untrusted' | 'on-failure' | 'on-request' | 'never';
export const APPROVAL_POLICIES: ApprovalPolicy[] = ['untrusted', 'on-failure', 'on-request', 'never'];

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
export const REASONING_EFFORTS: ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

/** The decisions this client gives: the plain ones both approval requests take. */
export type Decision = v2.FileChangeApprovalDecision;
export const DECISIONS: Decision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];

/** The types of `ThreadItem`, the union's discriminant. */
export type ThreadItemType = v2.ThreadItem['type'];

/** One file of a patch. Older servers sent `kind` as a bare string. */
export interface FileUpdateChange {
  path: string;
  kind: v2.PatchChangeKind | { type: v2.PatchChangeKind['type']; movePath?: string | null } | string;
  diff: string;
}

/**
 * One `ThreadItem` as the chat holds it, discriminated by `type`. Deltas build an item up before
 * (or without) the server's whole copy, so only `type` and `id` are sure; the other fields are the
 * protocol's for that type.
 */
export type ThreadItem = {
  [T in ThreadItemType]: Partial<Held<Extract<v2.ThreadItem, { type: T }>>> & { type: T; id: string };
}[ThreadItemType];

/** A `fileChange` item's changes as the chat reads them: older servers' too. */
type Held<I> = I extends { changes: unknown } ? Omit<I, 'changes'> & { changes: FileUpdateChange[] } : I;

/** The `ThreadItem` of one type. */
export type ThreadItemOf<T extends ThreadItemType> = Extract<ThreadItem, { type: T }>;

/** A turn as the chat keeps it: what any server sends, so only `id` and `status` are sure. */
export type Turn = Pick<v2.Turn, 'id' | 'status'> & Partial<Omit<v2.Turn, 'id' | 'status' | 'items'>> & { items?: ThreadItem[] };

/** A thread as the chat keeps it (the list, `open`): only `id` is sure. */
export type Thread = Pick<v2.Thread, 'id'> & Partial<Omit<v2.Thread, 'id' | 'turns'>> & { turns?: Turn[] };

/** A `turn/startTask`: start a turn on a task, with the editor context and the pickers' choices. */
export type TurnStartTaskParams = Omit<v2.TurnStartTaskParams, keyof TurnOverrides> & TurnOverrides;

/** Usage windows as the chat keeps them: updates are sparse, so each may be missing. */
export type RateLimits = Partial<Pick<v2.RateLimitSnapshot, 'primary' | 'secondary'>>;

export type UserInputQuestion = v2.ToolRequestUserInputQuestion;

/**
 * The params of either approval request, read field by field (the request's method says which).
 * `codexLsp.changes` is codex-lsp's own addition: the patch's diffs, which the `fileChange` item
 * announced by `item/started` carries too.
 */
export type ApprovalParams = Pick<v2.FileChangeRequestApprovalParams, 'threadId' | 'turnId' | 'itemId'> &
  Partial<v2.CommandExecutionRequestApprovalParams> &
  Partial<v2.FileChangeRequestApprovalParams> & {
    /** Older codex-lsp servers sent the diffs at the top level. */
    changes?: FileUpdateChange[] | null;
  };

export type UserInputParams = v2.ToolRequestUserInputParams;

export type InlineRequestParams = ApprovalParams | UserInputParams;

export type UserInputAnswers = Record<string, { answers: string[] }>;

export type InlineRequestResult = { decision: Decision } | { answers: UserInputAnswers };

/** The server requests the chat renders inline, by their v2 method. */
export const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
export const FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval';
export const USER_INPUT = 'item/tool/requestUserInput';
export const INLINE_REQUESTS = [COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, USER_INPUT] as const;
export type InlineRequestMethod = (typeof INLINE_REQUESTS)[number];

/** The per-turn choices of `turn/start` and `turn/startTask` that the pickers set. */
export interface TurnOverrides {
  model?: string;
  effort?: ReasoningEffort;
  approvalPolicy?: ApprovalPolicy | string;
}

// -- notifications ------------------------------------------------------------------------

/** `codex/review/completed` (the language server's, not v2): a review's verdict and findings. */
export interface ReviewCompleted {
  threadId: string;
  turnId: string;
  overallCorrectness: string;
  overallExplanation: string;
  findings: {
    id: string;
    title: string;
    path: string;
    uri: string;
    lineRange: { start: number; end: number };
  }[];
}

/** A notification as it arrives: its method, and the params the protocol types for it. */
export type Notification =
  | v2.ServerNotification
  /** The proposed plan's text as it streams (plan mode of the real `codex app-server`). */
  | { method: 'item/plan/delta'; params: v2.AgentMessageDeltaNotification }
  /** The language server's own, not v2. */
  | { method: 'review/completed'; params: ReviewCompleted };

/** The notifications the chat follows (sent over LSP as `codex/<name>`). */
export const FOLLOWED_NOTIFICATIONS = [
  'thread/started',
  'thread/archived',
  'thread/deleted',
  'thread/name/updated',
  'turn/started',
  'turn/completed',
  'turn/plan/updated',
  'turn/diff/updated',
  'item/started',
  'item/completed',
  'item/agentMessage/delta',
  'item/plan/delta',
  'item/reasoning/summaryTextDelta',
  'item/reasoning/summaryPartAdded',
  'item/commandExecution/outputDelta',
  'item/fileChange/outputDelta',
  'thread/tokenUsage/updated',
  'account/rateLimits/updated',
  'serverRequest/resolved',
  'error',
  'warning',
  'review/completed',
] as const satisfies readonly Notification['method'][];

export type FollowedMethod = (typeof FOLLOWED_NOTIFICATIONS)[number];

/** One notification the chat follows, discriminated by `method`. */
export type FollowedNotification = Extract<Notification, { method: FollowedMethod }>;

/**
 * Where JSON from the wire becomes a typed notification: the server sends each method with the
 * params its protocol type says, so the params are taken as that type.
 */
export function followedNotification(method: FollowedMethod, params: unknown): FollowedNotification {
  return { method, params } as FollowedNotification;
}
