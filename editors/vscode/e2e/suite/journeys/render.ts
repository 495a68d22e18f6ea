/**
 * How far the panel's rendering falls behind a long stream: answers of 4.7 KB and 50 KB in
 * 2,000 deltas, timed from the model's last delta (its wall clock, written in the answer) to
 * the moment the answer's final sentence is in the panel. Printed, not asserted: the figure
 * depends on the machine's load.
 */

import { assert, enqueue, freshThread, type Journey, log, turnFinished, ui, waitFor } from '../support';

/** Put in the page before the turn starts: notes when each clock sentence first shows. */
const WATCH = `(() => {
  const seen = (window.__codexClocks = {});
  const log = document.getElementById('log');
  const look = () => {
    const text = log.textContent || '';
    for (const [key, re] of [['began', /The stream began at (\\d+) ms\\./], ['ended', /The stream ended at (\\d+) ms\\./]]) {
      const found = !seen[key] && re.exec(text);
      if (found) seen[key] = { clock: Number(found[1]), shown: Date.now() };
    }
  };
  new MutationObserver(look).observe(log, { childList: true, subtree: true, characterData: true });
  return true;
})()`;

interface Clock {
  clock: number;
  shown: number;
}

async function measure(api: Parameters<Journey['run']>[0], ctx: Parameters<Journey['run']>[1], scenario: string, label: string) {
  const threadId = await freshThread(api);
  await ui('chat.eval', { expression: WATCH });
  await enqueue(ctx, scenario);
  await ui('chat.send', { text: `Explain the module at length (${label})` });
  await turnFinished(api, threadId);
  const clocks = await waitFor('the final sentence in the panel', async () => {
    const seen = await ui<Record<string, Clock>>('chat.eval', { expression: 'window.__codexClocks' });
    return seen?.began && seen?.ended ? seen : undefined;
  }, 120_000);
  const stream = clocks.ended.clock - clocks.began.clock;
  const behind = clocks.ended.shown - clocks.ended.clock;
  const share = stream > 0 ? ((100 * behind) / stream).toFixed(1) : '?';
  log(`rendering: ${label} answer in 2,000 deltas: stream ${stream} ms; final sentence shown ${behind} ms after the last delta (${share}% of the stream)`);
  // The settled answer is rendered as before: Markdown, highlighted code and file links.
  const code = await ui<string[]>('chat.query', { selector: '#log .msg.agent pre.hljs code .hljs-keyword' });
  assert(code.includes('def'), `highlighted code in the answer, got ${JSON.stringify(code.slice(0, 3))}`);
  const links = await ui<string[]>('chat.query', { selector: '#log .msg.agent a.file-link' });
  assert(links.some((l) => l.startsWith('review_me.py:2')), `file links in the answer, got ${JSON.stringify(links.slice(0, 3))}`);
  const items = await ui<string[]>('chat.query', { selector: '#log .msg.agent li' });
  assert(items.some((l) => l.includes('item 3a')), `lists in the answer, got ${JSON.stringify(items.slice(0, 3))}`);
}

export const renderJourneys: Journey[] = [
  {
    name: 'rendering: long answers in 2,000 deltas keep up with the stream',
    screenshot: 'render-long-answer',
    async run(api, ctx) {
      await measure(api, ctx, 'stream5k', '4.7 KB');
      await measure(api, ctx, 'stream50k', '50 KB');
      await ui('screenshot', { name: 'render-long-answer' });
    },
  },
];
