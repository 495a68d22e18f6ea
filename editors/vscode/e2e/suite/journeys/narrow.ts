/**
 * The panel at VS Code's narrowest side bar (170 px): a wide table and a long code line scroll
 * sideways inside the answer, and a code block's buttons stay within reach.
 */

import { assert, enqueue, freshThread, type Journey, turnFinished, ui } from '../support';

/** How `selector`'s first element sits in the panel: its overflow, scroll and right edge. */
const MEASURE = (selector: string) => `(() => {
  const el = document.querySelector(${JSON.stringify(selector)});
  if (!el) return null;
  const before = el.scrollLeft;
  el.scrollLeft = el.scrollWidth;
  const scrolled = el.scrollLeft > before;
  el.scrollLeft = before;
  return { overflows: el.scrollWidth > el.clientWidth, scrolled, right: el.getBoundingClientRect().right, width: document.documentElement.clientWidth };
})()`;

interface Measure {
  overflows: boolean;
  scrolled: boolean;
  right: number;
  width: number;
}

export const narrowJourneys: Journey[] = [
  {
    name: 'narrow panel: at 170 px a wide table and a long code line scroll sideways, and the code buttons stay in view',
    screenshot: 'narrow-panel',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await ui('page.resizeSidebar', { width: 100 });
      try {
        const width = await ui<number>('chat.eval', { expression: 'document.documentElement.clientWidth' });
        assert(width <= 200, `the side bar at its narrowest, got ${width}px`);
        await enqueue(ctx, 'wideMarkdown');
        await ui('chat.send', { text: 'Show the wide table' });
        await turnFinished(api, threadId);
        await ui('chat.waitFor', { selector: '#log .msg.agent table', text: 'nobody-in-particular' });
        for (const selector of ['#log .msg.agent table', '#log .code-block pre']) {
          const m = await ui<Measure | null>('chat.eval', { expression: MEASURE(selector) });
          assert(m, `${selector} is shown`);
          assert(m.overflows && m.scrolled, `${selector} scrolls sideways: ${JSON.stringify(m)}`);
          assert(m.right <= m.width + 1, `${selector} ends inside the panel: ${JSON.stringify(m)}`);
        }
        const buttons = await ui<number[]>('chat.eval', {
          expression: 'Array.from(document.querySelectorAll("#log .code-block button")).map((b) => b.getBoundingClientRect().right - document.documentElement.clientWidth)',
        });
        assert(buttons.length >= 3 && buttons.every((past) => past <= 1), `every code button in view, got ${JSON.stringify(buttons)}`);
        await ui('screenshot', { name: 'narrow-panel' });
      } finally {
        await ui('page.resizeSidebar', { width: 300 });
      }
    },
  },
];
