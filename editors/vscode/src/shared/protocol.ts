/**
 * The app-server v2 wire types the extension reads and writes. Every v2 method `M` is the LSP
 * request `codex/M`, every v2 notification `N` the LSP notification `codex/N`. The shapes come
 * from the server's own `generate-ts` bindings in `../generated` and `../generated/v2` (see
 * scripts/generate-vscode-types); this module names the ones the extension uses and adds the few
 * types of its own: the chat's view of an item while it streams, and the lists its pickers offer.
 */

import type * as v2 from '../generated/v2';
import type { ClientRequest, ReasoningEffort as WireReasoningEffort, ServerNotification } from '../generated';

export type { ServerNotification } from '../generated';

export type {
  Account,
  AgentMessageDeltaNotification,
  ContextItem,
  EditorProblem,
  LspPosition,
  LspRange,
  ReasoningEffortOption,
  ReviewTarget,
  RateLimitWindow,
  SessionApproval,
  TurnTask,
  ThreadTokenUsage as TokenUsage,
  TurnPlanStep as PlanStep,
  Model as ModelInfo,
  TurnStatus,
  UserInput,
} from '../generated/v2';

/** The editor context items, one per `type` (the bindings write them inline in `ContextItem`). */
export type FileContextItem = Extract<v2.ContextItem, { type: 'file' }>;
export type ProblemsContextItem = Extract<v2.ContextItem, { type: 'problems' }>;

/** An approval policy the picker offers: v2's named ones (a granular policy is config's alone). */
export type ApprovalPolicy = Extract<v2.AskForApproval, string>;
export const APPROVAL_POLICIES: ApprovalPolicy[] = ['untrusted', 'on-request', 'never'];

/**
 * The panel's modes, as codex's IDE extension offers them: each stands for a sandbox, the
 * approval policy used unless one is picked or configured, and a collaboration mode.
 */
export type Mode = 'chat' | 'agent' | 'full' | 'plan';
export interface ModeSettings {
  label: string;
  /** What the mode lets Codex do, for the picker's tooltip. */
  description: string;
  sandboxPolicy: v2.SandboxPolicy;
  /** The same sandbox as `thread/start` names it. */
  sandbox: v2.SandboxMode;
  approvalPolicy: ApprovalPolicy;
  collaboration: 'default' | 'plan';
}
export const DEFAULT_MODE: Mode = 'agent';
export const MODES: Record<Mode, ModeSettings> = {
  chat: {
    label: 'Chat',
    description: 'Read-only: Codex reads and answers; any change or command outside the sandbox asks first',
    sandboxPolicy: { type: 'readOnly' },
    sandbox: 'read-only',
    approvalPolicy: 'on-request',
    collaboration: 'default',
  },
  agent: {
    label: 'Agent',
    description: 'Codex edits files in the project and runs commands in the sandbox; anything beyond asks first',
    sandboxPolicy: { type: 'workspaceWrite' },
    sandbox: 'workspace-write',
    approvalPolicy: 'on-request',
    collaboration: 'default',
  },
  full: {
    label: 'Full access',
    description: 'No sandbox and no approvals: Codex changes any file and runs any command without asking',
    sandboxPolicy: { type: 'dangerFullAccess' },
    sandbox: 'danger-full-access',
    approvalPolicy: 'never',
    collaboration: 'default',
  },
  plan: {
    label: 'Plan',
    description: 'Codex explores read-only, asks its questions and writes a plan; it changes nothing',
    sandboxPolicy: { type: 'readOnly' },
    sandbox: 'read-only',
    approvalPolicy: 'on-request',
    collaboration: 'plan',
  },
};

export function isMode(value: unknown): value is Mode {
  return typeof value === 'string' && Object.hasOwn(MODES, value);
}

/** The efforts the picker knows. v2 types an effort as any string: a model lists its own. */
export type ReasoningEffort = WireReasoningEffort & ('none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh');
export const REASONING_EFFORTS: ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

/** The decisions this client gives: the plain ones both approval requests take. */
export type Decision = v2.FileChangeApprovalDecision;
export const DECISIONS: Decision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];
/** Every answer a command approval takes, the proposed rule's among them. */
export type CommandDecision = v2.CommandExecutionApprovalDecision;
/** The button that takes the rule a command approval proposes ("always allow …"). */
export const ALWAYS_ALLOW = 'acceptWithExecpolicyAmendment';
/** A decision the panel's buttons give: a plain one, or the proposed rule by name. */
export type PanelDecision = Decision | typeof ALWAYS_ALLOW;

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
type Held<I> = I extends { changes: unknown }
  ? Omit<I, 'changes'> & {
      changes: FileUpdateChange[];
      /** What the patch printed, or why it did not land (`item/fileChange/outputDelta`). */
      output: string;
    }
  : I;

/** The `ThreadItem` of one type. */
export type ThreadItemOf<T extends ThreadItemType> = Extract<ThreadItem, { type: T }>;

/** A turn as the chat keeps it: what any server sends, so only `id` and `status` are sure. */
export type Turn = Pick<v2.Turn, 'id' | 'status'> & Partial<Omit<v2.Turn, 'id' | 'status' | 'items'>> & { items?: ThreadItem[] };

/** A thread as the chat keeps it (the list, `open`): only `id` is sure. */
export type Thread = Pick<v2.Thread, 'id'> & Partial<Omit<v2.Thread, 'id' | 'turns'>> & { turns?: Turn[] };

/** Usage windows as the chat keeps them: updates are sparse, so each may be missing. */
export type RateLimits = Partial<Pick<v2.RateLimitSnapshot, 'primary' | 'secondary'>>;

export type UserInputQuestion = v2.ToolRequestUserInputQuestion;

/**
 * A server request the chat shows inline, discriminated by its v2 method. A file-change
 * approval's diffs come in `codexLsp.changes` (codex-lsp's own addition; the `fileChange` item
 * announced by `item/started` carries them too), or at the top level from older codex-lsp servers.
 */
export type InlineRequest =
  | { method: typeof COMMAND_APPROVAL; params: v2.CommandExecutionRequestApprovalParams }
  | { method: typeof FILE_CHANGE_APPROVAL; params: v2.FileChangeRequestApprovalParams & { changes?: FileUpdateChange[] | null } }
  | { method: typeof USER_INPUT; params: v2.ToolRequestUserInputParams };

/**
 * Where JSON from the wire becomes a typed inline request: the server sends each method with the
 * params its protocol type says, so the params are taken as that type.
 */
export function inlineRequest(method: InlineRequestMethod, params: unknown): InlineRequest {
  return { method, params } as InlineRequest;
}

/** The inline request of one method. */
export type InlineRequestOf<M extends InlineRequestMethod> = Extract<InlineRequest, { method: M }>;

/** Either approval request. */
export type ApprovalRequest = InlineRequestOf<typeof COMMAND_APPROVAL | typeof FILE_CHANGE_APPROVAL>;

export type UserInputParams = v2.ToolRequestUserInputParams;

/** The answers to a `requestUserInput`, by question id. */
export type UserInputAnswers = NonNullable<v2.ToolRequestUserInputResponse['answers']>;

/** What the chat answers an inline request with. */
export type InlineRequestResult =
  | v2.CommandExecutionRequestApprovalResponse
  | v2.FileChangeRequestApprovalResponse
  | v2.ToolRequestUserInputResponse;

/** The server requests the chat renders inline, by their v2 method. */
export const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
export const FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval';
export const USER_INPUT = 'item/tool/requestUserInput';
export const INLINE_REQUESTS = [COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, USER_INPUT] as const;
export type InlineRequestMethod = (typeof INLINE_REQUESTS)[number];

/** The per-turn choices of `turn/start` and `turn/startTask` that the pickers set. */
export type TurnOverrides = Pick<v2.TurnStartParams, 'model' | 'effort' | 'approvalPolicy' | 'sandboxPolicy'>;

// -- requests -----------------------------------------------------------------------------

/** The v2 methods a client calls, each the LSP request `codex/<method>`. */
export type RequestMethod = ClientRequest['method'];

/** The params of the request `M`, as the generated `ClientRequest` union types them. */
export type RequestParams<M extends RequestMethod> = Extract<ClientRequest, { method: M }>['params'];

/** The result of each request the extension makes (the bindings type results by name only). */
export interface RequestResults {
  'thread/start': v2.ThreadStartResponse;
  'thread/resume': v2.ThreadResumeResponse;
  'thread/list': v2.ThreadListResponse;
  'thread/archive': v2.ThreadArchiveResponse;
  'thread/delete': v2.ThreadDeleteResponse;
  'thread/name/set': v2.ThreadSetNameResponse;
  'turn/start': v2.TurnStartResponse;
  'turn/startTask': v2.TurnStartResponse;
  'turn/interrupt': v2.TurnInterruptResponse;
  'turn/steer': v2.TurnSteerResponse;
  'review/start': v2.ReviewStartResponse;
  'model/list': v2.ModelListResponse;
  'config/read': v2.ConfigReadResponse;
  'account/read': v2.GetAccountResponse;
  'account/login/start': v2.LoginAccountResponse;
  'account/logout': v2.LogoutAccountResponse;
  'thread/sessionApprovals/list': v2.ThreadSessionApprovalsListResponse;
  'thread/sessionApprovals/revoke': v2.ThreadSessionApprovalsRevokeResponse;
}

/** A name that must be a v2 method: a misspelt key of `RequestResults` fails the type check. */
type V2Method<M extends RequestMethod> = M;

/** A request the extension makes: a v2 method whose result it knows. */
export type KnownRequest = V2Method<keyof RequestResults>;

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
  | ServerNotification
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
  'account/updated',
  'account/login/completed',
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
  // A notification without params is read as one whose fields are all absent.
  return { method, params: params ?? {} } as FollowedNotification;
}
