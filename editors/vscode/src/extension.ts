/**
 * Codex for VS Code: a thin shim over `codex-lsp serve`. It renders, prompts and forwards;
 * every agent decision and every prompt is the server's. Features are small objects wired here.
 */

import * as vscode from 'vscode';
import { TurnChanges } from './host/changes';
import { ChatViewProvider, VIEW_ID } from './host/chatView';
import { ContextPicker } from './host/contextPicker';
import { ImageAttachments } from './host/imageAttachments';
import { ChatController } from './host/controller';
import { DiffPreview } from './host/diffPreview';
import { registerEditorCommands } from './host/editorCommands';
import { InlineChat } from './host/inlineChat';
import { InlineRequests } from './host/inlineRequests';
import { CLIENT_ID, errorText, ServerConnection } from './host/server';
import { StatusBar } from './host/statusBar';
import { ChatStore } from './host/store';

/** What `activate` returns: for tests and for other extensions. */
export interface CodexApi {
  store: ChatStore;
  server: ServerConnection;
  controller: ChatController;
  chat: ChatViewProvider;
  images: ImageAttachments;
}

const SERVER_SETTINGS = ['pythonPath', 'serverCommand', 'serverArgs', 'serverEnv', 'hunkReview'];

let running: ServerConnection | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<CodexApi> {
  const output = vscode.window.createOutputChannel('Codex', { log: true });
  const store = new ChatStore();
  const server = new ServerConnection(output, store, { storage: context.globalStorageUri, extensionPath: context.extensionPath });
  running = server;
  const controller = new ChatController(server, store, context.workspaceState);
  const diffs = new DiffPreview();
  const picker = new ContextPicker(store);
  let chat: ChatViewProvider | undefined;
  const requests = new InlineRequests(store, async (threadId) => {
    try {
      await controller.show(threadId);
    } catch (err) {
      output.warn(`Could not show thread ${threadId}: ${errorText(err)}`);
    }
    await chat?.reveal();
    chat?.revealRequests();
  });
  server.inlineRequestHandler = (request, token) => requests.handle(request, token);
  const restart = async () => {
    await server.start();
  };
  const images = new ImageAttachments(store, context.globalStorageUri);
  void images.prune().then(
    (removed) => {
      if (removed) output.info(`Removed ${removed} pasted image(s) older than a week.`);
    },
    (err: unknown) => output.warn(`Could not remove old pasted images: ${errorText(err)}`),
  );
  chat = new ChatViewProvider(context.extensionUri, {
    store,
    controller,
    requests,
    diffs,
    changes: new TurnChanges(store, diffs),
    picker,
    images,
    showLog: () => output.show(true),
    restart,
    installServer: () => server.install(),
  });

  context.subscriptions.push(
    output,
    store,
    diffs,
    picker,
    requests,
    chat,
    new StatusBar(store),
    vscode.window.registerWebviewViewProvider(VIEW_ID, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    server.onReady(() => void controller.onServerReady()),
    server.accountChanged.event(() => void controller.loadAccount()),
    server.accountChanged,
    vscode.commands.registerCommand('codexChat.showLog', () => output.show(true)),
    vscode.commands.registerCommand('codexChat.restartServer', restart),
    vscode.commands.registerCommand('codexChat.installServer', () => server.install()),
    ...registerEditorCommands(controller, chat, picker),
    new InlineChat(store, controller, requests, diffs),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (SERVER_SETTINGS.some((k) => e.affectsConfiguration(`${CLIENT_ID}.${k}`))) {
        void vscode.window
          .showInformationMessage('Codex: the server settings changed.', 'Restart server')
          .then((choice) => choice && restart());
      }
    }),
    server,
  );

  void server.start();
  return { store, server, controller, chat, images };
}

export function deactivate(): Promise<void> | undefined {
  // Wait for the server to shut down so no process outlives the window.
  return running?.stop();
}
