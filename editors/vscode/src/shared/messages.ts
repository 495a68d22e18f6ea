/** Messages between the chat webview and the extension host. */

import type { ImagePreview } from './images';
import type { PanelDecision, UserInputAnswers } from './protocol';
import type { Action, ChatState } from './state';

/** One thing the `#` / `@` picker offers to attach. */
export interface ContextOption {
  /** What the host attaches when it is picked. */
  kind: 'currentFile' | 'selection' | 'openEditors' | 'problems' | 'file';
  label: string;
  detail?: string;
  path?: string;
}

/** Host -> webview. */
export type ToWebview =
  | { type: 'snapshot'; state: ChatState }
  | { type: 'action'; action: Action }
  | { type: 'actions'; actions: Action[] }
  | { type: 'focusInput' }
  | { type: 'revealRequests' }
  | { type: 'contextOptions'; query: string; options: ContextOption[] }
  | { type: 'imagePreviews'; previews: ImagePreview[] };

/** Webview -> host. */
export type FromWebview =
  | { type: 'ready' }
  /** The page has drawn the actions it was sent (see `Pacer`). */
  | { type: 'drawn' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'retry'; turnId: string }
  | { type: 'newThread' }
  | { type: 'resume'; threadId: string }
  | { type: 'archive'; threadId: string }
  | { type: 'delete'; threadId: string }
  | { type: 'rename'; threadId: string; name: string }
  | { type: 'searchThreads'; query: string }
  | { type: 'refreshThreads' }
  | { type: 'decide'; key: string; decision: PanelDecision }
  | { type: 'revokeApproval'; threadId: string; id: string }
  | { type: 'answer'; key: string; answers: UserInputAnswers }
  | { type: 'openDiff'; key?: string; itemId?: string; index: number }
  | { type: 'select'; model?: string; effort?: string; approvalPolicy?: string; mode?: string }
  | { type: 'dismiss'; id: number }
  | { type: 'showLog' }
  | { type: 'installServer' }
  | { type: 'login'; apiKey?: string }
  | { type: 'logout' }
  | { type: 'openSettings' }
  | { type: 'restart' }
  | { type: 'contextQuery'; query: string }
  | { type: 'attach'; option: ContextOption }
  | { type: 'detach'; id: string }
  | { type: 'attachImage' }
  | { type: 'pasteImage'; dataUrl: string }
  /** Thumbnails drawn with no picture yet (a thread opened, the page reloaded). */
  | { type: 'wantPreviews'; paths: string[] }
  | { type: 'copyCode'; code: string }
  | { type: 'insertCode'; code: string }
  | { type: 'applyCode'; code: string; language: string }
  | { type: 'openFile'; path: string; line?: number }
  | { type: 'openLink'; href: string }
  | { type: 'changeDiff'; turnId: string; path: string }
  | { type: 'keepChange'; turnId: string; path?: string }
  | { type: 'undoChange'; turnId: string; path?: string };
