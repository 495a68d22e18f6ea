import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FollowedMethod, followedNotification } from '../shared/protocol';
import { type Action, type ChatState, initialState, MAX_NOTICES, MAX_OUTPUT_CHARS, reduce, visibleRequests } from '../shared/state';
import { renderConversation } from '../shared/render';
import { fields, notification, request } from './wire';

function run(actions: Action[], start: ChatState = initialState()): ChatState {
  return actions.reduce(reduce, start);
}

const open: Action = { type: 'open', thread: { id: 't1', preview: 'hello there', turns: [] } };
const n = (method: FollowedMethod, params: Record<string, unknown>): Action => notification(method, { threadId: 't1', ...params });

describe('reduce: a streamed turn', () => {
  it('shows the sent text at once, then the server copy replaces it', () => {
    let s = run([open, { type: 'userText', text: 'hi' }]);
    assert.deepEqual(s.conversation!.pendingUserTexts, ['hi']);
    s = run([n('turn/started', { turn: { id: 'u1', status: 'inProgress', items: [] } })], s);
    const turn = s.conversation!.turns[0];
    assert.equal(s.conversation!.runningTurnId, 'u1');
    assert.equal(s.conversation!.pendingUserTexts.length, 0);
    assert.equal(turn.items[0].type, 'userMessage');
    assert.ok(turn.items[0].id.startsWith('local-'));
    s = run([n('item/started', { turnId: 'u1', item: { type: 'userMessage', id: 'um', content: [{ type: 'text', text: 'hi' }] } })], s);
    assert.deepEqual(s.conversation!.turns[0].items.map((i) => i.id), ['um']);
  });

  it('appends agent message deltas and keeps the text on completion', () => {
    const s = run([
      open,
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      n('item/agentMessage/delta', { turnId: 'u1', itemId: 'm1', delta: 'Hel' }),
      n('item/agentMessage/delta', { turnId: 'u1', itemId: 'm1', delta: 'lo' }),
      n('item/completed', { turnId: 'u1', item: { type: 'agentMessage', id: 'm1', text: '' } }),
      n('turn/completed', { turn: { id: 'u1', status: 'completed' } }),
    ]);
    const items = s.conversation!.turns[0].items;
    assert.equal(items.length, 1);
    assert.equal(fields(items[0]).text, 'Hello');
    assert.equal(s.conversation!.turns[0].status, 'completed');
    assert.equal(s.conversation!.runningTurnId, undefined);
  });

  it('streams command output and merges the sparse completed item', () => {
    const s = run([
      open,
      n('item/started', { turnId: 'u1', item: { type: 'commandExecution', id: 'c1', command: 'ls', status: 'inProgress' } }),
      n('item/commandExecution/outputDelta', { turnId: 'u1', itemId: 'c1', delta: 'a\n' }),
      n('item/commandExecution/outputDelta', { turnId: 'u1', itemId: 'c1', delta: 'b\n' }),
      n('item/completed', { turnId: 'u1', item: { type: 'commandExecution', id: 'c1', status: 'completed', exitCode: 0, aggregatedOutput: null } }),
    ]);
    const item = fields(s.conversation!.turns[0].items[0]);
    assert.equal(item.command, 'ls');
    assert.equal(item.aggregatedOutput, 'a\nb\n');
    assert.equal(item.status, 'completed');
    assert.equal(item.exitCode, 0);
  });

  it('keeps only the tail of a very long output', () => {
    const big = 'x'.repeat(MAX_OUTPUT_CHARS);
    const s = run([
      open,
      n('item/commandExecution/outputDelta', { turnId: 'u1', itemId: 'c1', delta: big }),
      n('item/commandExecution/outputDelta', { turnId: 'u1', itemId: 'c1', delta: 'END' }),
    ]);
    const out = String(fields(s.conversation!.turns[0].items[0]).aggregatedOutput);
    assert.ok(out.length <= MAX_OUTPUT_CHARS + 1);
    assert.ok(out.endsWith('END'));
  });

  it('builds reasoning summaries by index', () => {
    const s = run([
      open,
      n('item/reasoning/summaryPartAdded', { turnId: 'u1', itemId: 'r1', summaryIndex: 1 }),
      n('item/reasoning/summaryTextDelta', { turnId: 'u1', itemId: 'r1', summaryIndex: 1, delta: 'think' }),
    ]);
    assert.deepEqual(fields(s.conversation!.turns[0].items[0]).summary, ['', 'think']);
  });

  it('tracks the plan, the diff and token usage', () => {
    const usage = { total: { totalTokens: 1500 }, last: { totalTokens: 300 }, modelContextWindow: 3000 };
    const s = run([
      open,
      n('turn/plan/updated', { turnId: 'u1', explanation: 'why', plan: [{ step: 'one', status: 'completed' }] }),
      n('turn/diff/updated', { turnId: 'u1', diff: '--- a\n+++ b\n' }),
      n('thread/tokenUsage/updated', { turnId: 'u1', tokenUsage: usage }),
    ]);
    assert.equal(s.conversation!.plan!.steps[0].step, 'one');
    assert.equal(s.conversation!.diff, '--- a\n+++ b\n');
    assert.deepEqual(s.conversation!.tokenUsage, usage);
    assert.deepEqual(s.tokenUsage, usage);
  });

  it('ignores notifications for other threads, but keeps global usage', () => {
    const before = run([open]);
    const after = run([notification('item/agentMessage/delta', { threadId: 'other', turnId: 'x', itemId: 'm', delta: 'no' })], before);
    assert.equal(after, before);
  });

  it('marks failed and interrupted turns', () => {
    const s = run([
      open,
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      n('turn/completed', { turn: { id: 'u1', status: 'failed', error: { message: 'boom' } } }),
    ]);
    assert.equal(s.conversation!.turns[0].status, 'failed');
    assert.equal(s.conversation!.turns[0].error, 'boom');
  });

  it('does not copy unchanged turns (the renderer relies on identity)', () => {
    const s1 = run([
      open,
      n('item/agentMessage/delta', { turnId: 'u1', itemId: 'm1', delta: 'a' }),
      n('item/agentMessage/delta', { turnId: 'u2', itemId: 'm2', delta: 'b' }),
    ]);
    const s2 = reduce(s1, n('item/agentMessage/delta', { turnId: 'u2', itemId: 'm2', delta: 'c' }));
    assert.equal(s2.conversation!.turns[0], s1.conversation!.turns[0]);
    assert.notEqual(s2.conversation!.turns[1], s1.conversation!.turns[1]);
  });
});

describe('reduce: threads, requests, notices', () => {
  it('opens a resumed thread with its turns and a running turn', () => {
    const s = run([
      {
        type: 'open',
        thread: {
          id: 't9',
          name: 'Named',
          turns: [
            { id: 'a', status: 'completed', items: [{ type: 'agentMessage', id: 'm', text: 'old' }] },
            { id: 'b', status: 'inProgress', items: [] },
          ],
        },
      },
    ]);
    assert.equal(s.conversation!.title, 'Named');
    assert.equal(s.conversation!.runningTurnId, 'b');
    assert.equal(s.threads[0].id, 't9');
    assert.equal(s.threads[0].turns, undefined, 'the list keeps summaries only');
  });

  it('keeps the thread on screen in a refreshed list that lacks it', () => {
    const s = run([open, { type: 'threads', threads: [{ id: 'old', preview: 'x' }] }]);
    assert.deepEqual(s.threads.map((t) => t.id), ['t1', 'old']);
    const again = reduce(s, { type: 'threads', threads: [{ id: 'old' }, { id: 't1' }] });
    assert.deepEqual(again.threads.map((t) => t.id), ['old', 't1']);
  });

  it('drops archived threads and closes the conversation showing one', () => {
    const s = run([open, n('thread/archived', {})]);
    assert.equal(s.threads.length, 0);
    assert.equal(s.conversation, undefined);
  });

  it('adds and removes pending requests, and drops them when their turn ends', () => {
    let s = run([
      open,
      request('r1', 'item/commandExecution/requestApproval', { threadId: 't1', turnId: 'u1', itemId: 'c1' }),
      request('r2', 'item/tool/requestUserInput', { threadId: 't1', turnId: 'u2', itemId: 'q', questions: [] }),
    ]);
    assert.deepEqual(s.requests.map((r) => r.key), ['r1', 'r2']);
    s = reduce(s, { type: 'requestDone', key: 'r2' });
    assert.deepEqual(s.requests.map((r) => r.key), ['r1']);
    s = reduce(s, n('turn/completed', { turn: { id: 'u1', status: 'interrupted' } }));
    assert.equal(s.requests.length, 0);
  });

  it('shows the requests of an agent the conversation spawned, which asks on its own thread', () => {
    const spawned = { type: 'subAgentActivity', id: 'r1', kind: 'started', agentThreadId: 'child', agentPath: '/root/helper' };
    let s = run([
      open,
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      request('r1', 'item/commandExecution/requestApproval', { threadId: 'child', turnId: 'k1', itemId: 'c1' }),
      request('r2', 'item/commandExecution/requestApproval', { threadId: 'stranger', turnId: 'k2', itemId: 'c2' }),
    ]);
    assert.deepEqual(visibleRequests(s).map((r) => r.key), []);
    s = reduce(s, n('item/completed', { turnId: 'u1', item: spawned }));
    assert.deepEqual(visibleRequests(s).map((r) => r.key), ['r1']);
    s = reduce(s, notification('turn/completed', { threadId: 'child', turn: { id: 'k1', status: 'completed' } }));
    assert.deepEqual(visibleRequests(s).map((r) => r.key), []);
  });

  it('merges sparse rate-limit updates', () => {
    const s = run([
      notification('account/rateLimits/updated', { rateLimits: { primary: { usedPercent: 10 }, secondary: { usedPercent: 2 } } }),
      notification('account/rateLimits/updated', { rateLimits: { primary: { usedPercent: 12 } } }),
    ]);
    assert.deepEqual(s.rateLimits, { primary: { usedPercent: 12 }, secondary: { usedPercent: 2 } });
  });

  it('takes a notification that came without params as one with no fields', () => {
    const s = run([
      { type: 'notify', ...followedNotification('account/rateLimits/updated', null) },
      { type: 'notify', ...followedNotification('warning', undefined) },
    ]);
    assert.deepEqual(s.rateLimits, {});
    assert.equal(s.notices.at(-1)?.kind, 'warning');
  });

  it('keeps the last few notices, errors and retries apart', () => {
    let s = initialState();
    for (let i = 0; i < MAX_NOTICES + 2; i++) {
      s = reduce(s, notification('error', { error: { message: `e${i}` }, willRetry: i === 0 }));
    }
    assert.equal(s.notices.length, MAX_NOTICES);
    assert.equal(s.notices.at(-1)!.text, `e${MAX_NOTICES + 1}`);
    s = reduce(s, { type: 'dismissNotice', id: s.notices[0].id });
    assert.equal(s.notices.length, MAX_NOTICES - 1);
    const retry = reduce(initialState(), notification('error', { error: { message: 'slow' }, willRetry: true }));
    assert.equal(retry.notices[0].kind, 'warning');
  });

  it('clears error banners when a turn succeeds, a thread opens or the server is back', () => {
    const failed = run([open, n('error', { error: { message: 'boom' }, willRetry: false })]);
    assert.equal(failed.notices.length, 1);
    const failedTurn = run([n('turn/completed', { turn: { id: 'u1', status: 'failed', items: [] } })], failed);
    assert.equal(failedTurn.notices.length, 1, 'a failed turn keeps its banner');
    const ok = run([n('turn/completed', { turn: { id: 'u2', status: 'completed', items: [] } })], failed);
    assert.equal(ok.notices.length, 0);
    assert.equal(run([{ type: 'open', thread: { id: 't2', turns: [] } }], failed).notices.length, 0);
    assert.equal(run([{ type: 'server', state: 'ready' }], failed).notices.length, 0);
    assert.equal(run([{ type: 'server', state: 'stopped' }], failed).notices.length, 1);
  });
});

describe('reduce: what the extension adds', () => {
  it('drops a deleted thread from the list and the screen', () => {
    let s = run([open, { type: 'threads', threads: [{ id: 't1' }, { id: 't2' }] }]);
    s = run([n('thread/deleted', {})], s);
    assert.equal(s.conversation, undefined);
    assert.deepEqual(s.threads.map((t) => t.id), ['t2']);
  });

  it('attaches each chip once, detaches one, clears all on send', () => {
    const chip = { id: 'file:/w/a.py', kind: 'file' as const, label: 'a.py', path: '/w/a.py' };
    let s = run([{ type: 'attach', attachment: chip }, { type: 'attach', attachment: chip }, { type: 'attach', attachment: { ...chip, id: 'problems', kind: 'problems', label: 'Problems' } }]);
    assert.deepEqual(s.attachments.map((a) => a.id), ['file:/w/a.py', 'problems']);
    s = run([{ type: 'detach', id: 'problems' }], s);
    assert.deepEqual(s.attachments.map((a) => a.id), ['file:/w/a.py']);
    s = run([{ type: 'clearAttachments' }], s);
    assert.deepEqual(s.attachments, []);
  });

  it('keeps the diffs of a file change that completes without them', () => {
    const change = { path: '/w/a.py', kind: { type: 'update' as const }, diff: '@@ -1 +1 @@\n-a\n+b\n' };
    const s = run([
      open,
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      n('item/started', { turnId: 'u1', item: { type: 'fileChange', id: 'f', status: 'inProgress', changes: [change] } }),
      n('item/completed', { turnId: 'u1', item: { type: 'fileChange', id: 'f', status: 'completed', changes: [] } }),
    ]);
    const item = fields(s.conversation!.turns[0].items[0]);
    assert.equal(item.status, 'completed');
    assert.deepEqual(item.changes, [change]);
  });

  it('names a review thread after what it reviews', () => {
    const s = run([
      { type: 'open', thread: { id: 't1', turns: [] } },
      n('item/started', { turnId: 'u1', item: { type: 'enteredReviewMode', id: 'r', review: 'current changes' } }),
    ]);
    assert.equal(s.conversation!.title, 'Review of current changes');
  });

  it('keeps the pickers and the configured values apart', () => {
    const s = run([
      { type: 'configured', model: 'gpt-5.4', approvalPolicy: 'untrusted' },
      { type: 'select', effort: 'low' },
      { type: 'select', approvalPolicy: 'never' },
      { type: 'select', approvalPolicy: '' },
    ]);
    assert.deepEqual([s.model, s.effort, s.approvalPolicy], ['', 'low', '']);
    assert.deepEqual(s.configured, { model: 'gpt-5.4', effort: undefined, approvalPolicy: 'untrusted' });
  });
});

describe('reduce: titles', () => {
  it('names a new thread after its first request, however it was sent', () => {
    const s = run([
      { type: 'open', thread: { id: 't1', turns: [] } },
      n('item/started', { turnId: 'u1', item: { type: 'userMessage', id: 'um', content: [{ type: 'text', text: 'What does this line return?' }, { type: 'text', text: 'Context: a.py, line 2' }] } }),
    ]);
    assert.equal(s.conversation!.title, 'What does this line return?');
  });
});

describe('reduce: the server stops mid-answer', () => {
  const streamed: Action[] = [
    open,
    n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
    n('item/agentMessage/delta', { turnId: 'u1', itemId: 'm1', delta: 'Half of the answer' }),
  ];

  it('keeps the streamed text, marks the turn cut short by the crash, and shows it', () => {
    const s = run([...streamed, { type: 'server', state: 'starting' }, { type: 'server', state: 'ready' }]);
    const turn = s.conversation!.turns[0];
    assert.equal(s.conversation!.runningTurnId, undefined);
    assert.equal(turn.crashed, true);
    assert.equal(fields(turn.items[0]).text, 'Half of the answer');
    const blocks = renderConversation(s);
    const html = blocks.map((b) => b.html).join('');
    assert.ok(blocks.some((b) => b.stream?.text === 'Half of the answer'));
    assert.match(html, /The Codex server stopped during this answer/);
    assert.match(html, /data-action="restart"/);
    assert.doesNotMatch(html, />Stopped</);
  });

  it('keeps them when the restarted server resumes the thread without them', () => {
    const resumed: Action = {
      type: 'open',
      thread: { id: 't1', preview: 'hello there', turns: [{ id: 'u1', status: 'inProgress', items: [] }] } as never,
    };
    const s = run([...streamed, { type: 'server', state: 'starting' }, { type: 'server', state: 'ready' }, resumed]);
    assert.equal(s.conversation!.runningTurnId, undefined);
    assert.equal(fields(s.conversation!.turns[0].items[0]).text, 'Half of the answer');
    assert.equal(s.conversation!.turns[0].crashed, true);
  });

  it('leaves a turn the user stopped as stopped', () => {
    const s = run([...streamed, n('turn/completed', { turn: { id: 'u1', status: 'interrupted' } }), { type: 'server', state: 'starting' }]);
    assert.equal(s.conversation!.turns[0].crashed, undefined);
    assert.match(renderConversation(s).map((b) => b.html).join(''), />Stopped</);
  });
});

describe('reduce: the thread list follows the threads', () => {
  it('names a new thread in the list by its first message once its turn starts', () => {
    let s = run([{ type: 'open', thread: { id: 't1', turns: [] } }, { type: 'userText', text: 'Refactor the parser module' }]);
    assert.equal(s.threads[0].preview ?? '', '');
    s = run([n('turn/started', { turn: { id: 'u1', status: 'inProgress' } })], s);
    assert.equal(s.threads[0].preview, 'Refactor the parser module');
    s = run([n('thread/name/updated', { threadName: 'Parser work' })], s);
    assert.equal(s.threads[0].name, 'Parser work');
  });

  it('lists what a thread allows for the session only with that thread shown', async () => {
    const { renderSessionApprovals } = await import('../shared/renderRequests');
    const approvals = [{ id: 'a1', kind: 'command' as const, description: 'touch <b>x</b> (in /w)' }];
    let s = run([open, { type: 'sessionApprovals', threadId: 't1', approvals }]);
    const html = renderSessionApprovals(s);
    assert.ok(html.includes('touch &lt;b&gt;x&lt;/b&gt;'), html);
    assert.ok(html.includes('data-action="revokeApproval"') && html.includes('data-id="a1"'), html);
    s = run([{ type: 'open', thread: { id: 't2', turns: [] } }], s);
    assert.equal(renderSessionApprovals(s), '');
  });
});

describe('the panel\'s keys and Retry', () => {
  it('shows the approval keys on the oldest approval only', () => {
    const s = run([
      open,
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      request('k1', 'item/commandExecution/requestApproval', { threadId: 't1', turnId: 'u1', itemId: 'c1', command: 'ls' }),
      request('k2', 'item/fileChange/requestApproval', { threadId: 't1', turnId: 'u1', itemId: 'p1' }),
    ]);
    const html = renderConversation(s).map((b) => b.html).join('');
    assert.equal(html.match(/<kbd>Ctrl\+Alt\+Y<\/kbd>/g)?.length, 1, html);
    assert.match(html, /data-key="k1" data-decision="accept" title="Approve \(Ctrl\+Alt\+Y\)">Approve <kbd>/);
    assert.match(html, /data-key="k1" data-decision="decline" title="Deny \(Ctrl\+Alt\+N\)">Deny <kbd>/);
  });

  it('offers Retry on the last turn that failed, with its message', () => {
    const failed = run([
      open,
      { type: 'userText', text: 'Summarise it' },
      n('turn/started', { turn: { id: 'u1', status: 'inProgress' } }),
      n('item/completed', { turnId: 'u1', item: { type: 'userMessage', id: 'um', content: [{ type: 'text', text: 'Summarise it' }] } }),
      n('turn/completed', { turn: { id: 'u1', status: 'failed', error: { message: 'HTTP 500' } } }),
    ]);
    const html = () => renderConversation(failed).map((b) => b.html).join('');
    assert.match(html(), /Turn failed: HTTP 500 <button[^>]*data-action="retry" data-turn="u1"/);
    const later = run([n('turn/started', { turn: { id: 'u2', status: 'inProgress' } })], failed);
    assert.doesNotMatch(renderConversation(later).map((b) => b.html).join(''), /data-action="retry"/);
  });
});
