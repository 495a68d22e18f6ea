/**
 * The panel's own conveniences: Retry after a failed turn, the approval keys, and the first
 * Ctrl+Alt+C of a window landing in the message box.
 */

import * as vscode from 'vscode';
import { assert, enqueue, freshThread, type Journey, modelRequests, textsByRole, turnFinished, ui, waitFor, workspaceFile } from '../support';

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

const RETRY = '.turn-end.failed button[data-action="retry"]';

export const panelJourneys: Journey[] = [
  {
    name: 'retry: a failed turn offers Retry, which sends the same message again on the same thread',
    screenshot: 'retry-failed-turn',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'badRequest');
      await ui('chat.send', { text: 'What does greet return?' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: RETRY, text: 'Retry' });
      await ui('screenshot', { name: 'retry-failed-turn' });
      await enqueue(ctx, 'askMenu');
      await ui('chat.click', { selector: RETRY });
      await turnFinished(api, threadId, 2);
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'It returns the greeting' });
      assert(api.store.state.conversation?.threadId === threadId, 'the same thread');
      const [sent] = await modelRequests(ctx);
      assert(textsByRole(sent, 'user').some((t) => t.includes('What does greet return?')), 'the same message went again');
      // Once a turn after it succeeded, the failed one offers no Retry.
      await ui('chat.waitFor', { absent: RETRY });
    },
  },
  {
    name: 'keyboard: the approval shown is denied with Ctrl+Alt+N and approved with Ctrl+Alt+Y, as its buttons say',
    screenshot: 'approval-keys',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'commandDenied');
      await ui('chat.send', { text: 'Run the denied command' });
      await ui('chat.waitFor', { selector: '.request.approval button[data-decision="accept"] kbd', text: 'Ctrl+Alt+Y' });
      await ui('chat.waitFor', { selector: '.request.approval button[data-decision="decline"] kbd', text: 'Ctrl+Alt+N' });
      await ui('screenshot', { name: 'approval-keys' });
      await ui('page.press', { key: 'Control+Alt+N' });
      await turnFinished(api, threadId);
      assert(!(await exists(workspaceFile(ctx, 'denied.txt'))), 'the denied command did not run');

      await enqueue(ctx, 'command2');
      await ui('chat.send', { text: 'Run the other command' });
      await ui('chat.waitFor', { selector: '.request.approval button[data-decision="accept"] kbd', text: 'Ctrl+Alt+Y' });
      await ui('page.press', { key: 'Control+Alt+Y' });
      await ui('chat.waitFor', { selector: '#log', text: 'second-output' });
      await turnFinished(api, threadId, 2);
      await vscode.workspace.fs.delete(workspaceFile(ctx, 'second.txt')).then(undefined, () => undefined);
      await vscode.commands.executeCommand('notifications.clearAll');
    },
  },
  {
    // The last journey before the reload: the window comes back with the Explorer shown.
    name: 'keyboard: the first Ctrl+Alt+C of a window (before the reload: the Explorer is shown)',
    screenshot: 'first-focus-before',
    async run() {
      await vscode.commands.executeCommand('workbench.view.explorer');
      await ui('screenshot', { name: 'first-focus-before' });
    },
  },
  {
    name: 'keyboard: the first Ctrl+Alt+C of a window opens the chat with the message box focused',
    screenshot: 'first-focus',
    phase: 2,
    async run(api) {
      await waitFor('the Codex server to start', () => api.store.state.server.state === 'ready', 120000);
      assert(!api.chat.isReady, 'the chat was not shown yet in this window');
      await ui('page.press', { key: 'Control+Alt+C' });
      await waitFor(
        'the message box to have the focus',
        () => ui<boolean>('chat.eval', { expression: 'document.hasFocus() && document.activeElement?.id === "input"' }),
        20000,
      );
      // Typed straight away, the keys land in the message box.
      await ui('page.press', { key: 'h' });
      await ui('page.press', { key: 'i' });
      const typed = await ui<string>('chat.eval', { expression: 'document.getElementById("input").value' });
      assert(typed.endsWith('hi'), `the keys went to the message box, got ${JSON.stringify(typed)}`);
      await ui('chat.fill', { selector: '#input', text: '' });
      await ui('screenshot', { name: 'first-focus' });
    },
  },
];
