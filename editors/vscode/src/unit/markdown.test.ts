import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeHtml, isSafeUrl } from '../shared/escape';
import { renderInline, renderMarkdown } from '../shared/markdown';

/** Every tag name the renderer emitted. */
function tags(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z0-9]+)/g)].map((m) => m[1].toLowerCase());
}

const ALLOWED = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'code', 'ul', 'ol', 'li', 'blockquote', 'hr', 'strong', 'em', 'del', 'a']);

describe('escapeHtml', () => {
  it('escapes the five HTML specials and backticks', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&\``), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;');
  });
  it('turns null and numbers into text', () => {
    assert.equal(escapeHtml(null), '');
    assert.equal(escapeHtml(42), '42');
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
    '> <style>body{display:none}</style>',
    '- <b onclick="x()">item</b>',
    'https://example.com/<script>',
    '<!-- comment --><a href="javascript:x">y</a>',
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
    assert.equal(renderMarkdown('<b>hi</b>'), '<p>&lt;b&gt;hi&lt;/b&gt;</p>');
  });

  it('only produces class names from a fixed alphabet', () => {
    const html = renderMarkdown('```py" onclick="x\nprint(1)\n```');
    assert.match(html, /<code class="language-py">/);
  });

  it('accepts only http, https and mailto links', () => {
    assert.ok(isSafeUrl('https://example.com/a?b=c'));
    assert.ok(isSafeUrl('mailto:a@b.c'));
    assert.ok(!isSafeUrl('javascript:alert(1)'));
    assert.ok(!isSafeUrl('vscode://file/etc/passwd'));
    assert.ok(!isSafeUrl('https://a b'));
  });
});

describe('renderMarkdown blocks', () => {
  it('renders paragraphs and headings', () => {
    assert.equal(renderMarkdown('# Title\n\nSome text\nmore'), '<h1>Title</h1><p>Some text\nmore</p>');
  });

  it('renders fenced code with its language, escaped', () => {
    assert.equal(
      renderMarkdown('```ts\nconst a = 1 < 2;\n```\nafter'),
      '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre><p>after</p>',
    );
  });

  it('renders a fence that is still streaming as code', () => {
    assert.equal(renderMarkdown('look:\n```\nline 1\nline'), '<p>look:</p><pre><code>line 1\nline</code></pre>');
  });

  it('renders nested lists', () => {
    assert.equal(
      renderMarkdown('- a\n  - b\n- c'),
      '<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>',
    );
  });

  it('renders ordered lists with their start', () => {
    assert.equal(renderMarkdown('3. x\n4. y'), '<ol start="3"><li>x</li><li>y</li></ol>');
  });

  it('renders quotes and rules', () => {
    assert.equal(renderMarkdown('> quoted\n\n---'), '<blockquote><p>quoted</p></blockquote><hr>');
  });
});

describe('renderInline', () => {
  it('renders code, strong, emphasis and strike-through', () => {
    assert.equal(renderInline('`a<b` **bold** *em* ~~gone~~'), '<code>a&lt;b</code> <strong>bold</strong> <em>em</em> <del>gone</del>');
  });

  it('leaves snake_case alone', () => {
    assert.equal(renderInline('call my_func_name now'), 'call my_func_name now');
  });

  it('renders safe links and bare URLs', () => {
    assert.equal(renderInline('[docs](https://x.dev/a)'), '<a href="https://x.dev/a">docs</a>');
    assert.equal(renderInline('see https://x.dev/a.'), 'see <a href="https://x.dev/a">https://x.dev/a</a>.');
  });

  it('keeps an unsafe link as its label', () => {
    assert.equal(renderInline('[click](javascript:alert(1))'), 'click');
  });

  it('honours backslash escapes', () => {
    assert.equal(renderInline('\\*not em\\*'), '*not em*');
  });
});
