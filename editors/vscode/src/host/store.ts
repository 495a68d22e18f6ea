/** The extension host's copy of the chat state; every change is also sent to the webview. */

import * as vscode from 'vscode';
import { type Action, type ChatState, initialState, reduce } from '../shared/state';

export class ChatStore implements vscode.Disposable {
  private current: ChatState = initialState();
  private readonly changed = new vscode.EventEmitter<{ action: Action; state: ChatState }>();
  readonly onDidChange = this.changed.event;

  get state(): ChatState {
    return this.current;
  }

  dispatch(action: Action): void {
    const next = reduce(this.current, action);
    if (next === this.current) return;
    this.current = next;
    this.changed.fire({ action, state: next });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
