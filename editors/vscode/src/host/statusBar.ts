/** The status bar item: what Codex is doing (truthfully), token use and rate-limit use. */

import * as vscode from 'vscode';
import type { ChatState } from '../shared/state';
import { firstApproval } from '../shared/renderRequests';
import { statusText } from '../shared/status';
import type { ChatStore } from './store';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('codexChat.status', vscode.StatusBarAlignment.Right, 100);
  private readonly subscription: vscode.Disposable;
  private running = false;
  private asking = false;

  constructor(store: ChatStore) {
    this.item.name = 'Codex';
    this.update(store.state);
    this.item.show();
    this.subscription = store.onDidChange(({ state }) => this.update(state));
  }

  private shown = '';

  private update(state: ChatState): void {
    const { text, tooltip, error, attention } = statusText(state);
    const running = !!state.conversation?.runningTurnId;
    if (running !== this.running) {
      this.running = running;
      void vscode.commands.executeCommand('setContext', 'codexChat.turnRunning', running);
    }
    const asking = !!firstApproval(state);
    if (asking !== this.asking) {
      this.asking = asking;
      void vscode.commands.executeCommand('setContext', 'codexChat.approvalShown', asking);
    }
    // A stream changes the state hundreds of times a second; each change of the item is a
    // message to the window, so it is sent only when what it shows changes.
    const shown = JSON.stringify([text, tooltip, error, attention]);
    if (shown === this.shown) return;
    this.shown = shown;
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = error
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : attention
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    this.item.command = error ? 'codexChat.showLog' : 'codexChat.focus';
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
