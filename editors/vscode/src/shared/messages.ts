/** Messages between the chat webview and the extension host. */

import type { Decision, UserInputAnswers } from './protocol';
import type { Action, ChatState } from './state';

/** Host -> webview. */
export type ToWebview =
  | { type: 'snapshot'; state: ChatState }
  | { type: 'action'; action: Action }
  | { type: 'focusInput' };

/** Webview -> host. */
export type FromWebview =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
  | { type: 'newThread' }
  | { type: 'resume'; threadId: string }
  | { type: 'archive'; threadId: string }
  | { type: 'refreshThreads' }
  | { type: 'decide'; key: string; decision: Decision }
  | { type: 'answer'; key: string; answers: UserInputAnswers }
  | { type: 'openDiff'; key?: string; itemId?: string; index: number }
  | { type: 'select'; model?: string; approvalPolicy?: string }
  | { type: 'dismiss'; id: number }
  | { type: 'showLog' }
  | { type: 'restart' };
