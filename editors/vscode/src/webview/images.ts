/**
 * Images in the page: a picture pasted into the message box goes to the host (which saves
 * and attaches it), and the thumbnails drawn by path get their pictures from the previews the
 * host sent, or asks for them once (a thread opened, the page reloaded).
 */

import type { ImagePreview } from '../shared/images';
import { IMAGE_MAX_BYTES, IMAGE_TYPES } from '../shared/images';

const ACCEPTED = new Set(Object.values(IMAGE_TYPES));

export class ImagePreviews {
  private readonly urls = new Map<string, string>();
  /** Paths asked of the host already: each is asked once, found or not. */
  private readonly asked = new Set<string>();

  /** `want` asks the host for the pictures of thumbnails it has not sent. */
  constructor(private readonly want: (paths: string[]) => void) {}

  add(previews: ImagePreview[]): void {
    for (const preview of previews) this.urls.set(preview.path, preview.url);
  }

  /** Give every thumbnail drawn since the last call its picture, asking for those not known. */
  fill(root: ParentNode): void {
    const missing: string[] = [];
    for (const img of Array.from(root.querySelectorAll<HTMLImageElement>('img[data-image-path]:not([src])'))) {
      const path = img.dataset.imagePath ?? '';
      const url = this.urls.get(path);
      if (url) img.src = url;
      else if (path && !this.asked.has(path)) {
        this.asked.add(path);
        missing.push(path);
      }
    }
    if (missing.length) this.want(missing);
  }
}

/**
 * Pasting an image into `input` attaches it (`send` gets it as a data URL); pasted text is
 * left to the box. `refuse` says why an image was not taken.
 */
export function acceptPastedImages(
  input: HTMLTextAreaElement,
  send: (dataUrl: string) => void,
  refuse: (reason: string) => void,
): void {
  input.addEventListener('paste', (event) => {
    const files = Array.from(event.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
    if (!files.length) return;
    event.preventDefault();
    for (const file of files) {
      if (!ACCEPTED.has(file.type)) {
        refuse(`A pasted ${file.type} image cannot be sent: PNG, JPEG, GIF and WebP can.`);
        continue;
      }
      if (file.size > IMAGE_MAX_BYTES) {
        refuse('The pasted image is too large to send (over 20 MB).');
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        if (typeof reader.result === 'string') send(reader.result);
      };
      reader.readAsDataURL(file);
    }
  });
}
