/**
 * The side-panel chat: a webview view whose page renders the state with the same reducer as
 * the host. The page gets a snapshot when it (re)loads and every action after that; it is
 * kept alive while hidden (`retainContextWhenHidden`), and a reload rebuilds it from the
 * host's state, which resumes the last thread from the server.
 */

import * as vscode from 'vscode';
import type { FromWebview, ToWebview } from '../shared/messages';
import { Pacer } from '../shared/pacing';
import { ALWAYS_ALLOW, USER_INPUT } from '../shared/protocol';
import { amendmentDecision, firstApproval, requestChanges } from '../shared/renderRequests';
import { type Action, findItem } from '../shared/state';
import type { TurnChanges } from './changes';
import type { ContextPicker } from './contextPicker';
import type { ChatController } from './controller';
import type { DiffPreview } from './diffPreview';
import type { ImageAttachments } from './imageAttachments';
import type { InlineRequests } from './inlineRequests';
import { errorText, openSettings } from './server';
import type { ChatStore } from './store';

export interface ChatViewParts {
  store: ChatStore;
  controller: ChatController;
  requests: InlineRequests;
  diffs: DiffPreview;
  changes: TurnChanges;
  picker: ContextPicker;
  images: ImageAttachments;
  showLog(): void;
  restart(): Promise<void>;
  installServer(): Promise<void>;
}

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
  /** A stream brings hundreds of actions a second: the page gets them a batch a frame. */
  private readonly actions = new Pacer<Action>((actions) => {
    if (!this.ready || !this.view) return false;
    void this.view.webview.postMessage({ type: 'actions', actions } satisfies ToWebview);
    return true;
  });
  private readonly disposables: vscode.Disposable[] = [];

  private readonly store: ChatStore;
  private readonly controller: ChatController;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly parts: ChatViewParts,
  ) {
    this.store = parts.store;
    this.controller = parts.controller;
    this.disposables.push(
      this.store.onDidChange(({ action }) => {
        if (this.ready) this.queue(action);
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
    // A page not loaded yet (the first reveal) takes the focus once it says it is ready.
    this.focusWhenReady = focusInput && !this.ready;
    if (focusInput || !this.view) await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
    else this.view.show(true);
    if (focusInput && this.ready) this.post({ type: 'focusInput' });
  }

  private focusWhenReady = false;

  /**
   * Answer the oldest approval the panel shows (the approval keys). With the panel out of
   * sight the key brings it forward instead: a key answers only an approval the user can see.
   */
  decideShown(decision: 'accept' | 'decline'): boolean {
    const shown = firstApproval(this.store.state);
    if (!shown) return false;
    if (!this.view?.visible) {
      void this.reveal().then(() => this.revealRequests());
      return false;
    }
    this.parts.requests.decide(shown.key, decision);
    return true;
  }

  get isReady(): boolean {
    return this.ready;
  }

  private queue(action: Action): void {
    this.actions.push(action);
  }

  private post(message: ToWebview): void {
    // Whatever was queued comes first, so the page sees everything in the order it happened.
    this.actions.flush();
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
  <div id="account"></div>
  <div class="bar">
    <button type="button" class="secondary" data-action="toggleThreads" id="threads-toggle" aria-expanded="false">Threads</button>
    <button type="button" class="secondary" data-action="newThread" id="new-thread">New thread</button>
  </div>
  <div id="threads-panel" class="threads-panel" hidden>
    <input id="thread-search" type="search" placeholder="Search threads" aria-label="Search threads">
    <div id="threads"></div>
  </div>
  <div id="notices"></div>
  <div id="log" class="log" role="log"></div>
  <div class="composer">
    <div id="usage" class="usage muted"></div>
    <div id="chips" class="chips"></div>
    <div class="input-wrap">
      <div id="picker" class="picker" role="listbox" hidden></div>
      <textarea id="input" rows="3" placeholder="Ask Codex… (# to attach context, Enter to send, Shift+Enter for a new line)" aria-label="Message"></textarea>
    </div>
    <div class="composer-actions">
      <button type="button" id="attach" class="secondary" data-action="openPicker" title="Attach context (#)">#&nbsp;Context</button>
      <button type="button" id="attach-image" class="secondary" data-action="attachImage" title="Attach images (PNG, JPEG, GIF, WebP), or paste one into the message">+&nbsp;Image</button>
      <span class="spacer"></span>
      <button type="button" id="stop" data-action="stop" class="stop" hidden title="Stop (Codex: Stop)">■ Stop</button>
      <button type="button" id="send" data-action="send">Send</button>
    </div>
  </div>
</div>
<script nonce="${n}" src="${script}"></script>
</body>
</html>`;
  }

  private async receive(message: FromWebview): Promise<void> {
    const parts = this.parts;
    try {
      switch (message.type) {
        case 'ready':
          this.ready = true;
          // The snapshot holds every action still queued.
          this.actions.reset();
          this.post({ type: 'snapshot', state: this.store.state });
          this.post({ type: 'imagePreviews', previews: parts.images.all() });
          if (this.focusWhenReady) this.post({ type: 'focusInput' });
          this.focusWhenReady = false;
          return;
        case 'drawn':
          this.actions.drawn();
          return;
        case 'send':
          return await this.send(message.text);
        case 'stop':
          await this.controller.interrupt();
          return;
        case 'retry':
          await this.controller.retry(message.turnId);
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
        case 'delete':
          // The panel asked the user to confirm already.
          await this.controller.delete(message.threadId);
          return;
        case 'rename':
          if (message.name.trim()) await this.controller.rename(message.threadId, message.name.trim());
          return;
        case 'searchThreads':
          await this.controller.refreshThreads(message.query);
          return;
        case 'refreshThreads':
          await this.controller.refreshThreads();
          return;
        case 'decide': {
          if (message.decision !== ALWAYS_ALLOW) return parts.requests.decide(message.key, message.decision);
          // The rule goes back as the server proposed it, never as the page described it.
          const request = this.store.state.requests.find((r) => r.key === message.key);
          const amendment = request && request.method !== USER_INPUT ? amendmentDecision(request) : undefined;
          if (amendment) parts.requests.decide(message.key, amendment);
          return;
        }
        case 'revokeApproval':
          await this.controller.revokeSessionApproval(message.threadId, message.id);
          return;
        case 'answer':
          parts.requests.answer(message.key, message.answers);
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
          parts.showLog();
          return;
        case 'openSettings':
          await openSettings();
          return;
        case 'restart':
          await parts.restart();
          return;
        case 'installServer':
          await parts.installServer();
          return;
        case 'login':
          await this.controller.login(message.apiKey);
          return;
        case 'logout':
          await this.controller.logout();
          return;
        case 'contextQuery':
          this.post({ type: 'contextOptions', query: message.query, options: await parts.picker.options(message.query) });
          return;
        case 'attach':
          parts.picker.attach(message.option);
          return;
        case 'detach':
          this.store.dispatch({ type: 'detach', id: message.id });
          return;
        case 'wantPreviews': {
          const paths = Array.isArray(message.paths) ? message.paths.slice(0, 200) : [];
          const previews = await parts.images.previewsFor(paths);
          if (previews.length) this.post({ type: 'imagePreviews', previews });
          return;
        }
        case 'attachImage':
          this.post({ type: 'imagePreviews', previews: await parts.images.pick() });
          return;
        case 'pasteImage':
          this.post({ type: 'imagePreviews', previews: [await parts.images.paste(message.dataUrl)] });
          return;
        case 'copyCode':
          await vscode.env.clipboard.writeText(message.code);
          void vscode.window.setStatusBarMessage('Codex: copied the code block', 3000);
          return;
        case 'insertCode':
          return await this.insertCode(message.code);
        case 'applyCode':
          return await this.applyCode(message.code, message.language);
        case 'openFile':
          return await this.openFile(message.path, message.line);
        case 'openLink':
          await vscode.env.openExternal(vscode.Uri.parse(message.href));
          return;
        case 'changeDiff':
          await parts.changes.diff(message.turnId, message.path);
          return;
        case 'keepChange':
          await parts.changes.keep(message.turnId, message.path);
          return;
        case 'undoChange':
          await parts.changes.undo(message.turnId, message.path);
          return;
      }
    } catch (err) {
      this.controller.notice(errorText(err));
    }
  }

  private async send(text: string): Promise<void> {
    if (!text.trim()) return;
    // While a turn runs, the message steers it; attached context waits for the next turn.
    if (this.store.state.conversation?.runningTurnId) return this.controller.steer(text);
    const attachments = this.store.state.attachments;
    const context = await this.parts.picker.resolve(attachments);
    this.store.dispatch({ type: 'clearAttachments' });
    await this.controller.send(text, context);
  }

  private targetEditor(): vscode.TextEditor {
    const editor = this.parts.picker.editor;
    if (!editor) throw new Error('Open the file to use first: no editor is active.');
    return editor;
  }

  private async insertCode(code: string): Promise<void> {
    const editor = this.targetEditor();
    await vscode.window.showTextDocument(editor.document, editor.viewColumn);
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, code);
    });
  }

  private async applyCode(code: string, language: string): Promise<void> {
    const editor = this.targetEditor();
    if (editor.document.uri.scheme !== 'file') throw new Error('Save the file first: Codex applies code to files on disk.');
    await this.controller.task({ type: 'applyCode', path: editor.document.uri.fsPath, code, language: language || undefined });
  }

  private async openFile(filePath: string, line?: number): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(filePath));
    const at = line && line > 0 ? new vscode.Position(Math.min(line - 1, doc.lineCount - 1), 0) : undefined;
    await vscode.window.showTextDocument(doc, { selection: at ? new vscode.Range(at, at) : undefined, preview: true });
  }

  private async openDiff(message: Extract<FromWebview, { type: 'openDiff' }>): Promise<void> {
    const state = this.store.state;
    const request = message.key ? state.requests.find((r) => r.key === message.key) : undefined;
    const itemId = message.itemId ?? request?.itemId;
    const changes = request ? requestChanges(state, request) : (findItem(state, itemId, 'fileChange')?.changes ?? []);
    const change = changes[message.index];
    if (!change) throw new Error('That change is no longer available.');
    const cwd = state.threads.find((t) => t.id === state.conversation?.threadId)?.cwd;
    await this.parts.diffs.open(change, cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  }

  /** Scroll the pending approval into view (after the panel was brought forward for it). */
  revealRequests(): void {
    if (this.ready) this.post({ type: 'revealRequests' });
  }

  dispose(): void {
    this.actions.reset();
    for (const d of this.disposables) d.dispose();
  }
}
