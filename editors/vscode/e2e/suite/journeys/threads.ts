/** Threads: resumed after a restart; opened, renamed, searched, archived and deleted from the list. */

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
  {
    name: 'threads: titled by their first request, renamed in the list, found by search, deleted for good',
    screenshot: 'threads-rename-search-delete',
    async run(api, ctx) {
      const alpha = await freshThread(api);
      await enqueue(ctx, 'threadAlpha');
      await ui('chat.send', { text: 'Alpha topic: how do imports work?' });
      await turnFinished(api, alpha);
      await ui('chat.waitFor', { selector: '.conv-title', text: 'Alpha topic: how do imports work?' });
      const beta = await freshThread(api);
      await enqueue(ctx, 'threadBeta');
      await ui('chat.send', { text: 'Beta topic: the build' });
      await turnFinished(api, beta);

      await ui('chat.click', { selector: '#threads-toggle' });
      await ui('chat.waitFor', { selector: `li.thread[data-thread="${alpha}"] .thread-title`, text: 'Alpha topic' });
      // Rename in place.
      await ui('chat.click', { selector: `li.thread[data-thread="${alpha}"] button[data-action="rename"]` });
      await ui('chat.fill', { selector: `li.thread[data-thread="${alpha}"] input.rename`, text: 'Imports explained' });
      await ui('chat.press', { selector: `li.thread[data-thread="${alpha}"] input.rename`, key: 'Enter' });
      await ui('chat.waitFor', { selector: `li.thread[data-thread="${alpha}"] .thread-title`, text: 'Imports explained' });
      // Search: the server filters by title.
      await ui('chat.fill', { selector: '#thread-search', text: 'imports' });
      await ui('chat.waitFor', { absent: `li.thread[data-thread="${beta}"]` });
      await ui('chat.waitFor', { selector: `li.thread[data-thread="${alpha}"]` });
      await ui('screenshot', { name: 'threads-rename-search-delete' });
      await ui('chat.fill', { selector: '#thread-search', text: '' });
      await ui('chat.waitFor', { selector: `li.thread[data-thread="${beta}"]` });
      // Delete, after a confirmation.
      await ui('chat.click', { selector: `li.thread[data-thread="${beta}"] button[data-action="delete"]` });
      await ui('chat.waitFor', { selector: `li.thread[data-thread="${beta}"] .confirm-delete`, text: 'Delete for good?' });
      await ui('chat.click', { selector: `li.thread[data-thread="${beta}"] button[data-action="confirmDelete"]` });
      await ui('chat.waitFor', { absent: `li.thread[data-thread="${beta}"]` });
      await api.controller.refreshThreads('');
      assert(!api.store.state.threads.some((t) => t.id === beta), 'the deleted thread is gone from the server');
      assert(api.store.state.threads.some((t) => t.id === alpha && t.name === 'Imports explained'), 'the renamed one stays, renamed');
      await ui('chat.click', { selector: '#threads-toggle' });
    },
  },
  {
    name: 'threads: the open list shows whole titles and follows a new thread, its first message and a rename',
    screenshot: 'threads-live-list',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await ui('chat.click', { selector: '#threads-toggle' });
      const row = `li.thread[data-thread="${threadId}"]`;
      await ui('chat.waitFor', { selector: `${row} .thread-title`, text: 'New thread' });
      await enqueue(ctx, 'chat');
      await ui('chat.send', { text: 'Refactor the parser module' });
      // Named by its first message while the list stays open.
      await ui('chat.waitFor', { selector: `${row} .thread-title`, text: 'Refactor the parser module' });
      await turnFinished(api, threadId);
      const cut = await ui<boolean>('chat.eval', {
        expression: `(() => { const t = document.querySelector('${row} .thread-title'); return !t || t.scrollWidth > t.clientWidth; })()`,
      });
      assert(!cut, 'the title is shown whole, not cut');
      // Renamed elsewhere (another window, another client): the list follows.
      await api.server.request('thread/name/set', { threadId, name: 'Parser refactor plan' });
      await ui('chat.waitFor', { selector: `${row} .thread-title`, text: 'Parser refactor plan' });
      // A thread started from elsewhere joins the open list.
      const other = await api.controller.newThread();
      await ui('chat.waitFor', { selector: `li.thread.current[data-thread="${other}"]` });
      await ui('chat.waitFor', { selector: `${row} .thread-title`, text: 'Parser refactor plan' });
      await ui('screenshot', { name: 'threads-live-list' });
      await ui('chat.click', { selector: '#threads-toggle' });
    },
  },
];
