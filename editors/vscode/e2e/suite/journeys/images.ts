/**
 * Images as context: a screenshot attached with the "Image" button (VS Code's file dialog) and
 * an image pasted into the message box become thumbnail chips; one can be removed before
 * sending; the model receives the others as images (the large one scaled to its budget), and
 * the sent message shows them as thumbnails. After a window reload, the pasted images older
 * than a week are gone from the extension's storage, the newer ones are kept, and the thread
 * opened again draws the pasted image's picture (the deleted screenshot by its name).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import * as vscode from 'vscode';
import { assert, enqueue, freshThread, type Journey, modelRequests, turnFinished, ui, waitFor, workspaceFile } from '../support';

function crc32(data: Buffer): number {
  let crc = ~0;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width` x `height` RGB PNG in one colour. */
function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

/** Paste `data` (a PNG) into the message box as the clipboard would hand it over. */
function pasteScript(data: Buffer, name: string): string {
  return `(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(data.toString('base64'))}), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'image/png' }));
    const input = document.getElementById('input');
    input.focus();
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    return true;
  })()`;
}

/** The width and height a PNG data URL's image has (its IHDR). */
function pngSize(url: string): [number, number] {
  const data = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  return [data.readUInt32BE(16), data.readUInt32BE(20)];
}

const QUESTION = 'What is in these pictures?';
const STALE_PASTE = 'pasted-0d5e3a4b-2c1f-4e6a-8b9c-7d6e5f4a3b2c.png';

interface ImagePart {
  type?: string;
  image_url?: string;
  text?: string;
}

export const imageJourneys: Journey[] = [
  {
    name: 'images: attach a screenshot and paste an image; the model receives them and the message shows them',
    screenshot: 'images-context',
    async run(api, ctx) {
      const shot = workspaceFile(ctx, 'screenshot.png');
      await vscode.workspace.fs.writeFile(shot, png(3000, 2000, [30, 120, 200]));
      const threadId = await freshThread(api);
      await enqueue(ctx, 'images');

      // Attach: the button opens VS Code's file dialog; the user types the file's path.
      await ui('chat.click', { selector: '#attach-image' });
      await ui('fileDialog.pick', { path: shot.fsPath });
      await ui('chat.waitFor', { selector: '.chip[data-kind="image"] img.chip-thumb[src^="data:image/png"]' });

      // Paste twice; the second is removed again before sending.
      await ui('chat.eval', { expression: pasteScript(png(40, 30, [220, 40, 40]), 'red.png') });
      await ui('chat.waitFor', { selector: '.chip[data-kind="image"]', text: 'Pasted image 1' });
      await ui('chat.eval', { expression: pasteScript(png(20, 20, [40, 220, 40]), 'green.png') });
      await ui('chat.waitFor', { selector: '.chip[data-kind="image"]', text: 'Pasted image 2' });
      const thumbs = await ui<number>('chat.eval', { expression: 'document.querySelectorAll(".chip img.chip-thumb[src^=\'data:image/png\']").length' });
      assert(thumbs === 3, `three thumbnail chips, got ${thumbs}`);
      await ui('chat.click', { selector: '.chip-remove[aria-label="Remove Pasted image 2"]' });
      await waitFor('the removed chip gone', () => api.store.state.attachments.length === 2);
      await ui('screenshot', { name: 'images-chips', selector: '[id="workbench.parts.sidebar"]' });

      await ui('chat.send', { text: QUESTION });
      await turnFinished(api, threadId);
      assert(api.store.state.attachments.length === 0, 'the chips are cleared once sent');

      // What the model received: both images, framed by name, the screenshot scaled down.
      const [request] = await modelRequests(ctx);
      const user = (request.body.input ?? []).filter((item) => item.role === 'user').at(-1);
      const parts = (user?.content ?? []) as ImagePart[];
      const images = parts.filter((p) => p.type === 'input_image').map((p) => p.image_url ?? '');
      assert(images.length === 2, `two images sent, got ${images.length}: ${JSON.stringify(parts.map((p) => p.type))}`);
      assert(images.every((url) => url.startsWith('data:image/png;base64,')), 'PNG data URLs');
      const sizes = images.map(pngSize);
      assert(JSON.stringify(sizes) === JSON.stringify([[1920, 1280], [40, 30]]), `scaled to the budget, got ${JSON.stringify(sizes)}`);
      const texts = parts.filter((p) => p.type === 'input_text').map((p) => p.text ?? '');
      assert(texts.some((t) => t.includes(`path="${shot.fsPath}"`)), `the screenshot named by its path, got ${JSON.stringify(texts)}`);

      // The sent message shows both thumbnails; the model's answer follows.
      await ui('chat.waitFor', { selector: '#log .msg.user img.msg-thumb[src^="data:image/png"]' });
      const shown = await ui<string[]>('chat.query', { selector: '#log .msg.user .msg-image figcaption' });
      assert(shown.length === 2 && shown[0] === 'screenshot.png' && shown[1] === 'Pasted image', `two thumbnails, got ${JSON.stringify(shown)}`);
      const pictured = await ui<number>('chat.eval', { expression: 'document.querySelectorAll("#log .msg.user img.msg-thumb[src^=\'data:image/png\']").length' });
      assert(pictured === 2, `both thumbnails drawn, got ${pictured}`);
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'a blue screenshot and a red square' });
      await ui('screenshot', { name: 'images-context' });
      await vscode.workspace.fs.delete(shot);

      // A pasted image of last month, for the window reload to clear away.
      const stale = path.join(api.images.pastedDir, STALE_PASTE);
      fs.writeFileSync(stale, png(10, 10, [0, 0, 0]));
      const month = new Date(Date.now() - 30 * 24 * 60 * 60 * 1000);
      fs.utimesSync(stale, month, month);
    },
  },
];

/** After the window reload; they run after the first Ctrl+Alt+C of the new window. */
export const imageReloadJourneys: Journey[] = [
  {
    name: 'images: after a window reload, the pasted images older than a week are removed, the newer kept and drawn again in their thread',
    screenshot: 'images-pruned',
    phase: 2,
    async run(api) {
      const dir = api.images.pastedDir;
      const pasted = () => fs.readdirSync(dir).filter((name) => name.startsWith('pasted-'));
      await waitFor('the month-old pasted image removed', () => !pasted().includes(STALE_PASTE), 30_000);
      const kept = pasted();
      // The two pasted in the journey before the reload (one was removed from the message, not the disk).
      assert(kept.length === 2, `the images pasted today kept, got ${JSON.stringify(kept)}`);

      // The thread opened again in the new window: the pasted image still has its picture, the
      // screenshot (deleted since) shows its name alone.
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await waitFor('the chat panel', () => api.chat.isReady, 60_000);
      await api.controller.refreshThreads('');
      const thread = api.store.state.threads.find((t) => t.preview?.includes(QUESTION));
      assert(thread, `the images thread listed, got ${JSON.stringify(api.store.state.threads.map((t) => t.preview))}`);
      await api.controller.resume(thread.id);
      await ui('chat.waitFor', { selector: '#log .msg.user img.msg-thumb[src^="data:image/png"]' });
      const drawn = await ui<string[]>('chat.eval', {
        expression: `Array.from(document.querySelectorAll('#log .msg.user .msg-image')).map((f) => f.querySelector('figcaption').textContent + ':' + (f.querySelector('img').getAttribute('src') ? 'picture' : 'name'))`,
      });
      assert(JSON.stringify(drawn) === JSON.stringify(['screenshot.png:name', 'Pasted image:picture']), `thumbnails after the reload, got ${JSON.stringify(drawn)}`);
      await ui('screenshot', { name: 'images-pruned' });
    },
  },
];
