import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyUnifiedDiff, sidesOfChange } from '../shared/patch';

const BEFORE = 'a\nb\nc\nd\ne\n';

describe('applyUnifiedDiff', () => {
  it('applies a hunk at its stated place', () => {
    const diff = '--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n';
    assert.equal(applyUnifiedDiff(BEFORE, diff), 'a\nb\nC\nd\ne\n');
  });

  it('finds a hunk whose lines moved', () => {
    const diff = '@@ -1,2 +1,2 @@\n d\n-e\n+E\n';
    assert.equal(applyUnifiedDiff(BEFORE, diff), 'a\nb\nc\nd\nE\n');
  });

  it('applies several hunks and pure insertions', () => {
    const diff = '@@ -1,0 +2,1 @@\n+x\n@@ -5,1 +6,1 @@\n-e\n+y\n';
    assert.equal(applyUnifiedDiff(BEFORE, diff), 'a\nx\nb\nc\nd\ny\n');
  });

  it('honours "no newline at end of file"', () => {
    const diff = '@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n';
    assert.equal(applyUnifiedDiff('a', diff), 'b');
  });

  it('refuses a diff that does not fit', () => {
    assert.equal(applyUnifiedDiff(BEFORE, '@@ -1,1 +1,1 @@\n-zzz\n+y\n'), undefined);
    assert.equal(applyUnifiedDiff(BEFORE, 'not a diff'), undefined);
  });
});

describe('sidesOfChange', () => {
  it('builds both sides of an update from the current text', () => {
    const sides = sidesOfChange({ path: '/w/f', kind: { type: 'update' }, diff: '@@ -1 +1 @@\n-a\n+A\n' }, 'a\nb\n');
    assert.deepEqual(sides, { before: 'a\nb\n', after: 'A\nb\n' });
  });

  it('takes an add as its diff or its whole text', () => {
    assert.deepEqual(
      sidesOfChange({ path: '/w/n', kind: { type: 'add' }, diff: '--- /dev/null\n+++ /w/n\n@@ -0,0 +1,2 @@\n+x\n+y\n' }, ''),
      { before: '', after: 'x\ny\n' },
    );
    assert.deepEqual(sidesOfChange({ path: '/w/n', kind: { type: 'add' }, diff: 'whole\n' }, ''), { before: '', after: 'whole\n' });
  });

  it('empties a deleted file', () => {
    assert.deepEqual(sidesOfChange({ path: '/w/d', kind: { type: 'delete' }, diff: 'gone\n' }, 'gone\n'), { before: 'gone\n', after: '' });
  });
});
