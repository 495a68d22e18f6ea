/** The chat itself: a streamed answer rendered safely. */

import * as vscode from 'vscode';
import { assert, enqueue, freshThread, type Journey, turnFinished, ui } from '../support';

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
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { absent: '.working' });
      const strong = await ui<string[]>('chat.query', { selector: '#log .msg.agent strong' });
      assert(strong.includes('bold'), `markdown rendered, got ${JSON.stringify(strong)}`);
      const injected = await ui<string[]>('chat.query', { selector: '#log script, #log img, #log b, #log iframe' });
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
];
