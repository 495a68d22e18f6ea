/** Starting the server: where its settings are read from, and what a failed start shows. */

import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { assert, type Journey, ui, waitFor } from '../support';

export const startupJourneys: Journey[] = [
  {
    name: 'settings: the server settings of the User settings start the server in code-server',
    screenshot: 'settings-user-level',
    async run(api, ctx) {
      // The driver wrote the settings into the User settings only (the Remote ones are empty).
      const config = vscode.workspace.getConfiguration('codexChat');
      const python = config.inspect<string>('pythonPath');
      assert(python?.globalValue === ctx.python, `pythonPath read from the User settings, got ${JSON.stringify(python)}`);
      assert(config.get<string>('pythonPath') === ctx.python, 'the User value is the one in effect');
      assert(api.store.state.server.state === 'ready', `the server is up, got ${api.store.state.server.state}`);
      assert(api.server.startedWarm, 'the server was started from the warm per-user server');
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await ui('chat.waitFor', { selector: '#send' });
      await ui('screenshot', { name: 'settings-user-level' });
    },
  },
  {
    name: 'settings: a workspace settings file cannot choose the server, its arguments or environment',
    screenshot: 'settings-workspace-ignored',
    async run(api, ctx) {
      // What a command in the sandbox could write: a program that leaves a marker, chosen by
      // every setting that picks what the extension runs.
      const dir = mkdtempSync(path.join(tmpdir(), 'codex-planted-'));
      const marker = path.join(dir, 'ran');
      const program = path.join(dir, 'program');
      writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\nexec '${ctx.python}' "$@"\n`);
      chmodSync(program, 0o755);
      const folder = path.join(ctx.workspace, '.vscode');
      const file = path.join(folder, 'settings.json');
      assert(!existsSync(file), 'the journey workspace has no settings file of its own');
      mkdirSync(folder, { recursive: true });
      const changed = new Promise<void>((resolve) => {
        const sub = vscode.workspace.onDidChangeConfiguration(() => {
          sub.dispose();
          resolve();
        });
      });
      writeFileSync(
        file,
        JSON.stringify({
          'codexChat.pythonPath': program,
          'codexChat.serverCommand': [program, '-m', 'codex_lsp', 'serve'],
          'codexChat.serverArgs': ['-c', 'sandbox_mode="danger-full-access"'],
          'codexChat.serverEnv': { PYTHONSTARTUP: program, CODEX_HOME: dir },
        }),
      );
      try {
        await Promise.race([changed, new Promise((resolve) => setTimeout(resolve, 5000))]);
        await vscode.commands.executeCommand('codexChat.restartServer');
        await waitFor('the server to be up', () => api.store.state.server.state === 'ready', 60000);
        assert(!existsSync(marker), 'the workspace chose a program and the extension ran it');
        const config = vscode.workspace.getConfiguration('codexChat');
        assert(config.get<string>('pythonPath') === ctx.python, 'the User pythonPath is in effect');
        const threads = await api.server.request('thread/list', {});
        assert(Array.isArray(threads.data), `the server answers, got ${JSON.stringify(threads)}`);
        await vscode.commands.executeCommand('codexChat.chatView.focus');
        await ui('screenshot', { name: 'settings-workspace-ignored' });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  },
  {
    name: 'start-up: a warm launcher that fails falls back to a cold start, and the chat works',
    screenshot: 'start-warm-fallback',
    async run(api, ctx) {
      // A Python whose start-up check names a launcher that exits at once; run otherwise, it
      // is the real one (so the cold start works).
      const dir = mkdtempSync(path.join(tmpdir(), 'codex-fallback-'));
      const python = path.join(dir, 'python');
      writeFileSync(
        python,
        `#!/bin/sh\nif [ "$1" = -c ]; then echo '["/bin/sh", "-c", "exit 3"]'; exit 0; fi\nexec '${ctx.python}' "$@"\n`,
      );
      chmodSync(python, 0o755);
      // The server's settings are User settings only (a workspace's value is ignored).
      const config = vscode.workspace.getConfiguration('codexChat');
      await config.update('pythonPath', python, vscode.ConfigurationTarget.Global);
      try {
        await vscode.commands.executeCommand('codexChat.restartServer');
        await waitFor('the server to be up', () => api.store.state.server.state === 'ready', 60000);
        assert(!api.server.startedWarm, 'the server that answered was started cold');
        const threads = await api.server.request('thread/list', {});
        assert(Array.isArray(threads.data), `the cold server answers, got ${JSON.stringify(threads)}`);
        await vscode.commands.executeCommand('codexChat.chatView.focus');
        await ui('chat.waitFor', { absent: '.notice.error' });
        await ui('screenshot', { name: 'start-warm-fallback' });
      } finally {
        await config.update('pythonPath', ctx.python, vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('codexChat.restartServer');
        await waitFor('the server to be back', () => api.store.state.server.state === 'ready', 60000);
      }
      assert(api.server.startedWarm, 'with the real Python the server starts warm again');
    },
  },
  {
    name: 'start-up failure: a server that exits at once shows its output and exit code, with Open settings and Restart',
    screenshot: 'start-exits-at-once',
    async run(api, ctx) {
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      const config = vscode.workspace.getConfiguration('codexChat');
      // A command that forgets `serve`: codex-lsp prints its usage and exits 2.
      await config.update('serverCommand', [ctx.python, '-m', 'codex_lsp'], vscode.ConfigurationTarget.Global);
      try {
        await vscode.commands.executeCommand('codexChat.restartServer');
        await waitFor('the error state', () => api.store.state.server.state === 'error', 60000);
        await ui('chat.waitFor', { selector: '.notice.error', text: 'exit code 2' });
        await ui('chat.waitFor', { selector: '.notice.error .server-output', text: 'usage: codex-lsp' });
        await ui('chat.waitFor', { selector: '.notice.error button[data-action="openSettings"]' });
        await ui('chat.waitFor', { selector: '.notice.error button[data-action="restart"]' });
        const send = await ui<boolean>('chat.eval', { expression: 'document.getElementById("send").disabled' });
        assert(send === true, 'Send is disabled while the server is down');
        await ui('screenshot', { name: 'start-exits-at-once' });
        await ui('chat.click', { selector: '.notice.error button[data-action="openSettings"]' });
        await waitFor('the Settings editor', () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Settings');
        await config.update('serverCommand', undefined, vscode.ConfigurationTarget.Global);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await ui('chat.click', { selector: '.notice.error button[data-action="restart"]' });
        await waitFor('the server to be back', () => api.store.state.server.state === 'ready', 60000);
        await ui('chat.waitFor', { absent: '.notice.server-down' });
      } finally {
        if (config.inspect('serverCommand')?.globalValue !== undefined) {
          await config.update('serverCommand', undefined, vscode.ConfigurationTarget.Global);
        }
        if (api.store.state.server.state !== 'ready') await api.server.start();
      }
    },
  },
  {
    name: 'start-up failure: a missing server command says so, with "Show log", and recovers',
    screenshot: 'start-failure',
    async run(api) {
      const config = vscode.workspace.getConfiguration('codexChat');
      await config.update('serverCommand', ['/nonexistent/codex-lsp', 'serve'], vscode.ConfigurationTarget.Global);
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
        await ui('page.press', { key: 'Escape' });
      } finally {
        await config.update('serverCommand', undefined, vscode.ConfigurationTarget.Global);
      }
      await vscode.commands.executeCommand('codexChat.restartServer');
      await waitFor('the server to be back', () => api.store.state.server.state === 'ready', 60000);
      await vscode.commands.executeCommand('notifications.clearAll');
    },
  },
];
