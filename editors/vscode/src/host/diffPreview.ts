/**
 * "Open diff": a proposed file change in VS Code's diff editor, before or after approving.
 * The left side is the file as it is now (the open buffer, else the disk); the right side is
 * a read-only virtual document holding the proposed text. It also shows what a finished turn
 * changed: the file before the turn against the file as it is.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { changeKind, sidesOfChange } from '../shared/patch';
import type { FileUpdateChange } from '../shared/protocol';

export const PROPOSED_SCHEME = 'codex-proposed';

export class DiffPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** A read-only document holding `text`, named after `filePath`. */
  virtual(filePath: string, text: string, label: string): vscode.Uri {
    const uri = vscode.Uri.from({
      scheme: PROPOSED_SCHEME,
      path: filePath.startsWith('/') ? filePath : `/${filePath}`,
      query: `${label}-${++this.counter}`,
    });
    this.contents.set(uri.toString(), text);
    // Keep memory bounded: old previews are not reopened.
    if (this.contents.size > 50) this.contents.delete(this.contents.keys().next().value!);
    return uri;
  }

  async currentText(uri: vscode.Uri): Promise<string> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return open.getText();
    try {
      return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return '';
    }
  }

  async open(change: FileUpdateChange, cwd: string | undefined): Promise<void> {
    const absolute = path.isAbsolute(change.path) ? change.path : path.join(cwd ?? '/', change.path);
    const fileUri = vscode.Uri.file(absolute);
    const current = await this.currentText(fileUri);
    const sides = sidesOfChange(change, current);
    const name = path.basename(absolute);
    if (!sides) {
      // The file moved on since the diff was made: show the diff itself.
      const doc = await vscode.workspace.openTextDocument({ content: change.diff, language: 'diff' });
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    const kind = changeKind(change);
    const left = kind === 'update' || kind === 'delete'
      ? (current === sides.before && current !== '' ? fileUri : this.virtual(absolute, sides.before, 'before'))
      : this.virtual(absolute, '', 'before');
    const right = this.virtual(absolute, sides.after, 'proposed');
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (proposed by Codex)`, { preview: true });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
