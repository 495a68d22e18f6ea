/**
 * What a server sends, as sparse as each test needs. A real server sends every field the protocol
 * types; the reducer reads only some and must cope when older servers leave others out, so the
 * tests build partial payloads and take them as the types the reducer receives, as the wire does.
 */

import { type FollowedMethod, followedNotification, type ThreadItem } from '../shared/protocol';
import type { Action } from '../shared/state';

/** The `notify` action for `method` with these params. */
export function notification(method: FollowedMethod, params: object): Action {
  return { type: 'notify', ...followedNotification(method, params) };
}

/** A partial value taken as the protocol type `T`. */
export function sparse<T>(value: object): T {
  return value as T;
}

/** An item's fields, whatever its type, for asserting on. */
export function fields(item: ThreadItem | undefined): Record<string, unknown> {
  return { ...item };
}
