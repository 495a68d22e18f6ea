/**
 * Approvals and questions from the server, answered in the chat. Each server request waits on
 * a promise that the panel's buttons (or the notification's) settle; one that the server
 * cancels (the turn was interrupted) or whose turn ends is taken off the panel and settled as
 * declined.
 *
 * An approval must not go unnoticed: the chat is brought forward with the request in view
 * (`surface`), and a notification says what is asked and can answer it too. Approve sits in the
 * notification only beside the whole command (`commandNotice`); a longer one is approved from a
 * modal dialog that shows it whole ("Review…"). Every untrusted name goes through `visible`.
 * VS Code cannot take a notification back: a button clicked after the request was answered
 * elsewhere says how it was answered and does nothing.
 */

import * as vscode from 'vscode';
import {
  type ApprovalRequest,
  COMMAND_APPROVAL,
  type CommandDecision,
  type Decision,
  FILE_CHANGE_APPROVAL,
  type InlineRequest,
  type InlineRequestMethod,
  type InlineRequestResult,
  USER_INPUT,
  type UserInputAnswers,
} from '../shared/protocol';
import { commandNotice } from '../shared/approvalNotice';
import { requestChanges } from '../shared/renderRequests';
import { shortPath } from '../shared/renderFiles';
import { visible } from '../shared/visible';
import type { ChatStore } from './store';

interface Waiting {
  method: InlineRequestMethod;
  settle: (result: InlineRequestResult) => void;
}

const APPROVE = 'Approve';
const DENY = 'Deny';
const SHOW = 'Show in chat';
const REVIEW = 'Review…';

function outcome(result: InlineRequestResult | undefined): string {
  if (!result) return 'its turn ended first';
  if (!('decision' in result)) return 'answered in the chat';
  const said: Record<string, string> = {
    accept: 'approved',
    acceptForSession: 'approved for this session',
    decline: 'denied',
    cancel: 'denied, and the turn stopped',
  };
  return said[String(result.decision)] ?? String(result.decision);
}

export class InlineRequests implements vscode.Disposable {
  private readonly waiting = new Map<string, Waiting>();
  /** How each settled request ended, for a notification button clicked afterwards. */
  private readonly outcomes = new Map<string, string>();
  private counter = 0;
  private readonly subscription: vscode.Disposable;
  /**
   * Whether another view (the editor's inline edit) answers this request where the user is: the
   * panel still lists it, but is not brought forward and no notification is shown.
   */
  claim?: (key: string, request: InlineRequest) => boolean;

  constructor(
    private readonly store: ChatStore,
    private readonly surface: (threadId: string) => Promise<void>,
  ) {
    // A request that left the state some other way (its turn completed) is settled too.
    this.subscription = store.onDidChange(({ action, state }) => {
      // A server that stopped took its requests with it.
      const gone = action.type === 'server' && action.state !== 'ready';
      for (const key of [...this.waiting.keys()]) {
        if (gone || !state.requests.some((r) => r.key === key)) this.settle(key, undefined);
      }
    });
  }

  handle(request: InlineRequest, token: vscode.CancellationToken): Promise<InlineRequestResult> {
    const key = `req-${++this.counter}`;
    return new Promise((resolve) => {
      this.waiting.set(key, { method: request.method, settle: resolve });
      token.onCancellationRequested(() => this.settle(key, undefined));
      this.store.dispatch({ type: 'request', key, ...request });
      if (this.claim?.(key, request)) return;
      void this.surface(request.params.threadId ?? '').then(() => this.notify(key, request));
    });
  }

  decide(key: string, decision: Decision | CommandDecision): void {
    this.settle(key, { decision });
  }

  answer(key: string, answers: UserInputAnswers): void {
    this.settle(key, { answers });
  }

  /** A notification that says what is asked; its buttons answer while the request waits. */
  private async notify(key: string, request: InlineRequest): Promise<void> {
    if (!this.waiting.has(key)) return;
    if (request.method === USER_INPUT) {
      const choice = await vscode.window.showInformationMessage('Codex has a question for you.', SHOW);
      if (choice === SHOW) await this.surface(request.params.threadId);
      return;
    }
    if (request.method === COMMAND_APPROVAL) {
      const notice = commandNotice(request.params);
      const buttons = notice.whole ? [APPROVE, DENY, SHOW] : [REVIEW, SHOW];
      let choice = await vscode.window.showWarningMessage(notice.message, ...buttons);
      if (choice === REVIEW && this.waiting.has(key)) {
        choice = await vscode.window.showWarningMessage(notice.title, { modal: true, detail: notice.detail }, APPROVE, DENY);
      }
      this.answerNotice(key, request, choice);
      return;
    }
    const choice = await vscode.window.showWarningMessage(this.describe(key, request), APPROVE, DENY, SHOW);
    this.answerNotice(key, request, choice);
  }

  private answerNotice(key: string, request: ApprovalRequest, choice: string | undefined): void {
    if ((choice === APPROVE || choice === DENY) && !this.waiting.has(key)) {
      const how = this.outcomes.get(key) ?? 'it is no longer waiting';
      void vscode.window.showInformationMessage(`Codex: that approval was already answered (${how}); ${choice} did nothing.`);
      return;
    }
    if (choice === APPROVE) this.decide(key, 'accept');
    else if (choice === DENY) this.decide(key, 'decline');
    else if (choice === SHOW) void this.surface(request.params.threadId);
  }

  private describe(key: string, request: ApprovalRequest): string {
    if (request.method === FILE_CHANGE_APPROVAL) {
      const state = this.store.state;
      const pending = state.requests.find((r) => r.key === key);
      const cwd = state.conversation?.cwd;
      const files = pending ? requestChanges(state, pending).map((c) => visible(shortPath(c.path, cwd))) : [];
      return files.length ? `Codex wants to change ${files.join(', ')}` : 'Codex wants to change files';
    }
    return 'Codex is waiting for you';
  }

  private settle(key: string, result: InlineRequestResult | undefined): void {
    const entry = this.waiting.get(key);
    if (!entry) return;
    this.waiting.delete(key);
    this.outcomes.set(key, outcome(result));
    if (this.outcomes.size > 200) this.outcomes.delete(this.outcomes.keys().next().value ?? '');
    entry.settle(result ?? (entry.method === USER_INPUT ? { answers: {} } : { decision: 'decline' }));
    this.store.dispatch({ type: 'requestDone', key });
  }

  dispose(): void {
    for (const key of [...this.waiting.keys()]) this.settle(key, undefined);
    this.subscription.dispose();
  }
}
