/**
 * Editor context: the model's editor_* tools, answered by the extension from what VS Code
 * holds: a buffer's unsaved text, the selection, another extension's diagnostic, the open files.
 */

import * as vscode from 'vscode';
import {
  assert,
  enqueue,
  freshThread,
  type Journey,
  modelRequests,
  readDisk,
  type RecordedRequest,
  turnFinished,
  ui,
  workspaceFile,
} from '../support';

/** What the model was given back for the tool call `callId`. */
function toolOutput(request: RecordedRequest, callId: string): string {
  const items = (request.body.input ?? []) as { type?: string; call_id?: string; output?: unknown }[];
  const item = items.find((i) => i.type === 'function_call_output' && i.call_id === callId);
  assert(item, `no output for ${callId} in the model's last request`);
  return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
}

export const editorContextJourneys: Journey[] = [
  {
    name: 'editor context: the model reads the unsaved buffer, the selection, another extension\'s diagnostic and the open files',
    screenshot: 'editor-context',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      // VS Code for the Web (code-server) saves after a second by default; the buffer must
      // stay unsaved for as long as the turn takes.
      const files = vscode.workspace.getConfiguration('files');
      const autoSave = files.inspect<string>('autoSave')?.globalValue;
      await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const uri = workspaceFile(ctx, 'edit_me.py');
      const onDisk = await readDisk(uri);
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      await editor.edit((edit) => edit.insert(new vscode.Position(0, 0), '# typed, not saved\n'));
      editor.selection = new vscode.Selection(2, 0, 2, editor.document.lineAt(2).text.length);
      // Another extension's finding, as a linter would publish it.
      const lint = vscode.languages.createDiagnosticCollection('e2e-lint');
      const warning = new vscode.Diagnostic(
        new vscode.Range(2, 4, 2, 15),
        'greeting is too short',
        vscode.DiagnosticSeverity.Warning,
      );
      warning.source = 'lint';
      warning.code = 'G001';
      lint.set(uri, [warning]);
      try {
        await enqueue(ctx, 'editorContext');
        await ui('chat.send', { text: 'Look at what I am editing' });
        await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Seen it all.' });
        await turnFinished(api, threadId);
        await ui('screenshot', { name: 'editor-context' });

        const requests = await modelRequests(ctx);
        const offered = ((requests[0].body as { tools?: { name?: string }[] }).tools ?? []).map((t) => t.name);
        for (const name of ['editor_open_buffers', 'editor_read_buffer', 'editor_selection', 'editor_diagnostics']) {
          assert(offered.includes(name), `the model was offered ${name}, got ${JSON.stringify(offered)}`);
        }
        const last = requests[requests.length - 1];
        const read = toolOutput(last, 'call_ec_read');
        const expected = [
          'edit_me.py (python, unsaved changes), lines 1-3 of 3:',
          'L1: # typed, not saved',
          'L2: def greet():',
          'L3:     return "hi"',
        ].join('\n');
        assert(read === expected, `the model read the unsaved buffer, got ${JSON.stringify(read)}`);
        const saved = await readDisk(uri);
        assert(saved === onDisk, `what the model read was never saved: ${JSON.stringify(onDisk)} then ${JSON.stringify(saved)}`);

        const selection = toolOutput(last, 'call_ec_sel');
        assert(selection.includes('Focused file: edit_me.py (python)'), `the focused file, got ${selection}`);
        assert(
          selection.includes('from line 3, column 1 to line 3, column 16:\n    return "hi"'),
          `the selection, got ${selection}`,
        );
        const diagnostics = toolOutput(last, 'call_ec_diag');
        assert(
          diagnostics.includes('edit_me.py:3:5: warning [lint] greeting is too short (G001)'),
          `the linter's diagnostic, got ${diagnostics}`,
        );
        const open = toolOutput(last, 'call_ec_open');
        assert(open.includes('edit_me.py  [python, unsaved changes]'), `the open files, got ${open}`);
      } finally {
        lint.dispose();
        await files.update('autoSave', autoSave, vscode.ConfigurationTarget.Global);
        await vscode.window.showTextDocument(editor.document);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
    },
  },
];
