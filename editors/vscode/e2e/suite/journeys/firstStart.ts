/**
 * From installing the .vsix to a first answer, without a terminal: in a profile with nothing but
 * the extension and a Python 3.11 on PATH (without codex-lsp), the panel offers to install the
 * server it carries, then to sign in; an API key entered there reaches the model.
 */

import * as vscode from 'vscode';
import { assert, enqueue, type Journey, modelRequests, turnFinished, ui, waitFor } from '../support';

const KEY = 'sk-first-start-0123456789';

export const firstStartJourneys: Journey[] = [
  {
    name: 'first start: install the server the extension carries, sign in with an API key in the panel, and get an answer; sign out',
    screenshot: 'first-start-answer',
    fresh: true,
    async run(api, ctx) {
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await ui('chat.waitFor', { selector: '.notice.error', text: 'cannot import codex_lsp' });
      await ui('chat.waitFor', { selector: 'button[data-action="installServer"]' });
      await ui('screenshot', { name: 'first-start-install' });
      await ui('chat.click', { selector: 'button[data-action="installServer"]' });
      await ui('chat.waitFor', { selector: '.notice.info', text: 'Installing the Codex server' });
      await waitFor('the installed server to start', () => api.store.state.server.state === 'ready', 480000);

      await ui('chat.waitFor', { selector: '.account.signin', text: 'Sign in to use Codex' });
      await ui('chat.waitFor', { selector: 'button[data-action="loginChatgpt"]', text: 'Sign in with ChatGPT' });
      await ui('chat.fill', { selector: '#api-key', text: KEY });
      await ui('screenshot', { name: 'first-start-sign-in' });
      await ui('chat.click', { selector: 'button[data-action="loginApiKey"]' });
      await ui('chat.waitFor', { selector: '.account.signed-in', text: 'Signed in with an API key' });
      const html = await ui<string>('chat.eval', { expression: 'document.body.innerHTML' });
      assert(!html.includes(KEY), 'the panel keeps no copy of the key');

      await enqueue(ctx, 'chat');
      await ui('chat.send', { text: 'Say hello' });
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await turnFinished(api, api.store.state.conversation?.threadId ?? '');
      const [request] = await modelRequests(ctx);
      assert(request?.headers.authorization === `Bearer ${KEY}`, 'the model got the key entered in the panel');
      await ui('screenshot', { name: 'first-start-answer' });

      await ui('chat.click', { selector: 'button[data-action="logout"]' });
      await ui('chat.waitFor', { selector: '.account.signin', text: 'Sign in to use Codex' });
    },
  },
];
