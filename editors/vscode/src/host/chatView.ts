/**
 * The side-panel chat: a webview view whose page renders the state with the same reducer as
 * the host. The page gets a snapshot when it (re)loads and every action after that; it is
 * kept alive while hidden (`retainContextWhenHidden`), and a reload rebuilds it from the
 * host's state, which resumes the last thread from the server.
 */

import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from '../shared/messages';
import { findItem } from '../shared/state';
import type { ChatController } from './controller';
import type { DiffPreview } from './diffPreview';
import type { InlineRequests } from './inlineRequests';
import { errorText } from './server';
import type { ChatStore } from './store';

export const VIEW_ID = 'codexChat.chatView';

export function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  const bytes = new Uint8Array(32);
  globalThis.crypto.getRandomValues(bytes);
  for (const b of bytes) out += chars[b % chars.length];
  return out;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: ChatStore,
    private readonly controller: ChatController,
    private readonly requests: InlineRequests,
    private readonly diffs: DiffPreview,
    private readonly actions: { showLog(): void; restart(): Promise<void> },
  ) {
    this.disposables.push(
      store.onDidChange(({ action }) => {
        if (this.ready) this.post({ type: 'action', action });
      }),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const outDir = vscode.Uri.joinPath(this.extensionUri, 'out');
    const mediaDir = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [outDir, mediaDir] };
    view.webview.html = this.html(view.webview);
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m)),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.ready = false;
        }
      }),
    );
  }

  /** Bring the panel forward (for an approval, or after an editor command). */
  async reveal(focusInput = false): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    if (focusInput && this.ready) this.post({ type: 'focusInput' });
  }

  get isReady(): boolean {
    return this.ready;
  }

  private post(message: ToWebview): void {
    void this.view?.webview.postMessage(message);
  }

  private html(webview: vscode.Webview): string {
    const n = nonce();
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'out', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'chat.css'));
    const csp = [
      `default-src 'none'`,
      `style-src ${webview.cspSource}`,
      `script-src 'nonce-${n}'`,
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Codex</title>
</head>
<body>
<div id="app">
  <div id="toolbar" class="toolbar"></div>
  <div class="bar">
    <button type="button" data-action="toggleThreads" id="threads-toggle" aria-expanded="false">Threads</button>
    <button type="button" data-action="newThread" id="new-thread">New thread</button>
  </div>
  <div id="threads" class="threads-panel" hidden></div>
  <div id="notices"></div>
  <div id="log" class="log" role="log"></div>
  <div class="composer">
    <div id="usage" class="usage muted"></div>
    <textarea id="input" rows="3" placeholder="Ask Codex… (Enter to send, Shift+Enter for a new line)" aria-label="Message"></textarea>
    <div class="composer-actions">
      <button type="button" id="send" data-action="send">Send</button>
      <button type="button" id="stop" data-action="stop" class="secondary" disabled>Stop</button>
    </div>
  </div>
</div>
<script nonce="${n}" src="${script}"></script>
</body>
</html>`;
  }

  private async receive(message: FromWebview): Promise<void> {
    try {
      switch (message.type) {
        case 'ready':
          this.ready = true;
          this.post({ type: 'snapshot', state: this.store.state });
          return;
        case 'send':
          if (message.text.trim()) await this.controller.send(message.text);
          return;
        case 'stop':
          await this.controller.interrupt();
          return;
        case 'newThread':
          await this.controller.newThread();
          return;
        case 'resume':
          await this.controller.resume(message.threadId);
          return;
        case 'archive':
          await this.controller.archive(message.threadId);
          return;
        case 'refreshThreads':
          await this.controller.refreshThreads();
          return;
        case 'decide':
          this.requests.decide(message.key, message.decision);
          return;
        case 'answer':
          this.requests.answer(message.key, message.answers);
          return;
        case 'openDiff':
          await this.openDiff(message);
          return;
        case 'select':
          this.controller.select(message);
          return;
        case 'dismiss':
          this.store.dispatch({ type: 'dismissNotice', id: message.id });
          return;
        case 'showLog':
          this.actions.showLog();
          return;
        case 'restart':
          await this.actions.restart();
          return;
      }
    } catch (err) {
      this.controller.notice(errorText(err));
    }
  }

  private async openDiff(message: Extract<FromWebview, { type: 'openDiff' }>): Promise<void> {
    const state = this.store.state;
    const request = message.key ? state.requests.find((r) => r.key === message.key) : undefined;
    const itemId = message.itemId ?? request?.itemId;
    const changes =
      (request?.params as import('../shared/protocol').FileChangeApprovalParams | undefined)?.codexLsp
        ?.changes ??
      findItem(state, itemId)?.changes ??
      [];
    const change = changes[message.index];
    if (!change) throw new Error('That change is no longer available.');
    const cwd = state.threads.find((t) => t.id === state.conversation?.threadId)?.cwd;
    await this.diffs.open(change, cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
