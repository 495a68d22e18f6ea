/**
 * The files pasted images are saved to. A pasted image is needed as a file only until the
 * message that carries it has been read by the server (the rollout keeps the image itself), so
 * the folder would otherwise grow with every screenshot ever pasted. When the extension starts,
 * the pasted images older than a week are removed; a message sent, retried or queued within a
 * week still finds its files.
 */

import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export const PASTED_IMAGES_DIR = 'pasted-images';
export const PASTED_IMAGE_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

/** The names the panel gives pasted images; nothing else in the folder is touched. */
const PASTED_NAME = /^pasted-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(?:png|jpg|gif|webp)$/;

export function pastedImageName(uuid: string, extension: string): string {
  return `pasted-${uuid}.${extension}`;
}

/** Removes the pasted images in `dir` last written before `now - keepMs`; how many it removed. */
export async function prunePastedImages(dir: string, now: number = Date.now(), keepMs: number = PASTED_IMAGE_KEEP_MS): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names.filter((n) => PASTED_NAME.test(n))) {
    const file = path.join(dir, name);
    try {
      // lstat: a link that happens to carry the name is not followed, and not removed.
      const stat = await fs.lstat(file);
      if (!stat.isFile() || now - stat.mtimeMs < keepMs) continue;
      await fs.unlink(file);
      removed += 1;
    } catch {
      // Removed meanwhile by another window of the same profile.
    }
  }
  return removed;
}
