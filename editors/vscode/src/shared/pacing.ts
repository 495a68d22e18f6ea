/**
 * How the host hands actions to the page: gathered for a frame, then sent as one message, and
 * never more than one message the page has not drawn yet. A page that falls behind (a slow
 * machine, a long answer) is sent fewer, larger batches instead of a queue of small ones that
 * it would still be working through long after the stream ended; the page says when it has
 * drawn a batch, and one that never says so (hidden, reloading) gets the next after a while.
 */

export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How long actions gather before they are sent: one frame. */
export const FRAME_MS = 16;
/** How long a batch may go undrawn before the next is sent anyway. */
export const DRAWN_TIMEOUT_MS = 1000;

export class Pacer<T> {
  private readonly pending: T[] = [];
  private gathering: unknown;
  /** Set while a sent batch has not been drawn. */
  private undrawn: unknown;

  constructor(
    private readonly send: (batch: T[]) => boolean,
    private readonly timers: Timers = realTimers,
  ) {}

  push(item: T): void {
    this.pending.push(item);
    if (this.undrawn === undefined) this.gathering ??= this.timers.set(() => this.flush(), FRAME_MS);
  }

  /** Send what is queued now, drawn or not (a message that must follow it is about to go). */
  flush(): void {
    this.stopGathering();
    if (!this.pending.length) return;
    const batch = this.pending.splice(0);
    if (!this.send(batch)) return;
    if (this.undrawn !== undefined) this.timers.clear(this.undrawn);
    this.undrawn = this.timers.set(() => this.drawn(), DRAWN_TIMEOUT_MS);
  }

  /** The page drew what it was sent: what gathered meanwhile goes at once. */
  drawn(): void {
    if (this.undrawn !== undefined) this.timers.clear(this.undrawn);
    this.undrawn = undefined;
    if (this.pending.length) this.flush();
  }

  /** Forget what is queued (the page is about to get the whole state instead). */
  reset(): void {
    this.stopGathering();
    if (this.undrawn !== undefined) this.timers.clear(this.undrawn);
    this.undrawn = undefined;
    this.pending.length = 0;
  }

  get queued(): number {
    return this.pending.length;
  }

  private stopGathering(): void {
    if (this.gathering !== undefined) this.timers.clear(this.gathering);
    this.gathering = undefined;
  }
}
