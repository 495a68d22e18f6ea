/** Threads: resumed after a restart, opened and archived from the list. */

import { assert, enqueue, freshThread, type Journey, turnFinished, ui, waitFor } from '../support';

export const threadJourneys: Journey[] = [
  {
    name: 'threads: a restart resumes the shown thread; the list opens and archives threads',
    screenshot: 'threads-list',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await enqueue(ctx, 'chat');
      await ui('chat.send', { text: 'Say hello' });
      await turnFinished(api, threadId);
      // A fresh window knows only the remembered thread id: close the conversation, restart.
      api.store.dispatch({ type: 'close' });
      await ui('chat.waitFor', { selector: '.empty' });
      await api.server.start();
      await waitFor('the thread to be resumed after the restart', () => api.store.state.conversation?.threadId === threadId, 60000);
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });

      await ui('chat.click', { selector: '#threads-toggle' });
      await ui('chat.waitFor', { selector: `li.thread.current[data-thread="${threadId}"]` });
      const other = await freshThread(api);
      await ui('chat.waitFor', { selector: `li.thread.current[data-thread="${other}"]` });
      await ui('screenshot', { name: 'threads-list' });
      await ui('chat.click', { selector: `li.thread[data-thread="${threadId}"] [data-action="resume"]` });
      await waitFor('the old thread to open from the list', () => api.store.state.conversation?.threadId === threadId);
      await ui('chat.waitFor', { selector: '#log', text: 'and the rest of the answer' });
      await ui('chat.click', { selector: '#new-thread' });
      await waitFor('a new thread from the panel button', () => {
        const id = api.store.state.conversation?.threadId;
        return id && id !== threadId && id !== other;
      });
      await ui('chat.click', { selector: '#threads-toggle' });
      await ui('chat.click', { selector: `li.thread[data-thread="${threadId}"] button[data-action="archive"]` });
      await ui('chat.waitFor', { absent: `li.thread[data-thread="${threadId}"]` });
      await api.controller.refreshThreads();
      assert(!api.store.state.threads.some((t) => t.id === threadId), 'the archived thread stays out of the list');
      await ui('chat.click', { selector: '#threads-toggle' });
    },
  },
];
