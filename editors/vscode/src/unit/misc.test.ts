import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeCommand, LAUNCHER_PROBE, parseLauncher, serverCommand, warmServerCommand } from '../shared/serverCommand';
import type { FollowedMethod } from '../shared/protocol';
import { type Action, type ChatState, initialState, reduce } from '../shared/state';
import { statusText } from '../shared/status';
import { notification, request } from './wire';

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
    s = reduce(s, notification('turn/started', { threadId: 't', turn: { id: 'u' } }));
    assert.equal(s.conversation!.title, 'Fix the parser');
  });
});

describe('status bar text', () => {
  const n = (method: FollowedMethod, params: Record<string, unknown>): Action => notification(method, { threadId: 't', ...params });
  const running = (): ChatState =>
    [{ type: 'server', state: 'ready' } as Action, { type: 'open', thread: { id: 't' } } as Action, n('turn/started', { turn: { id: 'u', status: 'inProgress' } })].reduce(
      reduce,
      initialState(),
    );

  it('says what the turn is doing: thinking, running a command, writing, waiting for approval', () => {
    assert.match(statusText(initialState()).text, /^\$\(sync~spin\) Codex Starting$/);
    let s = running();
    assert.equal(statusText(s).text, '$(loading~spin) Codex Thinking');
    s = reduce(s, n('item/started', { turnId: 'u', item: { type: 'commandExecution', id: 'c', command: 'pytest -q', status: 'inProgress' } }));
    assert.equal(statusText(s).text, '$(terminal) Codex Running pytest -q');
    s = reduce(s, request('k', 'item/commandExecution/requestApproval', { threadId: 't', turnId: 'u', itemId: 'c' }));
    const waiting = statusText(s);
    assert.equal(waiting.text, '$(bell-dot) Codex Waiting for approval');
    assert.equal(waiting.attention, true);
    s = reduce(s, { type: 'requestDone', key: 'k' });
    s = reduce(s, n('item/completed', { turnId: 'u', item: { type: 'commandExecution', id: 'c', status: 'completed', exitCode: 0 } }));
    s = reduce(s, n('item/agentMessage/delta', { turnId: 'u', itemId: 'm', delta: 'Done' }));
    assert.equal(statusText(s).text, '$(loading~spin) Codex Writing the answer');
  });

  it('shows tokens and the highest rate-limit use when idle, and a failed last turn', () => {
    let s = running();
    s = reduce(s, n('thread/tokenUsage/updated', { tokenUsage: { total: { totalTokens: 12300 }, last: { totalTokens: 300 } } }));
    s = reduce(s, notification('account/rateLimits/updated', { rateLimits: { primary: { usedPercent: 42, windowDurationMins: 300 }, secondary: { usedPercent: 7, windowDurationMins: 10080 } } }));
    s = reduce(s, n('turn/completed', { turn: { id: 'u', status: 'completed' } }));
    const shown = statusText(s);
    assert.equal(shown.text, '$(comment-discussion) Codex 12k tok 42%');
    assert.match(shown.tooltip, /Rate limits: 42% of 5h, 7% of weekly/);
    assert.match(shown.tooltip, /This thread: 12k tokens/);
    s = reduce(s, n('turn/started', { turn: { id: 'v', status: 'inProgress' } }));
    s = reduce(s, n('turn/completed', { turn: { id: 'v', status: 'failed', error: { message: 'boom' } } }));
    assert.match(statusText(s).text, /^\$\(warning\) Codex Last turn failed/);
  });

  it('turns red with the reason when the server cannot start', () => {
    const s = reduce(initialState(), { type: 'server', state: 'error', message: 'no python3' });
    const shown = statusText(s);
    assert.equal(shown.text, '$(error) Codex Server not running');
    assert.equal(shown.error, true);
    assert.match(shown.tooltip, /Codex server: error — no python3/);
  });
});

describe('hunk review in the Refactor Preview', () => {
  it('starts every hunk ticked, with one empty guide entry that opens the preview', async () => {
    const { GUIDE_ANNOTATION, hunksStartTicked } = await import('../shared/hunkPreview');
    const range = { start: { line: 3, character: 0 }, end: { line: 4, character: 0 } };
    const edit = {
      documentChanges: [{ textDocument: { uri: 'file:///w/a.py', version: 1 }, edits: [{ range, newText: 'x\n', annotationId: 'h1' }] }],
      changeAnnotations: { h1: { label: 'a.py hunk 1', needsConfirmation: true } },
    };
    const out = hunksStartTicked(edit);
    assert.equal(out.changeAnnotations!.h1.needsConfirmation, false);
    assert.equal(out.changeAnnotations![GUIDE_ANNOTATION].needsConfirmation, true);
    const edits = (out.documentChanges![0] as { edits: { newText: string; annotationId?: string }[] }).edits;
    assert.deepEqual(edits.map((e) => [e.newText, e.annotationId]), [['', GUIDE_ANNOTATION], ['x\n', 'h1']]);
    // An edit that asks no confirmation is left as it is.
    const plain = { changes: { 'file:///w/a.py': [{ range, newText: 'y' }] } };
    assert.equal(hunksStartTicked(plain), plain);
  });
});
