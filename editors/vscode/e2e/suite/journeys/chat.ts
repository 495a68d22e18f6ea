/**
 * The chat itself: a streamed answer rendered safely, Markdown with a table and highlighted
 * code (Copy / Insert / Apply), context attached with `#`, and Stop keeping the partial answer.
 */

import * as vscode from 'vscode';
import {
  assert,
  enqueue,
  freshThread,
  type Journey,
  modelRequests,
  selectLine,
  textsByRole,
  turnFinished,
  ui,
  waitFor,
} from '../support';

export const chatJourneys: Journey[] = [
  {
    name: 'chat: a message gets a streamed, safely rendered answer in the panel',
    screenshot: 'chat-panel',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      const csp = await ui<string>('chat.csp');
      assert(/default-src 'none'/.test(csp) && /script-src 'nonce-[A-Za-z0-9]+'/.test(csp), `strict CSP, got ${csp}`);
      await enqueue(ctx, 'chat');
      await ui('chat.send', { text: 'Say hello' });
      // The script stalls half-way: the first half shows while the turn is still running.
      await ui('chat.waitFor', { selector: '#log', text: 'Hello from the scripted model' });
      await ui('chat.waitFor', { selector: '.working' });
      await ui('chat.waitFor', { selector: '#stop:not([hidden])' });
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { absent: '.working' });
      const strong = await ui<string[]>('chat.query', { selector: '#log .msg.agent strong' });
      assert(strong.includes('bold'), `markdown rendered, got ${JSON.stringify(strong)}`);
      const injected = await ui<string[]>('chat.query', { selector: '#log script, #log img, #log b, #log iframe' });
      assert(injected.length === 0, `no HTML from model text, got ${JSON.stringify(injected)}`);
      await ui('chat.waitFor', { selector: '#log', text: '<img src=x onerror=alert(1)>' });
      await ui('chat.waitFor', { selector: '#usage', text: 'This thread:' });
      // Hidden and brought back with the keybinding, the panel keeps its conversation.
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await ui('page.press', { key: 'Control+Alt+c' });
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await waitFor('the chat input focused', () => ui<boolean>('chat.eval', { expression: 'document.activeElement === document.getElementById("input")' }));
      await ui('screenshot', { name: 'chat-panel' });
      await ui('screenshot', { name: 'chat-panel-only', selector: '[id="workbench.parts.sidebar"]' });
    },
  },
  {
    name: 'markdown: a table and highlighted code; Copy, Insert at the cursor, and Apply through an approved change',
    screenshot: 'markdown-answer',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'markdown');
      await ui('chat.send', { text: 'Summarise the files' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '#log .msg.agent table', text: 'review_me.py' });
      const cells = await ui<string[]>('chat.query', { selector: '#log .msg.agent table td' });
      assert(cells.join('|') === 'edit_me.py|2|review_me.py|2', `the table, got ${JSON.stringify(cells)}`);
      const keywords = await ui<string[]>('chat.query', { selector: '#log .code-block .hljs-keyword' });
      assert(keywords.includes('def') && keywords.includes('return'), `highlighted code, got ${JSON.stringify(keywords)}`);
      await ui('screenshot', { name: 'markdown-answer' });

      await ui('chat.click', { selector: '.code-block button[data-action="copyCode"]' });
      await waitFor('the code on the clipboard', async () => (await vscode.env.clipboard.readText()).includes('return f"hi {name}"'));

      const doc = await vscode.workspace.openTextDocument({ language: 'python', content: '# greet\n' });
      const scratch = await vscode.window.showTextDocument(doc);
      scratch.selection = new vscode.Selection(1, 0, 1, 0);
      await ui('chat.click', { selector: '.code-block button[data-action="insertCode"]' });
      await waitFor('the code inserted at the cursor', () => doc.getText() === '# greet\ndef greet(name):\n    return f"hi {name}"\n');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');

      // Apply: Codex proposes the change to the file in the editor, for approval.
      const editor = await selectLine(ctx, 'edit_me.py', 0);
      await enqueue(ctx, 'applyCode');
      await ui('chat.click', { selector: '.code-block button[data-action="applyCode"]' });
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('chat.waitFor', { selector: '#log .msg.user', text: 'Apply the code block to edit_me.py' });
      const [request] = await modelRequests(ctx);
      const told = textsByRole(request, 'developer').join('\n');
      assert(told.includes('def greet(name):') && /apply_patch/.test(told), `the block reached the model, got ${told.slice(-400)}`);
      await ui('chat.click', { selector: '.request.approval button[data-action="decide"][data-decision="decline"]' });
      await turnFinished(api, threadId, 2);
      assert(editor.document.getText().includes('return "hi"'), 'a declined apply changes nothing');
    },
  },
  {
    name: 'context: # attaches the selection and a file as chips; a removed chip is not sent; the model gets what stays',
    screenshot: 'context-chips',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await selectLine(ctx, 'edit_me.py', 1);
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await ui('chat.type', { selector: '#input', text: '#' });
      await ui('chat.waitFor', { selector: '#picker', text: 'Selection' });
      await ui('chat.click', { selector: '#picker .picker-item:has-text("Selection")' });
      await ui('chat.waitFor', { selector: '#chips .chip', text: 'edit_me.py:2' });
      await ui('chat.type', { selector: '#input', text: '#stats' });
      await ui('chat.waitFor', { selector: '#picker .picker-item.active', text: 'stats.py' });
      await ui('chat.press', { selector: '#input', key: 'Enter' });
      await ui('chat.waitFor', { selector: '#chips .chip', text: 'stats.py' });
      await ui('chat.type', { selector: '#input', text: '#prob' });
      await ui('chat.waitFor', { selector: '#picker .picker-item.active', text: 'Problems' });
      await ui('chat.press', { selector: '#input', key: 'Tab' });
      await ui('chat.waitFor', { selector: '#chips .chip', text: 'Problems' });
      await ui('chat.click', { selector: '#chips .chip:has-text("Problems") [data-action="detach"]' });
      await ui('chat.waitFor', { absent: '#chips .chip[data-kind="problems"]' });
      await ui('chat.type', { selector: '#input', text: 'What do these do?' });
      const typed = await ui<string>('chat.eval', { expression: 'document.getElementById("input").value' });
      assert(typed === 'What do these do?', `the #words left the message, got ${JSON.stringify(typed)}`);
      await ui('screenshot', { name: 'context-chips' });
      await enqueue(ctx, 'contextAsk');
      await ui('chat.press', { selector: '#input', key: 'Enter' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { absent: '#chips .chip' });
      await ui('chat.waitFor', { selector: '#log .msg.user .text', text: 'What do these do?' });
      const users = (await ui<string[]>('chat.query', { selector: '#log .msg.user .text' })).map((t) => t.trim());
      assert(users.length === 1 && users[0] === 'What do these do?', `the user's words only, got ${JSON.stringify(users)}`);
      const refs = await ui<string[]>('chat.query', { selector: '#log .msg.user .ref' });
      assert(refs.join('|') === 'Context: edit_me.py, line 2|Context: stats.py', `the attachments named, got ${JSON.stringify(refs)}`);
      const [request] = await modelRequests(ctx);
      const told = textsByRole(request, 'developer').join('\n');
      assert(told.includes('`edit_me.py`, line 2:') && told.includes('return "hi"'), `the selection reached the model: ${told.slice(-600)}`);
      assert(told.includes('`stats.py`:') && told.includes('def average(xs):'), 'the file reached the model');
      assert(!told.includes('Problems the editor reports'), 'the removed chip was not sent');
    },
  },
  {
    name: 'banners: an error banner goes when the next turn succeeds, and when a new thread starts',
    screenshot: 'banner-cleared',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'badRequest');
      await ui('chat.send', { text: 'This one fails' });
      await ui('chat.waitFor', { selector: '#notices .notice.error', text: 'The scripted model refused this request.' });
      await turnFinished(api, threadId);
      await enqueue(ctx, 'askMenu');
      await ui('chat.send', { text: 'This one works' });
      await turnFinished(api, threadId, 2);
      await ui('chat.waitFor', { selector: '#log', text: 'It returns the greeting' });
      await ui('chat.waitFor', { absent: '#notices .notice.error' });

      await enqueue(ctx, 'badRequest');
      await ui('chat.send', { text: 'This one fails again' });
      await ui('chat.waitFor', { selector: '#notices .notice.error', text: 'The scripted model refused this request.' });
      await turnFinished(api, threadId, 3);
      await ui('chat.click', { selector: '#new-thread' });
      await waitFor('a new thread', () => api.store.state.conversation?.threadId !== threadId);
      await ui('chat.waitFor', { absent: '#notices .notice.error' });
      await ui('screenshot', { name: 'banner-cleared' });
    },
  },
  {
    name: 'steer: Enter while a turn runs sends the message into that turn (the button says Steer), and Codex answers with it',
    screenshot: 'steered',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'steer');
      await ui('chat.send', { text: 'Tell me a long story' });
      await waitFor('the turn to run', () => api.store.state.conversation?.runningTurnId);
      await ui('chat.waitFor', { selector: '#send', text: 'Steer' });
      await ui('chat.send', { text: 'Make it short' });
      await ui('chat.waitFor', { selector: '#log', text: 'Short, as you asked.' });
      await turnFinished(api, threadId);
      assert(api.store.state.conversation?.turns.length === 1, 'the message went into the running turn, not a new one');
      const users = (await ui<string[]>('chat.query', { selector: '#log .msg.user .text' })).map((t) => t.trim());
      assert(JSON.stringify(users) === JSON.stringify(['Tell me a long story', 'Make it short']), `both messages shown, got ${JSON.stringify(users)}`);
      const requests = await modelRequests(ctx);
      const last = requests.at(-1);
      assert(last && textsByRole(last, 'user').some((t) => t.includes('Make it short')), 'the model got the steering message');
      await ui('chat.waitFor', { selector: '#send', text: 'Send' });
      await ui('screenshot', { name: 'steered' });
    },
  },
  {
    name: 'links: `edit_me.py:2` and [review_me.py](review_me.py) in an answer open the file, at the line',
    screenshot: 'relative-links',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'relativeLinks');
      await ui('chat.send', { text: 'Where is the greeting?' });
      await turnFinished(api, threadId);
      await ui('chat.click', { selector: 'a.file-link:has-text("edit_me.py:2")' });
      await waitFor('edit_me.py open at line 2', () => {
        const ed = vscode.window.activeTextEditor;
        return ed?.document.uri.fsPath.endsWith('/edit_me.py') && ed.selection.active.line === 1;
      });
      await ui('chat.click', { selector: 'a.file-link:has-text("review_me.py")' });
      await waitFor('review_me.py open', () => vscode.window.activeTextEditor?.document.uri.fsPath.endsWith('/review_me.py'));
      await ui('screenshot', { name: 'relative-links' });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  },
  {
    name: 'keys: ArrowUp in the empty box brings back the last message, ArrowDown clears it; Escape stops a running turn',
    screenshot: 'keys-escape',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'askMenu');
      await ui('chat.send', { text: 'What does greet return?' });
      await turnFinished(api, threadId);
      const value = () => ui<string>('chat.eval', { expression: 'document.getElementById("input").value' });
      await ui('chat.press', { selector: '#input', key: 'ArrowUp' });
      assert((await value()) === 'What does greet return?', 'ArrowUp recalls the last message');
      await ui('chat.press', { selector: '#input', key: 'ArrowDown' });
      assert((await value()) === '', 'ArrowDown goes back to the empty box');

      await enqueue(ctx, 'stalled');
      await ui('chat.send', { text: 'Tell me a story' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Once upon a time' });
      await ui('chat.press', { selector: '#input', key: 'Escape' });
      await turnFinished(api, threadId, 2);
      await ui('chat.waitFor', { selector: '.turn-end.interrupted', text: 'Stopped' });
      await ui('screenshot', { name: 'keys-escape' });
    },
  },
  {
    name: 'stop: Stop ends a streaming answer and the partial text stays, also when the thread is reopened',
    screenshot: 'stopped-partial',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'stalled');
      await ui('chat.send', { text: 'Tell me a story' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Once upon a time' });
      await ui('chat.click', { selector: '#stop' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '.turn-end.interrupted', text: 'Stopped' });
      api.store.dispatch({ type: 'close' });
      await ui('chat.waitFor', { selector: '.empty' });
      await api.controller.resume(threadId);
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Once upon a time, a partial answer' });
      await ui('chat.waitFor', { selector: '.turn-end.interrupted', text: 'Stopped' });
      await ui('chat.waitFor', { selector: '#send:not([hidden])' });
      await ui('screenshot', { name: 'stopped-partial' });
    },
  },
];
