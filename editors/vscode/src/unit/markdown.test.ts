import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, isSafeUrl } from '../shared/escape';
import { linkFileLocations, renderMarkdown } from '../shared/markdown';

/** Every tag name the renderer emitted. */
function tags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z0-9]+)/g)].map((m) => m[1].toLowerCase());
}

const ALLOWED = new Set([
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'ul', 'ol', 'li', 'blockquote', 'hr', 'br',
  'strong', 'em', 's', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'span', 'button',
]);

describe('escapeHtml', () => {
  it('escapes the five HTML specials and backticks', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&\``), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;');
  });
  it('turns null and numbers into text', () => {
    assert.equal(escapeHtml(null), '');
    assert.equal(escapeHtml(42), '42');
  });
});

describe('file references relative to the folder', () => {
  it('links `name.py:11` and [name.py](name.py) to the file at its line, and nothing that climbs out', () => {
    const html = renderMarkdown('See inventory.py:11 and [inventory.py](inventory.py) and [it](src/a.py#L3).', '/w');
    assert.match(html, /data-path="\/w\/inventory.py" data-line="11"[^>]*>inventory.py:11<\/a>/);
    assert.match(html, /data-path="\/w\/inventory.py" title="\/w\/inventory.py">inventory.py<\/a>/);
    assert.match(html, /data-path="\/w\/src\/a.py" data-line="3"/);
    const outside = renderMarkdown('Not ../secret.py:1, [x](../x.py), e.g. 3.11:2 or version 2.', '/w');
    assert.doesNotMatch(outside, /file-link/);
    assert.doesNotMatch(renderMarkdown('[x](x.py)'), /file-link/, 'no folder, no link');
  });
});

describe('renderMarkdown safety', () => {
  const attacks = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<iframe src="https://evil"></iframe>',
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '[x](data:text/html;base64,PHNjcmlwdD4=)',
    '[x](command:workbench.action.terminal.new)',
    '[x](https://ok.example/"onmouseover="alert(1))',
    '**<svg onload=alert(1)>**',
    '`</code><script>alert(1)</script>`',
    '```html\n<script>alert(1)</script>\n```',
    '```js" onclick="x\nalert(1)\n```',
    '> <style>body{display:none}</style>',
    '- <b onclick="x()">item</b>',
    'https://example.com/<script>',
    '<!-- comment --><a href="javascript:x">y</a>',
    '| a | <img src=x> |\n|---|---|\n| <script>x</script> | b |',
  ];
  for (const attack of attacks) {
    it(`keeps ${JSON.stringify(attack)} inert`, () => {
      const html = renderMarkdown(attack);
      for (const tag of tags(html)) assert.ok(ALLOWED.has(tag), `unexpected tag <${tag}> in ${html}`);
      assert.doesNotMatch(html, /<[^>]*\son\w+=/i, 'an event handler attribute got through');
      assert.doesNotMatch(html, /href="(?!https?:|mailto:)/i, 'an unsafe link got through');
      assert.doesNotMatch(html, /<script|<img|<iframe|<svg|<style/i);
    });
  }

  it('shows raw HTML as text', () => {
    assert.equal(renderMarkdown('<b>hi</b>'), '<p>&lt;b&gt;hi&lt;/b&gt;</p>\n');
  });

  it('accepts only http, https and mailto links', () => {
    assert.ok(isSafeUrl('https://example.com/a?b=c'));
    assert.ok(isSafeUrl('mailto:a@b.c'));
    assert.ok(!isSafeUrl('javascript:alert(1)'));
    assert.ok(!isSafeUrl('vscode://file/etc/passwd'));
    assert.ok(!isSafeUrl('https://a b'));
  });

  it('keeps an unsafe link as text', () => {
    const html = renderMarkdown('[click](javascript:alert(1))');
    assert.doesNotMatch(html, /<a /);
    assert.match(html, /click/);
  });
});

describe('renderMarkdown blocks', () => {
  it('renders tables', () => {
    const html = renderMarkdown('| Name | Size |\n| --- | ---: |\n| a.py | 10 |');
    assert.match(html, /<table>/);
    assert.match(html, /<th>Name<\/th>/);
    assert.match(html, /<td style="text-align:right">10<\/td>/);
  });

  it('renders a code block highlighted, with Copy, Insert and Apply', () => {
    const html = renderMarkdown('```python\ndef f():\n    return 1 < 2\n```');
    assert.match(html, /<div class="code-block" data-lang="python">/);
    assert.match(html, /<span class="hljs-keyword">def<\/span>/);
    assert.match(html, /&lt;/);
    for (const action of ['copyCode', 'insertCode', 'applyCode']) assert.match(html, new RegExp(`data-action="${action}"`));
  });

  it('renders an unknown language as plain escaped code', () => {
    const html = renderMarkdown('```nolang\n<b>x</b>\n```');
    assert.match(html, /<code class="language-nolang">&lt;b&gt;x&lt;\/b&gt;\n<\/code>/);
  });

  it('renders a fence that is still streaming as code', () => {
    const html = renderMarkdown('look:\n```\nline 1\nline');
    assert.match(html, /<p>look:<\/p>/);
    assert.match(html, /<code>line 1\nline<\/code>/);
  });

  it('renders lists, emphasis and links', () => {
    const html = renderMarkdown('- **a** and `b`\n  - [docs](https://x.dev/a)\n\nsee https://x.dev/b');
    assert.match(html, /<ul>\n<li><strong>a<\/strong> and <code>b<\/code>/);
    assert.match(html, /<a href="https:\/\/x.dev\/a" data-action="openLink">docs<\/a>/);
    assert.match(html, /<a href="https:\/\/x.dev\/b" data-action="openLink">https:\/\/x.dev\/b<\/a>/);
  });
});

describe('file locations', () => {
  it('links absolute paths under the folder, relative, with their lines', () => {
    const html = renderMarkdown('- [P1] Bad — /ws/src/a.py:2-4\n- elsewhere /etc/passwd:1', '/ws');
    assert.match(
      html,
      /<a class="file-link" href="#" data-action="openFile" data-path="\/ws\/src\/a.py" data-line="2" title="\/ws\/src\/a.py">src\/a.py:2-4<\/a>/,
    );
    assert.doesNotMatch(html, /data-path="\/etc\/passwd"/);
  });

  it('leaves code blocks and links alone', () => {
    const html = linkFileLocations('<pre><code>/ws/a.py:1</code></pre><a href="#">/ws/b.py</a><p>/ws/c.py</p>', '/ws');
    assert.equal(
      html,
      '<pre><code>/ws/a.py:1</code></pre><a href="#">/ws/b.py</a><p><a class="file-link" href="#" data-action="openFile" data-path="/ws/c.py" title="/ws/c.py">c.py</a></p>',
    );
  });

  it('shows a one-line range as one line', () => {
    assert.match(renderMarkdown('at /ws/a.py:3-3', '/ws'), />a.py:3<\/a>/);
  });
});
