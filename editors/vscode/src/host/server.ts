/**
 * Starts `codex-lsp serve` and owns the language client. Everything the chat needs from the
 * server goes through `request`; `codex/*` notifications go into the store as they come.
 * Diagnostics, code actions, `workspace/applyEdit` and the server's own commands are left to
 * vscode-languageclient's built-in features.
 *
 * The extension spawns the process itself, so a server that exits while starting (a wrong
 * command, a crash at import) is reported with its own output and exit code.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CollaborationMode } from '../generated/CollaborationMode';
import { bundledWheel, hasInstalledServer, installedPython, installServer } from './serverInstall';
import {
  CancellationToken,
  CloseAction,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  ResponseError,
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
  type ServerSettings,
  warmServerCommand,
} from '../shared/serverCommand';
import { ignoredWarning, type UserOnlySetting, userValue } from '../shared/userSettings';
import { hunksStartTicked } from '../shared/hunkPreview';
import {
  FOLLOWED_NOTIFICATIONS,
  followedNotification,
  INLINE_REQUESTS,
  type InlineRequest,
  inlineRequest,
  type InlineRequestResult,
  type KnownRequest,
  type RequestParams,
  type RequestResults,
} from '../shared/protocol';
import * as editorContext from './editorContext';
import { EDITOR_REQUESTS } from './editorContext';
import type { ChatStore } from './store';

export const CLIENT_ID = 'codexChat';
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 3 * 60 * 1000;
/** How much of what a failed server printed is shown with the error. */
const OUTPUT_TAIL_CHARS = 2000;
/** How long a failed start waits for the process to report its exit code. */
const EXIT_WAIT_MS = 3000;

export type InlineRequestHandler = (request: InlineRequest, token: vscode.CancellationToken) => Promise<InlineRequestResult>;

interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What a server process printed (stderr, and stdout before it spoke LSP), and how it ended. */
class ProcessWatch {
  private text = '';
  readonly exited: Promise<ExitInfo>;
  exit: ExitInfo | undefined;
  private speaking = false;

  constructor(child: ChildProcess) {
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
      child.on('error', () => {
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => this.add(chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      // Once it speaks LSP, stdout is the protocol, not something to show.
      if (this.speaking) return;
      const text = chunk.toString();
      if (text.startsWith('Content-Length:')) this.speaking = true;
      else this.add(text);
    });
  }

  private add(text: string): void {
    this.text = (this.text + text).slice(-OUTPUT_TAIL_CHARS);
  }

  get output(): string {
    return this.text.trim();
  }
}

/**
 * Tells the server, in `initialize`, that this client renders approvals itself, answers
 * questions about the editor (`codex/editor/*`, which give the model its `editor_*` tools) and,
 * when the user chose it, confirms file changes hunk by hunk in the Refactor Preview (the
 * server then sends them as `workspace/applyEdit` with an annotation per hunk to confirm).
 */
class CodexCapabilitiesFeature implements StaticFeature {
  constructor(private readonly hunkReview: boolean) {}

  fillClientCapabilities(capabilities: { experimental?: object }): void {
    capabilities.experimental = {
      ...(capabilities.experimental ?? {}),
      codex: { richApprovals: true, editorContext: true, hunkReview: this.hunkReview },
    };
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

/**
 * The answer to a `workspace/applyEdit` goes out only after the document notifications the edit
 * caused: the server reads from them what landed (in the Refactor Preview the user may have
 * kept only some hunks), and an answer that overtook them would say nothing changed. The
 * documents the edit changed are saved first: the agent's next command reads the disk, and
 * no file is left dirty by the agent (Keep / Undo review what is already saved).
 */
/** Save the open documents a workspace edit changed (an unsaved edit of the user's in one too). */
async function saveEdited(edit: {
  changes?: { [uri: string]: unknown };
  documentChanges?: ({ textDocument: { uri: string } } | { kind: string; uri?: string; newUri?: string })[];
}): Promise<void> {
  const uris = new Set(Object.keys(edit.changes ?? {}).map((u) => vscode.Uri.parse(u).toString()));
  for (const change of edit.documentChanges ?? []) {
    const uri = 'textDocument' in change ? change.textDocument.uri : (change.newUri ?? change.uri);
    if (uri) uris.add(vscode.Uri.parse(uri).toString());
  }
  const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && uris.has(d.uri.toString()));
  await Promise.allSettled(dirty.map((d) => d.save()));
}

function syncedEditsMiddleware(): Middleware {
  const sending = new Set<Promise<void>>();
  const track = async (sent: Promise<void>): Promise<void> => {
    sending.add(sent);
    try {
      await sent;
    } finally {
      sending.delete(sent);
    }
  };
  return {
    didOpen: (document, next) => track(next(document)),
    didChange: (event, next) => track(next(event)),
    workspace: {
      handleApplyEdit: async (params, next) => {
        // The handler behind `next` never looks at the token; the middleware is not given one.
        const result = await next({ ...params, edit: hunksStartTicked(params.edit) }, CancellationToken.None);
        await Promise.allSettled([...sending]);
        if (!(result instanceof ResponseError) && result.applied) await saveEdited(params.edit);
        return result;
      },
    },
  };
}

export interface UndoTurnResult {
  turnId: string;
  restored: string[];
  skipped: { path: string; reason: string }[];
}

/** `thread/settings/update`'s params as the extension sends them (the collaboration mode only). */
export interface ThreadSettingsUpdate {
  threadId: string;
  collaborationMode: CollaborationMode;
}

export class ServerConnection implements vscode.Disposable {
  client: LanguageClient | undefined;
  private restarts: number[] = [];
  private startedOnce = false;
  private warnedIgnored = false;
  private readonly ready = new vscode.EventEmitter<void>();
  /** Fires when the server says the account changed (a sign-in or sign-out ended). */
  readonly accountChanged = new vscode.EventEmitter<void>();
  /** Fires each time the server has (re)started and answered `initialize`. */
  readonly onReady = this.ready.event;
  inlineRequestHandler: InlineRequestHandler | undefined;
  /** How the running server was started: from the warm per-user server, or cold. */
  startedWarm = false;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly store: ChatStore,
    /** Where the server the extension carries is, and where it is installed. */
    private readonly bundle?: { storage: vscode.Uri; extensionPath: string },
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
    const settings = this.userSettings(config);
    // Neither a Python nor a command chosen: the installed server, else python3 from PATH.
    const chosen = Boolean(settings.serverCommand?.length || settings.pythonPath?.trim());
    if (!chosen && this.bundle && hasInstalledServer(this.bundle.storage)) settings.pythonPath = installedPython(this.bundle.storage);
    let cmd = serverCommand(settings);
    const check = await preflight(cmd, { ...process.env, ...cmd.env }, !settings.serverCommand?.length);
    const warm = !cold && check.launcher !== undefined;
    if (warm && check.launcher) cmd = warmServerCommand(settings, check.launcher);
    this.startedWarm = warm;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const described = describeCommand(cmd);
    this.output.info(`Starting the Codex server: ${described}${folder ? ` (in ${folder})` : ''}`);
    this.store.dispatch({ type: 'server', state: 'starting' });

    const env = { ...process.env, ...cmd.env };
    let watch: ProcessWatch | undefined;
    // No `transport`: with TransportKind.stdio the client would append `--stdio`.
    const serverOptions: ServerOptions = async () => {
      const child = spawn(cmd.command, cmd.args, { cwd: folder, env, stdio: 'pipe' });
      watch = new ProcessWatch(child);
      return child;
    };
    const clientOptions: LanguageClientOptions = {
      // Every file: the server reads unsaved buffers and edits them with versioned edits.
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: syncedEditsMiddleware(),
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => this.onClosed(),
      },
    };
    if (check.problem) {
      const installable = !chosen && this.bundle !== undefined && bundledWheel(this.bundle.extensionPath) !== undefined;
      const message = `The Codex server cannot start (${described}): ${check.problem}`;
      this.failed(installable ? `${message} The extension carries the server: install it with one click.` : message, undefined, undefined, installable);
      return false;
    }
    const client = new LanguageClient(CLIENT_ID, 'Codex', serverOptions, clientOptions);
    client.registerFeature(new CodexCapabilitiesFeature(config.get<boolean>('hunkReview') ?? false));
    client.onRequest(EDITOR_REQUESTS.openBuffers, () => editorContext.openBuffers());
    client.onRequest(EDITOR_REQUESTS.readBuffer, (params: { uri?: unknown }) => editorContext.readBuffer(params));
    client.onRequest(EDITOR_REQUESTS.selection, () => editorContext.selection());
    client.onRequest(EDITOR_REQUESTS.diagnostics, (params: { uri?: unknown } | null) => editorContext.diagnostics(params));
    for (const method of FOLLOWED_NOTIFICATIONS) {
      client.onNotification(`codex/${method}`, (params: unknown) => {
        this.store.dispatch({ type: 'notify', ...followedNotification(method, params) });
        if (method.startsWith('account/')) this.accountChanged.fire();
      });
    }
    for (const method of INLINE_REQUESTS) {
      client.onRequest(`codex/${method}`, (params: unknown, token: vscode.CancellationToken) => {
        if (!this.inlineRequestHandler) throw new Error('the chat is not ready for approvals');
        return this.inlineRequestHandler(inlineRequest(method, params), token);
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
    let startError: unknown;
    try {
      await client.start();
    } catch (err) {
      startError = err;
    }
    // A failed start may reject, or end with the client stopped: either way, say why.
    if (client.state === State.Running) return true;
    if (warm) {
      // The warm server is an optimisation: say why it failed, then start the server cold.
      const why = startError ? errorText(startError) : (watch?.output || 'no answer to initialize');
      this.output.warn(`The warm start failed (${why}); starting the server cold.`);
      return this.start(true);
    }
    await this.failedStart(described, watch, startError);
    void this.stop();
    return false;
  }

  /** The server's program, arguments and environment, from the User settings only. */
  private userSettings(config: vscode.WorkspaceConfiguration): ServerSettings {
    const ignored: string[] = [];
    const read = <T>(name: UserOnlySetting): T | undefined => {
      const { value, ignoredWorkspaceValue } = userValue(config.inspect<T>(name));
      if (ignoredWorkspaceValue) ignored.push(name);
      return value;
    };
    const settings: ServerSettings = {
      pythonPath: read<string>('pythonPath'),
      serverCommand: read<string[]>('serverCommand'),
      serverArgs: read<string[]>('serverArgs'),
      serverEnv: read<Record<string, string>>('serverEnv'),
    };
    const warning = ignoredWarning(ignored);
    if (warning) {
      this.output.warn(warning);
      if (!this.warnedIgnored) void vscode.window.showWarningMessage(warning);
      this.warnedIgnored = true;
    }
    return settings;
  }

  private async failedStart(described: string, watch: ProcessWatch | undefined, err: unknown): Promise<void> {
    // The process usually ended already; give it a moment to say how.
    const exit = watch ? await Promise.race([watch.exited, delay(EXIT_WAIT_MS)]) : undefined;
    const output = watch?.output;
    if (exit) {
      const how = exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal ?? 'unknown'}`;
      this.failed(`The Codex server exited while starting (${described}), ${how}.`, output, exit.code);
    } else {
      this.failed(`The Codex server did not start (${described}): ${err ? errorText(err) : 'no answer to initialize'}`, output);
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

  /** Show the failure in the panel (with what the server printed) and as an error with ways out. */
  private failed(message: string, output?: string, exitCode?: number | null, installable = false): void {
    this.output.error(output ? `${message}\n${output}` : message);
    this.store.dispatch({ type: 'server', state: 'error', message, output, exitCode, installable });
    const ways = installable ? ['Install the Codex server', 'Show log', 'Open settings'] : ['Show log', 'Open settings', 'Restart'];
    void vscode.window.showErrorMessage(message, ...ways).then((choice) => {
      if (choice === 'Install the Codex server') void this.install();
      if (choice === 'Show log') this.output.show(true);
      if (choice === 'Open settings') void openSettings();
      if (choice === 'Restart') void this.start();
    });
  }

  /**
   * Install the server the extension carries (see serverInstall.ts) with the User settings'
   * Python or python3 from PATH, then start it.
   */
  async install(): Promise<void> {
    if (!this.bundle || this.store.state.server.state === 'installing') return;
    const settings = this.userSettings(vscode.workspace.getConfiguration(CLIENT_ID));
    const python = settings.pythonPath?.trim() || 'python3';
    const env = { ...process.env, ...(settings.serverEnv ?? {}) };
    this.store.dispatch({ type: 'server', state: 'installing' });
    try {
      await installServer(python, this.bundle.extensionPath, this.bundle.storage, env, this.output);
    } catch (err) {
      this.failed(`Could not install the Codex server: ${errorText(err)}`, undefined, undefined, true);
      return;
    }
    this.output.info('The Codex server is installed.');
    await this.start();
  }

  /** `codex/turn/undo` (this server's own, not v2): every file the last turn changed, put back. */
  async undoTurn(threadId?: string): Promise<UndoTurnResult> {
    const client = this.client;
    if (!client || !this.running) {
      throw new Error('The Codex server is not running. Use "Codex: Restart server" or see "Codex: Show server log".');
    }
    return client.sendRequest<UndoTurnResult>('codex/turn/undo', threadId ? { threadId } : {});
  }

  /**
   * `codex/thread/settings/update`: what a thread's next turns run with (here, its collaboration
   * mode, which `turn/startTask` and `review/start` do not take).
   */
  async updateThreadSettings(params: ThreadSettingsUpdate): Promise<void> {
    const client = this.client;
    if (!client || !this.running) {
      throw new Error('The Codex server is not running. Use "Codex: Restart server" or see "Codex: Show server log".');
    }
    await client.sendRequest('codex/thread/settings/update', params);
  }

  /** The v2 request `method` over LSP (`codex/<method>`), with the params and result v2 types for it. */
  async request<M extends KnownRequest>(method: M, params: RequestParams<M>): Promise<RequestResults[M]> {
    const client = this.client;
    if (!client || !this.running) {
      throw new Error('The Codex server is not running. Use "Codex: Restart server" or see "Codex: Show server log".');
    }
    // A method v2 types without params still takes an object over LSP.
    return client.sendRequest<RequestResults[M]>(`codex/${method}`, params ?? {});
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

export function openSettings(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', `@ext:codex-lsp.codex-lsp-vscode`);
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
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
