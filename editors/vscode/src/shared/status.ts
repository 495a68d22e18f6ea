/** The status bar item's text and tooltip, from the state alone (pure, so it is unit-tested). */

import { formatCount, formatRateLimits, formatTokenUsage, highestRateLimit } from './format';
import type { ChatState } from './state';

export function statusText(state: ChatState): { text: string; tooltip: string; error: boolean } {
  const running = !!state.conversation?.runningTurnId;
  const icon =
    state.server.state === 'error' || state.server.state === 'stopped'
      ? '$(error)'
      : state.server.state === 'starting'
        ? '$(sync~spin)'
        : running
          ? '$(loading~spin)'
          : '$(comment-discussion)';
  const usage = state.conversation?.tokenUsage ?? state.tokenUsage;
  const parts = [`${icon} Codex`];
  if (usage?.total) parts.push(`${formatCount(usage.total.totalTokens)} tok`);
  const limit = highestRateLimit(state.rateLimits);
  if (limit !== undefined) parts.push(`${Math.round(limit)}%`);
  const lines = [
    `Codex server: ${state.server.state}${state.server.message ? ` — ${state.server.message}` : ''}`,
    running ? 'A turn is running.' : '',
    usage ? `Usage: ${formatTokenUsage(usage)}` : '',
    state.rateLimits ? `Rate limits: ${formatRateLimits(state.rateLimits)}` : '',
  ];
  return { text: parts.join(' '), tooltip: lines.filter(Boolean).join('\n'), error: state.server.state === 'error' };
}
