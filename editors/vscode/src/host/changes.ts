/**
 * Keep, Undo and Diff for the files a finished turn changed: review after the fact, as Codex's
 * changes are saved when they land. Keep marks the file reviewed (and saves it if the user
 * has typed in it since); Undo puts the file back as it was before the turn,
 * from the turn's own diffs, and saves it; Diff shows the file before the turn against now.
 * A file edited since, where the diffs no longer fit, is left alone with a message that says
 * so (the editor's own Undo still has the history).
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { type FileChangeSummary, turnChanges } from '../shared/changes';
import { textBefore } from '../shared/patch';
import { changeKey } from '../shared/state';
import type { DiffPreview } from './diffPreview';
import type { ChatStore } from './store';

export class TurnChanges {
  constructor(
    private readonly store: ChatStore,
    private readonly diffs: DiffPreview,
  ) {}

  private files(turnId: string, only?: string): FileChangeSummary[] {
    const turn = this.store.state.conversation?.turns.find((t) => t.id === turnId);
    if (!turn) throw new Error('That turn is no longer shown.');
    const marks = this.store.state.changeMarks;
    return turnChanges(turn).filter((f) => (only ? f.path === only : !marks[changeKey(turnId, f.path)]));
  }

  async keep(turnId: string, only?: string): Promise<void> {
    for (const file of this.files(turnId, only)) {
      const uri = vscode.Uri.file(file.movePath ?? file.path);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === uri.fsPath);
      if (doc?.isDirty) await doc.save();
      this.store.dispatch({ type: 'changeMark', turnId, path: file.path, mark: 'kept' });
    }
  }

  async undo(turnId: string, only?: string): Promise<void> {
    const failed: string[] = [];
    for (const file of this.files(turnId, only)) {
      if (await this.undoFile(file)) this.store.dispatch({ type: 'changeMark', turnId, path: file.path, mark: 'undone' });
      else failed.push(path.basename(file.path));
    }
    if (failed.length) {
      throw new Error(`${failed.join(', ')} changed since Codex edited it; use Undo in the editor instead.`);
    }
  }

  private async undoFile(file: FileChangeSummary): Promise<boolean> {
    const original = vscode.Uri.file(file.path);
    const now = vscode.Uri.file(file.movePath ?? file.path);
    const edit = new vscode.WorkspaceEdit();
    if (file.kind === 'add') {
      edit.deleteFile(now, { ignoreIfNotExists: true });
      return vscode.workspace.applyEdit(edit);
    }
    const current = file.kind === 'delete' ? '' : await this.diffs.currentText(now);
    const before = textBefore(file.changes, current);
    if (before === undefined) return false;
    if (file.kind === 'delete') {
      edit.createFile(original, { overwrite: false, ignoreIfExists: true, contents: new TextEncoder().encode(before) });
      return vscode.workspace.applyEdit(edit);
    }
    if (file.movePath) edit.renameFile(now, original, { overwrite: false });
    const doc = await vscode.workspace.openTextDocument(now);
    edit.replace(original, new vscode.Range(0, 0, doc.lineCount, 0), before);
    if (!(await vscode.workspace.applyEdit(edit))) return false;
    const reopened = await vscode.workspace.openTextDocument(original);
    if (reopened.isDirty) await reopened.save();
    return true;
  }

  async diff(turnId: string, filePath: string): Promise<void> {
    const [file] = this.files(turnId, filePath);
    if (!file) throw new Error('That change is no longer shown.');
    const now = vscode.Uri.file(file.movePath ?? file.path);
    const current = file.kind === 'delete' ? '' : await this.diffs.currentText(now);
    const before = textBefore(file.changes, current);
    if (before === undefined) throw new Error(`${path.basename(file.path)} changed since Codex edited it.`);
    const left = this.diffs.virtual(file.path, before, 'before');
    const right = file.kind === 'delete' ? this.diffs.virtual(file.path, '', 'deleted') : now;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${path.basename(file.path)} (Codex's changes)`, { preview: true });
  }
}
