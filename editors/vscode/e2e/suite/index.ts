/**
 * The end-to-end scenarios, run inside the real extension host (`extensionTestsPath`). They
 * use the VS Code API for what an extension can see (buffers, diagnostics, tabs, undo) and
 * ask the driver (e2e/driver.mjs) for what a user does: type in the chat panel, click its
 * buttons, read the Problems panel. The model is the scripted server; each scenario enqueues
 * its scripts (built by tests/test_vscode.py) before it starts a fresh thread.
 *
 * No wall-clock assertions: everything waits for a condition, with generous limits.
 */

import * as vscode from 'vscode';
import type { CodexApi } from '../../src/extension';

interface Context {
  modelControl: string; // scripted model server, e.g. http://127.0.0.1:PORT
  scripts: Record<string, { script: unknown[] }[]>;
  workspace: string;
  /** Run only the tests whose name contains this (for local runs). */
  only?: string;
}

let driverUrl = '';

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${driverUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** Ask the driver to do something in the browser. */
async function ui(op: string, args: Record<string, unknown> = {}): Promise<any> {
  const reply = await post('/ui', { op, args });
  if (reply.error) throw new Error(`${op} ${JSON.stringify(args)}: ${reply.error}`);
  return reply.result;
}

function log(text: string): void {
  console.log(`[codex e2e] ${text}`);
  void post('/ui', { op: 'log', args: { text } }).catch(() => {});
}

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 60000): Promise<T> {
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

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

async function enqueue(ctx: Context, scenario: string): Promise<void> {
  await fetch(`${ctx.modelControl}/_control/reset`, { method: 'POST' });
  for (const entry of ctx.scripts[scenario] ?? []) {
    const res = await fetch(`${ctx.modelControl}/_control/enqueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(entry),
    });
    assert(res.ok, `enqueue ${scenario}: HTTP ${res.status}`);
  }
}

async function freshThread(api: CodexApi): Promise<string> {
  await vscode.commands.executeCommand('codexChat.chatView.focus');
  const id = await api.controller.newThread();
  await waitFor('the chat panel to show the new thread', () => api.chat.isReady && api.store.state.conversation?.threadId === id);
  return id;
}

async function turnFinished(api: CodexApi, threadId: string): Promise<void> {
  await waitFor(
    'the turn to finish',
    () => {
      const conv = api.store.state.conversation;
      return conv?.threadId === threadId && conv.turns.length > 0 && !conv.runningTurnId;
    },
    90000,
  );
}

const ACCEPT = 'button[data-action="decide"][data-decision="accept"]';

type Test = { name: string; run: (api: CodexApi, ctx: Context) => Promise<void> };

const tests: Test[] = [
  {
    name: 'chat: a message gets a streamed, safely rendered answer in the panel',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      const csp = await ui('chat.csp');
      assert(/default-src 'none'/.test(csp) && /script-src 'nonce-[A-Za-z0-9]+'/.test(csp), `strict CSP, got ${csp}`);
      await enqueue(ctx, 'chat');
      await ui('chat.send', { text: 'Say hello' });
      // The script stalls half-way: the first half shows while the turn is still running.
      await ui('chat.waitFor', { selector: '#log', text: 'Hello from the scripted model' });
      await ui('chat.waitFor', { selector: '.working' });
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { absent: '.working' });
      const strong = await ui('chat.query', { selector: '#log .msg.agent strong' });
      assert(strong.includes('bold'), `markdown rendered, got ${JSON.stringify(strong)}`);
      const injected = await ui('chat.query', { selector: '#log script, #log img, #log b, #log iframe' });
      assert(injected.length === 0, `no HTML from model text, got ${JSON.stringify(injected)}`);
      await ui('chat.waitFor', { selector: '#log', text: '<img src=x onerror=alert(1)>' });
      // Hidden and shown again, the panel keeps its conversation.
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await ui('screenshot', { name: 'chat-panel' });
      await ui('screenshot', { name: 'chat-panel-only', selector: '[id="workbench.parts.sidebar"]' });
    },
  },
  {
    name: 'threads: a restart resumes the shown thread; the list opens and archives threads',
    async run(api) {
      const threadId = api.store.state.conversation?.threadId;
      assert(threadId && api.store.state.conversation!.turns.length, 'the chat test left a thread on screen');
      // A fresh window knows only the remembered thread id: close the conversation, restart.
      api.store.dispatch({ type: 'close' });
      await ui('chat.waitFor', { selector: '.empty' });
      await api.server.start();
      await waitFor('the thread to be resumed after the restart', () => api.store.state.conversation?.threadId === threadId, 60000);
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });

      await ui('chat.click', { selector: '#threads-toggle' });
      await ui('chat.waitFor', { selector: `li.thread.current[data-thread="${threadId}"]` });
      const other = await freshThread(api);
      await ui('chat.waitFor', { selector: `li.thread.current[data-thread="${other}"]` });
      await ui('chat.click', { selector: `li.thread[data-thread="${threadId}"] button[data-action="resume"]` });
      await waitFor('the old thread to open from the list', () => api.store.state.conversation?.threadId === threadId);
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await ui('chat.click', { selector: '#new-thread' });
      await waitFor('a new thread from the panel button', () => {
        const id = api.store.state.conversation?.threadId;
        return id && id !== threadId && id !== other;
      });
      await ui('chat.click', { selector: '#threads-toggle' });
      await ui('chat.click', { selector: `li.thread[data-thread="${threadId}"] button[data-action="archive"]` });
      await ui('chat.waitFor', { absent: `li.thread[data-thread="${threadId}"]` });
      await api.controller.refreshThreads();
      assert(!api.store.state.threads.some((t) => t.id === threadId), 'the archived thread stays out of the list');
      await ui('chat.click', { selector: '#threads-toggle' });
    },
  },
  {
    name: 'approval: a command is approved inline and its output shows',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'command');
      await ui('chat.send', { text: 'Run the command' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
      for (const decision of ['accept', 'acceptForSession', 'decline', 'cancel']) {
        await ui('chat.waitFor', { selector: `button[data-action="decide"][data-decision="${decision}"]` });
      }
      await ui('screenshot', { name: 'command-approval' });
      await ui('chat.click', { selector: ACCEPT });
      await ui('chat.waitFor', { selector: '.cmd-out', text: 'approved-output' });
      await ui('chat.waitFor', { selector: '#log', text: 'The command ran.' });
      await turnFinished(api, threadId);
      const marker = vscode.Uri.joinPath(vscode.Uri.file(ctx.workspace), 'approved.txt');
      await waitFor('the approved command to have run', async () => (await vscode.workspace.fs.stat(marker)).type === vscode.FileType.File);
    },
  },
  {
    name: 'edit selection: approve the change, the buffer changes, undo takes it back',
    async run(api, ctx) {
      const file = vscode.Uri.joinPath(vscode.Uri.file(ctx.workspace), 'edit_me.py');
      const doc = await vscode.workspace.openTextDocument(file);
      const original = doc.getText();
      let editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(1, 0, 1, doc.lineAt(1).text.length);
      const threadId = await freshThread(api);
      await enqueue(ctx, 'edit');
      editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(1, 0, 1, doc.lineAt(1).text.length);
      const asked = await vscode.commands.executeCommand<{ error?: string } | undefined>('codexChat.editSelection', 'say hello instead');
      assert(!asked?.error, `the edit did not start: ${asked?.error}`);
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('screenshot', { name: 'edit-approval' });

      // Open the proposed change in VS Code's diff editor before approving.
      await ui('chat.click', { selector: '.request.approval button[data-action="openDiff"]' });
      const diffTab = await waitFor('the diff editor', () => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return input instanceof vscode.TabInputTextDiff ? input : undefined;
      });
      const proposed = await vscode.workspace.openTextDocument(diffTab.modified);
      assert(proposed.getText().includes('return "hello"'), `proposed text, got ${proposed.getText()}`);
      assert(diffTab.original.toString() === file.toString(), `left side is the file, got ${diffTab.original}`);
      await ui('screenshot', { name: 'edit-diff' });

      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await waitFor('the edit in the buffer', () => doc.getText().includes('return "hello"'));
      assert(doc.isDirty, 'the edit went into the buffer, not around it');
      const onDisk = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
      assert(onDisk === original, 'the server did not write the open file');
      await turnFinished(api, threadId);

      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await waitFor('undo to take the edit back', () => doc.getText() === original);
    },
  },
  {
    name: 'review: findings of uncommitted changes show in the Problems panel',
    async run(api, ctx) {
      const file = vscode.Uri.joinPath(vscode.Uri.file(ctx.workspace), 'review_me.py');
      await freshThread(api);
      await enqueue(ctx, 'review');
      const started = await vscode.commands.executeCommand<{ error?: string } | undefined>('codexChat.reviewUncommitted');
      assert(!started?.error, `the review did not start: ${started?.error}`);
      const found = await waitFor(
        'codex diagnostics on review_me.py',
        () => {
          const diags = vscode.languages.getDiagnostics(file).filter((d) => d.source === 'codex');
          return diags.length ? diags : undefined;
        },
        120000,
      );
      assert(found.some((d) => d.message.includes('Division by zero')), `finding text, got ${found.map((d) => d.message)}`);
      assert(found[0].range.start.line === 1, `finding on line 2, got line ${found[0].range.start.line + 1}`);

      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
      const actions = await waitFor('the server code actions on the finding', async () => {
        const list = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
          'vscode.executeCodeActionProvider',
          file,
          found[0].range,
        );
        return list && list.length ? list : undefined;
      });
      const titles = actions.map((a) => a.title);
      for (const word of [/fix/i, /explain/i, /dismiss/i]) {
        assert(titles.some((t) => word.test(t)), `a ${word} code action, got ${JSON.stringify(titles)}`);
      }

      await vscode.commands.executeCommand('workbench.actions.view.problems');
      await ui('page.waitFor', { selector: '.markers-panel', text: 'Division by zero', timeoutMs: 60000 });
      await ui('screenshot', { name: 'problems-panel' });

      // "Dismiss" runs the server's command (registered by the language client) and the
      // finding leaves the Problems panel.
      const dismiss = actions.find((a) => /dismiss/i.test(a.title))!;
      const command = 'command' in dismiss && typeof dismiss.command === 'object' ? dismiss.command : (dismiss as vscode.Command);
      await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
      await waitFor('the dismissed finding to go', () => !vscode.languages.getDiagnostics(file).some((d) => d.source === 'codex'));
    },
  },
  {
    name: 'start-up failure: a clear error with "Show log", and recovery',
    async run(api) {
      const config = vscode.workspace.getConfiguration('codexChat');
      await config.update('serverCommand', ['/nonexistent/codex-lsp', 'serve'], vscode.ConfigurationTarget.Workspace);
      try {
        await vscode.commands.executeCommand('codexChat.restartServer');
        await waitFor('the error state', () => api.store.state.server.state === 'error');
        await ui('chat.waitFor', { selector: '.notice.error', text: 'was not found' });
        await ui('chat.waitFor', { selector: '.notice.error button[data-action="showLog"]' });
        // The notification (toasts are hidden in this mode: open the notification centre).
        await ui('page.click', { selector: '[id="status.notifications"]' });
        await ui('page.waitFor', { selector: '.notifications-center', text: 'The Codex server cannot start' });
        await ui('screenshot', { name: 'start-failure' });
        await ui('page.click', { selector: '.notifications-center .notification-list-item .monaco-button:has-text("Show log")' });
        // Monaco renders spaces as non-breaking ones: look for a token without spaces.
        await ui('page.waitFor', { selector: '.panel', text: '/nonexistent/codex-lsp' });
      } finally {
        await config.update('serverCommand', undefined, vscode.ConfigurationTarget.Workspace);
      }
      await vscode.commands.executeCommand('codexChat.restartServer');
      await waitFor('the server to be back', () => api.store.state.server.state === 'ready', 60000);
    },
  },
];

export async function run(): Promise<void> {
  driverUrl = process.env.CODEX_E2E_DRIVER || vscode.workspace.getConfiguration('codexE2E').get<string>('driverUrl') || '';
  const results: { name: string; ok: boolean; ms: number; error?: string }[] = [];
  try {
    if (!driverUrl) throw new Error('no driver URL (CODEX_E2E_DRIVER or codexE2E.driverUrl)');
    const ctx = (await (await fetch(`${driverUrl}/config`)).json()) as Context;
    const extension = vscode.extensions.getExtension<CodexApi>('codex-lsp.codex-lsp-vscode');
    assert(extension, 'the extension is installed');
    const api = await extension.activate();
    log('waiting for the server');
    await waitFor('the Codex server to start', () => api.store.state.server.state === 'ready', 120000);
    for (const test of tests.filter((t) => !ctx.only || t.name.includes(ctx.only))) {
      const start = Date.now();
      log(`start: ${test.name}`);
      try {
        await test.run(api, ctx);
        results.push({ name: test.name, ok: true, ms: Date.now() - start });
        log(`pass: ${test.name}`);
      } catch (err) {
        const error = err instanceof Error ? err.stack ?? err.message : String(err);
        results.push({ name: test.name, ok: false, ms: Date.now() - start, error });
        log(`FAIL: ${test.name}\n${error}`);
        const slug = test.name.split(':')[0].replace(/[^a-z0-9]+/gi, '-');
        await ui('screenshot', { name: `failed-${slug}` }).catch(() => {});
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      }
    }
  } catch (err) {
    results.push({ name: 'suite set-up', ok: false, ms: 0, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
  await post('/done', { tests: results });
}
