/** The status bar item: server state, a running turn, token use and rate-limit use. */

import * as vscode from 'vscode';
import { formatCount, formatRateLimits, formatTokenUsage, highestRateLimit } from '../shared/format';
import type { ChatState } from '../shared/state';
import type { ChatStore } from './store';

export function statusText(state: ChatState): { text: string; tooltip: string; error: boolean } {
  const running = !!state.conversation?.runningTurnId;
  const icon =
    state.server.state === 'error' || state.server.state === 'stopped'
      ? '$(error)'
      : state.server.state === 'starting'
        ? '$(sync~spin)'
        : running
          ? '$(loading~spin)'
          : '$(comment-discussion)';
  const usage = state.conversation?.tokenUsage ?? state.tokenUsage;
  const parts = [`${icon} Codex`];
  if (usage?.total) parts.push(`${formatCount(usage.total.totalTokens)} tok`);
  const limit = highestRateLimit(state.rateLimits);
  if (limit !== undefined) parts.push(`${Math.round(limit)}%`);
  const lines = [
    `Codex server: ${state.server.state}${state.server.message ? ` — ${state.server.message}` : ''}`,
    running ? 'A turn is running.' : '',
    usage ? `Usage: ${formatTokenUsage(usage)}` : '',
    state.rateLimits ? `Rate limits: ${formatRateLimits(state.rateLimits)}` : '',
  ];
  return { text: parts.join(' '), tooltip: lines.filter(Boolean).join('\n'), error: state.server.state === 'error' };
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('codexChat.status', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;
  private running = false;

  constructor(store: ChatStore) {
    this.item.name = 'Codex';
    this.update(store.state);
    this.item.show();
    this.subscription = store.onDidChange(({ state }) => this.update(state));
  }

  private update(state: ChatState): void {
    const { text, tooltip, error } = statusText(state);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.command = error ? 'codexChat.showLog' : 'codexChat.chatView.focus';
    const running = !!state.conversation?.runningTurnId;
    if (running !== this.running) {
      this.running = running;
      void vscode.commands.executeCommand('setContext', 'codexChat.turnRunning', running);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
