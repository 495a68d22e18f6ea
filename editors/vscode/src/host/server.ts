/**
 * Starts `codex-lsp serve` and owns the language client. Everything the chat needs from the
 * server goes through `request`; `codex/*` notifications go into the store as they come.
 * Diagnostics, code actions, `workspace/applyEdit` and the server's own commands are left to
 * vscode-languageclient's built-in features.
 */

import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  type StaticFeature,
} from 'vscode-languageclient/node';
import {
  describeCommand,
  LAUNCHER_PROBE,
  parseLauncher,
  type ServerCommand,
  serverCommand,
  warmServerCommand,
} from '../shared/serverCommand';
import { FOLLOWED_NOTIFICATIONS, INLINE_REQUESTS, type InlineRequestMethod } from '../shared/protocol';
import type { ChatStore } from './store';

export const CLIENT_ID = 'codexChat';
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export type InlineRequestHandler = (
  method: InlineRequestMethod,
  params: Record<string, unknown>,
  token: vscode.CancellationToken,
) => Promise<unknown>;

/** Tells the server, in `initialize`, that this client renders approvals itself. */
class RichApprovalsFeature implements StaticFeature {
  fillClientCapabilities(capabilities: { experimental?: any }): void {
    capabilities.experimental = { ...(capabilities.experimental ?? {}), codex: { richApprovals: true } };
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

export class ServerConnection implements vscode.Disposable {
  client: LanguageClient | undefined;
  private restarts: number[] = [];
  private startedOnce = false;
  private readonly ready = new vscode.EventEmitter<void>();
  /** Fires each time the server has (re)started and answered `initialize`. */
  readonly onReady = this.ready.event;
  inlineRequestHandler: InlineRequestHandler | undefined;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly store: ChatStore,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /**
   * Start the server: by default from the warm per-user server (the launcher the start-up
   * check found), and cold (`python -m codex_lsp serve`) when that fails or `cold` is set.
   */
  async start(cold = false): Promise<boolean> {
    await this.stop();
    this.startedOnce = false;
    const config = vscode.workspace.getConfiguration(CLIENT_ID);
    const settings = {
      pythonPath: config.get<string>('pythonPath'),
      serverCommand: config.get<string[]>('serverCommand'),
      serverArgs: config.get<string[]>('serverArgs'),
      serverEnv: config.get<Record<string, string>>('serverEnv'),
    };
    let cmd = serverCommand(settings);
    const check = await preflight(cmd, { ...process.env, ...cmd.env }, !settings.serverCommand?.length);
    const warm = !cold && check.launcher !== undefined;
    if (warm && check.launcher) cmd = warmServerCommand(settings, check.launcher);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const described = describeCommand(cmd);
    this.output.info(`Starting the Codex server: ${described}${folder ? ` (in ${folder})` : ''}`);
    this.store.dispatch({ type: 'server', state: 'starting' });

    // No `transport`: with TransportKind.stdio the client would append `--stdio`.
    const serverOptions: ServerOptions = {
      command: cmd.command,
      args: cmd.args,
      options: { cwd: folder, env: { ...process.env, ...cmd.env } },
    };
    const clientOptions: LanguageClientOptions = {
      // Every file: the server reads unsaved buffers and edits them with versioned edits.
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => this.onClosed(),
      },
    };
    if (check.problem) {
      this.failed(`The Codex server cannot start (${described}): ${check.problem}`);
      return false;
    }
    const client = new LanguageClient(CLIENT_ID, 'Codex', serverOptions, clientOptions);
    client.registerFeature(new RichApprovalsFeature());
    for (const method of FOLLOWED_NOTIFICATIONS) {
      client.onNotification(`codex/${method}`, (params: unknown) =>
        this.store.dispatch({ type: 'notify', method, params }),
      );
    }
    for (const method of INLINE_REQUESTS) {
      client.onRequest(`codex/${method}`, (params: Record<string, unknown>, token: vscode.CancellationToken) => {
        if (!this.inlineRequestHandler) throw new Error('the chat is not ready for approvals');
        return this.inlineRequestHandler(method, params, token);
      });
    }
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.startedOnce = true;
        this.store.dispatch({ type: 'server', state: 'ready' });
        this.ready.fire();
      } else if (e.newState === State.Stopped && this.client === client) {
        if (this.store.state.server.state !== 'error') this.store.dispatch({ type: 'server', state: 'stopped' });
      }
    });
    this.client = client;
    try {
      await client.start();
      return true;
    } catch (err) {
      if (warm) {
        this.output.warn(`The warm start failed (${errorText(err)}); starting the server cold.`);
        return this.start(true);
      }
      this.failed(`The Codex server did not start (${described}): ${errorText(err)}`);
      return false;
    }
  }

  private onClosed() {
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
    if (this.startedOnce && this.restarts.length < MAX_RESTARTS) {
      this.restarts.push(now);
      this.output.warn('The Codex server stopped; restarting it.');
      this.store.dispatch({ type: 'server', state: 'starting' });
      return { action: CloseAction.Restart, handled: true };
    }
    const why = this.startedOnce
      ? `The Codex server stopped ${MAX_RESTARTS + 1} times in 3 minutes and will not be restarted.`
      : 'The Codex server exited while starting.';
    // `start()` reports a failed first start itself; only report a later one here.
    if (this.startedOnce) this.failed(why);
    return { action: CloseAction.DoNotRestart, handled: true };
  }

  /** Show the failure in the panel and as an error with a way to the log. */
  private failed(message: string): void {
    this.output.error(message);
    this.store.dispatch({ type: 'server', state: 'error', message });
    void vscode.window.showErrorMessage(message, 'Show log', 'Open settings').then((choice) => {
      if (choice === 'Show log') this.output.show(true);
      if (choice === 'Open settings') void vscode.commands.executeCommand('workbench.action.openSettings', CLIENT_ID);
    });
  }

  /** A v2 method over LSP (`codex/<method>`), or a plain LSP method when `raw`. */
  async request<R = any>(method: string, params: unknown, raw = false): Promise<R> {
    const client = this.client;
    if (!client || !this.running) {
      throw new Error('The Codex server is not running. Use "Codex: Restart server" or see "Codex: Show server log".');
    }
    return client.sendRequest<R>(raw ? method : `codex/${method}`, params);
  }

  /** The server's command (`workspace/executeCommand`). */
  async executeCommand<R = any>(command: string, args: unknown): Promise<R> {
    return this.request<R>('workspace/executeCommand', { command, arguments: [args] }, true);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.output.warn(`Stopping the Codex server: ${errorText(err)}`);
      }
    }
  }

  dispose(): void {
    void this.stop();
    this.ready.dispose();
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** Where `command` resolves on `PATH`, or undefined. */
function resolveExecutable(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const candidates = command.includes('/')
    ? [command]
    : (env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there, try the next one
    }
  }
  return undefined;
}

/** What the start-up check found: a reason the server cannot start, or the warm launcher. */
export interface Preflight {
  problem?: string;
  launcher?: string[];
}

/**
 * Catch the usual start-up mistakes before the language client reports them less clearly:
 * a command that does not exist, or a Python without codex-lsp installed. The same run of that
 * Python finds the warm launcher.
 */
export async function preflight(cmd: ServerCommand, env: NodeJS.ProcessEnv, isPython: boolean): Promise<Preflight> {
  const executable = resolveExecutable(cmd.command, env);
  if (!executable) {
    return {
      problem: isPython
        ? `no Python interpreter "${cmd.command}" was found. Set "codexChat.pythonPath" to a Python that has codex-lsp installed.`
        : `the command "${cmd.command}" was not found. Check "codexChat.serverCommand".`,
    };
  }
  if (!isPython) return {};
  return new Promise((resolve) => {
    execFile(executable, ['-c', LAUNCHER_PROBE], { env, timeout: 30000 }, (error, stdout, stderr) => {
      if (!error) return resolve({ launcher: parseLauncher(String(stdout)) });
      const last = String(stderr).trim().split('\n').pop() || error.message;
      resolve({
        problem: `${cmd.command} cannot import codex_lsp (${last}). Install codex-lsp into that Python or set "codexChat.pythonPath" to one that has it.`,
      });
    });
  });
}
