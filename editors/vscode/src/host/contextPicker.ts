/**
 * Context for the chat: what the `#` / `@` picker offers (the current file, the selection, the
 * open editors, the problems, any file of the workspace), the chips it attaches, and what they
 * become when the message is sent. A selection is pinned to its place when attached and read
 * as the editor holds it at send time; files are named only, and the server reads them (the
 * editor's unsaved text included) itself.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContextOption } from '../shared/messages';
import type { ContextItem, EditorProblem, LspRange } from '../shared/protocol';
import type { Attachment } from '../shared/state';
import type { ChatStore } from './store';

const MAX_FILE_MATCHES = 20;
/** Documents a user edits: files, and new files not saved yet. */
const EDITABLE = new Set(['file', 'untitled']);
const MAX_OPEN_EDITORS = 10;
const MAX_PROBLEMS = 50;
const EXCLUDE = '**/{node_modules,.git,.venv,out,dist}/**';

const SEVERITY: Record<vscode.DiagnosticSeverity, EditorProblem['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

export function lspRange(range: vscode.Range): LspRange {
  return {
    start: { line: range.start.line, character: range.start.character },
    end: { line: range.end.line, character: range.end.character },
  };
}

function relative(uri: vscode.Uri): string {
  return vscode.workspace.asRelativePath(uri, false);
}

function lines(range: LspRange): string {
  const first = range.start.line + 1;
  let last = range.end.line + 1;
  if (range.end.character === 0 && last > first) last -= 1;
  return first === last ? `${first}` : `${first}-${last}`;
}

export class ContextPicker implements vscode.Disposable {
  /** The text editor the user was last in: focusing the chat must not lose it. */
  private lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly store: ChatStore) {
    this.subscription = vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (editor && EDITABLE.has(editor.document.uri.scheme)) this.lastEditor = editor;
    });
  }

  /** The editor the user works in: the active one, else the last one (the chat has focus). */
  get editor(): vscode.TextEditor | undefined {
    const active = vscode.window.activeTextEditor;
    if (active && EDITABLE.has(active.document.uri.scheme)) return active;
    return this.lastEditor && !this.lastEditor.document.isClosed ? this.lastEditor : undefined;
  }

  /** The editor, when it shows a file on disk (what the server can read and change). */
  get fileEditor(): vscode.TextEditor | undefined {
    const editor = this.editor;
    return editor?.document.uri.scheme === 'file' ? editor : undefined;
  }

  async options(query: string): Promise<ContextOption[]> {
    const q = query.toLowerCase();
    const fixed: ContextOption[] = [];
    const editor = this.fileEditor;
    if (editor) {
      fixed.push({ kind: 'currentFile', label: 'Current file', detail: relative(editor.document.uri) });
      if (!editor.selection.isEmpty) {
        fixed.push({ kind: 'selection', label: 'Selection', detail: `${relative(editor.document.uri)}:${lines(lspRange(editor.selection))}` });
      }
    }
    const open = this.openFiles();
    if (open.length) fixed.push({ kind: 'openEditors', label: 'Open editors', detail: `${open.length} file${open.length === 1 ? '' : 's'}` });
    const problems = this.problems().length;
    fixed.push({ kind: 'problems', label: 'Problems', detail: problems ? `${problems} in the workspace` : 'none right now' });
    const matching = fixed.filter((o) => !q || o.label.toLowerCase().includes(q) || o.kind.toLowerCase().includes(q));
    if (!q) return matching;
    const glob = `**/*${query.replace(/[{}[\]*?]/g, '')}*`;
    const files = await vscode.workspace.findFiles(glob, EXCLUDE, MAX_FILE_MATCHES);
    const found = files
      .map((uri): ContextOption => ({ kind: 'file', label: path.basename(uri.fsPath), detail: relative(uri), path: uri.fsPath }))
      .sort((a, b) => a.label.length - b.label.length || a.label.localeCompare(b.label));
    return [...matching, ...found];
  }

  /** Attach what `option` names, as one chip or (open editors) several. */
  attach(option: ContextOption): void {
    for (const attachment of this.attachments(option)) this.store.dispatch({ type: 'attach', attachment });
  }

  /** Attach the current selection (the editor command "Add selection to chat"). */
  attachSelection(): boolean {
    const editor = this.fileEditor;
    if (!editor) return false;
    this.attach({ kind: editor.selection.isEmpty ? 'currentFile' : 'selection', label: '' });
    return true;
  }

  private attachments(option: ContextOption): Attachment[] {
    const editor = this.fileEditor;
    switch (option.kind) {
      case 'currentFile':
        return editor ? [this.file(editor.document.uri)] : [];
      case 'selection': {
        if (!editor || editor.selection.isEmpty) return [];
        const uri = editor.document.uri;
        const range = lspRange(editor.selection);
        const label = `${path.basename(uri.fsPath)}:${lines(range)}`;
        return [{ id: `selection:${uri.fsPath}:${label}`, kind: 'selection', label, path: uri.fsPath, range }];
      }
      case 'openEditors':
        return this.openFiles().map((uri) => this.file(uri));
      case 'problems':
        return [{ id: 'problems', kind: 'problems', label: 'Problems' }];
      case 'file':
        return option.path ? [this.file(vscode.Uri.file(option.path))] : [];
    }
  }

  private file(uri: vscode.Uri): Attachment {
    return { id: `file:${uri.fsPath}`, kind: 'file', label: path.basename(uri.fsPath), path: uri.fsPath };
  }

  private openFiles(): vscode.Uri[] {
    const seen = new Map<string, vscode.Uri>();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'file') seen.set(tab.input.uri.fsPath, tab.input.uri);
      }
    }
    return [...seen.values()].slice(0, MAX_OPEN_EDITORS);
  }

  private problems(): EditorProblem[] {
    const found: EditorProblem[] = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      if (uri.scheme !== 'file') continue;
      for (const d of diagnostics) {
        if (d.severity > vscode.DiagnosticSeverity.Warning) continue;
        found.push({ path: uri.fsPath, range: lspRange(d.range), severity: SEVERITY[d.severity], message: d.message, source: d.source });
      }
    }
    return found.slice(0, MAX_PROBLEMS);
  }

  /** What the attached chips say now, for the message being sent. */
  async resolve(attachments: Attachment[]): Promise<ContextItem[]> {
    const items: ContextItem[] = [];
    for (const a of attachments) {
      if (a.kind === 'problems') {
        items.push({ type: 'problems', problems: this.problems() });
      } else if (a.kind === 'selection' && a.path && a.range) {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(a.path));
        const r = a.range;
        const text = doc.getText(new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character));
        items.push({ type: 'file', path: a.path, range: a.range, text });
      } else if (a.kind === 'image' && a.path) {
        items.push({ type: 'image', path: a.path });
      } else if (a.path) {
        items.push({ type: 'file', path: a.path });
      }
    }
    return items;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
