/**
 * Images as context: what the panel takes (PNG, JPEG, GIF, WebP), and how a thumbnail is
 * drawn. The HTML names an image by its path (`data-image-path`); the page fills in the
 * picture from the previews the host sends, so the state and the drawn HTML stay small.
 */

import { escapeHtml as e } from './escape';
import type { UserInput } from './protocol';
import type { Conversation } from './state';

/** The formats the model reads, by file extension. */
export const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** The attached image is larger than the model takes (the server's limit). */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;

/** A picture for the page: the image at `path`, as a data URL. */
export interface ImagePreview {
  path: string;
  url: string;
}

/** Where the panel saves the images pasted into the message box. */
const PASTED = /[\\/]pasted-images[\\/]pasted-[^\\/]+$/;

function baseName(path: string): string {
  if (PASTED.test(path)) return 'Pasted image';
  return path.split(/[\\/]/).pop() || path;
}

/** A thumbnail of the image at `path` (filled in by the page once it has the preview). */
export function imageThumb(path: string, className: string): string {
  return `<img class="${className}" data-image-path="${e(path)}" alt="${e(baseName(path))}">`;
}

/** The images a sent message carries, as thumbnails with their names. */
export function renderMessageImages(parts: UserInput[]): string {
  const figures = parts.map((part) => {
    if (part.type === 'localImage') {
      return `<figure class="msg-image">${imageThumb(part.path, 'msg-thumb')}<figcaption>${e(baseName(part.path))}</figcaption></figure>`;
    }
    if (part.type === 'image' && /^data:image\/(png|jpeg|gif|webp);base64,/i.test(part.url ?? '')) {
      return `<figure class="msg-image"><img class="msg-thumb" src="${e(part.url ?? '')}" alt="Pasted image"><figcaption>Pasted image</figcaption></figure>`;
    }
    return '';
  });
  const html = figures.join('');
  return html ? `<div class="msg-images">${html}</div>` : '';
}

/** The image files the conversation's messages carry: the only ones the page may ask to see. */
export function conversationImagePaths(conversation: Conversation | undefined): Set<string> {
  const paths = new Set<string>();
  for (const turn of conversation?.turns ?? []) {
    for (const item of turn.items) {
      if (item.type !== 'userMessage') continue;
      for (const part of item.content ?? []) if (part.type === 'localImage') paths.add(part.path);
    }
  }
  return paths;
}
