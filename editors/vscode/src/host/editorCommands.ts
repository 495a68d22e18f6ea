/**
 * The editor commands. From the context menu VS Code passes the file's URI first, and from a
 * keybinding nothing: both ask for the text in an input box. A string argument is taken as the
 * text itself (for keybindings with `args`, and for tests). They run in the chat's current
 * thread with the pickers' settings, so the answer, approvals and edits show up in the panel.
 */

import * as vscode from 'vscode';
import type { ChatViewProvider } from './chatView';
import { type ContextPicker, lspRange } from './contextPicker';
import type { ReviewTarget } from '../shared/protocol';
import type { ChatController } from './controller';
import { errorText } from './server';
import { baseBranches } from './gitBranches';

/** The text an argument carries; a URI (the context menu's) or nothing carries none. */
function textArgument(arg: unknown): string | undefined {
  return typeof arg === 'string' && arg.trim() ? arg : undefined;
}

export function registerEditorCommands(controller: ChatController, chat: ChatViewProvider, picker: ContextPicker): vscode.Disposable[] {
  const guarded =
    (what: string, run: (arg?: unknown) => Promise<unknown>) =>
    async (arg?: unknown): Promise<unknown> => {
      try {
        return await run(arg);
      } catch (err) {
        const error = `Codex: ${what} failed: ${errorText(err)}`;
        void vscode.window.showErrorMessage(error);
        // Shown to the user above; callers of executeCommand (keybindings, tests) get it too.
        return { error };
      }
    };

  const activeEditor = (): vscode.TextEditor => {
    const editor = picker.editor;
    if (!editor) throw new Error('open a file and select some code first');
    if (editor.document.uri.scheme !== 'file') throw new Error('save the file first: Codex works on files on disk');
    return editor;
  };

  const review = async (target: ReviewTarget) => {
    await chat.reveal();
    await controller.review(target);
  };

  return [
    vscode.commands.registerCommand(
      'codexChat.askSelection',
      guarded('Ask about selection', async (arg) => {
        const editor = activeEditor();
        const question =
          textArgument(arg) ??
          (await vscode.window.showInputBox({ title: 'Ask Codex about the selection', prompt: 'Your question', ignoreFocusOut: true }));
        if (!question?.trim()) return;
        const doc = editor.document;
        const selection = editor.selection.isEmpty ? undefined : new vscode.Range(editor.selection.start, editor.selection.end);
        const context = selection
          ? { type: 'file' as const, path: doc.uri.fsPath, range: lspRange(selection), text: doc.getText(selection) }
          : { type: 'file' as const, path: doc.uri.fsPath };
        await chat.reveal();
        await controller.task({ type: 'ask', text: question }, [context]);
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.editSelection',
      guarded('Edit selection', async (arg) => {
        const editor = activeEditor();
        const instruction =
          textArgument(arg) ??
          (await vscode.window.showInputBox({
            title: 'Edit the selection with Codex',
            prompt: 'What should change? The edit is proposed for approval and can be undone.',
            ignoreFocusOut: true,
          }));
        if (!instruction?.trim()) return;
        const doc = editor.document;
        const range = editor.selection.isEmpty ? new vscode.Range(0, 0, doc.lineCount, 0) : new vscode.Range(editor.selection.start, editor.selection.end);
        await chat.reveal();
        await controller.task({ type: 'edit', instruction, path: doc.uri.fsPath, range: lspRange(range), text: doc.getText(range) });
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.addToChat',
      guarded('Add to chat', async () => {
        if (!picker.attachSelection()) throw new Error('open a file first');
        await chat.reveal(true);
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.focus',
      guarded('Open chat', async () => chat.reveal(true)),
    ),
    vscode.commands.registerCommand('codexChat.approve', () => chat.decideShown('accept')),
    vscode.commands.registerCommand('codexChat.deny', () => chat.decideShown('decline')),
    vscode.commands.registerCommand(
      'codexChat.reviewUncommitted',
      guarded('Review', () => review({ type: 'uncommittedChanges' })),
    ),
    vscode.commands.registerCommand(
      'codexChat.reviewBranch',
      guarded('Review', async (arg) => {
        const branch = textArgument(arg) ?? (await pickBaseBranch());
        if (branch) await review({ type: 'baseBranch', branch });
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.reviewCommit',
      guarded('Review', async (arg) => {
        const sha = textArgument(arg) ?? (await vscode.window.showInputBox({ title: 'Review commit', value: 'HEAD', prompt: 'Commit (sha, branch or HEAD)' }));
        if (sha) await review({ type: 'commit', sha, title: null });
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.newThread',
      guarded('New thread', async () => {
        await chat.reveal(true);
        return controller.newThread();
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.undoTurn',
      guarded('Undo this turn', async () => {
        const result = await controller.undoTurn();
        const names = result.restored.map((p) => p.split('/').pop()).join(', ') || 'no file';
        const left = result.skipped.map((s) => `${s.path.split('/').pop()} (${s.reason})`).join(', ');
        const message = `Codex: undid the turn in ${names}${left ? `; left alone: ${left}` : ''}`;
        void (left ? vscode.window.showWarningMessage(message) : vscode.window.showInformationMessage(message));
        return result;
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.interrupt',
      guarded('Stop', async () => {
        if (!(await controller.interrupt())) void vscode.window.showInformationMessage('Codex: nothing is running.');
      }),
    ),
  ];
}

/** The base branch to review against: the repository's default one offered first, or any name typed. */
async function pickBaseBranch(): Promise<string | undefined> {
  const { fallback, branches } = await baseBranches(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  const pick = vscode.window.createQuickPick();
  pick.title = 'Review this branch against';
  pick.placeholder = 'Base branch (pick one or type a name)';
  pick.items = branches.map((name) => ({ label: name, description: name === fallback ? 'default branch' : undefined }));
  return new Promise((resolve) => {
    pick.onDidAccept(() => {
      resolve(pick.selectedItems[0]?.label ?? (pick.value.trim() || undefined));
      pick.hide();
    });
    pick.onDidHide(() => {
      resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
