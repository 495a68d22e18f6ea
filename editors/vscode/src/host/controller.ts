/**
 * What the chat can do with threads and turns, as v2 calls on the server. The pickers' choices
 * go with every turn, whichever way it starts (the chat, an editor command, a review); "as
 * configured" sends the configured value, so a thread that had an override goes back to the
 * config. The current thread is remembered per workspace, so a window reload resumes it.
 */

import * as vscode from 'vscode';
import {
  type ApprovalPolicy,
  type ContextItem,
  MODES,
  type RequestParams,
  type ReviewTarget,
  type Thread,
  type TurnOverrides,
  type TurnTask,
} from '../shared/protocol';
import { errorText, type ServerConnection, type UndoTurnResult } from './server';
import { turnText } from '../shared/state';
import type { ChatStore } from './store';

const THREAD_KEY = 'codexChat.threadId';
const REVIEW_THREAD_KEY = 'codexChat.reviewThreadId';
const SETTINGS_KEY = 'codexChat.selection';

interface Picks {
  model?: string;
  effort?: string;
  approvalPolicy?: string;
  mode?: string;
}

/**
 * A picked policy as v2 takes it. A pick saved by an earlier version may be the core's
 * `on-failure`, which v2 dropped: `on-request` is its closest surviving neighbour, as the server
 * reads it in config.toml.
 */
function wirePolicy(policy: string): ApprovalPolicy {
  return (policy === 'on-failure' ? 'on-request' : policy) as ApprovalPolicy;
}

export class ChatController {
  constructor(
    private readonly server: ServerConnection,
    private readonly store: ChatStore,
    private readonly memento: vscode.Memento,
  ) {
    const saved = memento.get<Picks>(SETTINGS_KEY);
    if (saved) store.dispatch({ type: 'select', ...saved });
    // An answer "for this session" is remembered by the time its command or change ends.
    store.onDidChange(({ action }) => {
      const ended = action.type === 'notify' && action.method === 'item/completed' && ['commandExecution', 'fileChange'].includes(action.params.item.type);
      if (action.type === 'open' || ended) void this.loadSessionApprovals();
      // The list follows the server's titles and order without being reopened.
      if (action.type === 'notify' && action.method === 'turn/completed') void this.refreshThreads();
    });
  }

  private get cwd(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  // How many times a thread has been opened in the chat.
  private opened = 0;

  get threadId(): string | undefined {
    return this.store.state.conversation?.threadId;
  }

  /** After each (re)start: models, config, threads, and the threads shown before the reload. */
  async onServerReady(): Promise<void> {
    // A thread the user opens while this runs (a new one, say) stays shown: it is not replaced
    // by the one shown before the restart when that one's resume comes back later.
    const opened = this.opened;
    await Promise.all([this.refreshThreads(), this.loadModels(), this.loadConfig(), this.loadAccount()]);
    // The thread of the last review first: resuming it brings its open findings back.
    const review = this.memento.get<string>(REVIEW_THREAD_KEY);
    const saved = this.threadId ?? this.memento.get<string>(THREAD_KEY);
    if (review && review !== saved) {
      try {
        await this.server.request('thread/resume', { threadId: review });
      } catch {
        await this.memento.update(REVIEW_THREAD_KEY, undefined);
      }
    }
    if (saved && this.opened === opened) {
      try {
        const result = await this.server.request('thread/resume', { threadId: saved });
        if (this.opened === opened) this.open(result.thread);
      } catch {
        await this.memento.update(THREAD_KEY, undefined);
        this.store.dispatch({ type: 'close' });
      }
    }
  }

  async refreshThreads(query = this.store.state.threadQuery): Promise<void> {
    try {
      const params: RequestParams<'thread/list'> = { limit: 50, sortKey: 'updated_at' };
      if (this.cwd) params.cwd = this.cwd;
      if (query.trim()) params.searchTerm = query.trim();
      const result = await this.server.request('thread/list', params);
      this.store.dispatch({ type: 'threadQuery', query });
      this.store.dispatch({ type: 'threads', threads: result.data ?? [] });
    } catch (err) {
      // A restart drops requests on the way; the next start lists the threads again.
      if (this.server.running) this.notice(`Could not list threads: ${errorText(err)}`);
    }
  }

  async loadModels(): Promise<void> {
    try {
      const result = await this.server.request('model/list', {});
      this.store.dispatch({ type: 'models', models: result.data ?? [] });
    } catch (err) {
      this.server.client?.outputChannel.warn(`model/list failed: ${errorText(err)}`);
    }
  }

  async loadConfig(): Promise<void> {
    try {
      const { config, origins } = await this.server.request('config/read', {});
      this.store.dispatch({
        type: 'configured',
        model: config.model ?? undefined,
        effort: config.model_reasoning_effort ?? undefined,
        // A granular policy has no entry in the picker: it stays as configured. A policy the
        // user's config does not set is the mode's.
        approvalPolicy:
          typeof config.approval_policy === 'string' && origins?.approval_policy ? config.approval_policy : undefined,
      });
    } catch (err) {
      this.server.client?.outputChannel.warn(`config/read failed: ${errorText(err)}`);
    }
  }

  /** Who the server signs in as, for the panel's account line or sign-in form. */
  async loadAccount(): Promise<void> {
    try {
      const result = await this.server.request('account/read', { refreshToken: false });
      const pendingLogin = this.store.state.account?.pendingLogin && !result.account;
      this.store.dispatch({
        type: 'account',
        account: { account: result.account, requiresOpenaiAuth: result.requiresOpenaiAuth, pendingLogin, error: this.store.state.account?.error },
      });
    } catch (err) {
      this.server.client?.outputChannel.warn(`account/read failed: ${errorText(err)}`);
    }
  }

  /** Sign in with an API key (stored by the server, never kept here), or with ChatGPT in the browser. */
  async login(apiKey?: string): Promise<void> {
    const current = this.store.state.account ?? { account: null, requiresOpenaiAuth: true };
    try {
      if (apiKey !== undefined) {
        await this.server.request('account/login/start', { type: 'apiKey', apiKey });
      } else {
        const started = await this.server.request('account/login/start', { type: 'chatgpt' });
        this.store.dispatch({ type: 'account', account: { ...current, pendingLogin: true, error: undefined } });
        if (started.type === 'chatgpt') await vscode.env.openExternal(vscode.Uri.parse(started.authUrl));
        return;
      }
    } catch (err) {
      this.store.dispatch({ type: 'account', account: { ...current, pendingLogin: false, error: errorText(err) } });
      return;
    }
    this.store.dispatch({ type: 'account', account: { ...current, error: undefined } });
    await this.loadAccount();
  }

  async logout(): Promise<void> {
    try {
      await this.server.request('account/logout', undefined);
    } catch (err) {
      this.notice(`Could not sign out: ${errorText(err)}`);
    }
    await this.loadAccount();
  }

  /** The turn settings the pickers stand for; "as configured" is the configured value. */
  overrides(): TurnOverrides {
    const { model, effort, approvalPolicy, configured, models } = this.store.state;
    const out: TurnOverrides = {};
    const pick = (chosen: string, fallback: string | undefined) => chosen || fallback || undefined;
    const m = pick(model, configured.model);
    if (m) out.model = m;
    // Without a configured effort, the model's own default is what "as configured" means.
    const info = models.find((x) => (x.model || x.id) === m);
    const e = pick(effort, configured.effort ?? info?.defaultReasoningEffort ?? undefined);
    if (e) out.effort = e;
    const mode = MODES[this.store.state.mode];
    // The mode holds over config.toml's approval_policy, as in codex's IDE extension: only a
    // policy picked in the panel replaces the mode's.
    out.approvalPolicy = wirePolicy(approvalPolicy || mode.approvalPolicy);
    out.sandboxPolicy = mode.sandboxPolicy;
    return out;
  }

  // The collaboration mode each thread was last set to from here.
  private readonly collaboration = new Map<string, string>();

  /** Put `threadId` in the mode's collaboration mode (Plan or the default) before a turn. */
  private async applyMode(threadId: string): Promise<void> {
    const wanted = MODES[this.store.state.mode].collaboration;
    if (this.collaboration.get(threadId) === wanted) return;
    const model = this.overrides().model ?? '';
    await this.server.updateThreadSettings({
      threadId,
      collaborationMode: { mode: wanted, settings: { model, reasoning_effort: null, developer_instructions: null } },
    });
    this.collaboration.set(threadId, wanted);
  }

  async newThread(): Promise<string> {
    const result = await this.server.request('thread/start', this.threadParams());
    this.open(result.thread);
    return result.thread.id;
  }

  private threadParams(): RequestParams<'thread/start'> {
    const { effort, sandboxPolicy: _, ...overrides } = this.overrides();
    const params: RequestParams<'thread/start'> = { ...overrides, sandbox: MODES[this.store.state.mode].sandbox };
    if (this.cwd) params.cwd = this.cwd;
    // thread/start takes the effort as a config key.
    if (effort) params.config = { model_reasoning_effort: effort };
    return params;
  }

  async resume(threadId: string): Promise<void> {
    const result = await this.server.request('thread/resume', { threadId });
    this.open(result.thread);
  }

  private open(thread: Thread): void {
    this.opened += 1;
    this.store.dispatch({ type: 'open', thread });
    void this.memento.update(THREAD_KEY, thread.id);
  }

  async archive(threadId: string): Promise<void> {
    await this.server.request('thread/archive', { threadId });
    // The server also says so in `thread/archived`; this makes the list right either way.
    this.store.dispatch({ type: 'notify', method: 'thread/archived', params: { threadId } });
    await this.forget(threadId);
  }

  async delete(threadId: string): Promise<void> {
    await this.server.request('thread/delete', { threadId });
    this.store.dispatch({ type: 'notify', method: 'thread/deleted', params: { threadId } });
    await this.forget(threadId);
  }

  private async forget(threadId: string): Promise<void> {
    if (this.memento.get(THREAD_KEY) === threadId) await this.memento.update(THREAD_KEY, undefined);
    if (this.memento.get(REVIEW_THREAD_KEY) === threadId) await this.memento.update(REVIEW_THREAD_KEY, undefined);
  }

  async rename(threadId: string, name: string): Promise<void> {
    await this.server.request('thread/name/set', { threadId, name });
    this.store.dispatch({ type: 'notify', method: 'thread/name/updated', params: { threadId, threadName: name } });
  }

  /** The current thread, started when there is none. */
  async ensureThread(): Promise<string> {
    return this.threadId ?? (await this.newThread());
  }

  /** Show `threadId` (for an approval that arrives for a thread not on screen). */
  async show(threadId: string): Promise<void> {
    if (threadId && threadId !== this.threadId) await this.resume(threadId);
  }

  /** A chat message: plain, or with the context the user attached. */
  async send(text: string, context: ContextItem[] = []): Promise<void> {
    const threadId = await this.ensureThread();
    this.store.dispatch({ type: 'userText', text });
    await this.applyMode(threadId);
    // Images alone go as the turn's `localImage` inputs; other context needs the editor task.
    const images = context.flatMap((c) => (c.type === 'image' ? [{ type: 'localImage' as const, path: c.path }] : []));
    if (images.length < context.length) {
      await this.startTask(threadId, { type: 'ask', text }, context);
      return;
    }
    await this.server.request('turn/start', { threadId, input: [{ type: 'text', text }, ...images], ...this.overrides() });
  }

  /** Send the message that started the failed turn `turnId` again, on the same thread. */
  async retry(turnId: string): Promise<void> {
    const turn = this.store.state.conversation?.turns.find((t) => t.id === turnId);
    const text = turn ? turnText(turn) : '';
    if (!text) throw new Error('That turn has no message to send again.');
    await this.send(text);
  }

  /**
   * A message sent while a turn runs goes into that turn (`turn/steer`): Codex reads it at its
   * next step, and the turn shows it where it arrived.
   */
  async steer(text: string): Promise<void> {
    const conv = this.store.state.conversation;
    if (!conv?.runningTurnId) return this.send(text);
    try {
      await this.server.request('turn/steer', {
        threadId: conv.threadId,
        input: [{ type: 'text', text, text_elements: [] }],
        expectedTurnId: conv.runningTurnId,
      });
    } catch (err) {
      // The turn ended meanwhile: the message starts the next one instead.
      if (!this.store.state.conversation?.runningTurnId) return this.send(text);
      this.notice(`Could not send to the running turn: ${errorText(err)}`);
    }
  }

  /** An editor request (ask about or edit a selection, apply a code block) in the chat's thread. */
  async task(task: TurnTask, context: ContextItem[] = [], overrides: TurnOverrides = {}): Promise<string> {
    const threadId = await this.ensureThread();
    return this.startTask(threadId, task, context, overrides);
  }

  /** Starts the turn and returns its id; `overrides` take the place of the pickers' settings. */
  private async startTask(threadId: string, task: TurnTask, context: ContextItem[], overrides: TurnOverrides = {}): Promise<string> {
    await this.applyMode(threadId);
    const started = await this.server.request('turn/startTask', { threadId, task, context, ...this.overrides(), ...overrides });
    return started.turn.id;
  }

  /** Undo the last turn that changed files (of this conversation's thread, when it has one). */
  async undoTurn(): Promise<UndoTurnResult> {
    const result = await this.server.undoTurn(this.store.state.conversation?.threadId);
    // The turn's list of changed files says which were put back.
    for (const path of result.restored) this.store.dispatch({ type: 'changeMark', turnId: result.turnId, path, mark: 'undone' });
    return result;
  }

  async interrupt(): Promise<boolean> {
    const conv = this.store.state.conversation;
    if (!conv?.runningTurnId) return false;
    await this.server.request('turn/interrupt', { threadId: conv.threadId, turnId: conv.runningTurnId });
    return true;
  }

  /**
   * A review runs in a thread of its own, started with the pickers' settings (the reviewer
   * uses the thread's model); the language server publishes the findings as diagnostics and
   * offers Fix / Explain / Dismiss on them.
   */
  async review(target: ReviewTarget): Promise<void> {
    const threadId = await this.newThread();
    await this.memento.update(REVIEW_THREAD_KEY, threadId);
    await this.server.request('review/start', { threadId, target });
  }

  /** What `threadId` (the shown thread by default) allows for the session, into the panel. */
  async loadSessionApprovals(threadId = this.threadId): Promise<void> {
    if (!threadId) return;
    try {
      const { approvals } = await this.server.request('thread/sessionApprovals/list', { threadId });
      this.store.dispatch({ type: 'sessionApprovals', threadId, approvals });
    } catch (err) {
      this.server.client?.outputChannel.warn(`thread/sessionApprovals/list failed: ${errorText(err)}`);
    }
  }

  /** Take back one answer given for the session: the next matching command or change asks again. */
  async revokeSessionApproval(threadId: string, id: string): Promise<void> {
    await this.server.request('thread/sessionApprovals/revoke', { threadId, id });
    await this.loadSessionApprovals(threadId);
  }

  select(change: Picks): void {
    this.store.dispatch({ type: 'select', ...change });
    const { model, effort, approvalPolicy, mode } = this.store.state;
    void this.memento.update(SETTINGS_KEY, { model, effort, approvalPolicy, mode });
  }

  notice(text: string, kind: 'error' | 'warning' | 'info' = 'error'): void {
    this.store.dispatch({ type: 'notice', kind, text });
  }
}
