import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { insertedHint, lineChanges, proposalDiff, turnStatus } from '../shared/inlineEdit';
import type { TurnView } from '../shared/state';

describe('lineChanges', () => {
  it('finds a replaced line', () => {
    assert.deepEqual(lineChanges('def greet():\n    return "hi"\n', 'def greet():\n    return "hello"\n'), [
      { start: 1, removed: ['    return "hi"'], inserted: ['    return "hello"'] },
    ]);
  });

  it('keeps two changes apart when lines between them stay', () => {
    const before = 'a\nb\nc\nd\ne\n';
    const after = 'A\nb\nc\nd\nE\nF\n';
    assert.deepEqual(lineChanges(before, after), [
      { start: 0, removed: ['a'], inserted: ['A'] },
      { start: 4, removed: ['e'], inserted: ['E', 'F'] },
    ]);
  });

  it('gives a pure insertion and a pure removal their place', () => {
    assert.deepEqual(lineChanges('a\nb\n', 'a\nx\nb\n'), [{ start: 1, removed: [], inserted: ['x'] }]);
    assert.deepEqual(lineChanges('a\nb\nc\n', 'a\nc\n'), [{ start: 1, removed: ['b'], inserted: [] }]);
  });

  it('finds nothing when nothing changed, and treats a new file as all inserted', () => {
    assert.deepEqual(lineChanges('a\n', 'a\n'), []);
    assert.deepEqual(lineChanges('', 'x\ny\n'), [{ start: 0, removed: [], inserted: ['x', 'y'] }]);
  });
});

describe('proposalDiff', () => {
  it('shows each change with its line numbers in a diff block', () => {
    const text = proposalDiff('edit_me.py', [{ start: 1, removed: ['    return "hi"'], inserted: ['    return "hello"'] }]);
    assert.equal(text, 'edit\\_me\\.py\n\n```diff\n@@ line 2 @@\n-    return "hi"\n+    return "hello"\n```');
  });

  it('shows characters that act on the display by name', () => {
    const text = proposalDiff('a\u202e.py', [{ start: 0, removed: ['x = 1 \u202e# y'], inserted: [] }]);
    assert.equal(text.split('\n')[0], 'a\\<U\\+202E\\>\\.py');
    assert.ok(text.includes('-x = 1 <U+202E># y'), text);
  });

  it('uses a fence longer than any backticks in the code', () => {
    const text = proposalDiff('a.md', [{ start: 0, removed: ['````'], inserted: ['x'] }]);
    assert.ok(text.includes('`````diff\n'), text);
    assert.ok(text.endsWith('\n`````'), text);
  });
});

describe('insertedHint', () => {
  it('shows the first new line and counts the rest', () => {
    assert.equal(insertedHint({ start: 0, removed: ['a'], inserted: ['  b'] }), '→ b');
    assert.equal(insertedHint({ start: 0, removed: [], inserted: ['b', 'c', 'd'] }), '→ b  (+2 more lines)');
    assert.equal(insertedHint({ start: 0, removed: ['a'], inserted: [] }), undefined);
  });
});

describe('turnStatus', () => {
  const turn = (status: string, items: TurnView['items'], error?: string): TurnView => ({ id: 't', status, items, error });

  it('says what the running turn does, then its answer', () => {
    assert.equal(turnStatus(undefined), 'Starting…');
    assert.equal(turnStatus(turn('inProgress', [])), 'Thinking…');
    assert.equal(turnStatus(turn('inProgress', [{ type: 'commandExecution', id: 'c', command: 'cat `x`', status: 'inProgress' }])), "Running `cat 'x'`…");
    assert.equal(turnStatus(turn('completed', [{ type: 'agentMessage', id: 'm', text: 'Done it.' }])), 'Done it.');
  });

  it('says why a turn failed', () => {
    assert.equal(turnStatus(turn('failed', [], 'The model refused.')), 'Error: The model refused.');
  });
});
