/**
 * The slice of the app-server v2 wire types the extension reads. Every v2 method `M` is the
 * LSP request `codex/M`, every v2 notification `N` the LSP notification `codex/N`; the shapes
 * are the v2 ones (camelCase). Fields the UI never reads are left out, and everything is
 * optional where an older or newer server might omit it.
 */

export type ApprovalPolicy = 'untrusted' | 'on-failure' | 'on-request' | 'never';
export const APPROVAL_POLICIES: ApprovalPolicy[] = ['untrusted', 'on-failure', 'on-request', 'never'];

export type Decision = 'accept' | 'acceptForSession' | 'decline' | 'cancel';

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
  cwd?: string;
  status?: string;
  commandActions?: CommandAction[];
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

export interface Turn {
  id: string;
  items?: ThreadItem[];
  status: 'completed' | 'interrupted' | 'failed' | 'inProgress' | string;
  error?: TurnError | null;
}

export interface Thread {
  id: string;
  preview?: string;
  name?: string | null;
  createdAt?: number;
  updatedAt?: number;
  cwd?: string;
  turns?: Turn[];
}

export interface ThreadStartResult {
  thread: Thread;
  model?: string;
  approvalPolicy?: ApprovalPolicy | string;
}

export interface ThreadListResult {
  data: Thread[];
  nextCursor?: string | null;
}

export interface ModelInfo {
  id: string;
  model?: string;
  displayName?: string;
  hidden?: boolean;
  isDefault?: boolean;
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

export interface CommandApprovalParams {
  threadId: string;
  turnId: string;
  itemId: string;
  reason?: string | null;
  command?: string | null;
  cwd?: string | null;
}

export interface FileChangeApprovalParams {
  threadId: string;
  turnId: string;
  itemId: string;
  reason?: string | null;
  grantRoot?: string | null;
  /** codex-lsp's own additions: the per-file unified diffs of the patch. */
  codexLsp?: { changes?: FileUpdateChange[] };
}

export interface UserInputParams {
  threadId: string;
  turnId: string;
  itemId: string;
  questions: UserInputQuestion[];
}

export type UserInputAnswers = Record<string, { answers: string[] }>;

/** The server requests the chat renders inline, by their v2 method. */
export const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
export const FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval';
export const USER_INPUT = 'item/tool/requestUserInput';
export const INLINE_REQUESTS = [COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, USER_INPUT] as const;
export type InlineRequestMethod = (typeof INLINE_REQUESTS)[number];

/** The v2 notifications the chat follows (sent over LSP as `codex/<name>`). */
export const FOLLOWED_NOTIFICATIONS = [
  'thread/started',
  'thread/archived',
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
] as const;
