/**
 * An answer rendered as it streams: its settled pieces (see `lastCut`) each rendered once into
 * their own node, and only the growing tail re-rendered each frame. Every piece goes through the
 * same Markdown renderer and DOMPurify; pieces render as the whole text would, so a finished
 * answer keeps them, and one that arrives whole is drawn the same way in one go.
 */

import DOMPurify from 'dompurify';
import { renderMarkdown } from '../shared/markdown';
import { lastCut } from '../shared/streaming';

interface Streamed {
  text: string;
  settled: number;
  tail: HTMLElement;
}

const streams = new WeakMap<HTMLElement, Streamed>();

function piece(html: string, className: string): HTMLElement {
  const node = document.createElement('div');
  node.className = className;
  node.innerHTML = DOMPurify.sanitize(html);
  return node;
}

/** Bring `container` (an answer's `.md`) up to `text`, touching only what changed. */
export function streamInto(container: HTMLElement, text: string, cwd?: string): void {
  let seen = streams.get(container);
  // Every answer of the thread is brought up to date each frame: most have not changed.
  if (seen?.text === text) return;
  if (!seen || !text.startsWith(seen.text.slice(0, seen.settled))) {
    // A new answer, or one whose settled text changed: start over.
    container.replaceChildren();
    seen = { text: '', settled: 0, tail: piece('', 'md-part md-tail') };
    container.appendChild(seen.tail);
    streams.set(container, seen);
  }
  if (seen.text === text) return;
  const cut = lastCut(text, seen.settled);
  if (cut > seen.settled) {
    container.insertBefore(piece(renderMarkdown(text.slice(seen.settled, cut), cwd), 'md-part'), seen.tail);
    seen.settled = cut;
  }
  seen.tail.innerHTML = DOMPurify.sanitize(renderMarkdown(text.slice(seen.settled), cwd));
  seen.text = text;
}
