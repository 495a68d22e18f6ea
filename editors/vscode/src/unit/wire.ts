/**
 * What a server sends, as sparse as each test needs. A real server sends every field the protocol
 * types; the reducer reads only some and must cope when older servers leave others out, so the
 * tests build partial payloads and take them as the types the reducer receives, as the wire does.
 */

import {
  type FollowedMethod,
  followedNotification,
  type InlineRequestMethod,
  inlineRequest,
  type ThreadItem,
} from '../shared/protocol';
import type { Action } from '../shared/state';

/** The `notify` action for `method` with these params. */
export function notification(method: FollowedMethod, params: object): Action {
  return { type: 'notify', ...followedNotification(method, params) };
}

/** The `request` action for a server request `method` with these params, waiting as `key`. */
export function request(key: string, method: InlineRequestMethod, params: object): Action {
  return { type: 'request', key, ...inlineRequest(method, params) };
}

/** A partial value taken as the protocol type `T`. */
export function sparse<T>(value: object): T {
  return value as T;
}

/** An item's fields, whatever its type, for asserting on. */
export function fields(item: ThreadItem | undefined): Record<string, unknown> {
  return { ...item };
}
