/**
 * The settings that choose what runs outside the sandbox (the server's program, its arguments,
 * its environment) are taken from the user's own settings only. A workspace is content the
 * agent's commands can write, so a `.vscode/settings.json` there must never pick them: the
 * settings are `application`-scoped in package.json, and the extension reads them through here,
 * keeping the user's value or the default and reporting a workspace value it ignored.
 */

/** The parts of `WorkspaceConfiguration.inspect()` this reads. */
export interface InspectedSetting<T> {
  defaultValue?: T;
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
  defaultLanguageValue?: T;
  globalLanguageValue?: T;
  workspaceLanguageValue?: T;
  workspaceFolderLanguageValue?: T;
}

/** The settings under `codexChat.` read only from the user's settings. */
export const USER_ONLY_SETTINGS = ['pythonPath', 'serverCommand', 'serverArgs', 'serverEnv'] as const;
export type UserOnlySetting = (typeof USER_ONLY_SETTINGS)[number];

export interface UserValue<T> {
  value: T | undefined;
  /** A workspace or folder set a value, which was not used. */
  ignoredWorkspaceValue: boolean;
}

/** The user's value, else the default; whatever a workspace or folder says is left out. */
export function userValue<T>(inspected: InspectedSetting<T> | undefined): UserValue<T> {
  const fromWorkspace = [
    inspected?.workspaceValue,
    inspected?.workspaceFolderValue,
    inspected?.workspaceLanguageValue,
    inspected?.workspaceFolderLanguageValue,
  ].some((value) => value !== undefined);
  return {
    value: inspected?.globalValue ?? inspected?.defaultValue,
    ignoredWorkspaceValue: fromWorkspace,
  };
}

/** The warning for settings a workspace tried to set, or undefined when there were none. */
export function ignoredWarning(names: readonly string[]): string | undefined {
  if (!names.length) return undefined;
  const listed = names.map((name) => `codexChat.${name}`).join(', ');
  return (
    `This workspace's settings set ${listed}, which choose the program the Codex server runs ` +
    'and so are read from your User settings only; the workspace values were ignored.'
  );
}
