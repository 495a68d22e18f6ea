/** A turn's changed files: kept for one, undone for the other, each with its diff. */

import * as vscode from 'vscode';
import { ACCEPT, assert, enqueue, freshThread, type Journey, modelRequests, readDisk, turnFinished, ui, waitFor, workspaceFile } from '../support';

export const changeJourneys: Journey[] = [
  {
    name: 'changes: a two-file change lists both files; one is kept, the other undone; Diff shows what the turn did',
    screenshot: 'changes-keep-undo',
    async run(api, ctx) {
      const alpha = workspaceFile(ctx, 'alpha.txt');
      const beta = workspaceFile(ctx, 'beta.txt');
      // Both open in the editor, as a user would have them: the change lands in the buffers.
      const alphaDoc = await vscode.workspace.openTextDocument(alpha);
      const betaDoc = await vscode.workspace.openTextDocument(beta);
      await vscode.window.showTextDocument(alphaDoc, { preview: false });
      await vscode.window.showTextDocument(betaDoc, { preview: false });
      const threadId = await freshThread(api);
      await enqueue(ctx, 'twoFiles');
      await ui('chat.send', { text: 'Upper-case alpha.txt and beta.txt' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply these 2 changes?' });
      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '.changes', text: '2 files changed' });
      await waitFor('both buffers changed', () => alphaDoc.getText() === 'ALPHA\n' && betaDoc.getText() === 'BETA\n');
      assert(!alphaDoc.isDirty && !betaDoc.isDirty, 'the change is saved as it lands');

      await ui('chat.click', { selector: '.change-row[data-path$="alpha.txt"] button[data-action="changeDiff"]' });
      const diffTab = await waitFor('the diff editor', () => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        return input instanceof vscode.TabInputTextDiff ? input : undefined;
      });
      assert((await vscode.workspace.openTextDocument(diffTab.original)).getText() === 'alpha\n', 'the left side is the file before the turn');
      assert(diffTab.modified.fsPath === alpha.fsPath, 'the right side is the file now');

      await ui('chat.click', { selector: '.change-row[data-path$="alpha.txt"] button[data-action="keepChange"]' });
      await ui('chat.click', { selector: '.change-row[data-path$="beta.txt"] button[data-action="undoChange"]' });
      await ui('chat.waitFor', { selector: '.change-row[data-path$="alpha.txt"] .change-mark', text: 'Kept' });
      await ui('chat.waitFor', { selector: '.change-row[data-path$="beta.txt"] .change-mark', text: 'Undone' });
      await waitFor('alpha kept on disk', async () => (await readDisk(alpha)) === 'ALPHA\n');
      await waitFor('beta back as it was', async () => (await readDisk(beta)) === 'beta\n' && betaDoc.getText() === 'beta\n');
      assert(!alphaDoc.isDirty && !betaDoc.isDirty, 'nothing is left unsaved');
      await ui('screenshot', { name: 'changes-keep-undo' });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'disk: after a patch the next command reads the new text, nothing is left dirty, and Undo this turn puts both files back',
    screenshot: 'disk-undo-turn',
    async run(api, ctx) {
      const gamma = workspaceFile(ctx, 'gamma.txt');
      const delta = workspaceFile(ctx, 'delta.txt');
      // gamma is open as the user left it; delta was never opened.
      const gammaDoc = await vscode.workspace.openTextDocument(gamma);
      await vscode.window.showTextDocument(gammaDoc, { preview: false });
      const threadId = await freshThread(api);
      await enqueue(ctx, 'diskTruth');
      await ui('chat.send', { text: 'Upper-case gamma and delta, then show them' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply these 2 changes?' });
      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await turnFinished(api, threadId);
      const sent = JSON.stringify(await modelRequests(ctx));
      assert(sent.includes('GAMMA\\nDELTA'), 'the command after the patch read the new text from disk');
      assert((await readDisk(gamma)) === 'GAMMA\n' && (await readDisk(delta)) === 'DELTA\n', 'both files on disk');
      assert(!gammaDoc.isDirty, 'the open file is saved');
      const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file');
      assert(dirty.length === 0, `no dirty document, got ${dirty.map((d) => d.uri.fsPath).join(', ')}`);

      const undone = await vscode.commands.executeCommand<{ error?: string; restored?: string[] }>('codexChat.undoTurn');
      assert(!undone?.error, `Undo this turn failed: ${undone?.error}`);
      await waitFor('both files back', async () => (await readDisk(gamma)) === 'gamma\n' && (await readDisk(delta)) === 'delta\n' && gammaDoc.getText() === 'gamma\n');
      assert(!gammaDoc.isDirty, 'nothing is left unsaved after the undo');
      // The chat says so: the turn's files are undone, not still "2 files changed".
      await ui('chat.waitFor', { selector: '.changes-head', text: 'Undone: 2 files put back' });
      const marks = await ui<string[]>('chat.query', { selector: '.changes .change-mark' });
      assert(marks.length === 2 && marks.every((m) => m === 'Undone'), `each file marked undone, got ${JSON.stringify(marks)}`);
      const heads = await ui<string[]>('chat.query', { selector: '.changes-head' });
      assert(!heads.some((h) => h.includes('files changed')), `no "files changed" left, got ${JSON.stringify(heads)}`);
      await ui('screenshot', { name: 'disk-undo-turn' });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
];
