/**
 * Images in the page: a picture pasted into the message box goes to the host (which saves
 * and attaches it), and the thumbnails drawn by path get their pictures from the previews the
 * host sent.
 */

import type { ImagePreview } from '../shared/images';
import { IMAGE_MAX_BYTES, IMAGE_TYPES } from '../shared/images';

const ACCEPTED = new Set(Object.values(IMAGE_TYPES));

export class ImagePreviews {
  private readonly urls = new Map<string, string>();

  add(previews: ImagePreview[]): void {
    for (const preview of previews) this.urls.set(preview.path, preview.url);
  }

  /** Give every thumbnail drawn since the last call its picture. */
  fill(root: ParentNode): void {
    for (const img of Array.from(root.querySelectorAll<HTMLImageElement>('img[data-image-path]:not([src])'))) {
      const url = this.urls.get(img.dataset.imagePath ?? '');
      if (url) img.src = url;
    }
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
