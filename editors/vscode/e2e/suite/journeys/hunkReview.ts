/**
 * Hunk review: with `codexChat.hunkReview`, a change that needs approval opens in VS Code's
 * Refactor Preview, one entry per hunk to tick; the user ticks one, applies it, and the model
 * is told which hunk was left out.
 */

import * as vscode from 'vscode';
import {
  assert,
  enqueue,
  freshThread,
  type Journey,
  modelRequests,
  type RecordedRequest,
  turnFinished,
  ui,
  waitFor,
  workspaceFile,
} from '../support';

const PANEL = '.bulk-edit-panel';

/** What the model was given back for the custom tool call `callId` (apply_patch). */
function patchOutput(request: RecordedRequest, callId: string): string {
  const items = (request.body.input ?? []) as { type?: string; call_id?: string; output?: unknown }[];
  const item = items.find((i) => i.type === 'custom_tool_call_output' && i.call_id === callId);
  assert(item, `no output for ${callId} in the model's last request`);
  return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
}

async function restartServer(api: Parameters<Journey['run']>[0]): Promise<void> {
  await vscode.commands.executeCommand('codexChat.restartServer');
  await waitFor('the Codex server to restart', () => api.store.state.server.state === 'ready', 120000);
}

export const hunkReviewJourneys: Journey[] = [
  {
    name: 'hunk review: the Refactor Preview shows each hunk; the one not ticked stays out and the model is told',
    screenshot: 'hunk-review',
    async run(api, ctx) {
      const config = vscode.workspace.getConfiguration('codexChat');
      await config.update('hunkReview', true, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const uri = workspaceFile(ctx, 'calc.py');
      const doc = await vscode.workspace.openTextDocument(uri);
      const original = doc.getText();
      try {
        await restartServer(api);
        const threadId = await freshThread(api);
        await vscode.window.showTextDocument(doc);
        await enqueue(ctx, 'twoHunks');
        await ui('chat.send', { text: 'Make both numbers ten times bigger' });
        // No card in the chat: the preview is the approval.
        await ui('page.waitFor', { selector: `${PANEL} .monaco-tl-contents.textedit`, text: 'return 20' });
        assert(!api.store.state.requests.length, 'the chat asked as well');
        const row = (text: string) => `${PANEL} .monaco-tl-contents.textedit:has-text("${text}")`;
        const ticked = `${PANEL} .monaco-tl-contents.textedit:has(.edit-checkbox.checked)`;
        const tickedHunks = async () => (await ui<string[]>('page.query', { selector: ticked })).filter((t) => t.includes('return'));
        await ui('page.waitFor', { selector: `${PANEL} .monaco-tl-contents.textedit`, text: 'return 10' });
        // Each hunk starts ticked: the user unticks what they do not want.
        const before = await tickedHunks();
        assert(before.length === 2, `both hunks start ticked, got ${JSON.stringify(before)}`);
        await ui('page.click', { selector: `${row('return 20')} .edit-checkbox` });
        const after = await tickedHunks();
        assert(after.length === 1 && after[0].includes('return 10'), `only the first stays ticked, got ${JSON.stringify(after)}`);
        await ui('screenshot', { name: 'hunk-review' });
        await ui('page.click', { selector: `${PANEL} .buttons .monaco-button:has-text("Apply")` });
        await turnFinished(api, threadId);
        await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Kept what you chose.' });

        const text = doc.getText();
        assert(text.includes('return 10\n') && text.includes('return 2\n'), `only the first hunk landed, got ${JSON.stringify(text)}`);
        const requests = await modelRequests(ctx);
        const told = patchOutput(requests[requests.length - 1], 'call_hunks');
        assert(told.includes('The user declined 1 of 2 hunks'), `the model was told, got ${told}`);
        assert(told.includes('+    return 20') && !told.includes('+    return 10'), `the declined hunk named, got ${told}`);
      } finally {
        // code-server saves a changed file after a second (files.autoSave): the applied hunk may
        // be on disk by now, where a revert alone would bring it back. Put the file back first.
        await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(original));
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.files.revert');
        await config.update('hunkReview', undefined, vscode.ConfigurationTarget.Workspace);
        await vscode.commands.executeCommand('workbench.action.closePanel');
        await restartServer(api);
        assert(doc.getText() === original, 'calc.py is back as it was');
      }
    },
  },
];
