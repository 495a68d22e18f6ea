/**
 * A proposed change shown in place, in the editor that holds the file: the lines it removes
 * struck through on red, the first of the lines it inserts after them on green, and Accept /
 * Reject / Diff as CodeLens above each change. The buffer itself is left alone until the user
 * accepts: the server lands an accepted change. A proposal follows the user's own typing (its
 * lines are worked out again from the buffer), and one that no longer fits says so.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { insertedHint, type LineChange, lineChanges, proposalDiff } from '../shared/inlineEdit';
import { sidesOfChange } from '../shared/patch';
import type { FileUpdateChange } from '../shared/protocol';
import { shortPath } from '../shared/renderFiles';
import type { DiffPreview } from './diffPreview';

interface Shown {
  change: FileUpdateChange;
  lines: LineChange[];
  thread: vscode.CommentThread;
}

export interface Presented {
  /** The proposal as Markdown, every file's diff. */
  markdown: string;
  /** The first changed line of the file in the editor. */
  firstLine?: number;
}

function absolute(change: FileUpdateChange, cwd: string | undefined): string {
  return path.isAbsolute(change.path) ? change.path : path.join(cwd ?? '/', change.path);
}

export class ProposalView implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
    textDecoration: 'line-through',
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly inserted = vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'),
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground'),
      margin: '0 0 0 2em',
    },
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly shown = new Map<string, Shown>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  /** Registered only while a proposal is shown: taking it away is what clears the lenses at once. */
  private registration: vscode.Disposable | undefined;

  constructor(private readonly diffs: DiffPreview) {}

  /** Show `changes` in place where the file `uri` is open; every file's diff goes in the Markdown. */
  async show(uri: vscode.Uri, changes: FileUpdateChange[], cwd: string | undefined, thread: vscode.CommentThread): Promise<Presented> {
    const parts: string[] = [];
    let firstLine: number | undefined;
    for (const change of changes) {
      const file = absolute(change, cwd);
      const name = shortPath(file, cwd);
      const sides = sidesOfChange(change, await this.diffs.currentText(vscode.Uri.file(file)));
      if (!sides) {
        parts.push(`${name}: the proposal no longer fits the file (use Open diff)`);
        continue;
      }
      const lines = lineChanges(sides.before, sides.after);
      parts.push(proposalDiff(name, lines));
      if (file === uri.fsPath && lines.length) {
        this.shown.set(uri.toString(), { change, lines, thread });
        firstLine = lines[0].start;
        thread.range = this.anchor(lines[0]);
      }
    }
    this.redraw();
    return { markdown: parts.join('\n\n') || 'An empty change.', firstLine };
  }

  /** The line the thread sits under: the last one the change removes, else the one before it. */
  private anchor(change: LineChange): vscode.Range {
    const line = change.removed.length ? change.start + change.removed.length - 1 : Math.max(0, change.start - 1);
    return new vscode.Range(line, 0, line, 0);
  }

  /** The user typed in a file with a proposal: work its lines out again. */
  refresh(doc: vscode.TextDocument): void {
    const shown = this.shown.get(doc.uri.toString());
    if (!shown) return;
    const sides = sidesOfChange(shown.change, doc.getText());
    shown.lines = sides ? lineChanges(sides.before, sides.after) : [];
    this.redraw();
  }

  redraw(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const shown = this.shown.get(editor.document.uri.toString());
      const removed: vscode.DecorationOptions[] = [];
      const inserted: vscode.DecorationOptions[] = [];
      for (const change of shown?.lines ?? []) {
        const doc = editor.document;
        if (change.removed.length) {
          const last = Math.min(doc.lineCount - 1, change.start + change.removed.length - 1);
          removed.push({ range: new vscode.Range(change.start, 0, last, doc.lineAt(last).text.length) });
        }
        const hint = insertedHint(change);
        if (!hint) continue;
        const line = Math.min(doc.lineCount - 1, change.removed.length ? change.start + change.removed.length - 1 : Math.max(0, change.start - 1));
        const end = doc.lineAt(line).range.end;
        inserted.push({
          range: new vscode.Range(end, end),
          hoverMessage: new vscode.MarkdownString().appendCodeblock(change.inserted.join('\n'), doc.languageId),
          renderOptions: { after: { contentText: hint } },
        });
      }
      editor.setDecorations(this.removed, removed);
      editor.setDecorations(this.inserted, inserted);
    }
    if (this.shown.size && !this.registration) this.registration = vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this);
    else if (!this.shown.size) {
      this.registration?.dispose();
      this.registration = undefined;
    }
    this.lensesChanged.fire();
  }

  clear(uri: vscode.Uri): void {
    if (this.shown.delete(uri.toString())) this.redraw();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const shown = this.shown.get(doc.uri.toString());
    if (!shown) return [];
    return shown.lines.flatMap((change) => {
      const at = new vscode.Range(Math.min(change.start, doc.lineCount - 1), 0, Math.min(change.start, doc.lineCount - 1), 0);
      const args = [shown.thread];
      return [
        new vscode.CodeLens(at, { title: '$(check) Accept (Ctrl+Enter)', command: 'codexChat.inline.accept', arguments: args }),
        new vscode.CodeLens(at, { title: '$(discard) Reject (Escape)', command: 'codexChat.inline.reject', arguments: args }),
        new vscode.CodeLens(at, { title: 'Open diff', command: 'codexChat.inline.diff', arguments: args }),
      ];
    });
  }

  dispose(): void {
    this.shown.clear();
    this.removed.dispose();
    this.inserted.dispose();
    this.lensesChanged.dispose();
    this.registration?.dispose();
  }
}
