/** Approvals: inline in the chat, brought to the user's attention, and seen before deciding. */

import * as vscode from 'vscode';
import { ACCEPT, assert, enqueue, freshThread, type Journey, readDisk, selectLine, turnFinished, ui, waitFor, workspaceFile } from '../support';

export const approvalJourneys: Journey[] = [
  {
    name: 'approvals: one that arrives while the chat is scrolled up or hidden is brought into view, said in the status bar, and can be answered from a notification',
    screenshot: 'approval-noticed',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      // A long answer first, so the conversation can be scrolled away from its end.
      await enqueue(ctx, 'longAnswer');
      await ui('chat.send', { text: 'Tell me a long story' });
      await turnFinished(api, threadId);
      await ui('chat.scrollTop');
      // The chat is hidden behind the Explorer when the approval comes.
      await vscode.commands.executeCommand('workbench.view.explorer');
      await enqueue(ctx, 'command');
      await api.controller.send('Run the command');
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
      await waitFor('the approval in view', () => ui<boolean>('chat.inView', { selector: '.request.approval' }), 30000);
      await ui('page.waitFor', { selector: '[id="workbench.parts.statusbar"]', text: 'Waiting for approval' });
      await ui('screenshot', { name: 'approval-noticed' });
      // Answered from the notification.
      await ui('page.click', { selector: '[id="status.notifications"]' });
      // The command is shown as the script the shell runs, not as `/bin/bash -lc '…'`.
      await ui('page.waitFor', { selector: '.notifications-center', text: 'Codex wants to run: touch approved.txt && echo approved-output' });
      await ui('page.click', { selector: '.notifications-center .notification-list-item .monaco-button:has-text("Approve")' });
      await ui('chat.waitFor', { selector: '.cmd-out', text: 'approved-output' });
      const heads = await ui<string[]>('chat.query', { selector: '.cmd-head code' });
      assert(heads.includes('$ touch approved.txt && echo approved-output'), `the command shown as its script, got ${JSON.stringify(heads)}`);
      await turnFinished(api, threadId, 2);
      await waitFor('the approved command to have run', async () => (await vscode.workspace.fs.stat(workspaceFile(ctx, 'approved.txt'))).type === vscode.FileType.File);
      await ui('page.waitFor', { selector: '[id="workbench.parts.statusbar"]', text: 'Codex' });
      const status = (await ui<string[]>('page.query', { selector: '[id="workbench.parts.statusbar"]' })).join(' ');
      assert(!status.includes('Waiting for approval'), `the status bar moved on, got ${status}`);
      await vscode.commands.executeCommand('notifications.clearAll');
    },
  },
  {
    name: 'approvals: Approve in a notification of an approval already denied in the chat says so and runs nothing',
    screenshot: 'approval-already-answered',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await vscode.commands.executeCommand('notifications.clearAll');
      await enqueue(ctx, 'commandDenied');
      await ui('chat.send', { text: 'Run the denied command' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
      await ui('chat.click', { selector: '.request.approval button[data-action="decide"][data-decision="decline"]' });
      await turnFinished(api, threadId);
      await ui('page.click', { selector: '[id="status.notifications"]' });
      await ui('page.waitFor', { selector: '.notifications-center', text: 'Codex wants to run' });
      await ui('page.click', { selector: '.notifications-center .notification-list-item .monaco-button:has-text("Approve")' });
      // The clicked notification goes; the answer to the click comes as a new one.
      await vscode.commands.executeCommand('notifications.showList');
      await ui('page.waitFor', { selector: '.notifications-center', text: 'that approval was already answered (denied)' });
      await ui('screenshot', { name: 'approval-already-answered' });
      const ran = await vscode.workspace.fs.stat(workspaceFile(ctx, 'denied.txt')).then(
        () => true,
        () => false,
      );
      assert(!ran, 'the denied command did not run');
      await vscode.commands.executeCommand('notifications.clearAll');
      await vscode.commands.executeCommand('notifications.hideList');
    },
  },
  {
    name: 'approvals: Abort on a file change ends the turn, and the change shows as stopped, in words',
    screenshot: 'patch-aborted',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'edit');
      await ui('chat.send', { text: 'Change the greeting' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('chat.click', { selector: '.request.approval button[data-action="decide"][data-decision="cancel"]' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '.files.status-stopped .status', text: 'stopped' });
      const statuses = await ui<string[]>('chat.query', { selector: '#log .status' });
      assert(!statuses.some((s) => /inProgress|completed/.test(s)), `statuses in words, got ${JSON.stringify(statuses)}`);
      assert((await readDisk(workspaceFile(ctx, 'edit_me.py'))).includes('return "hi"'), 'nothing was written');
      await ui('screenshot', { name: 'patch-aborted' });
    },
  },
  {
    name: 'approvals: a command is approved inline and its output shows',
    screenshot: 'command-approval',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'command2');
      await ui('chat.send', { text: 'Run the other command' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
      for (const decision of ['accept', 'acceptForSession', 'decline', 'cancel']) {
        await ui('chat.waitFor', { selector: `button[data-action="decide"][data-decision="${decision}"]` });
      }
      await ui('screenshot', { name: 'command-approval' });
      await ui('chat.click', { selector: ACCEPT });
      await ui('chat.waitFor', { selector: '#log', text: 'second-output' });
      await ui('chat.waitFor', { selector: '#log', text: 'The command ran.' });
      await turnFinished(api, threadId);
      await vscode.commands.executeCommand('notifications.clearAll');
    },
  },
  {
    name: 'approve after diff: the proposed change opens in the diff editor before approving; approved, Undo takes it back',
    screenshot: 'edit-diff',
    async run(api, ctx) {
      const file = workspaceFile(ctx, 'edit_me.py');
      const threadId = await freshThread(api);
      await enqueue(ctx, 'edit');
      const editor = await selectLine(ctx, 'edit_me.py', 1);
      const doc = editor.document;
      const original = doc.getText();
      const asked = await vscode.commands.executeCommand<{ error?: string } | undefined>('codexChat.editSelection', 'say hello instead');
      assert(!asked?.error, `the edit did not start: ${asked?.error}`);
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('screenshot', { name: 'edit-approval' });

      await ui('chat.click', { selector: '.request.approval button[data-action="openDiff"]' });
      const diffTab = await waitFor('the diff editor', () => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return input instanceof vscode.TabInputTextDiff ? input : undefined;
      });
      const proposed = await vscode.workspace.openTextDocument(diffTab.modified);
      assert(proposed.getText().includes('return "hello"'), `proposed text, got ${proposed.getText()}`);
      assert(diffTab.original.toString() === file.toString(), `left side is the file, got ${diffTab.original}`);
      assert(doc.getText() === original, 'nothing changed before the approval');
      await ui('screenshot', { name: 'edit-diff' });

      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await waitFor('the edit in the buffer', () => doc.getText().includes('return "hello"'));
      await waitFor('the edit saved', () => !doc.isDirty);
      assert((await readDisk(file)).includes('return "hello"'), 'the edit is on disk for the next command');
      await turnFinished(api, threadId);

      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await waitFor('undo to take the edit back', () => doc.getText() === original);
      await doc.save(); // the editor's undo changed the saved file back in the buffer
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
];
