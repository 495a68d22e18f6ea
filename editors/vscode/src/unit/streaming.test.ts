import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderMarkdown } from '../shared/markdown';
import { renderConversation } from '../shared/render';
import { initialState } from '../shared/state';
import { lastCut } from '../shared/streaming';

describe('lastCut', () => {
  it('cuts before a new paragraph once its line has begun', () => {
    const text = 'One **bold** line.\n\nTwo';
    assert.equal(lastCut(text, 0), 0, 'the second paragraph line is still being written');
    assert.equal(lastCut(`${text}\n`, 0), text.indexOf('Two'));
  });

  it('never cuts inside a fenced code block, nor before an indented line', () => {
    const fenced = '```python\ndef a():\n\n    return 1\n\nx = 2\n';
    assert.equal(lastCut(fenced, 0), 0);
    const closed = `${fenced}\`\`\`\n\nAfter the code.\n`;
    assert.equal(lastCut(closed, 0), closed.indexOf('After'));
    assert.equal(lastCut('- a\n\n  more of a\n', 0), 0);
  });

  it('renders the same Markdown cut or whole for paragraphs, code and lists', () => {
    const text = 'Intro with `code`.\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\n- one\n- two\n\nEnd in review_me.py:2.\n';
    let from = 0;
    const parts: string[] = [];
    for (let end = 1; end <= text.length; end += 1) {
      const cut = lastCut(text.slice(0, end), from);
      if (cut > from) parts.push(text.slice(from, cut));
      from = cut;
    }
    parts.push(text.slice(from));
    assert.ok(parts.length >= 3, `cut into pieces, got ${JSON.stringify(parts)}`);
    assert.equal(parts.map((p) => renderMarkdown(p, '/ws')).join(''), renderMarkdown(text, '/ws'));
  });
});

describe('a streaming answer', () => {
  it('is a frame with its text for the page, the same once its turn ends', () => {
    const base = initialState();
    const turn = (status: 'inProgress' | 'completed') => ({
      ...base,
      conversation: {
        threadId: 't',
        title: 'T',
        cwd: '/ws',
        turns: [{ id: 'u', status, items: [{ type: 'agentMessage' as const, id: 'a', text: '**hi**' }] }],
        pendingUserTexts: [],
        runningTurnId: status === 'inProgress' ? 'u' : undefined,
      },
    });
    const streaming = renderConversation(turn('inProgress') as never).find((b) => b.key === 'item:u:a');
    assert.deepEqual(streaming?.stream, { text: '**hi**', cwd: '/ws', live: true });
    assert.doesNotMatch(streaming?.html ?? '', /hi/);
    // Finished, it is the same frame: the page keeps the pieces it streamed.
    const done = renderConversation(turn('completed') as never).find((b) => b.key === 'item:u:a');
    assert.equal(done?.html, streaming?.html);
    assert.deepEqual(done?.stream, { text: '**hi**', cwd: '/ws', live: false });
  });
});
