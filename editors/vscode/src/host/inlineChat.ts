/**
 * Inline edit in the editor (Ctrl+I): a comment thread at the selection is the prompt, the
 * request runs as an edit turn in the chat's thread, and what the agent proposes is shown in
 * place, with Accept / Reject in the thread, above the change and on the keyboard.
 *
 * The turn runs read-only, whatever the panel's mode: every file change then comes as an
 * approval request, which is the proposal. Accept approves it, and the server lands the change
 * in the buffer and on disk (the agent's next command reads it); Reject declines it, and the
 * file stays as it was. Either way the thread's transcript in the panel says what happened,
 * and an answer given in the panel counts here too. Commands that need approval are answered
 * in the thread as well.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { markdownLiteral, turnStatus } from '../shared/inlineEdit';
import { visible } from '../shared/visible';
import { type ApprovalRequest, COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, type FileUpdateChange, type InlineRequest, type TurnOverrides } from '../shared/protocol';
import { requestChanges } from '../shared/renderRequests';
import { findItem, type PendingRequest } from '../shared/state';
import { lspRange } from './contextPicker';
import type { ChatController } from './controller';
import type { DiffPreview } from './diffPreview';
import { ProposalView } from './inlineProposal';
import type { InlineRequests } from './inlineRequests';
import { errorText } from './server';
import type { ChatStore } from './store';

export const INLINE_CONTROLLER = 'codexInline';
/** True while a proposal waits for Accept or Reject (the keyboard's Ctrl+Enter / Escape). */
const PROPOSAL_CONTEXT = 'codexChat.inlineProposal';

type Phase = 'prompt' | 'running' | 'proposal' | 'approval' | 'done';

interface Session {
  thread: vscode.CommentThread;
  uri: vscode.Uri;
  phase: Phase;
  asked: vscode.Comment[];
  threadId?: string;
  turnId?: string;
  /** The approval request this session answers in place. */
  request?: { key: string; method: ApprovalRequest['method']; changes: FileUpdateChange[]; command?: string };
  /** What the user decided here, shown above the status. */
  outcomes: string[];
  shown?: string;
}

const you: vscode.CommentAuthorInformation = { name: 'You' };
const codex: vscode.CommentAuthorInformation = { name: 'Codex' };

function comment(author: vscode.CommentAuthorInformation, markdown: string): vscode.Comment {
  return { author, body: new vscode.MarkdownString(markdown), mode: vscode.CommentMode.Preview };
}

export class InlineChat implements vscode.Disposable {
  private readonly comments = vscode.comments.createCommentController(INLINE_CONTROLLER, 'Codex inline edit');
  private readonly sessions = new Set<Session>();
  private readonly view: ProposalView;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly store: ChatStore,
    private readonly controller: ChatController,
    private readonly requests: InlineRequests,
    private readonly diffs: DiffPreview,
  ) {
    this.comments.options = { prompt: 'Ask Codex to edit…', placeHolder: 'Describe the change, then Ctrl+Enter' };
    // Any line of a file on disk can take a prompt: Ctrl+I, or the + in the gutter.
    this.comments.commentingRangeProvider = {
      provideCommentingRanges: (doc) => (doc.uri.scheme === 'file' ? [new vscode.Range(0, 0, Math.max(0, doc.lineCount - 1), 0)] : []),
    };
    this.view = new ProposalView(diffs);
    requests.claim = (key, request) => this.claim(key, request);
    this.disposables.push(
      this.comments,
      this.view,
      store.onDidChange(() => this.follow()),
      vscode.workspace.onDidChangeTextDocument((e) => this.view.refresh(e.document)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.view.redraw()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.commands.registerCommand('codexChat.inlineChat', (arg?: unknown) => this.guard(() => this.open(arg))),
      vscode.commands.registerCommand('codexChat.inline.submit', (reply: vscode.CommentReply) => this.guard(() => this.submit(reply))),
      vscode.commands.registerCommand('codexChat.inline.accept', (arg?: unknown) => this.guard(() => this.decide(arg, true))),
      vscode.commands.registerCommand('codexChat.inline.reject', (arg?: unknown) => this.guard(() => this.decide(arg, false))),
      vscode.commands.registerCommand('codexChat.inline.stop', (arg?: unknown) => this.guard(() => this.stop(arg))),
      vscode.commands.registerCommand('codexChat.inline.close', (arg?: unknown) => this.guard(() => this.close(arg))),
      vscode.commands.registerCommand('codexChat.inline.diff', (arg?: unknown) => this.guard(() => this.diff(arg))),
    );
  }

  private async guard(run: () => Promise<unknown>): Promise<unknown> {
    try {
      return await run();
    } catch (err) {
      const error = `Codex: inline edit failed: ${errorText(err)}`;
      void vscode.window.showErrorMessage(error);
      return { error };
    }
  }

  /** Ctrl+I: a prompt at the selection (or the cursor's line), focused for typing. */
  private async open(arg: unknown): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('open a file and select some code first');
    if (editor.document.uri.scheme !== 'file') throw new Error('save the file first: Codex works on files on disk');
    for (const session of [...this.sessions]) {
      if (session.phase === 'prompt' || session.phase === 'done') this.end(session);
    }
    const busy = [...this.sessions].find((s) => s.uri.toString() === editor.document.uri.toString());
    if (busy) throw new Error('Codex is still working on the last inline edit in this file: Stop or close it first');
    if (typeof arg === 'string' && arg.trim()) {
      // A keybinding's or a test's text is sent at once, from a thread at the selection.
      const { start, end } = editor.selection;
      const last = end.line > start.line && end.character === 0 ? end.line - 1 : end.line;
      const range = new vscode.Range(start.line, 0, last, editor.document.lineAt(last).text.length);
      const thread = this.comments.createCommentThread(editor.document.uri, range, []);
      thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
      await this.submit({ thread, text: arg });
      return;
    }
    // VS Code's own "add comment" opens the prompt at the selection with the keyboard in it.
    await vscode.commands.executeCommand('workbench.action.addComment');
  }

  /** A thread the user opened (Ctrl+I, or the + in the gutter) becomes a session when first used. */
  private adopt(thread: vscode.CommentThread): Session {
    const known = [...this.sessions].find((s) => s.thread === thread);
    if (known) return known;
    thread.label = 'Codex';
    thread.contextValue = 'prompt';
    const session: Session = { thread, uri: thread.uri, phase: 'prompt', asked: [], outcomes: [] };
    this.sessions.add(session);
    return session;
  }

  /** The session of a thread (or a reply in it); without one, the active editor's, else any waiting. */
  private find(arg: unknown): Session | undefined {
    const all = [...this.sessions];
    if (arg && typeof arg === 'object') {
      const thread = 'thread' in arg ? (arg as vscode.CommentReply).thread : arg;
      return all.find((s) => s.thread === thread);
    }
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    return all.find((s) => s.uri.toString() === uri && s.request) ?? all.find((s) => s.request) ?? all.find((s) => s.uri.toString() === uri);
  }

  /** The prompt's text: an edit turn on the thread's lines, in the chat's current thread. */
  private async submit(reply: vscode.CommentReply): Promise<void> {
    const session = this.adopt(reply.thread);
    const instruction = reply.text.trim();
    if (!session || !instruction || (session.phase !== 'prompt' && session.phase !== 'done')) return;
    const doc = await vscode.workspace.openTextDocument(session.uri);
    const range = session.thread.range;
    session.asked.push(comment(you, markdownLiteral(instruction)));
    session.outcomes = [];
    session.turnId = undefined;
    this.setPhase(session, 'running');
    this.show(session, 'Starting…');
    try {
      if (this.store.state.conversation?.runningTurnId) throw new Error('a turn is running in the chat: wait for it, or stop it, first');
      session.threadId = await this.controller.ensureThread();
      const lines = new vscode.Range(range.start.line, 0, range.end.line + 1, 0);
      session.turnId = await this.controller.task(
        { type: 'edit', instruction, path: doc.uri.fsPath, range: lspRange(lines), text: doc.getText(lines) },
        [],
        this.overrides(),
      );
    } catch (err) {
      this.setPhase(session, 'done');
      this.show(session, `Error: ${errorText(err)}`);
      return;
    }
    this.follow();
  }

  /** Read-only, so that each change is proposed first; a stricter policy picked in the panel stays. */
  private overrides(): TurnOverrides {
    const picked = this.controller.overrides().approvalPolicy;
    return { sandboxPolicy: { type: 'readOnly' }, approvalPolicy: picked === 'untrusted' ? 'untrusted' : 'on-request' };
  }

  /** Whether a server request belongs to a running inline turn: then it is answered in place. */
  private claim(key: string, request: InlineRequest): boolean {
    if (request.method !== FILE_CHANGE_APPROVAL && request.method !== COMMAND_APPROVAL) return false;
    const { threadId, turnId } = request.params;
    const session = [...this.sessions].find(
      (s) => s.phase === 'running' && s.threadId === threadId && (s.turnId === undefined || s.turnId === turnId),
    );
    if (!session) return false;
    const pending = this.store.state.requests.find((r) => r.key === key);
    session.request = {
      key,
      method: request.method,
      changes: pending ? requestChanges(this.store.state, pending) : [],
      // The command as the agent wrote it (the item's), rather than wrapped in its shell.
      command:
        request.method === COMMAND_APPROVAL
          ? (findItem(this.store.state, pending?.itemId, 'commandExecution')?.command ?? request.params.command ?? undefined)
          : undefined,
    };
    this.setPhase(session, request.method === FILE_CHANGE_APPROVAL ? 'proposal' : 'approval');
    void this.present(session, pending);
    return true;
  }

  private async present(session: Session, pending: PendingRequest | undefined): Promise<void> {
    const request = session.request;
    if (!request) return;
    if (request.method === COMMAND_APPROVAL) {
      const command = visible(request.command ?? '').replace(/`/g, "'");
      const reason = pending?.method === COMMAND_APPROVAL ? pending.params.reason : undefined;
      this.show(session, `Codex wants to run \`${command}\`${reason ? ` (${markdownLiteral(visible(reason))})` : ''}. Accept runs it, Reject refuses.`);
      return;
    }
    const shown = await this.view.show(session.uri, request.changes, this.store.state.conversation?.cwd, session.thread);
    if (session.request !== request) return;
    this.show(session, `Proposed change (Accept: Ctrl+Enter, Reject: Escape):\n\n${shown.markdown}`);
    // The keyboard's Accept and Reject work in the editor: focus it, at the change.
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === session.uri.toString());
    const at = new vscode.Position(shown.firstLine ?? session.thread.range.start.line, 0);
    await vscode.window.showTextDocument(session.uri, { viewColumn: editor?.viewColumn, preserveFocus: false, selection: new vscode.Range(at, at) });
    this.updateContext();
  }

  /** Ctrl+Enter and Escape answer a proposal only in the editor of its file. */
  private updateContext(): void {
    const uri = vscode.window.activeTextEditor?.document.uri.toString();
    const waiting = [...this.sessions].some((s) => s.request && s.uri.toString() === uri);
    void vscode.commands.executeCommand('setContext', PROPOSAL_CONTEXT, waiting);
  }

  /** Accept or Reject the proposal (or the command) of the session `arg` names, else the active one. */
  private async decide(arg: unknown, accept: boolean): Promise<boolean> {
    const session = this.find(arg);
    const request = session?.request;
    if (!session || !request) throw new Error('no proposal is waiting');
    const files = request.changes.map((c) => markdownLiteral(visible(path.basename(c.path)))).join(', ') || 'the file';
    const what = request.method === COMMAND_APPROVAL ? 'the command' : files;
    session.outcomes.push(accept ? `Accepted ${what}.` : `Rejected: ${what} ${request.method === COMMAND_APPROVAL ? 'did not run' : 'left as it was'}.`);
    this.requests.decide(request.key, accept ? 'accept' : 'decline');
    this.follow();
    return true;
  }

  private async stop(arg: unknown): Promise<void> {
    const session = this.find(arg);
    if (!session || session.phase === 'done' || session.phase === 'prompt') return;
    const conv = this.store.state.conversation;
    if (conv && conv.threadId === session.threadId && conv.runningTurnId === session.turnId) await this.controller.interrupt();
  }

  private async close(arg: unknown): Promise<void> {
    const session = this.find(arg);
    if (!session) {
      // A prompt opened but never sent.
      if (arg && typeof arg === 'object' && 'dispose' in arg) (arg as vscode.CommentThread).dispose();
      return;
    }
    if (session.request) this.requests.decide(session.request.key, 'decline');
    await this.stop(session.thread);
    this.end(session);
  }

  private async diff(arg: unknown): Promise<void> {
    const session = this.find(arg);
    const [change] = session?.request?.changes ?? [];
    if (change) await this.diffs.open(change, this.store.state.conversation?.cwd);
  }

  /** Bring every session up to date with its turn: status, request answered, turn ended. */
  private follow(): void {
    const state = this.store.state;
    const conv = state.conversation;
    for (const session of this.sessions) {
      // A session whose thread is still being opened has nothing to follow yet.
      if (session.phase === 'prompt' || session.phase === 'done' || !session.threadId) continue;
      if (session.request && !state.requests.some((r) => r.key === session.request?.key)) {
        session.request = undefined;
        this.view.clear(session.uri);
        this.setPhase(session, 'running');
      }
      if (session.request) continue;
      if (!conv || conv.threadId !== session.threadId) {
        this.setPhase(session, 'done');
        this.show(session, 'The chat moved to another thread; this edit goes on there.');
        continue;
      }
      const turn = conv.turns.find((t) => t.id === (session.turnId ?? conv.runningTurnId));
      if (turn) session.turnId = turn.id;
      const said = turnStatus(turn);
      if (!turn || turn.status === 'inProgress') {
        this.show(session, said);
        continue;
      }
      this.setPhase(session, 'done');
      this.show(session, said || (turn.status === 'interrupted' ? 'Stopped.' : 'Done.'));
    }
  }

  private setPhase(session: Session, phase: Phase): void {
    if (session.phase === phase) return;
    session.phase = phase;
    session.thread.contextValue = phase;
    session.thread.canReply = phase === 'prompt' || phase === 'done';
    session.thread.label = phase === 'running' ? 'Codex · working' : phase === 'proposal' ? 'Codex · proposal' : 'Codex';
    if (phase !== 'proposal') this.view.clear(session.uri);
    this.updateContext();
  }

  private show(session: Session, status: string): void {
    const text = [...session.outcomes, status].filter(Boolean).join('\n\n');
    if (session.shown === text) return;
    session.shown = text;
    session.thread.comments = [...session.asked, comment(codex, text)];
  }

  private end(session: Session): void {
    this.sessions.delete(session);
    this.view.clear(session.uri);
    session.thread.dispose();
    this.updateContext();
  }

  dispose(): void {
    for (const session of [...this.sessions]) this.end(session);
    for (const d of this.disposables) d.dispose();
  }
}
