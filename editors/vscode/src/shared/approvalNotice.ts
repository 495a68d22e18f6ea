/**
 * The notification that says an approval waits, and the dialog that shows it whole.
 *
 * A notification is short and VS Code cuts or folds a long one, so Approve may sit beside it
 * only when the notification holds the whole command: short, on one line, every control and
 * bidi character named (`visible`), and nothing VS Code would turn into a link (`[text](url)`
 * shows as "text"). Any other command gets "Review…", which opens a modal dialog with the whole
 * command, where, why, and whether approving lets it out of the sandbox, before Approve.
 */

import type * as v2 from '../generated/v2';
import { displayCommand } from './shellScript';
import { visible } from './visible';

/** Past this many characters a command is reviewed in the dialog, not approved from the toast. */
export const NOTICE_COMMAND_CHARS = 100;

export const UNSANDBOXED_NOTE =
  'Approving runs this command outside the sandbox: it can read, change and send anything you can.';

export interface CommandNotice {
  /** The notification's text. */
  message: string;
  /** Whether `message` shows the whole command, so Approve may be offered beside it. */
  whole: boolean;
  /** The dialog's title and its detail: the whole request. */
  title: string;
  detail: string;
}

/** Whether approving runs the command outside the sandbox (codex-lsp says so in its extras). */
export function runsUnsandboxed(params: v2.CommandExecutionRequestApprovalParams): boolean {
  return params.codexLsp?.runUnsandboxed === true;
}

export function commandNotice(params: v2.CommandExecutionRequestApprovalParams): CommandNotice {
  const outside = runsUnsandboxed(params);
  const command = visible(displayCommand(params.command ?? '(unknown command)'));
  const title = outside ? 'Codex wants to run a command OUTSIDE the sandbox' : 'Codex wants to run a command';
  const whole = command.length <= NOTICE_COMMAND_CHARS && !command.includes('](');
  const message = whole
    ? `${outside ? 'Codex wants to run OUTSIDE the sandbox' : 'Codex wants to run'}: ${command}`
    : `${title} (${command.length} characters): review it before approving.`;
  const detail = [
    `$ ${command}`,
    params.cwd ? `in ${visible(params.cwd)}` : '',
    params.networkApprovalContext?.host ? `It needs network access to ${visible(params.networkApprovalContext.host)}.` : '',
    params.reason ? `Reason: ${visible(params.reason, true)}` : '',
    outside ? UNSANDBOXED_NOTE : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return { message, whole, title, detail };
}
