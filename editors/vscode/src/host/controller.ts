/**
 * What the chat can do with threads and turns, as v2 calls on the server. The current thread
 * is remembered per workspace, so a window reload resumes it.
 */

import * as vscode from 'vscode';
import type { ModelInfo, Thread, ThreadListResult, ThreadStartResult } from '../shared/protocol';
import { errorText, type ServerConnection } from './server';
import type { ChatStore } from './store';

const THREAD_KEY = 'codexChat.threadId';
const SETTINGS_KEY = 'codexChat.selection';

export type ReviewTarget =
  | { type: 'uncommittedChanges' }
  | { type: 'baseBranch'; branch: string }
  | { type: 'commit'; sha: string; title?: string };

export class ChatController {
  constructor(
    private readonly server: ServerConnection,
    private readonly store: ChatStore,
    private readonly memento: vscode.Memento,
  ) {
    const saved = memento.get<{ model?: string; approvalPolicy?: string }>(SETTINGS_KEY);
    if (saved) store.dispatch({ type: 'select', ...saved });
  }

  private get cwd(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  get threadId(): string | undefined {
    return this.store.state.conversation?.threadId;
  }

  /** After each (re)start: models, threads, and the thread shown before the reload. */
  async onServerReady(): Promise<void> {
    await Promise.all([this.refreshThreads(), this.loadModels()]);
    const saved = this.threadId ?? this.memento.get<string>(THREAD_KEY);
    if (saved) {
      try {
        await this.resume(saved);
      } catch {
        await this.memento.update(THREAD_KEY, undefined);
        this.store.dispatch({ type: 'close' });
      }
    }
  }

  async refreshThreads(): Promise<void> {
    try {
      const params: Record<string, unknown> = { limit: 50, sortKey: 'updated_at' };
      if (this.cwd) params.cwd = this.cwd;
      const result = await this.server.request<ThreadListResult>('thread/list', params);
      this.store.dispatch({ type: 'threads', threads: result.data ?? [] });
    } catch (err) {
      this.notice(`Could not list threads: ${errorText(err)}`);
    }
  }

  async loadModels(): Promise<void> {
    try {
      const result = await this.server.request<{ data: ModelInfo[] }>('model/list', {});
      this.store.dispatch({ type: 'models', models: result.data ?? [] });
    } catch (err) {
      this.server.client?.outputChannel.warn(`model/list failed: ${errorText(err)}`);
    }
  }

  async newThread(): Promise<string> {
    const params: Record<string, unknown> = {};
    if (this.cwd) params.cwd = this.cwd;
    const { model, approvalPolicy } = this.store.state;
    if (model) params.model = model;
    if (approvalPolicy) params.approvalPolicy = approvalPolicy;
    const result = await this.server.request<ThreadStartResult>('thread/start', params);
    this.open(result.thread);
    return result.thread.id;
  }

  async resume(threadId: string): Promise<void> {
    const result = await this.server.request<ThreadStartResult>('thread/resume', { threadId });
    this.open(result.thread);
  }

  private open(thread: Thread): void {
    this.store.dispatch({ type: 'open', thread });
    void this.memento.update(THREAD_KEY, thread.id);
  }

  async archive(threadId: string): Promise<void> {
    await this.server.request('thread/archive', { threadId });
    // The server also says so in `thread/archived`; this makes the list right either way.
    this.store.dispatch({ type: 'notify', method: 'thread/archived', params: { threadId } });
    if (this.memento.get(THREAD_KEY) === threadId) await this.memento.update(THREAD_KEY, undefined);
  }

  /** The current thread, started when there is none. */
  async ensureThread(): Promise<string> {
    return this.threadId ?? (await this.newThread());
  }

  /** Show `threadId` (for an approval that arrives for a thread not on screen). */
  async show(threadId: string): Promise<void> {
    if (threadId && threadId !== this.threadId) await this.resume(threadId);
  }

  async send(text: string): Promise<void> {
    const threadId = await this.ensureThread();
    this.store.dispatch({ type: 'userText', text });
    const params: Record<string, unknown> = { threadId, input: [{ type: 'text', text }] };
    const { model, approvalPolicy } = this.store.state;
    if (model) params.model = model;
    if (approvalPolicy) params.approvalPolicy = approvalPolicy;
    await this.server.request('turn/start', params);
  }

  async interrupt(): Promise<boolean> {
    const conv = this.store.state.conversation;
    if (!conv?.runningTurnId) return false;
    await this.server.request('turn/interrupt', { threadId: conv.threadId, turnId: conv.runningTurnId });
    return true;
  }

  /** `codex.ask`: the server puts the selected text (its unsaved buffer) with the prompt. */
  async ask(prompt: string, uri: vscode.Uri, range: vscode.Range | undefined): Promise<void> {
    await this.onSelection('codex.ask', { prompt }, uri, range);
  }

  /** `codex.edit`: the server asks for the selection to change in place per the instruction. */
  async edit(instruction: string, uri: vscode.Uri, range: vscode.Range): Promise<void> {
    await this.onSelection('codex.edit', { instruction }, uri, range);
  }

  private async onSelection(
    command: string,
    extra: Record<string, unknown>,
    uri: vscode.Uri,
    range: vscode.Range | undefined,
  ): Promise<void> {
    const threadId = await this.ensureThread();
    const args: Record<string, unknown> = { threadId, ...extra, uri: uri.toString() };
    if (range) {
      args.range = {
        start: { line: range.start.line, character: range.start.character },
        end: { line: range.end.line, character: range.end.character },
      };
    }
    await this.server.executeCommand(command, args);
  }

  async review(target: ReviewTarget): Promise<void> {
    const threadId = await this.ensureThread();
    // The language server publishes the findings as diagnostics (the Problems panel) and
    // offers fix / explain / dismiss as code actions on them.
    await this.server.request('review/start', { threadId, target });
  }

  select(change: { model?: string; approvalPolicy?: string }): void {
    this.store.dispatch({ type: 'select', ...change });
    const { model, approvalPolicy } = this.store.state;
    void this.memento.update(SETTINGS_KEY, { model, approvalPolicy });
  }

  notice(text: string, kind: 'error' | 'warning' | 'info' = 'error'): void {
    this.store.dispatch({ type: 'notice', kind, text });
  }
}
