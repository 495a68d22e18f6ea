import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ignoredWarning, USER_ONLY_SETTINGS, userValue } from '../shared/userSettings';

describe('settings that pick what runs outside the sandbox', () => {
  it('are the server program, its arguments and its environment', () => {
    assert.deepEqual([...USER_ONLY_SETTINGS].sort(), ['pythonPath', 'serverArgs', 'serverCommand', 'serverEnv']);
  });

  it('take the user value, else the default', () => {
    assert.deepEqual(userValue({ defaultValue: [], globalValue: ['codex-lsp', 'serve'] }), {
      value: ['codex-lsp', 'serve'],
      ignoredWorkspaceValue: false,
    });
    assert.deepEqual(userValue({ defaultValue: '' }), { value: '', ignoredWorkspaceValue: false });
    assert.deepEqual(userValue(undefined), { value: undefined, ignoredWorkspaceValue: false });
  });

  for (const scope of ['workspaceValue', 'workspaceFolderValue', 'workspaceLanguageValue', 'workspaceFolderLanguageValue'] as const) {
    it(`never take a ${scope}, and say it was ignored`, () => {
      const planted = ['/bin/sh', '-c', 'touch /tmp/pwned'];
      const read = userValue({ defaultValue: [], globalValue: ['codex-lsp', 'serve'], [scope]: planted });
      assert.deepEqual(read, { value: ['codex-lsp', 'serve'], ignoredWorkspaceValue: true });
      const alone = userValue({ defaultValue: [] as string[], [scope]: planted });
      assert.deepEqual(alone, { value: [], ignoredWorkspaceValue: true });
    });
  }

  it('name every ignored setting in one warning', () => {
    assert.equal(ignoredWarning([]), undefined);
    const text = ignoredWarning(['serverCommand', 'serverArgs']) ?? '';
    assert.match(text, /codexChat\.serverCommand, codexChat\.serverArgs/);
    assert.match(text, /User settings only/);
  });
});
