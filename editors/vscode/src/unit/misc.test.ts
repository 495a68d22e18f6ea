import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCommand, LAUNCHER_PROBE, parseLauncher, serverCommand, warmServerCommand } from '../shared/serverCommand';
import { initialState, reduce } from '../shared/state';
import { statusText } from '../shared/status';

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

describe('the warm start', () => {
  const launcher = ['/venv/bin/python', '-I', '-S', '/site/codex_lsp/appserver/attach.py', 'serve'];

  it('spawns the lean launcher with the extra arguments and environment', () => {
    const cmd = warmServerCommand({ pythonPath: '/venv/bin/python', serverArgs: ['--profile', 'work'], serverEnv: { CODEX_HOME: '/h' } }, launcher);
    assert.deepEqual(cmd, {
      command: '/venv/bin/python',
      args: ['-I', '-S', '/site/codex_lsp/appserver/attach.py', 'serve', '--profile', 'work'],
      env: { CODEX_HOME: '/h' },
    });
  });

  it('reads the launcher the start-up check printed', () => {
    assert.deepEqual(parseLauncher(`${JSON.stringify(launcher)}\n`), launcher);
    assert.equal(parseLauncher('null\n'), undefined); // a codex-lsp without the warm server
    assert.equal(parseLauncher('Traceback ...'), undefined);
    assert.equal(parseLauncher('[1, 2]'), undefined);
  });

  it('asks Python for the launcher and fails when codex_lsp cannot be imported', () => {
    assert.match(LAUNCHER_PROBE, /^import json, codex_lsp\n/);
    assert.match(LAUNCHER_PROBE, /launcher\(\["serve"\]\)/);
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

describe('status bar text', () => {
  it('shows the server state, a running turn, tokens and the highest rate-limit use', () => {
    let s = initialState();
    assert.match(statusText(s).text, /^\$\(sync~spin\) Codex$/);
    s = reduce(s, { type: 'server', state: 'ready' });
    s = reduce(s, { type: 'open', thread: { id: 't' } });
    s = reduce(s, { type: 'notify', method: 'turn/started', params: { threadId: 't', turn: { id: 'u' } } });
    s = reduce(s, {
      type: 'notify',
      method: 'thread/tokenUsage/updated',
      params: { threadId: 't', tokenUsage: { total: { totalTokens: 12300 }, last: { totalTokens: 300 } } },
    });
    s = reduce(s, {
      type: 'notify',
      method: 'account/rateLimits/updated',
      params: { rateLimits: { primary: { usedPercent: 42, windowDurationMins: 300 }, secondary: { usedPercent: 7, windowDurationMins: 10080 } } },
    });
    const shown = statusText(s);
    assert.equal(shown.text, '$(loading~spin) Codex 12k tok 42%');
    assert.match(shown.tooltip, /A turn is running\./);
    assert.match(shown.tooltip, /Rate limits: 42% of 5h, 7% of weekly/);
    assert.equal(shown.error, false);
  });

  it('turns red with the reason when the server cannot start', () => {
    const s = reduce(initialState(), { type: 'server', state: 'error', message: 'no python3' });
    const shown = statusText(s);
    assert.equal(shown.text, '$(error) Codex');
    assert.equal(shown.error, true);
    assert.match(shown.tooltip, /Codex server: error — no python3/);
  });
});
