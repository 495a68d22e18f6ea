/**
 * The editor commands. Each accepts its text as an argument too (for keybindings and tests);
 * without one it asks in an input box. They run in the chat's current thread, so the answer,
 * approvals and edits show up in the panel.
 */

import * as vscode from 'vscode';
import type { ChatViewProvider } from './chatView';
import type { ChatController, ReviewTarget } from './controller';
import { errorText } from './server';

export function registerEditorCommands(controller: ChatController, chat: ChatViewProvider): vscode.Disposable[] {
  const guarded =
    (what: string, run: (...args: any[]) => Promise<unknown>) =>
    async (...args: any[]) => {
      try {
        return await run(...args);
      } catch (err) {
        const error = `Codex: ${what} failed: ${errorText(err)}`;
        void vscode.window.showErrorMessage(error);
        // Shown to the user above; callers of executeCommand (keybindings, tests) get it too.
        return { error };
      }
    };

  const selection = (): { editor: vscode.TextEditor; range: vscode.Range | undefined } => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('open a file and select some code first');
    const range = editor.selection.isEmpty ? undefined : new vscode.Range(editor.selection.start, editor.selection.end);
    return { editor, range };
  };

  const review = async (target: ReviewTarget) => {
    await chat.reveal();
    await controller.review(target);
  };

  return [
    vscode.commands.registerCommand(
      'codexChat.askSelection',
      guarded('Ask about selection', async (question?: string) => {
        const { editor, range } = selection();
        const prompt = question ?? (await vscode.window.showInputBox({ title: 'Ask Codex about the selection', prompt: 'Your question', ignoreFocusOut: true }));
        if (!prompt) return;
        await chat.reveal();
        await controller.ask(prompt, editor.document.uri, range);
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.editSelection',
      guarded('Edit selection', async (instruction?: string) => {
        const { editor, range } = selection();
        const text =
          instruction ??
          (await vscode.window.showInputBox({
            title: 'Edit the selection with Codex',
            prompt: 'What should change? The edit is proposed for approval and can be undone.',
            ignoreFocusOut: true,
          }));
        if (!text) return;
        await chat.reveal();
        await controller.edit(text, editor.document.uri, range ?? fullRange(editor.document));
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.reviewUncommitted',
      guarded('Review', () => review({ type: 'uncommittedChanges' })),
    ),
    vscode.commands.registerCommand(
      'codexChat.reviewBranch',
      guarded('Review', async (base?: string) => {
        const branch = base ?? (await vscode.window.showInputBox({ title: 'Review this branch against', value: 'main', prompt: 'Base branch' }));
        if (branch) await review({ type: 'baseBranch', branch });
      }),
    ),
    vscode.commands.registerCommand(
      'codexChat.reviewCommit',
      guarded('Review', async (ref?: string) => {
        const sha = ref ?? (await vscode.window.showInputBox({ title: 'Review commit', value: 'HEAD', prompt: 'Commit (sha, branch or HEAD)' }));
        if (sha) await review({ type: 'commit', sha });
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
      'codexChat.interrupt',
      guarded('Interrupt', async () => {
        if (!(await controller.interrupt())) void vscode.window.showInformationMessage('Codex: nothing is running.');
      }),
    ),
  ];
}

function fullRange(doc: vscode.TextDocument): vscode.Range {
  return new vscode.Range(0, 0, doc.lineCount, 0);
}
