import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatCount, formatRateLimits, formatTokenUsage } from '../shared/format';
import { renderChips, renderConversation, renderItem, renderNotices, renderThreadList, renderToolbar, renderUsage, shortPath } from '../shared/render';
import type { RateLimits, ThreadItem, TokenUsage } from '../shared/protocol';
import { type Action, initialState, reduce } from '../shared/state';
import { notification, request, sparse } from './wire';

const EVIL = '<img src=x onerror=alert(1)>"\'';

/** No tag or event-handler attribute from the text got through. Quoted attribute values are
 * blanked first: escaping keeps a `"` from ever ending one early. */
function noRawMarkup(html: string) {
  const outsideValues = html.replace(/"[^"]*"/g, '""');
  assert.doesNotMatch(outsideValues, /<img|<script/i);
  assert.doesNotMatch(outsideValues, /<[^>]*\son\w+=/i);
}

describe('renderItem', () => {
  it('escapes user text, command lines and output', () => {
    noRawMarkup(renderItem({ type: 'userMessage', id: 'u', content: [{ type: 'text', text: EVIL }] }));
    const cmd = renderItem({ type: 'commandExecution', id: 'c', command: EVIL, aggregatedOutput: EVIL, status: 'completed', exitCode: 2 });
    noRawMarkup(cmd);
    assert.match(cmd, /finished, exit 2/);
  });

  it('names the agent a subagent activity is about, and a wait for agents', () => {
    const spawned = renderItem({ type: 'subAgentActivity', id: 'r1', kind: 'started', agentThreadId: 't', agentPath: '/root/helper', model: 'gpt-5.5', reasoningEffort: 'medium' } as ThreadItem);
    assert.match(spawned, /Spawned agent <code>\/root\/helper<\/code> \(gpt-5\.5\)/);
    const done = renderItem({ type: 'subAgentActivity', id: 'x', kind: 'completed', agentThreadId: 't', agentPath: EVIL, model: null, reasoningEffort: null } as ThreadItem);
    assert.match(done, /Finished: agent/);
    noRawMarkup(done);
    const wait = renderItem({ type: 'collabAgentToolCall', id: 'r2', tool: 'wait', status: 'inProgress', senderThreadId: 't', receiverThreadIds: [], prompt: null, model: null, reasoningEffort: null, agentsStates: {} } as ThreadItem, { running: true });
    assert.match(wait, /Wait for agents <span class="status">running<\/span>/);
  });

  it('renders agent text as Markdown', () => {
    assert.match(renderItem({ type: 'agentMessage', id: 'a', text: '**hi**' }), /<strong>hi<\/strong>/);
  });

  it('renders file changes as coloured, escaped diffs with an Open diff button', () => {
    const html = renderItem({
      type: 'fileChange',
      id: 'f',
      status: 'inProgress',
      changes: [{ path: '/w/a.py', kind: { type: 'update' }, diff: `@@ -1 +1 @@\n-old\n+${EVIL}\n` }],
    });
    noRawMarkup(html);
    assert.match(html, /class="d-add"/);
    assert.match(html, /class="d-del"/);
    assert.match(html, /data-action="openDiff" data-item="f" data-index="0"/);
  });

  it('shows paths under the thread cwd relative, and only file names when a request shows the diff', () => {
    const item = sparse<ThreadItem>({ type: 'fileChange', id: 'f', status: 'inProgress', changes: [{ path: '/w/src/a.py', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-a\n+b\n' }] });
    assert.match(renderItem(item, { cwd: '/w' }), /<code title="\/w\/src\/a.py">M src\/a.py<\/code>/);
    assert.doesNotMatch(renderItem(item, { cwd: '/w', compact: true }), /class="diff"/);
    assert.equal(shortPath('/other/a.py', '/w'), '/other/a.py');
  });

  it('keeps a status out of class attributes when it is odd', () => {
    const html = renderItem(sparse<ThreadItem>({ type: 'commandExecution', id: 'c', command: 'x', status: '" onclick="x' }));
    assert.match(html, /class="cmd status-onclickx"/);
  });
});

describe('renderConversation', () => {
  const actions: Action[] = [
    { type: 'open', thread: { id: 't', preview: EVIL, turns: [] } },
    notification('turn/started', { threadId: 't', turn: { id: 'u' } }),
    notification('item/started', { threadId: 't', turnId: 'u', item: { type: 'commandExecution', id: 'c1', command: 'rm -rf build', cwd: '/w', status: 'inProgress' } }),
    request('k1', 'item/commandExecution/requestApproval', { threadId: 't', turnId: 'u', itemId: 'c1', reason: EVIL }),
    request('k2', 'item/tool/requestUserInput', { threadId: 't', turnId: 'u', itemId: 'q', questions: [{ id: 'color', header: 'Pick', question: EVIL, options: [{ label: 'Red', description: 'warm' }, { label: EVIL, description: '' }] }] }),
    notification('turn/plan/updated', { threadId: 't', turnId: 'u', plan: [{ step: 'Look', status: 'completed' }, { step: 'Fix', status: 'inProgress' }] }),
  ];
  const state = actions.reduce(reduce, initialState());
  const blocks = renderConversation(state);
  const html = blocks.map((b) => b.html).join('');

  it('has unique keys', () => {
    assert.equal(new Set(blocks.map((b) => b.key)).size, blocks.length);
  });

  it('shows the approval with its four decisions', () => {
    assert.match(html, /Run this command\?/);
    assert.match(html, /\$ rm -rf build/);
    for (const d of ['accept', 'acceptForSession', 'decline', 'cancel']) {
      assert.match(html, new RegExp(`data-action="decide" data-key="k1" data-decision="${d}"`));
    }
  });

  it('shows questions with their options, escaped', () => {
    assert.match(html, /type="radio" name="q-k2-0" value="Red" checked/);
    noRawMarkup(html);
  });

  it('shows the plan and the running state', () => {
    assert.match(html, /class="plan"/);
    assert.match(html, /<div class="working waiting"[^>]*>Waiting for approval<\/div>/);
  });

  it('shows an empty state without a conversation', () => {
    assert.equal(renderConversation(initialState())[0].key, 'empty');
  });
});

describe('toolbar, thread list, usage', () => {
  it('marks the selected model and policy', () => {
    const s = [
      { type: 'models', models: [{ id: 'gpt-x', displayName: 'GPT X' }, { id: 'hidden', hidden: true }] },
      { type: 'select', model: 'gpt-x', approvalPolicy: 'never' },
    ].reduce((acc, a) => reduce(acc, a as Action), initialState());
    const html = renderToolbar(s);
    assert.match(html, /<option value="gpt-x" selected>GPT X<\/option>/);
    assert.doesNotMatch(html, /hidden/);
    assert.match(html, /<option value="never" selected>/);
  });

  it('offers the approval policies v2 takes', () => {
    const html = renderToolbar(initialState());
    const offered = [...html.matchAll(/<option value="([^"]+)"[^>]*>Approvals:/g)].map((m) => m[1]);
    assert.deepEqual(offered, ['untrusted', 'on-request', 'never']);
  });

  it('offers the modes, Agent first chosen, with approvals by mode even when configured', () => {
    const html = renderToolbar(initialState());
    const modes = [...html.matchAll(/<option value="(chat|agent|full|plan)"[^>]*?( selected)?>([^<]+)</g)].map((m) => `${m[3]}${m[2] ? '*' : ''}`);
    assert.deepEqual(modes, ['Chat', 'Agent*', 'Full access', 'Plan']);
    assert.match(html, /Approvals: on-request \(Agent mode\)/);
    const full = reduce(initialState(), { type: 'select', mode: 'full' });
    assert.match(renderToolbar(full), /Approvals: never \(Full access mode\)/);
    const configured = reduce(full, { type: 'configured', approvalPolicy: 'untrusted' });
    assert.match(renderToolbar(configured), /<option value="" selected>Approvals: never \(Full access mode\)/);
    assert.match(renderToolbar(configured), /the mode&#39;s replaces config.toml&#39;s approval_policy \(untrusted\)/);
    assert.equal(reduce(initialState(), { type: 'select', mode: 'bogus' }).mode, 'agent');
  });

  it('leaves an answer\'s proposed plan to its plan item', () => {
    const text = 'Here is the plan.\n<proposed_plan>\n1. Add a file\n</proposed_plan>';
    const planned = renderItem({ type: 'agentMessage', id: 'a', text }, { planned: true });
    assert.match(planned, /Here is the plan\./);
    assert.doesNotMatch(planned, /proposed_plan|Add a file/);
    assert.match(renderItem({ type: 'agentMessage', id: 'a', text }), /Add a file/);
  });

  it('says statuses in words, and a change left in progress by an ended turn was stopped', () => {
    const change: ThreadItem = { type: 'fileChange', id: 'f', status: 'inProgress', changes: [] };
    assert.match(renderItem(change, { running: true }), /<span class="status">running<\/span>/);
    const stopped = renderItem(change, { running: false });
    assert.match(stopped, /class="files status-stopped"/);
    assert.match(stopped, /<span class="status">stopped<\/span>/);
    assert.match(renderItem({ ...change, status: 'completed' }), /<span class="status">applied<\/span>/);
    assert.doesNotMatch(renderItem({ type: 'commandExecution', id: 'c', command: 'ls', status: 'inProgress' }), /inProgress<\/span>/);
  });

  it('shows why a declined file change did not land', () => {
    const html = renderItem({ type: 'fileChange', id: 'f', status: 'declined', changes: [], output: `patch rejected: ${EVIL}` });
    noRawMarkup(html);
    assert.match(html, /<pre class="files-out">patch rejected: /);
  });

  it('lists threads with open and archive actions, escaped', () => {
    const s = reduce(initialState(), { type: 'threads', threads: [{ id: 'a"b', preview: EVIL, updatedAt: 0 }] });
    const html = renderThreadList(s);
    noRawMarkup(html);
    assert.match(html, /data-action="resume" data-thread="a&quot;b"/);
    assert.match(html, /data-action="archive"/);
  });

  it('formats usage and rate limits', () => {
    assert.equal(formatCount(999), '999');
    assert.equal(formatCount(1234), '1.2k');
    assert.equal(formatCount(25_000), '25k');
    assert.equal(formatTokenUsage(sparse<TokenUsage>({ total: { totalTokens: 1500 }, last: { totalTokens: 300 }, modelContextWindow: 3000 })), '1.5k tokens (300 last turn, 10% of context)');
    assert.equal(formatRateLimits(sparse<RateLimits>({ primary: { usedPercent: 12, windowDurationMins: 300 }, secondary: { usedPercent: 3.4, windowDurationMins: 10080 } })), '12% of 5h, 3% of weekly');
    const s = reduce(initialState(), notification('account/rateLimits/updated', { rateLimits: { primary: { usedPercent: 50 } } }));
    assert.match(renderUsage(s), /rate limits: 50% of primary/);
  });
});

describe('what the extension adds to the panel', () => {
  it('names the configured model and effort, the mode\'s policy, and offers the model\'s efforts', () => {
    const s = [
      { type: 'configured', model: 'gpt-5.4', approvalPolicy: 'untrusted' },
      { type: 'models', models: [{ id: 'gpt-5.4', supportedReasoningEfforts: [{ reasoningEffort: 'low' }, { reasoningEffort: 'high' }], defaultReasoningEffort: 'high' }] },
    ].reduce((acc, a) => reduce(acc, a as Action), initialState());
    const html = renderToolbar(s);
    assert.match(html, /<option value="" selected>Model: as configured \(gpt-5.4\)<\/option>/);
    assert.match(html, /<option value="" selected>Effort: high \(as configured\)<\/option><option value="low">Effort: low<\/option><option value="high">Effort: high<\/option><\/select>/);
    assert.match(html, /Approvals: on-request \(Agent mode\)/);
  });

  it('shows a failed server\'s own output with ways out', () => {
    const s = reduce(initialState(), { type: 'server', state: 'error', message: 'exited, exit code 2.', output: `usage: x\n${EVIL}`, exitCode: 2 });
    const html = renderNotices(s);
    noRawMarkup(html);
    assert.match(html, /<pre class="server-output">usage: x/);
    for (const action of ['openSettings', 'restart', 'showLog']) assert.match(html, new RegExp(`data-action="${action}"`));
  });

  it('lists threads with rename, archive and delete', () => {
    const html = renderThreadList(reduce(initialState(), { type: 'threads', threads: [{ id: 't', name: 'Named' }] }));
    for (const action of ['resume', 'rename', 'archive', 'delete']) assert.match(html, new RegExp(`data-action="${action}" data-thread="t"`));
  });

  it('says a review is over once its turn is, and links its findings to the files', () => {
    const entered: ThreadItem = { type: 'enteredReviewMode', id: 'r', review: 'current changes' };
    assert.match(renderItem(entered, { running: true }), /Reviewing current changes…/);
    assert.match(renderItem(entered, { running: false }), /Reviewed current changes/);
    const review = renderItem({ type: 'exitedReviewMode', id: 'x', review: '- [P1] Bad — /w/a.py:2-2\n  why' }, { cwd: '/w' });
    assert.match(review, /<a class="file-link" href="#" data-action="openFile" data-path="\/w\/a.py" data-line="2" title="\/w\/a.py">a.py:2<\/a>/);
  });

  it('shows attached context as removable chips, escaped', () => {
    const s = reduce(initialState(), { type: 'attach', attachment: { id: 'x', kind: 'selection', label: EVIL, path: '/w/a.py' } });
    const html = renderChips(s);
    noRawMarkup(html);
    assert.match(html, /data-action="detach" data-id="x"/);
  });
});

describe('a server that sends every absent field as null', () => {
  it('renders items, threads and requests without "null" or a crash', () => {
    const nulls = { text: null, summary: null, command: null, cwd: null, aggregatedOutput: null, exitCode: null, changes: null, review: null, content: null, error: null, status: null };
    for (const type of ['userMessage', 'agentMessage', 'reasoning', 'commandExecution', 'fileChange', 'enteredReviewMode', 'exitedReviewMode', 'plan']) {
      const html = renderItem({ type, id: 'x', ...nulls } as unknown as Parameters<typeof renderItem>[0], { cwd: undefined, running: false });
      assert.doesNotMatch(html, /null|undefined/, `${type}: ${html}`);
    }
    let s = reduce(initialState(), { type: 'threads', threads: [{ id: 't', name: null, preview: null, cwd: null } as unknown as { id: string }] });
    assert.doesNotMatch(renderThreadList(s), /null/);
    s = reduce(s, { type: 'open', thread: { id: 't', name: null, cwd: null, turns: [{ id: 'u', status: 'inProgress', items: null, error: null }] } as unknown as { id: string } });
    s = reduce(s, request('k', 'item/fileChange/requestApproval', { threadId: 't', turnId: 'u', itemId: 'f', reason: null, grantRoot: null, changes: null, availableDecisions: null }));
    const html = renderConversation(s).map((b) => b.html).join('');
    assert.doesNotMatch(html, /null/);
    assert.match(html, /Apply the proposed change\?/);
  });
});

describe('the user message', () => {
  it('shows what the user wrote, and names what they attached under it', () => {
    const html = renderItem({
      type: 'userMessage',
      id: 'u',
      content: [
        { type: 'text', text: 'Why?' },
        { type: 'text', text: 'Context: a.py, line 2' },
        { type: 'mention', name: 'b.py', path: '/w/b.py' },
      ],
    });
    assert.match(html, /<div class="text">Why\?<\/div><div class="refs"><span class="ref">Context: a.py, line 2<\/span><span class="ref">\[mention: b.py\]<\/span><\/div>/);
  });
});
