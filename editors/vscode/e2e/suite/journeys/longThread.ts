/**
 * A thread of 500 turns opens and scrolls without the panel choking. Printed, not asserted (the
 * figures depend on the machine's load): the time from asking for the thread to its last answer
 * in the panel, and the frame times of a scroll from its end to its start, a screen at a time.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { assert, type Journey, log, ui, waitFor } from '../support';

const TURNS = 500;

/** Scrolls the conversation up a screen a frame until its top; the frames' durations. */
const SCROLL_UP = `(async () => {
  const log = document.getElementById('log');
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const durations = [];
  let last = await frame();
  for (let steps = 0; log.scrollTop > 0 && steps < 5000; steps++) {
    log.scrollTop = Math.max(0, log.scrollTop - log.clientHeight);
    const now = await frame();
    durations.push(now - last);
    last = now;
  }
  durations.sort((a, b) => a - b);
  const at = (share) => Math.round(durations[Math.min(durations.length - 1, Math.floor(durations.length * share))]);
  return { frames: durations.length, median: at(0.5), p95: at(0.95), max: at(1), height: log.scrollHeight };
})()`;

const LAST_IN_VIEW = `(() => {
  const log = document.getElementById('log');
  const answers = log.querySelectorAll('.msg.agent');
  const last = answers[answers.length - 1];
  if (!last) return false;
  const a = last.getBoundingClientRect();
  const b = log.getBoundingClientRect();
  return a.bottom > b.top && a.top < b.bottom;
})()`;

interface Scrolled {
  frames: number;
  median: number;
  p95: number;
  max: number;
  height: number;
}

export const longThreadJourneys: Journey[] = [
  {
    name: 'long thread: a thread of 500 turns opens and scrolls to its start',
    screenshot: 'long-thread',
    async run(api, ctx) {
      const thread = ctx.longThread;
      assert(thread, 'the suite was given no long thread');
      // Copied in now, so the journeys before this one saw the thread list they expect.
      const env = vscode.workspace.getConfiguration('codexChat').get<Record<string, string>>('serverEnv') ?? {};
      const target = path.join(env.CODEX_HOME ?? '', thread.relative);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(thread.rollout, target);

      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await waitFor('the chat panel', () => api.chat.isReady, 60_000);
      const started = Date.now();
      await api.controller.resume(thread.id);
      await waitFor('the thread to open', () => api.store.state.conversation?.threadId === thread.id, 60_000);
      const loaded = Date.now() - started;
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: `Answer ${TURNS}:`, timeoutMs: 120_000 });
      const shown = Date.now() - started;
      const blocks = await ui<number>('chat.eval', { expression: `document.querySelectorAll('#log > .block[data-key^="item:"]').length` });
      assert(blocks === 2 * TURNS, `a place for every question and answer in the panel, got ${blocks}`);
      const drawn = await ui<number>('chat.eval', { expression: `document.querySelectorAll('#log .msg.agent').length` });

      // It opens at its end, as a thread does: the last answer in view.
      await waitFor('the last answer in view', () => ui<boolean>('chat.eval', { expression: LAST_IN_VIEW }), 30_000);
      // The rest is drawn while the page is idle.
      const allDrawn = `document.querySelectorAll('#log .msg.agent').length === ${TURNS}`;
      await waitFor('every answer drawn', () => ui<boolean>('chat.eval', { expression: allDrawn }), 120_000);
      const idle = Date.now() - started;
      const scrolled = await ui<Scrolled>('chat.eval', { expression: SCROLL_UP });
      log(
        `long thread: ${TURNS} turns: in the extension after ${loaded} ms, last answer shown after ${shown} ms ` +
          `(${drawn} of the ${TURNS} answers drawn then, all after ${idle} ms); ` +
          `scrolled to its start in ${scrolled.frames} frames of ${scrolled.height} px: ` +
          `frame median ${scrolled.median} ms, 95th percentile ${scrolled.p95} ms, longest ${scrolled.max} ms`,
      );
      // The earliest turns were drawn as the scroll came near them.
      await ui('chat.waitFor', { selector: '#log .msg.user', text: 'Question 1:' });
      assert(await ui<boolean>('chat.inView', { selector: '#log .msg.user' }), 'the first question in view after scrolling up');
      await ui('screenshot', { name: 'long-thread' });
    },
  },
];
