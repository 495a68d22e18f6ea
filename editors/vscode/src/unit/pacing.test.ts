import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRAWN_TIMEOUT_MS, FRAME_MS, Pacer, type Timers } from '../shared/pacing';

/** Timers that run only when the test says time has passed. */
class Clock implements Timers {
  now = 0;
  private next = 0;
  private readonly due = new Map<number, { at: number; run: () => void }>();

  set(run: () => void, ms: number): unknown {
    this.next += 1;
    this.due.set(this.next, { at: this.now + ms, run });
    return this.next;
  }

  clear(handle: unknown): void {
    this.due.delete(handle as number);
  }

  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const [id, timer] = [...this.due].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !timer) break;
      this.due.delete(id);
      this.now = timer.at;
      timer.run();
    }
    this.now = end;
  }
}

function pacer(open = true) {
  const clock = new Clock();
  const sent: number[][] = [];
  const p = new Pacer<number>((batch) => {
    if (open) sent.push(batch);
    return open;
  }, clock);
  return { clock, sent, p };
}

describe('the host pacing actions to the page', () => {
  it('sends what a frame gathered as one batch', () => {
    const { clock, sent, p } = pacer();
    for (let n = 1; n <= 5; n++) p.push(n);
    assert.deepEqual(sent, []);
    clock.advance(FRAME_MS);
    assert.deepEqual(sent, [[1, 2, 3, 4, 5]]);
  });

  it('sends nothing more until the page has drawn the last batch, then all that gathered at once', () => {
    const { clock, sent, p } = pacer();
    p.push(1);
    clock.advance(FRAME_MS);
    // A page that takes ten frames to draw gets no batch per frame meanwhile.
    for (let n = 2; n <= 11; n++) {
      p.push(n);
      clock.advance(FRAME_MS);
    }
    assert.deepEqual(sent, [[1]]);
    p.drawn();
    assert.deepEqual(sent, [[1], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]);
    // Drawn with nothing waiting: the next action starts a frame again.
    p.drawn();
    p.push(12);
    clock.advance(FRAME_MS);
    assert.deepEqual(sent.at(-1), [12]);
  });

  it('sends the next batch anyway when the page never says it drew the last (hidden, reloading)', () => {
    const { clock, sent, p } = pacer();
    p.push(1);
    clock.advance(FRAME_MS);
    p.push(2);
    clock.advance(DRAWN_TIMEOUT_MS - 1);
    assert.equal(sent.length, 1);
    clock.advance(FRAME_MS);
    assert.deepEqual(sent, [[1], [2]]);
  });

  it('flushes at once before another message, and forgets the queue for a snapshot', () => {
    const { clock, sent, p } = pacer();
    p.push(1);
    p.flush();
    assert.deepEqual(sent, [[1]]);
    p.push(2);
    p.reset();
    assert.equal(p.queued, 0);
    p.push(3);
    clock.advance(FRAME_MS);
    assert.deepEqual(sent, [[1], [3]]);
  });

  it('drops the batch when there is no page to take it', () => {
    const { clock, sent, p } = pacer(false);
    p.push(1);
    clock.advance(FRAME_MS);
    assert.deepEqual(sent, []);
    assert.equal(p.queued, 0);
    p.push(2);
    clock.advance(FRAME_MS);
    assert.equal(p.queued, 0, 'nothing waits on a page that is not there');
  });
});
