/**
 * The conversation's blocks in the page: a keyed update that reuses a block's node while its HTML
 * is unchanged, streams an answer's text into its node piece by piece, and draws a long thread's
 * early blocks lazily. A thread of hundreds of turns opens with its last blocks drawn; each
 * earlier one is drawn when the page is idle or as it comes near the view, whichever is first,
 * and until then holds its place with a guessed height.
 */

import type { Block } from '../shared/render';
import { streamInto } from './stream';

/** How many new blocks one update draws at once, those nearest the end. */
const EAGER_BLOCKS = 60;

export class Blocks {
  private readonly deferred = new Map<HTMLElement, Block>();
  private readonly nearView: IntersectionObserver;
  private idleDrawing = false;

  /**
   * @param container the element holding one node per block
   * @param clean sanitizes HTML on its way into the DOM
   * @param onNewRequest told the key of each request block that appears
   */
  constructor(
    private readonly container: HTMLElement,
    private readonly clean: (html: string) => string,
    private readonly onNewRequest: (key: string) => void,
  ) {
    this.nearView = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) if (entry.isIntersecting) this.drawDeferred(entry.target as HTMLElement);
      },
      { root: container, rootMargin: '1500px 0px' },
    );
  }

  /** Bring the page's blocks to `blocks`, in that order, touching only what changed. */
  patch(blocks: Block[]): void {
    const existing = new Map<string, HTMLElement>();
    for (const child of Array.from(this.container.children) as HTMLElement[]) existing.set(child.dataset.key ?? '', child);
    let previous: Element | null = null;
    blocks.forEach((block, index) => {
      let node = existing.get(block.key);
      existing.delete(block.key);
      if (!node) {
        node = document.createElement('div');
        node.className = 'block';
        node.dataset.key = block.key;
        if (block.key.startsWith('request:')) this.onNewRequest(block.key);
        if (index < blocks.length - EAGER_BLOCKS) {
          node.dataset.deferred = '';
          this.deferred.set(node, block);
          this.nearView.observe(node);
        }
      }
      if (this.deferred.has(node)) this.deferred.set(node, block);
      else this.draw(node, block);
      const expected: Element | null = previous ? previous.nextElementSibling : this.container.firstElementChild;
      if (expected !== node) this.container.insertBefore(node, expected);
      previous = node;
    });
    for (const node of existing.values()) {
      this.forget(node);
      node.remove();
    }
    this.drawWhenIdle();
  }

  private draw(node: HTMLElement, block: Block): void {
    if (node.dataset.html !== block.html) {
      node.innerHTML = this.clean(block.html);
      node.dataset.html = block.html;
    }
    if (block.stream) {
      node.classList.toggle('live', block.stream.live);
      const md = node.querySelector<HTMLElement>('.md');
      if (md) streamInto(md, block.stream.text, block.stream.cwd);
    }
  }

  private drawDeferred(node: HTMLElement): void {
    const block = this.deferred.get(node);
    if (!block) return;
    this.forget(node);
    this.draw(node, block);
  }

  /** Blocks not drawn yet are drawn while the page is idle, nearest the end first. */
  private drawWhenIdle(): void {
    if (this.idleDrawing || !this.deferred.size) return;
    this.idleDrawing = true;
    requestIdleCallback((deadline) => {
      this.idleDrawing = false;
      const waiting = [...this.deferred.keys()];
      for (let at = waiting.length - 1; at >= 0 && deadline.timeRemaining() > 2; at--) this.drawDeferred(waiting[at]);
      this.drawWhenIdle();
    });
  }

  private forget(node: HTMLElement): void {
    this.deferred.delete(node);
    this.nearView.unobserve(node);
    delete node.dataset.deferred;
  }
}
