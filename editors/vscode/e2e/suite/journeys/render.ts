/**
 * How far the panel's rendering falls behind a long stream: answers of 4.7 KB and 50 KB in
 * 2,000 deltas, timed from the model's last delta (its wall clock, written in the answer) to
 * the moment the answer's final sentence is in the panel. Printed, not asserted: the figure
 * depends on the machine's load.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { assert, enqueue, freshThread, type Journey, log, turnFinished, ui, waitFor } from '../support';

/** The first half of the `crash` script's answer (tests/support/vscode_scripts.py). */
const CRASH_FIRST = 'The first half of an answer that a crash cuts short';

/** The pid and parent pid of every process, from /proc. */
function processes(): Array<{ pid: string; ppid: string; cmdline: string }> {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      found.push({ pid, ppid: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1], cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * Kill (SIGKILL) the server the extension talks to: the process it started, and the session
 * the warm per-user server forked for it (found from that server's log in the runtime
 * directory the suite gives the server).
 */
function killServer(): number {
  const env = vscode.workspace.getConfiguration('codexChat').get<Record<string, string>>('serverEnv') ?? {};
  const logs = path.join(env.XDG_RUNTIME_DIR ?? '', 'codex-lsp');
  const parents = new Set<string>([String(process.pid)]);
  for (const name of fs.existsSync(logs) ? fs.readdirSync(logs) : []) {
    if (!name.endsWith('.log')) continue;
    for (const line of fs.readFileSync(path.join(logs, name), 'utf8').split('\n')) {
      if (line.includes(' serving ')) parents.add(line.split(/\s+/)[2]);
    }
  }
  const doomed = processes().filter((p) => parents.has(p.ppid) && /codex[-_]lsp/.test(p.cmdline));
  for (const p of doomed) process.kill(Number(p.pid), 'SIGKILL');
  return doomed.length;
}

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
  // When the last delta reached the page, to tell delivery from rendering; and in how many
  // messages the stream came.
  seen.messages = 0;
  window.addEventListener('message', (event) => {
    if (event.data && event.data.type === 'actions' && !seen.arrived) seen.messages += 1;
    if (!seen.arrived && JSON.stringify(event.data).includes('The stream ended at')) seen.arrived = Date.now();
  });
  return true;
})()`;

interface Clock {
  clock: number;
  shown: number;
}

async function measure(api: Parameters<Journey['run']>[0], ctx: Parameters<Journey['run']>[1], scenario: string, label: string) {
  const threadId = await freshThread(api);
  await ui('chat.eval', { expression: WATCH });
  // When the last delta reached the extension host, to tell the server's part from the panel's.
  let inHost = 0;
  const watching = api.store.onDidChange(({ action }) => {
    if (!inHost && action.type === 'notify' && JSON.stringify(action.params).includes('The stream ended at')) inHost = Date.now();
  });
  await enqueue(ctx, scenario);
  await ui('chat.send', { text: `Explain the module at length (${label})` });
  await turnFinished(api, threadId);
  const clocks = await waitFor('the final sentence in the panel', async () => {
    const seen = await ui<Record<string, Clock>>('chat.eval', { expression: 'window.__codexClocks' });
    return seen?.began && seen?.ended ? seen : undefined;
  }, 120_000);
  watching.dispose();
  const stream = clocks.ended.clock - clocks.began.clock;
  const behind = clocks.ended.shown - clocks.ended.clock;
  const share = stream > 0 ? ((100 * behind) / stream).toFixed(1) : '?';
  const arrived = (clocks.arrived as unknown as number) - clocks.ended.clock;
  const messages = clocks.messages as unknown as number;
  log(
    `rendering: ${label} answer in 2,000 deltas: stream ${stream} ms; final sentence shown ${behind} ms after ` +
      `the last delta (${share}% of the stream; it reached the extension host after ${inHost - clocks.ended.clock} ms, ` +
      `the page after ${arrived} ms, in ${messages} messages)`,
  );
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
  {
    name: 'crash: a server killed mid-answer keeps the streamed text and says so, with Restart',
    screenshot: 'crash-mid-answer',
    async run(api, ctx) {
      await freshThread(api);
      await enqueue(ctx, 'crash');
      await ui('chat.send', { text: 'Start an answer' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: CRASH_FIRST });
      assert(killServer() > 0, 'found no server process to kill');
      await ui('chat.waitFor', { selector: '#log .turn-end.crashed', text: 'The Codex server stopped during this answer' });
      await waitFor('the server to come back', () => api.store.state.server.state === 'ready', 120_000);
      // The restarted server resumes the thread; its record has no text of the cut answer.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: CRASH_FIRST });
      await ui('chat.waitFor', { selector: '#log .turn-end.crashed button[data-action="restart"]' });
      const stopped = await ui<string[]>('chat.query', { selector: '#log .turn-end.interrupted' });
      assert(stopped.length === 0, `not shown as stopped by the user, got ${JSON.stringify(stopped)}`);
      await ui('chat.waitFor', { absent: '.working' });
      await ui('screenshot', { name: 'crash-mid-answer' });
    },
  },
];
