/**
 * Inline edit in the editor: Ctrl+I at a selection opens a prompt there, the instruction is typed
 * in place, and the agent's patch is shown in the editor as a proposal to accept or reject there.
 */

import * as vscode from 'vscode';
import { assert, enqueue, freshThread, type Journey, modelRequests, readDisk, selectLine, turnFinished, ui, waitFor, workspaceFile } from '../support';

const ORIGINAL = 'def greet():\n    return "hi"\n';
const PROPOSED = 'def greet():\n    return "hello"\n';
const THREAD = '.review-widget';

/** edit_me.py as the journeys expect it, on disk and in its buffer, whatever an earlier journey left. */
async function fromOriginal(ctx: Parameters<Journey['run']>[1]): Promise<void> {
  const uri = workspaceFile(ctx, 'edit_me.py');
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(ORIGINAL));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc);
  if (doc.isDirty) await vscode.commands.executeCommand('workbench.action.files.revert');
  await waitFor('edit_me.py as it was', () => doc.getText() === ORIGINAL && !doc.isDirty);
}

/** Ctrl+I on line 2 of edit_me.py, the instruction typed into the prompt that opens there. */
async function openPrompt(ctx: Parameters<Journey['run']>[1], instruction: string): Promise<vscode.TextEditor> {
  await fromOriginal(ctx);
  const editor = await selectLine(ctx, 'edit_me.py', 1);
  await ui('editor.press', { key: 'Control+i' });
  // The prompt opens at the selection with the keyboard in it: typing goes there.
  await ui('page.waitFor', { selector: `${THREAD} .comment-form` });
  await ui('page.waitForFocus', { selector: `${THREAD} .comment-form` });
  await ui('page.type', { text: instruction });
  await ui('page.press', { key: 'Control+Enter' });
  await ui('page.waitFor', { selector: THREAD, text: instruction });
  return editor;
}

/** The proposal, in the editor: the diff in the thread, the line struck through, Accept / Reject above it. */
async function proposalShown(editor: vscode.TextEditor): Promise<void> {
  await ui('page.waitFor', { selector: THREAD, text: '+    return "hello"' });
  await ui('page.waitFor', { selector: '.codelens-decoration', text: 'Accept' });
  await ui('page.waitFor', { selector: '.codelens-decoration', text: 'Reject' });
  const after = await waitFor('the inserted line after the removed one', async () => {
    const texts = await ui<string[]>('page.afterTexts', { selector: '.editor-group-container.active .view-lines span' });
    return texts.map((t) => t.replace(/\u00a0/g, ' ')).find((t) => t.startsWith('"→') && t.includes('hello'));
  });
  assert(after, 'the new line is shown in place');
  assert(editor.document.getText() === ORIGINAL, 'the buffer is left alone while the proposal waits');
  assert((await readDisk(editor.document.uri)) === ORIGINAL, 'the disk is left alone while the proposal waits');
}

export const inlineJourneys: Journey[] = [
  {
    name: 'inline edit: Ctrl+I takes the instruction in place, shows the proposal in the editor, and Accept saves it for the next command',
    screenshot: 'inline-proposal',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      // The mode's own policy (Agent: on-request): inline edits are proposed all the same.
      const picked = api.store.state.approvalPolicy;
      api.controller.select({ approvalPolicy: '' });
      try {
        await enqueue(ctx, 'inlineAccept');
        const editor = await openPrompt(ctx, 'say hello instead');
        await proposalShown(editor);
        await ui('screenshot', { name: 'inline-proposal' });
        // No approval card is pushed at the user: the proposal is answered where it is.
        assert(api.store.state.requests.length === 1, 'the chat lists the one approval too');

        // Ctrl+Enter in the editor accepts.
        await ui('page.press', { key: 'Control+Enter' });
        await waitFor('the change on disk', async () => (await readDisk(editor.document.uri)) === PROPOSED, 60000);
        await waitFor('the buffer to hold the change, saved', () => editor.document.getText() === PROPOSED && !editor.document.isDirty);
        await turnFinished(api, threadId);
        const sent = JSON.stringify(await modelRequests(ctx));
        assert(sent.includes('return \\"hello\\"') && sent.includes('call_inline_cat'), 'the command after Accept read the new text from disk');
        await ui('page.waitFor', { selector: THREAD, text: 'greet() now says hello.' });
        await ui('page.waitFor', { selector: THREAD, text: 'Accepted edit_me.py' });
        await waitFor('the proposal to leave the editor', async () => {
          const lenses = await ui<string[]>('page.query', { selector: '.codelens-decoration' });
          return !lenses.some((l) => l.includes('Accept'));
        });
        // The panel's transcript has the same turn: the instruction and the answer.
        await ui('chat.waitFor', { selector: '#log .msg.user .text', text: 'say hello instead' });
        await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'greet() now says hello.' });
        await ui('screenshot', { name: 'inline-accepted' });
        await vscode.commands.executeCommand('codexChat.inline.close');
        // The next journeys start from the file as it was.
        await vscode.workspace.fs.writeFile(editor.document.uri, new TextEncoder().encode(ORIGINAL));
        await waitFor('the buffer to reload', () => editor.document.getText() === ORIGINAL);
      } finally {
        api.controller.select({ approvalPolicy: picked });
      }
    },
  },
  {
    name: 'inline edit: with approvals for every command, the command after the edit is approved in the editor too',
    screenshot: 'inline-command-approval',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      api.controller.select({ approvalPolicy: 'untrusted' });
      await enqueue(ctx, 'inlineAccept');
      const editor = await openPrompt(ctx, 'say hello instead');
      await proposalShown(editor);
      // The thread's own buttons: Accept the change, then the command it asks to run.
      await ui('page.click', { selector: `${THREAD} .action-label[aria-label^="Accept"]` });
      await waitFor('the change on disk', async () => (await readDisk(editor.document.uri)) === PROPOSED, 60000);
      await ui('page.waitFor', { selector: THREAD, text: 'Codex wants to run' });
      await ui('page.waitFor', { selector: THREAD, text: "cat edit_me.py" });
      await ui('screenshot', { name: 'inline-command-approval' });
      await ui('page.click', { selector: `${THREAD} .action-label[aria-label^="Accept"]` });
      await turnFinished(api, threadId);
      await ui('page.waitFor', { selector: THREAD, text: 'greet() now says hello.' });
      const sent = JSON.stringify(await modelRequests(ctx));
      assert(sent.includes('return \\"hello\\"'), 'the approved command read the new text from disk');
      await vscode.commands.executeCommand('codexChat.inline.close');
      await vscode.workspace.fs.writeFile(editor.document.uri, new TextEncoder().encode(ORIGINAL));
      await waitFor('the buffer to reload', () => editor.document.getText() === ORIGINAL);
    },
  },
  {
    name: 'inline edit: the thread says the agent is thinking, and Stop there ends the turn',
    screenshot: 'inline-stopped',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      // The model stalls before it answers.
      await enqueue(ctx, 'steer');
      const editor = await openPrompt(ctx, 'say hello instead');
      await ui('page.waitFor', { selector: THREAD, text: 'Thinking…' });
      await ui('page.click', { selector: `${THREAD} .action-label[aria-label="Stop"]` });
      await turnFinished(api, threadId);
      await ui('page.waitFor', { selector: THREAD, text: 'Stopped.' });
      assert(editor.document.getText() === ORIGINAL, 'nothing changed');
      await ui('screenshot', { name: 'inline-stopped' });
      await vscode.commands.executeCommand('codexChat.inline.close');
    },
  },
  {
    name: 'inline edit: Escape rejects the proposal and leaves the file as it was',
    screenshot: 'inline-rejected',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      const picked = api.store.state.approvalPolicy;
      api.controller.select({ approvalPolicy: '' });
      try {
        await enqueue(ctx, 'inlineReject');
        const editor = await openPrompt(ctx, 'say hello instead');
        await proposalShown(editor);
        await ui('page.press', { key: 'Escape' });
        await turnFinished(api, threadId);
        await ui('page.waitFor', { selector: THREAD, text: 'Rejected: edit_me.py left as it was' });
        await ui('page.waitFor', { selector: THREAD, text: 'Left edit_me.py as it was.' });
        await waitFor('the proposal to leave the editor', async () => {
          const lenses = await ui<string[]>('page.query', { selector: '.codelens-decoration' });
          return !lenses.some((l) => l.includes('Accept'));
        });
        assert(editor.document.getText() === ORIGINAL && !editor.document.isDirty, 'the buffer is as it was');
        assert((await readDisk(editor.document.uri)) === ORIGINAL, 'the disk is as it was');
        const sent = JSON.stringify(await modelRequests(ctx));
        assert(sent.includes('patch rejected by user'), 'the agent was told the change was rejected');
        await ui('screenshot', { name: 'inline-rejected' });
        await vscode.commands.executeCommand('codexChat.inline.close');
      } finally {
        api.controller.select({ approvalPolicy: picked });
      }
    },
  },
];
