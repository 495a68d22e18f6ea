import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCommand, serverCommand } from '../shared/serverCommand';
import { initialState, reduce } from '../shared/state';

describe('serverCommand', () => {
  it('runs the module with python3 by default', () => {
    assert.deepEqual(serverCommand({}), { command: 'python3', args: ['-m', 'codex_lsp', 'serve'], env: {} });
  });

  it('uses the configured interpreter and extra arguments', () => {
    const cmd = serverCommand({ pythonPath: ' /venv/bin/python ', serverArgs: ['--profile', 'work'], serverEnv: { CODEX_HOME: '/h' } });
    assert.deepEqual(cmd, { command: '/venv/bin/python', args: ['-m', 'codex_lsp', 'serve', '--profile', 'work'], env: { CODEX_HOME: '/h' } });
  });

  it('lets a whole command override the interpreter', () => {
    const cmd = serverCommand({ pythonPath: '/ignored', serverCommand: ['codex-lsp', 'serve'], serverArgs: ['-c', 'model="x y"'] });
    assert.equal(cmd.command, 'codex-lsp');
    assert.deepEqual(cmd.args, ['serve', '-c', 'model="x y"']);
    assert.equal(describeCommand(cmd), 'codex-lsp serve -c "model=\\"x y\\""');
  });
});

describe('thread titles', () => {
  it('names a new thread after its first message', () => {
    let s = reduce(initialState(), { type: 'open', thread: { id: 't' } });
    assert.equal(s.conversation!.title, 'New thread');
    s = reduce(s, { type: 'userText', text: 'Fix the parser\nplease' });
    s = reduce(s, { type: 'notify', method: 'turn/started', params: { threadId: 't', turn: { id: 'u' } } });
    assert.equal(s.conversation!.title, 'Fix the parser');
  });
});
