/**
 * What the journeys share: the driver's endpoint (for what only a user can do in the browser),
 * waiting on conditions, the scripted model's control endpoint, and small VS Code helpers.
 *
 * No wall-clock assertions: everything waits for a condition, with generous limits.
 */

import * as vscode from 'vscode';
import type { CodexApi } from '../../src/extension';

export interface Context {
  /** The scripted model server, e.g. http://127.0.0.1:PORT. */
  modelControl: string;
  scripts: Record<string, { script: unknown[]; when?: string }[]>;
  workspace: string;
  /** The Python that has codex-lsp: for journeys that set the server command themselves. */
  python: string;
  /** Run only the journeys whose name contains one of these `|`-separated parts. */
  only?: string;
  /** 1 on the first window, 2 after the suite reloaded it, and so on. */
  phase: number;
  /** A profile with nothing but the .vsix: only the journeys marked `fresh` run. */
  fresh?: boolean;
  /** A thread of 500 turns, written under a staging home (tests/support/long_thread.py). */
  longThread?: { id: string; rollout: string; relative: string };
}

export interface Journey {
  name: string;
  /** The screenshot (in the run's artifacts folder) a reviewer looks at for this journey. */
  screenshot: string;
  /** Journeys after a window reload carry on from their first half. */
  phase?: number;
  /** Runs in a fresh profile with nothing but the .vsix (and only there). */
  fresh?: boolean;
  run(api: CodexApi, ctx: Context): Promise<void>;
}

export interface RecordedRequest {
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: {
    model?: string;
    instructions?: string;
    input?: { type?: string; role?: string; content?: { type?: string; text?: string }[] }[];
    reasoning?: { effort?: string } | null;
  };
}

let driverUrl = '';

export function setDriverUrl(url: string): void {
  driverUrl = url;
}

export async function post(path: string, body: unknown): Promise<{ result?: unknown; error?: string }> {
  const res = await fetch(`${driverUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as { result?: unknown; error?: string };
}

export async function getConfig(): Promise<Context> {
  return (await (await fetch(`${driverUrl}/config`)).json()) as Context;
}

/** Ask the driver to do something in the browser. */
export async function ui<T = unknown>(op: string, args: Record<string, unknown> = {}): Promise<T> {
  const reply = await post('/ui', { op, args });
  if (reply.error) throw new Error(`${op} ${JSON.stringify(args)}: ${reply.error}`);
  return reply.result as T;
}

export function log(text: string): void {
  console.log(`[codex e2e] ${text}`);
  void post('/ui', { op: 'log', args: { text } }).catch(() => undefined);
}

export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  timeoutMs = 60000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

/** Replace the model's queue with `scenario`'s scripts and forget earlier requests. */
export async function enqueue(ctx: Context, scenario: string): Promise<void> {
  await fetch(`${ctx.modelControl}/_control/reset`, { method: 'POST' });
  await enqueueMore(ctx, scenario);
}

/** Add `scenario`'s scripts behind those already queued. */
export async function enqueueMore(ctx: Context, scenario: string): Promise<void> {
  const entries = ctx.scripts[scenario];
  assert(entries?.length, `no scripts named ${scenario}`);
  for (const entry of entries) {
    const res = await fetch(`${ctx.modelControl}/_control/enqueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(entry),
    });
    assert(res.ok, `enqueue ${scenario}: HTTP ${res.status}`);
  }
}

/** The requests the model received since the last `enqueue`. */
export async function modelRequests(ctx: Context): Promise<RecordedRequest[]> {
  return (await (await fetch(`${ctx.modelControl}/_control/requests`)).json()) as RecordedRequest[];
}

/** Every text the model was sent in one request, by role ('developer', 'user', ...). */
export function textsByRole(request: RecordedRequest, role: string): string[] {
  return (request.body.input ?? [])
    .filter((item) => item.role === role)
    .flatMap((item) => (item.content ?? []).map((c) => c.text ?? ''));
}

export async function freshThread(api: CodexApi): Promise<string> {
  await vscode.commands.executeCommand('codexChat.chatView.focus');
  const id = await api.controller.newThread();
  await waitFor('the chat panel to show the new thread', () => api.chat.isReady && api.store.state.conversation?.threadId === id);
  await ui('chat.waitFor', { selector: '.conv-title' });
  return id;
}

export async function turnFinished(api: CodexApi, threadId: string, turns = 1): Promise<void> {
  await waitFor(
    'the turn to finish',
    () => {
      const conv = api.store.state.conversation;
      return conv?.threadId === threadId && conv.turns.length >= turns && !conv.runningTurnId;
    },
    90000,
  );
}

export function workspaceFile(ctx: Context, name: string): vscode.Uri {
  return vscode.Uri.joinPath(vscode.Uri.file(ctx.workspace), name);
}

/** Open `name` with `line` (0-based) selected, as the active editor. */
export async function selectLine(ctx: Context, name: string, line: number): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(workspaceFile(ctx, name));
  const editor = await vscode.window.showTextDocument(doc);
  editor.selection = new vscode.Selection(line, 0, line, doc.lineAt(line).text.length);
  return editor;
}

/** A text file's content on disk. */
export async function readDisk(uri: vscode.Uri): Promise<string> {
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

export const ACCEPT = 'button[data-action="decide"][data-decision="accept"]';

/** The codex-sourced diagnostics of `uri`. */
export function findings(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'codex');
}
