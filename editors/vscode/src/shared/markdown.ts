/**
 * Model text as HTML for the chat: Markdown through markdown-it (tables, lists, code, links),
 * code blocks highlighted by highlight.js, each with Copy / Insert / Apply buttons. Safe by
 * construction: raw HTML in the source stays text (`html: false`), links keep only http, https
 * and mailto, and the webview passes every block through DOMPurify before it reaches the DOM.
 *
 * File locations the answer names (an absolute path under the thread's folder, with an
 * optional `:line` or `:start-end`; a relative one with its `:line`; a Markdown link to a
 * relative path, with an optional `#L12`) become links that open the file there.
 */

import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';
import { classToken, escapeHtml, isSafeUrl } from './escape';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });
md.validateLink = (url) => isSafeUrl(url) || relativeFile(url) !== undefined;

/** A link target that names a file of the project: a relative path (no `..`), maybe `#L12`. */
function relativeFile(url: string): { path: string; line?: string } | undefined {
  const found = /^([\w.@+~-]+(?:\/[\w.@+~-]+)*)(?:#L(\d+)(?:-L?\d+)?|:(\d+))?$/.exec(url);
  if (!found || found[1].split('/').includes('..')) return undefined;
  return { path: found[1], line: found[2] ?? found[3] };
}

md.renderer.rules.fence = (tokens, index) => {
  const token = tokens[index];
  const lang = classToken(token.info.trim().split(/\s+/)[0] ?? '');
  return codeBlock(token.content, lang);
};

// Links open outside the editor; the webview asks the host to open them.
const defaultLinkOpen = md.renderer.rules.link_open;
md.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const file = relativeFile(String(tokens[index].attrGet('href') ?? ''));
  const cwd: unknown = env?.cwd;
  if (file && typeof cwd === 'string' && cwd) {
    // A project file: opened in the editor, at its line.
    const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
    const line = file.line ? ` data-line="${escapeHtml(file.line)}"` : '';
    return `<a class="file-link" href="#" data-action="openFile" data-path="${escapeHtml(base + file.path)}"${line} title="${escapeHtml(base + file.path)}">`;
  }
  tokens[index].attrSet('data-action', 'openLink');
  return defaultLinkOpen ? defaultLinkOpen(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

/** A code block with its toolbar; `lang` is already a safe class token. */
export function codeBlock(code: string, lang: string): string {
  let body: string;
  if (lang && hljs.getLanguage(lang)) {
    // highlight.js escapes the code and adds only `<span class="hljs-…">`.
    body = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
  } else {
    body = escapeHtml(code);
  }
  const label = lang ? `<span class="code-lang">${lang}</span>` : '<span class="code-lang"></span>';
  const buttons = [
    ['copyCode', 'Copy', 'Copy to the clipboard'],
    ['insertCode', 'Insert', 'Insert at the cursor in the editor'],
    ['applyCode', 'Apply', 'Apply to the file in the editor (Codex proposes the change)'],
  ]
    .map(([action, text, title]) => `<button type="button" class="code-action secondary" data-action="${action}" title="${title}">${text}</button>`)
    .join('');
  return (
    `<div class="code-block" data-lang="${lang}">` +
    `<div class="code-head">${label}<span class="code-actions">${buttons}</span></div>` +
    `<pre class="hljs"><code${lang ? ` class="language-${lang}"` : ''}>${body}</code></pre>` +
    `</div>`
  );
}

export function renderMarkdown(source: string, cwd?: string): string {
  const html = md.render(source.replace(/\r\n?/g, '\n'), { cwd });
  return cwd ? linkFileLocations(html, cwd) : html;
}

const LOCATION = /(^|[^\w./-])((?:\/|[\w@+~-][\w.@+~-]*\/)?[\w.@+~-]+(?:\/[\w.@+~-]+)*)(?::(\d+)(?:-(\d+))?)?/g;

/** Absolute paths under `cwd` in the text of `html` (not in code blocks or links) as links. */
export function linkFileLocations(html: string, cwd: string): string {
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  let inside = 0; // depth of <pre> and <a> around the current text
  return html.replace(/(<[^>]+>)|([^<]+)/g, (whole, tag: string | undefined, text: string | undefined) => {
    if (tag) {
      if (/^<(pre|a)[\s>]/i.test(tag)) inside += 1;
      else if (/^<\/(pre|a)>/i.test(tag)) inside = Math.max(0, inside - 1);
      return tag;
    }
    if (inside || !text) return whole;
    return text.replace(LOCATION, (match, lead: string, path: string, start?: string, end?: string) => {
      // A relative path counts only with its line (`inventory.py:11`), and never climbs out.
      const relative = !path.startsWith('/');
      if (relative && (!start || !/\.[A-Za-z]\w*$/.test(path) || path.split('/').includes('..'))) return match;
      if (path.startsWith('/') && !path.startsWith(base)) return match;
      const rel = path.startsWith('/') ? path.slice(base.length) : path;
      path = path.startsWith('/') ? path : base + path;
      const lines = start ? `:${start}${end && end !== start ? `-${end}` : ''}` : '';
      const line = start ? ` data-line="${escapeHtml(start)}"` : '';
      return `${lead}<a class="file-link" href="#" data-action="openFile" data-path="${escapeHtml(path)}"${line} title="${escapeHtml(path)}">${escapeHtml(rel)}${lines}</a>`;
    });
  });
}
