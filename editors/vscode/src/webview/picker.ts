/**
 * The `#` / `@` context picker of the message box. Typing `#` or `@` at the start of a word
 * (or clicking "# Context") asks the host what can be attached for the text typed after it;
 * the list shows under the box, arrows move, Enter or Tab picks, Escape closes. Picking removes
 * the typed `#word` and attaches the item as a chip.
 */

import { escapeHtml } from '../shared/escape';
import type { ContextOption } from '../shared/messages';

const TRIGGER = /(^|\s)([#@])([\w./-]*)$/;

export interface PickerHost {
  query(text: string): void;
  pick(option: ContextOption): void;
}

export class ContextMenu {
  private options: ContextOption[] = [];
  private active = 0;
  private query: string | undefined;

  constructor(
    private readonly list: HTMLElement,
    private readonly input: HTMLTextAreaElement,
    private readonly host: PickerHost,
  ) {
    list.addEventListener('mousedown', (event) => {
      // Keep the focus in the message box while choosing with the mouse.
      event.preventDefault();
      const row = (event.target as HTMLElement).closest<HTMLElement>('[data-option]');
      if (row) this.choose(Number(row.dataset.option));
    });
  }

  get isOpen(): boolean {
    return !this.list.hidden;
  }

  /** Open with everything on offer (the "# Context" button). */
  open(): void {
    this.query = '';
    this.input.focus();
    this.host.query('');
  }

  /** After each keystroke: a `#word` before the cursor asks; anything else closes. */
  onInput(): void {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const match = TRIGGER.exec(before);
    if (!match) {
      this.hide();
      return;
    }
    this.query = match[3];
    this.host.query(match[3]);
  }

  /** The host's answer; one for a query no longer typed is ignored. */
  show(query: string, options: ContextOption[]): void {
    if (this.query === undefined || query !== this.query) return;
    this.options = options;
    this.active = 0;
    if (!options.length) {
      this.list.innerHTML = `<div class="picker-empty muted">Nothing to attach for “${escapeHtml(query)}”</div>`;
    } else {
      this.list.innerHTML = options
        .map(
          (o, n) =>
            `<div class="picker-item${n === this.active ? ' active' : ''}" role="option" data-option="${n}" aria-selected="${n === this.active}">` +
            `<span class="picker-label">${escapeHtml(o.label)}</span>` +
            (o.detail ? ` <span class="picker-detail muted">${escapeHtml(o.detail)}</span>` : '') +
            `</div>`,
        )
        .join('');
    }
    this.list.hidden = false;
  }

  hide(): void {
    this.list.hidden = true;
    this.query = undefined;
    this.options = [];
  }

  /** Handle a key in the message box; true when the picker used it. */
  keydown(event: KeyboardEvent): boolean {
    if (!this.isOpen) return false;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!this.options.length) return true;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.active = (this.active + step + this.options.length) % this.options.length;
      this.list.querySelectorAll('.picker-item').forEach((el, n) => {
        el.classList.toggle('active', n === this.active);
        el.setAttribute('aria-selected', String(n === this.active));
      });
      return true;
    }
    if ((event.key === 'Enter' || event.key === 'Tab') && this.options.length) {
      event.preventDefault();
      this.choose(this.active);
      return true;
    }
    if (event.key === 'Escape') {
      event.preventDefault();
      this.hide();
      return true;
    }
    return false;
  }

  private choose(index: number): void {
    const option = this.options[index];
    if (!option) return;
    // Take the typed `#word` out of the message: the chip stands for it.
    const cursor = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, cursor);
    const match = TRIGGER.exec(before);
    if (match) {
      const start = before.length - match[2].length - match[3].length;
      this.input.value = this.input.value.slice(0, start) + this.input.value.slice(cursor);
      this.input.setSelectionRange(start, start);
    }
    this.hide();
    this.host.pick(option);
    this.input.dispatchEvent(new Event('input'));
  }
}
