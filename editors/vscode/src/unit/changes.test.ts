import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { turnChanges } from '../shared/changes';
import { reverseUnifiedDiff, textBefore } from '../shared/patch';
import { type ApprovalRequest, COMMAND_APPROVAL, FILE_CHANGE_APPROVAL, inlineRequest } from '../shared/protocol';
import { amendmentDecision, offeredDecisions, renderChanges, renderRequest } from '../shared/renderRequests';
import { type Action, type ChatState, initialState, reduce, type TurnView } from '../shared/state';

const first = '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n';
const second = '@@ -2,2 +2,3 @@\n B\n c\n+d\n';

function turn(...items: TurnView['items']): TurnView {
  return { id: 'u1', status: 'completed', items };
}

describe('turnChanges', () => {
  it('lists each applied file once, in order, with every diff and the line counts', () => {
    const files = turnChanges(
      turn(
        { type: 'fileChange', id: 'f1', status: 'completed', changes: [{ path: '/w/a.py', kind: { type: 'update' }, diff: first }] },
        { type: 'fileChange', id: 'f2', status: 'declined', changes: [{ path: '/w/x.py', kind: { type: 'update' }, diff: first }] },
        {
          type: 'fileChange',
          id: 'f3',
          status: 'completed',
          changes: [
            { path: '/w/a.py', kind: { type: 'update' }, diff: second },
            { path: '/w/new.txt', kind: { type: 'add' }, diff: 'one\ntwo\n' },
          ],
        },
      ),
    );
    assert.deepEqual(
      files.map((f) => [f.path, f.kind, f.changes.length, f.added, f.removed]),
      [
        ['/w/a.py', 'update', 2, 2, 1],
        ['/w/new.txt', 'add', 1, 2, 0],
      ],
    );
  });
});

describe('undoing a turn from its diffs', () => {
  it('reverses a diff by swapping its sides', () => {
    assert.equal(reverseUnifiedDiff(first), '@@ -1,3 +1,3 @@\n a\n+b\n-B\n c\n');
  });

  it('recovers the text before several diffs, and refuses when the file moved on', () => {
    const changes = [
      { path: '/w/a.py', kind: { type: 'update' as const }, diff: first },
      { path: '/w/a.py', kind: { type: 'update' as const }, diff: second },
    ];
    assert.equal(textBefore(changes, 'a\nB\nc\nd\n'), 'a\nb\nc\n');
    assert.equal(textBefore(changes, 'something else\n'), undefined);
  });

  it('knows an added file was empty and a deleted one had its old lines', () => {
    assert.equal(textBefore([{ path: '/w/n', kind: 'add', diff: 'x\n' }], 'x\n'), '');
    assert.equal(textBefore([{ path: '/w/d', kind: 'delete', diff: '@@ -1,2 +0,0 @@\n-x\n-y\n' }], ''), 'x\ny\n');
    assert.equal(textBefore([{ path: '/w/d', kind: 'delete', diff: 'whole text\n' }], ''), 'whole text\n');
  });
});

describe('the changes card', () => {
  const files = turnChanges(
    turn({ type: 'fileChange', id: 'f1', status: 'completed', changes: [
      { path: '/w/a.py', kind: { type: 'update' }, diff: first },
      { path: '/w/b.py', kind: { type: 'update' }, diff: second },
    ] }),
  );

  it('says the turn was undone once every file is, not still "2 files changed"', () => {
    let state = initialState();
    for (const path of ['/w/a.py', '/w/b.py']) state = reduce(state, { type: 'changeMark', turnId: 'u1', path, mark: 'undone' });
    const html = renderChanges(state, 'u1', files, '/w');
    assert.match(html, /Undone: 2 files put back/);
    assert.doesNotMatch(html, /files changed/);
  });

  it('offers Diff, Keep and Undo per file, and both for all', () => {
    const html = renderChanges(initialState(), 'u1', files, '/w');
    assert.match(html, /2 files changed/);
    assert.equal(html.match(/data-action="keepChange"/g)?.length, 2);
    assert.equal(html.match(/data-action="undoChange"/g)?.length, 2);
    assert.match(html, /data-action="keepAll"/);
    assert.match(html, /<code class="change-name" title="\/w\/a.py">M a.py<\/code>/);
  });

  it('shows a decided file as kept or undone', () => {
    let s: ChatState = reduce(initialState(), { type: 'changeMark', turnId: 'u1', path: '/w/a.py', mark: 'kept' });
    s = reduce(s, { type: 'changeMark', turnId: 'u1', path: '/w/b.py', mark: 'undone' });
    const html = renderChanges(s, 'u1', files, '/w');
    assert.match(html, /class="change-mark kept">Kept/);
    assert.match(html, /class="change-mark undone">Undone/);
    assert.doesNotMatch(html, /keepChange|keepAll/);
  });
});

describe('offeredDecisions', () => {
  const base = { threadId: 't', turnId: 'u', itemId: 'i' };
  const command = (params: object) => inlineRequest(COMMAND_APPROVAL, { ...base, ...params }) as ApprovalRequest;
  it('offers the four decisions when the server names none', () => {
    assert.deepEqual(offeredDecisions(command({})), ['accept', 'acceptForSession', 'decline', 'cancel']);
  });
  it('offers only what the server lists and this client can give', () => {
    assert.deepEqual(
      offeredDecisions(command({ availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['make'] } }, 'decline'] })),
      ['accept', 'decline'],
    );
  });
  it('offers all four for a file change', () => {
    const change = inlineRequest(FILE_CHANGE_APPROVAL, { ...base, reason: null, grantRoot: null }) as ApprovalRequest;
    assert.deepEqual(offeredDecisions(change), ['accept', 'acceptForSession', 'decline', 'cancel']);
  });
});

describe('always allow a command prefix', () => {
  const base = { threadId: 't', turnId: 'u', itemId: 'i' };
  const rule = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ['npm', 'test'] } };
  const state = (params: object) =>
    reduce(initialState(), { type: 'request', key: 'k', ...inlineRequest(COMMAND_APPROVAL, { ...base, command: 'npm test', ...params }) } as Action);

  it('is offered on the card when the server proposes it, with the prefix it allows', () => {
    const s = state({ availableDecisions: ['accept', 'acceptForSession', rule, 'decline', 'cancel'], proposedExecpolicyAmendment: ['npm', 'test'] });
    const html = renderRequest(s, s.requests[0]);
    assert.match(html, /data-decision="acceptWithExecpolicyAmendment"[^>]*>Always allow commands starting with “npm test”</);
    const order = [...html.matchAll(/data-decision="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(order, ['accept', 'acceptForSession', 'acceptWithExecpolicyAmendment', 'decline', 'cancel']);
    assert.deepEqual(amendmentDecision(s.requests[0] as ApprovalRequest), rule);
  });

  it('is not offered when the server proposes no rule', () => {
    const s = state({ availableDecisions: ['accept', 'acceptForSession', 'decline', 'cancel'] });
    assert.doesNotMatch(renderRequest(s, s.requests[0]), /Always allow/);
    assert.equal(amendmentDecision(s.requests[0] as ApprovalRequest), undefined);
  });
});
