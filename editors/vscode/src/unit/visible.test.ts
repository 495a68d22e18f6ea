import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandNotice, NOTICE_COMMAND_CHARS } from '../shared/approvalNotice';
import type * as v2 from '../generated/v2';
import { renderConversation, renderItem, renderNotices, renderThreadList } from '../shared/render';
import { addNotice, initialState, reduce } from '../shared/state';
import { isHidden, visible } from '../shared/visible';
import { notification, request, sparse } from './wire';

/** Every character that acts on a display: C0, DEL, C1, bidi, marks, zero-width, separators, tags. */
const C0 = Array.from({ length: 0x20 }, (_, c) => c);
const C1 = Array.from({ length: 0x20 }, (_, c) => 0x80 + c);
const FORMAT = [
  0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0x200c, 0x200d,
  0x2060, 0xfeff, 0x2028, 0x2029, 0x00ad, 0xe0001, 0xe0041,
];
const RAW = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/u;

const hex = (c: number) => c.toString(16).padStart(2, '0');
const SPOOF = `ls -la\r\x1b[2K\x1b[8m ${Array.from({ length: 20 }, (_, n) => `--option-${n}=value`).join(' ')}; printf pwned > pwned.txt #\x1b[0m\u202e\u2066\x07`;
const SHOWN = SPOOF.replace('\r', '\\r').replaceAll('\x1b', '\\x1b').replace('\u202e', '<U+202E>').replace('\u2066', '<U+2066>').replace('\x07', '\\x07');

function approval(params: object): v2.CommandExecutionRequestApprovalParams {
  return sparse<v2.CommandExecutionRequestApprovalParams>({ threadId: 't', turnId: 'u', itemId: 'c1', startedAtMs: 0, ...params });
}

describe('visible', () => {
  it('names every C0 and C1 control and DEL, on one line and on several', () => {
    for (const code of [...C0.filter((c) => c !== 0x0a && c !== 0x0d && c !== 0x09), 0x7f, ...C1]) {
      const char = String.fromCodePoint(code);
      assert.equal(visible(`a${char}b`), `a\\x${hex(code)}b`);
      assert.equal(visible(`a${char}b`, true), `a\\x${hex(code)}b`);
    }
  });

  it('names every bidi, format, zero-width and separator character, and a lone surrogate', () => {
    for (const code of [...FORMAT, 0xd800]) {
      const name = `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
      assert.equal(visible(`a${String.fromCodePoint(code)}b`), `a${name}b`);
      assert.equal(visible(`a${String.fromCodePoint(code)}b`, true), `a${name}b`);
    }
  });

  it('keeps newlines and tabs only on a multi-line display, and names a lone CR', () => {
    assert.equal(visible('ls\nrm -rf ~\r\tx'), 'ls\\nrm -rf ~\\r\\tx');
    assert.equal(visible('a\n\tb\r\nc\rd', true), 'a\n\tb\nc\\rd');
  });

  it('leaves no hidden character anywhere in Unicode', () => {
    let all = '';
    for (let code = 0; code < 0x110000; code++) all += String.fromCodePoint(code);
    for (const multiline of [false, true]) {
      for (const ch of visible(all, multiline)) {
        const code = ch.codePointAt(0) ?? 0;
        if (multiline && (code === 0x0a || code === 0x09)) continue;
        assert.ok(!isHidden(code), code.toString(16));
      }
    }
  });

  it('leaves ordinary text of every script alone', () => {
    const text = 'héllo wörld — 你好 Привет مرحبا 🙂 `code` <tag> \\x1b literal';
    assert.equal(visible(text), text);
  });
});

describe('the approval notification', () => {
  it('offers Approve only beside the whole command', () => {
    const short = commandNotice(approval({ command: 'ls -la\x1b[8m', cwd: '/w' }));
    assert.equal(short.whole, true);
    assert.equal(short.message, 'Codex wants to run: ls -la\\x1b[8m');

    assert.ok(SPOOF.length > 300);
    const long = commandNotice(approval({ command: SPOOF, cwd: '/w\u202e', reason: 'list\rfiles' }));
    assert.equal(long.whole, false);
    assert.ok(!long.message.includes('option-1'), 'no part of a long command beside the buttons');
    assert.doesNotMatch(long.message + long.title + long.detail, RAW);
    assert.ok(long.detail.includes(`$ ${SHOWN}`), 'the dialog shows the whole command');
    assert.ok(long.detail.includes('in /w<U+202E>'));
    assert.ok(long.detail.includes('Reason: list\\rfiles'));

    const exactly = commandNotice(approval({ command: 'x'.repeat(NOTICE_COMMAND_CHARS + 1) }));
    assert.equal(exactly.whole, false);
    // VS Code shows `[text](url)` in a notification as a link reading "text".
    assert.equal(commandNotice(approval({ command: 'echo [ls](command:x) ; rm -rf ~' })).whole, false);
  });

  it('says when approving runs the command outside the sandbox', () => {
    const outside = approval({ command: 'make install', codexLsp: { runUnsandboxed: true } });
    const notice = commandNotice(outside);
    assert.equal(notice.message, 'Codex wants to run OUTSIDE the sandbox: make install');
    assert.match(notice.detail, /Approving runs this command outside the sandbox/);
    const inside = commandNotice(approval({ command: 'make install' }));
    assert.doesNotMatch(inside.message + inside.detail, /outside the sandbox/i);
  });
});

describe('the chat panel', () => {
  it('shows an approval card, command items and their output with every control named', () => {
    const actions = [
      notification('thread/started', { thread: { id: 't' } }),
      { type: 'open' as const, thread: { id: 't', turns: [] } },
      notification('turn/started', { threadId: 't', turn: { id: 'u' } }),
      notification('item/started', { threadId: 't', turnId: 'u', item: { type: 'commandExecution', id: 'c0', command: SPOOF, aggregatedOutput: 'ok\x1b]52;c;aGk=\x07', status: 'completed' } }),
      notification('item/started', { threadId: 't', turnId: 'u', item: { type: 'commandExecution', id: 'c1', command: SPOOF, cwd: '/w', status: 'inProgress' } }),
      request('k1', 'item/commandExecution/requestApproval', { threadId: 't', turnId: 'u', itemId: 'c1', command: SPOOF, cwd: '/w', reason: 'a\u202eb', codexLsp: { runUnsandboxed: true } }),
    ];
    const html = renderConversation(actions.reduce(reduce, initialState())).map((b) => b.html).join('');
    assert.doesNotMatch(html, RAW);
    assert.ok(html.includes('Run this command OUTSIDE the sandbox?'));
    assert.ok(html.includes('Approving runs this command outside the sandbox'));
    assert.ok(html.includes('ok\\x1b]52;c;aGk=\\x07'), 'the output, escaped');
    assert.ok(html.includes('Reason: a&lt;U+202E&gt;b'));
    assert.doesNotMatch(renderItem({ type: 'commandExecution', id: 'c', command: SPOOF, status: 'completed' }), RAW);
  });
});

describe('the rest of the panel', () => {
  it('shows notices, thread titles and previews with every control named', () => {
    let state = addNotice(initialState(), 'error', 'model said \x1b]52;c;aGk=\x07 \u202eevil');
    state = reduce(state, notification('thread/started', { thread: { id: 't', name: 'fix \u202egnp.exe', preview: 'a\rb' } }));
    const html = renderNotices(state) + renderThreadList(state);
    assert.doesNotMatch(html, RAW);
    assert.ok(html.includes('model said \\x1b]52;c;aGk=\\x07 &lt;U+202E&gt;evil'));
    assert.ok(html.includes('fix &lt;U+202E&gt;gnp.exe'));
  });
});
