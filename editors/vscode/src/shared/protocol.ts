/**
 * The slice of the app-server v2 wire types the extension reads and writes. Every v2 method `M`
 * is the LSP request `codex/M`, every v2 notification `N` the LSP notification `codex/N`; the
 * shapes are the v2 ones (camelCase). Fields the UI never reads are left out; a field a server
 * may omit or send as null is optional and nullable, so older and newer servers both read.
 */

export type ApprovalPolicy = 'untrusted' | 'on-failure' | 'on-request' | 'never';
export const APPROVAL_POLICIES: ApprovalPolicy[] = ['untrusted', 'on-failure', 'on-request', 'never'];

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
export const REASONING_EFFORTS: ReasoningEffort[] = ['minimal', 'low', 'medium', 'high', 'xhigh'];

export type Decision = 'accept' | 'acceptForSession' | 'decline' | 'cancel';
export const DECISIONS: Decision[] = ['accept', 'acceptForSession', 'decline', 'cancel'];

export interface UserInput {
  type: string;
  text?: string;
  url?: string;
  path?: string;
  name?: string;
}

export interface FileUpdateChange {
  path: string;
  kind: { type: 'add' | 'delete' | 'update'; movePath?: string | null } | string;
  diff: string;
}

export interface CommandAction {
  type: string;
  command?: string;
}

/** One `ThreadItem`; `type` says which of the optional fields are there. */
export interface ThreadItem {
  type: string;
  id: string;
  // userMessage
  content?: UserInput[];
  // agentMessage, plan
  text?: string;
  // reasoning
  summary?: string[];
  // commandExecution
  command?: string;
  cwd?: string | null;
  status?: string;
  commandActions?: CommandAction[] | null;
  aggregatedOutput?: string | null;
  exitCode?: number | null;
  durationMs?: number | null;
  // fileChange
  changes?: FileUpdateChange[];
  // mcpToolCall
  server?: string;
  tool?: string;
  error?: { message?: string } | null;
  // webSearch
  query?: string;
  // enteredReviewMode / exitedReviewMode
  review?: string;
}

export interface TurnError {
  message: string;
}

export type TurnStatus = 'completed' | 'interrupted' | 'failed' | 'inProgress';

export interface Turn {
  id: string;
  items?: ThreadItem[];
  status: TurnStatus | string;
  error?: TurnError | null;
}

export interface Thread {
  id: string;
  preview?: string;
  name?: string | null;
  createdAt?: number;
  updatedAt?: number;
  cwd?: string;
  model?: string | null;
  turns?: Turn[];
}

export interface ThreadStartResult {
  thread: Thread;
  model?: string;
  approvalPolicy?: ApprovalPolicy | string;
  reasoningEffort?: ReasoningEffort | null;
}

export interface ThreadListResult {
  data: Thread[];
  nextCursor?: string | null;
}

export interface ReasoningEffortOption {
  reasoningEffort: ReasoningEffort;
  description?: string;
}

export interface ModelInfo {
  id: string;
  model?: string;
  displayName?: string;
  hidden?: boolean;
  isDefault?: boolean;
  supportedReasoningEfforts?: ReasoningEffortOption[];
  defaultReasoningEffort?: ReasoningEffort | null;
}

/** What `config/read` says the user configured (the keys the pickers fall back to). */
export interface ConfigReadResult {
  config: {
    model?: string | null;
    approval_policy?: ApprovalPolicy | string | null;
    model_reasoning_effort?: ReasoningEffort | null;
  };
}

export interface TokenUsageBreakdown {
  totalTokens: number;
  inputTokens?: number;
  cachedInputTokens?: number;
  outputTokens?: number;
  reasoningOutputTokens?: number;
}

export interface TokenUsage {
  total: TokenUsageBreakdown;
  last?: TokenUsageBreakdown;
  modelContextWindow?: number | null;
}

export interface RateLimitWindow {
  usedPercent: number;
  windowDurationMins?: number | null;
  resetsAt?: number | null;
}

export interface RateLimits {
  primary?: RateLimitWindow | null;
  secondary?: RateLimitWindow | null;
}

export interface PlanStep {
  step: string;
  status: 'pending' | 'inProgress' | 'completed' | string;
}

export interface UserInputOption {
  label: string;
  description?: string;
}

export interface UserInputQuestion {
  id: string;
  header?: string;
  question: string;
  isOther?: boolean;
  isSecret?: boolean;
  options?: UserInputOption[] | null;
}

/** A decision as offered in `availableDecisions`: one of ours, or one this client cannot give. */
export type OfferedDecision = Decision | Record<string, unknown>;

export interface ApprovalParams {
  threadId: string;
  turnId: string;
  itemId: string;
  reason?: string | null;
  availableDecisions?: OfferedDecision[] | null;
  // commandExecution
  command?: string | null;
  cwd?: string | null;
  // fileChange
  grantRoot?: string | null;
  /** codex-lsp's own addition, namespaced so the protocol's shape stays exact: the patch's diffs.
   * The `fileChange` item announced by `item/started` carries them too, as the protocol intends. */
  codexLsp?: { changes?: FileUpdateChange[] | null } | null;
  /** Older codex-lsp servers sent the diffs at the top level. */
  changes?: FileUpdateChange[] | null;
}

export interface UserInputParams {
  threadId: string;
  turnId: string;
  itemId: string;
  questions: UserInputQuestion[];
}

export type InlineRequestParams = ApprovalParams | UserInputParams;

export type UserInputAnswers = Record<string, { answers: string[] }>;

export type InlineRequestResult = { decision: Decision } | { answers: UserInputAnswers };

/** The server requests the chat renders inline, by their v2 method. */
export const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
export const FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval';
export const USER_INPUT = 'item/tool/requestUserInput';
export const INLINE_REQUESTS = [COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, USER_INPUT] as const;
export type InlineRequestMethod = (typeof INLINE_REQUESTS)[number];

// -- turn/startTask (codex-lsp's extension to v2) --------------------------------------------

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface FileContextItem {
  type: 'file';
  path: string;
  range?: LspRange;
  text?: string;
}

export interface EditorProblem {
  path: string;
  range: LspRange;
  severity: 'error' | 'warning' | 'information' | 'hint';
  message: string;
  source?: string;
}

export interface ProblemsContextItem {
  type: 'problems';
  problems: EditorProblem[];
}

export type ContextItem = FileContextItem | ProblemsContextItem;

export type TurnTask =
  | { type: 'ask'; text: string }
  | { type: 'edit'; instruction: string; path: string; range: LspRange; text?: string }
  | { type: 'applyCode'; path: string; code: string; language?: string };

export interface TurnOverrides {
  model?: string;
  effort?: ReasoningEffort;
  approvalPolicy?: ApprovalPolicy | string;
}

export interface TurnStartTaskParams extends TurnOverrides {
  threadId: string;
  task: TurnTask;
  context?: ContextItem[];
}

export interface TurnStartResult {
  turn: Turn;
}

// -- notifications ------------------------------------------------------------------------

/** The params of each v2 notification the chat follows, by method. */
export interface NotificationParams {
  'thread/started': { thread: Thread };
  'thread/archived': { threadId: string };
  'thread/deleted': { threadId: string };
  'thread/name/updated': { threadId: string; threadName?: string | null; name?: string | null };
  'turn/started': { threadId: string; turn: Turn };
  'turn/completed': { threadId: string; turn: Turn };
  'turn/plan/updated': { threadId: string; turnId: string; explanation?: string | null; plan?: PlanStep[] };
  'turn/diff/updated': { threadId: string; turnId: string; diff?: string };
  'item/started': { threadId: string; turnId: string; item: ThreadItem };
  'item/completed': { threadId: string; turnId: string; item: ThreadItem };
  'item/agentMessage/delta': { threadId: string; turnId: string; itemId: string; delta: string };
  'item/plan/delta': { threadId: string; turnId: string; itemId: string; delta: string };
  'item/reasoning/summaryTextDelta': { threadId: string; turnId: string; itemId: string; delta: string; summaryIndex?: number };
  'item/reasoning/summaryPartAdded': { threadId: string; turnId: string; itemId: string; summaryIndex?: number };
  'item/commandExecution/outputDelta': { threadId: string; turnId: string; itemId: string; delta: string };
  'item/fileChange/outputDelta': { threadId: string; turnId: string; itemId: string; delta: string };
  'thread/tokenUsage/updated': { threadId: string; tokenUsage: TokenUsage };
  'account/rateLimits/updated': { rateLimits?: RateLimits };
  'serverRequest/resolved': { threadId?: string; requestId?: string | number };
  error: { threadId?: string; error?: { message?: string }; message?: string; willRetry?: boolean };
  warning: { threadId?: string; message?: string };
  'review/completed': ReviewCompleted;
}

export type FollowedNotification = keyof NotificationParams;

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

/** The notifications the chat follows (sent over LSP as `codex/<name>`). */
export const FOLLOWED_NOTIFICATIONS: FollowedNotification[] = [
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
];
