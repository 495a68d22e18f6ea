/**
 * Approvals and questions from the server, answered in the chat. Each server request waits
 * on a promise that the panel's buttons settle; one that the server cancels (the turn was
 * interrupted) or whose turn ends is taken off the panel and settled as declined.
 */

import * as vscode from 'vscode';
import type { Decision, InlineRequestMethod, UserInputAnswers } from '../shared/protocol';
import { USER_INPUT } from '../shared/protocol';
import type { ChatStore } from './store';

interface Waiting {
  method: InlineRequestMethod;
  settle: (result: unknown) => void;
}

export class InlineRequests implements vscode.Disposable {
  private readonly waiting = new Map<string, Waiting>();
  private counter = 0;
  private readonly subscription: vscode.Disposable;

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

  handle(method: InlineRequestMethod, params: Record<string, unknown>, token: vscode.CancellationToken): Promise<unknown> {
    const key = `req-${++this.counter}`;
    return new Promise((resolve) => {
      this.waiting.set(key, { method, settle: resolve });
      token.onCancellationRequested(() => this.settle(key, undefined));
      this.store.dispatch({ type: 'request', key, method, params });
      void this.surface(String(params.threadId ?? ''));
    });
  }

  decide(key: string, decision: Decision): void {
    this.settle(key, { decision });
  }

  answer(key: string, answers: UserInputAnswers): void {
    this.settle(key, { answers });
  }

  private settle(key: string, result: unknown): void {
    const entry = this.waiting.get(key);
    if (!entry) return;
    this.waiting.delete(key);
    entry.settle(result ?? (entry.method === USER_INPUT ? { answers: {} } : { decision: 'decline' }));
    this.store.dispatch({ type: 'requestDone', key });
  }

  dispose(): void {
    for (const key of [...this.waiting.keys()]) this.settle(key, undefined);
    this.subscription.dispose();
  }
}
