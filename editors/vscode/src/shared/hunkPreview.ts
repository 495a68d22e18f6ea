/**
 * Hunk review in VS Code's Refactor Preview with every hunk ticked to start with. The preview
 * opens for an edit that has an entry needing confirmation, and starts exactly those entries
 * unticked; every entry keeps its tick box either way. So the hunks go in as entries that need
 * no confirmation (ticked: the user unticks what they do not want), and one empty edit that
 * does, labelled as the guide, opens the preview. Applied or not, the guide changes nothing.
 */

import type { AnnotatedTextEdit, ChangeAnnotation, TextDocumentEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';

export const GUIDE_ANNOTATION = 'codex.hunkReview.guide';
export const GUIDE_LABEL = 'Codex: every hunk starts ticked; untick the ones you do not want, then Apply';

/** `edit` with its hunks ticked in the preview, or `edit` itself when it asks no confirmation. */
export function hunksStartTicked(edit: WorkspaceEdit): WorkspaceEdit {
  const annotations = edit.changeAnnotations ?? {};
  if (!Object.values(annotations).some((a) => a.needsConfirmation)) return edit;
  const changes = edit.documentChanges ?? [];
  const first = changes.find((c): c is TextDocumentEdit => 'textDocument' in c);
  if (!first) return edit;
  const ticked: Record<string, ChangeAnnotation> = {};
  for (const [id, annotation] of Object.entries(annotations)) ticked[id] = { ...annotation, needsConfirmation: false };
  ticked[GUIDE_ANNOTATION] = { label: GUIDE_LABEL, needsConfirmation: true };
  const at = { line: 0, character: 0 };
  const guide: AnnotatedTextEdit = { range: { start: at, end: at }, newText: '', annotationId: GUIDE_ANNOTATION };
  return {
    ...edit,
    changeAnnotations: ticked,
    documentChanges: changes.map((c) => (c === first ? { ...first, edits: [guide, ...first.edits] } : c)),
  };
}
