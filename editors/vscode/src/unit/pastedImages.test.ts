import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { PASTED_IMAGE_KEEP_MS, pastedImageName, prunePastedImages } from '../host/pastedImages';

const DAY = 24 * 60 * 60 * 1000;

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pasted-images-'));
}

/** Writes `name` in `dir`, last modified `age` ms before `now`. */
function write(dir: string, name: string, now: number, age: number): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, 'png');
  const when = new Date(now - age);
  fs.utimesSync(file, when, when);
  return file;
}

describe('pasted images are removed once old', () => {
  it('removes the pasted images older than a week and keeps the newer ones', async () => {
    const dir = folder();
    const now = Date.now();
    const old = write(dir, pastedImageName('0b4a9c1e-7f3d-4e2a-9c8b-1a2b3c4d5e6f', 'png'), now, 8 * DAY);
    const older = write(dir, pastedImageName('1b4a9c1e-7f3d-4e2a-9c8b-1a2b3c4d5e6f', 'webp'), now, 90 * DAY);
    const recent = write(dir, pastedImageName('2b4a9c1e-7f3d-4e2a-9c8b-1a2b3c4d5e6f', 'jpg'), now, 6 * DAY);
    assert.equal(await prunePastedImages(dir, now), 2);
    assert.equal(fs.existsSync(old), false);
    assert.equal(fs.existsSync(older), false);
    assert.equal(fs.existsSync(recent), true);
    assert.equal(PASTED_IMAGE_KEEP_MS, 7 * DAY);
  });

  it('touches nothing but the files it named itself, and follows no link', async () => {
    const dir = folder();
    const now = Date.now();
    const mine = write(dir, 'notes.png', now, 30 * DAY);
    const odd = write(dir, 'pasted-1234.png', now, 30 * DAY);
    const target = write(folder(), 'target.png', now, 30 * DAY);
    const link = path.join(dir, pastedImageName('3b4a9c1e-7f3d-4e2a-9c8b-1a2b3c4d5e6f', 'png'));
    fs.symlinkSync(target, link);
    fs.lutimesSync(link, new Date(now - 30 * DAY), new Date(now - 30 * DAY));
    const sub = path.join(dir, pastedImageName('4b4a9c1e-7f3d-4e2a-9c8b-1a2b3c4d5e6f', 'gif'));
    fs.mkdirSync(sub);
    assert.equal(await prunePastedImages(dir, now), 0);
    for (const kept of [mine, odd, target, link, sub]) assert.equal(fs.existsSync(kept) || fs.lstatSync(kept).isSymbolicLink(), true, kept);
  });

  it('is quiet when nothing was ever pasted', async () => {
    assert.equal(await prunePastedImages(path.join(folder(), 'pasted-images')), 0);
  });
});
