/** Short human text for numbers the status bar and the panel show. */

import type { RateLimits, RateLimitWindow, TokenUsage } from './protocol';

export function formatCount(n: number | undefined | null): string {
  const v = Number(n ?? 0);
  if (v < 1000) return String(Math.round(v));
  if (v < 1_000_000) return `${(v / 1000).toFixed(v < 10_000 ? 1 : 0)}k`;
  return `${(v / 1_000_000).toFixed(1)}M`;
}

export function windowName(window: RateLimitWindow, fallback: string): string {
  const mins = window.windowDurationMins;
  if (!mins) return fallback;
  if (mins % (60 * 24 * 7) === 0) return mins === 10080 ? 'weekly' : `${mins / 10080}w`;
  if (mins % (60 * 24) === 0) return `${mins / 1440}d`;
  if (mins % 60 === 0) return `${mins / 60}h`;
  return `${mins}m`;
}

/** "12% of 5h, 3% of weekly", or '' when nothing is known. */
export function formatRateLimits(limits: RateLimits | undefined): string {
  if (!limits) return '';
  const parts: string[] = [];
  if (limits.primary) parts.push(`${Math.round(limits.primary.usedPercent)}% of ${windowName(limits.primary, 'primary')}`);
  if (limits.secondary) parts.push(`${Math.round(limits.secondary.usedPercent)}% of ${windowName(limits.secondary, 'secondary')}`);
  return parts.join(', ');
}

/** The most used window's percentage, for the status bar. */
export function highestRateLimit(limits: RateLimits | undefined): number | undefined {
  const used = [limits?.primary?.usedPercent, limits?.secondary?.usedPercent].filter(
    (v): v is number => typeof v === 'number',
  );
  return used.length ? Math.max(...used) : undefined;
}

/** "1.2k tokens (300 last turn, 12% of context)". */
export function formatTokenUsage(usage: TokenUsage | undefined): string {
  if (!usage?.total) return '';
  let text = `${formatCount(usage.total.totalTokens)} tokens`;
  const extras: string[] = [];
  if (usage.last) extras.push(`${formatCount(usage.last.totalTokens)} last turn`);
  if (usage.modelContextWindow && usage.last) {
    const pct = Math.min(100, Math.round((100 * usage.last.totalTokens) / usage.modelContextWindow));
    extras.push(`${pct}% of context`);
  }
  if (extras.length) text += ` (${extras.join(', ')})`;
  return text;
}
