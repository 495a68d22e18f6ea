/**
 * Images as context from the panel: files picked with "Image" (PNG, JPEG, GIF, WebP) and
 * images pasted into the message box. Each becomes an `image` chip; the message sends it as a
 * `localImage` input, so the server reads it like any attached file. A pasted image is saved
 * first, as a file of its own (readable by the user only) under the extension's storage, and
 * removed a week later (`pastedImages.ts`). The page gets each image as a data URL for its
 * thumbnails, again when it reloads, and asks for those of a thread opened later.
 */

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { conversationImagePaths, IMAGE_MAX_BYTES, IMAGE_TYPES, type ImagePreview } from '../shared/images';
import { PASTED_IMAGES_DIR, pastedImageName, prunePastedImages } from './pastedImages';
import type { ChatStore } from './store';

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=]+)$/;
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

export class ImageAttachments {
  private readonly previews = new Map<string, string>();
  private pasted = 0;

  constructor(
    private readonly store: ChatStore,
    private readonly storage: vscode.Uri,
  ) {}

  /** The folder pasted images are saved to. */
  get pastedDir(): string {
    return vscode.Uri.joinPath(this.storage, PASTED_IMAGES_DIR).fsPath;
  }

  /** Removes the pasted images old enough to be of no use; called once as the extension starts. */
  async prune(): Promise<number> {
    return prunePastedImages(this.pastedDir);
  }

  /** Every thumbnail known, for a page that (re)loads. */
  all(): ImagePreview[] {
    return [...this.previews].map(([file, url]) => ({ path: file, url }));
  }

  /**
   * Pictures for the thumbnails of `paths` the page drew without one: read again from disk
   * for a thread opened or a page reloaded. Only the images the open conversation's messages
   * carry are read; one gone, too large or not an image keeps its name alone.
   */
  async previewsFor(paths: string[]): Promise<ImagePreview[]> {
    const carried = conversationImagePaths(this.store.state.conversation);
    const found: ImagePreview[] = [];
    for (const file of new Set(paths)) {
      const known = this.previews.get(file);
      if (known) {
        found.push({ path: file, url: known });
        continue;
      }
      const mime = IMAGE_TYPES[path.extname(file).slice(1).toLowerCase()];
      if (!carried.has(file) || !mime) continue;
      try {
        const stat = await fs.stat(file);
        if (!stat.isFile() || stat.size > IMAGE_MAX_BYTES) continue;
        // Not kept here: the page keeps what it was sent, and asks again only after a reload.
        found.push({ path: file, url: `data:${mime};base64,${(await fs.readFile(file)).toString('base64')}` });
      } catch {
        // Moved or removed since it was sent: the name is shown instead.
      }
    }
    return found;
  }

  /** "Image": the user picks image files; each is attached. The new thumbnails. */
  async pick(): Promise<ImagePreview[]> {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: true,
      openLabel: 'Attach',
      title: 'Attach images to the message',
      filters: { Images: Object.keys(IMAGE_TYPES) },
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    const added: ImagePreview[] = [];
    for (const uri of picked ?? []) {
      const file = uri.fsPath;
      const mime = IMAGE_TYPES[path.extname(file).slice(1).toLowerCase()];
      if (!mime) throw new Error(`${path.basename(file)} is not a PNG, JPEG, GIF or WebP image.`);
      const data = await fs.readFile(file);
      if (data.length > IMAGE_MAX_BYTES) throw new Error(`${path.basename(file)} is too large to send (over 20 MB).`);
      added.push(this.add(file, path.basename(file), `data:${mime};base64,${data.toString('base64')}`));
    }
    return added;
  }

  /** An image pasted into the message box: saved, then attached. Its thumbnail. */
  async paste(dataUrl: string): Promise<ImagePreview> {
    const match = DATA_URL.exec(dataUrl);
    if (!match) throw new Error('Only PNG, JPEG, GIF and WebP images can be pasted.');
    const data = Buffer.from(match[2], 'base64');
    if (data.length > IMAGE_MAX_BYTES) throw new Error('The pasted image is too large to send (over 20 MB).');
    const dir = this.pastedDir;
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, pastedImageName(randomUUID(), EXTENSION[match[1]]));
    await fs.writeFile(file, data, { mode: 0o600, flag: 'wx' });
    this.pasted += 1;
    return this.add(file, `Pasted image ${this.pasted}`, dataUrl);
  }

  private add(file: string, label: string, url: string): ImagePreview {
    this.previews.set(file, url);
    this.store.dispatch({ type: 'attach', attachment: { id: `image:${file}`, kind: 'image', label, path: file } });
    return { path: file, url };
  }
}
