/** The status bar item: what Codex is doing (truthfully), token use and rate-limit use. */

import * as vscode from 'vscode';
import type { ChatState } from '../shared/state';
import { statusText } from '../shared/status';
import type { ChatStore } from './store';

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
    const { text, tooltip, error, attention } = statusText(state);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = error
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : attention
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    this.item.command = error ? 'codexChat.showLog' : 'codexChat.focus';
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
