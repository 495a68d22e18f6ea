/**
 * The editor commands: from the context menu and the palette, what the chat shows of them, and
 * the panel's pickers reaching them.
 */

import * as vscode from 'vscode';
import {
  ACCEPT,
  assert,
  enqueue,
  freshThread,
  type Journey,
  modelRequests,
  readDisk,
  selectLine,
  textsByRole,
  turnFinished,
  ui,
  waitFor,
} from '../support';

export const editorJourneys: Journey[] = [
  {
    name: 'context menu: "Ask about selection" from the right-click menu asks for the question and answers in the chat',
    screenshot: 'context-menu-ask',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'askMenu');
      await selectLine(ctx, 'edit_me.py', 1);
      await ui('editor.contextMenu', { path: ['Codex', 'Ask about selection'] });
      await ui('quickInput.accept', { text: 'What does this line return?' });
      await ui('chat.waitFor', { selector: '#log .msg.user .text', text: 'What does this line return?' });
      await ui('chat.waitFor', { selector: '#log .msg.user .ref', text: 'Context: edit_me.py, line 2' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'It returns the greeting' });
      await turnFinished(api, threadId);
      const [request] = await modelRequests(ctx);
      const hidden = textsByRole(request, 'developer').join('\n');
      assert(hidden.includes('return "hi"'), `the selection reached the model, got ${hidden.slice(-400)}`);
      await ui('screenshot', { name: 'context-menu-ask' });
    },
  },
  {
    name: 'context menu: "Edit selection" from the right-click menu asks for the change and proposes it',
    screenshot: 'context-menu-edit',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'edit');
      const editor = await selectLine(ctx, 'edit_me.py', 1);
      await ui('editor.contextMenu', { path: ['Codex', 'Edit selection'] });
      await ui('quickInput.accept', { text: 'say hello instead' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('screenshot', { name: 'context-menu-edit' });
      await ui('chat.click', { selector: `.request.approval button[data-action="decide"][data-decision="decline"]` });
      await turnFinished(api, threadId);
      assert(editor.document.getText().includes('return "hi"'), 'a declined edit leaves the buffer alone');
    },
  },
  {
    name: 'prompts: Edit selection shows what the user asked, before and after reopening; the model gets the instructions',
    screenshot: 'edit-shows-user-text',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'edit');
      const editor = await selectLine(ctx, 'edit_me.py', 1);
      const original = editor.document.getText();
      const asked = await vscode.commands.executeCommand<{ error?: string } | undefined>('codexChat.editSelection', 'say hello instead');
      assert(!asked?.error, `the edit did not start: ${asked?.error}`);
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Edited the selection.' });
      const shown = async () => (await ui<string[]>('chat.query', { selector: '#log .msg.user .text' })).map((t) => t.trim());
      let users = await shown();
      assert(users.length === 1 && users[0] === 'say hello instead', `the user's words only, got ${JSON.stringify(users)}`);
      const [request] = await modelRequests(ctx);
      const hidden = textsByRole(request, 'developer').join('\n');
      assert(/apply_patch/.test(hidden) && hidden.includes('return "hi"'), `the instructions reached the model, got ${hidden.slice(-600)}`);
      const said = textsByRole(request, 'user');
      assert(said.includes('say hello instead'), `the user's words reached the model, got ${JSON.stringify(said)}`);
      await ui('screenshot', { name: 'edit-shows-user-text' });

      // Reopened from the server's record, the thread says the same.
      // The panel must first show the closed state: until it does, the old log still answers.
      api.store.dispatch({ type: 'close' });
      await ui('chat.waitFor', { selector: '.empty' });
      await api.controller.resume(threadId);
      await ui('chat.waitFor', { selector: '#log .msg.user .text', text: 'say hello instead' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Edited the selection.' });
      users = await shown();
      assert(users.length === 1 && users[0] === 'say hello instead', `after reopening, got ${JSON.stringify(users)}`);
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('undo');
      await waitFor('undo to take the edit back', () => editor.document.getText() === original);
    },
  },
  {
    name: 'pickers: the model and approval pickers reach Edit selection and review',
    screenshot: 'pickers-reach-commands',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      const models = await ui<string[]>('chat.query', { selector: '#model option' });
      assert(models[0] === 'Model: as configured (gpt-5.4)', `"as configured" names the model, got ${models[0]}`);
      await ui('chat.select', { selector: '#model', value: 'gpt-5.4-mini' });
      await ui('chat.select', { selector: '#effort', value: 'low' });
      await ui('chat.select', { selector: '#policy', value: 'never' });
      await enqueue(ctx, 'edit');
      const editor = await selectLine(ctx, 'edit_me.py', 1);
      const original = editor.document.getText();
      await vscode.commands.executeCommand('codexChat.editSelection', 'say hello instead');
      // "never": the change lands without asking (the suite picks "untrusted").
      await waitFor('the edit in the buffer', () => editor.document.getText().includes('return "hello"'), 60000);
      assert(api.store.state.requests.length === 0, 'no approval was asked');
      await turnFinished(api, threadId);
      const [request] = await modelRequests(ctx);
      assert(request.body.model === 'gpt-5.4-mini', `the picked model, got ${request.body.model}`);
      assert(request.body.reasoning?.effort === 'low', `the picked effort, got ${JSON.stringify(request.body.reasoning)}`);
      // The change is on disk too; "Undo this turn" puts back the file and the buffer.
      const undone = await vscode.commands.executeCommand<{ error?: string }>('codexChat.undoTurn');
      assert(!undone?.error, `Undo this turn failed: ${undone?.error}`);
      await waitFor('undo', async () => editor.document.getText() === original && (await readDisk(editor.document.uri)) === original);

      // Back to "untrusted": it asks again.
      await ui('chat.select', { selector: '#policy', value: 'untrusted' });
      await enqueue(ctx, 'edit');
      await selectLine(ctx, 'edit_me.py', 1);
      await vscode.commands.executeCommand('codexChat.editSelection', 'say hello instead');
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('screenshot', { name: 'pickers-reach-commands' });
      await ui('chat.click', { selector: `.request.approval button[data-action="decide"][data-decision="decline"]` });
      await waitFor('the turn to end', () => !api.store.state.conversation?.runningTurnId, 60000);

      // A review started now runs with the picked model.
      await ui('chat.select', { selector: '#model', value: 'gpt-5.4-mini' });
      await enqueue(ctx, 'reviewClean');
      await vscode.commands.executeCommand('codexChat.reviewUncommitted');
      const review = await waitFor('the review request', async () => (await modelRequests(ctx))[0], 60000);
      assert(review.body.model === 'gpt-5.4-mini', `the review used the picked model, got ${review.body.model}`);
      await waitFor('the review to end', () => !api.store.state.conversation?.runningTurnId, 60000);
      await ui('chat.select', { selector: '#model', value: '' });
      await ui('chat.select', { selector: '#effort', value: '' });
    },
  },
];
