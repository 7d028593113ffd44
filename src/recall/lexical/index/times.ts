/** Save times (`modified`, else mtime) in order, which the saved-together and recency stages read. */
import { type MemoryHeader, savedAtMs } from "../../../types.ts";

/** Headers in save order, oldest first, with their save times (`times[i]` is `headers[i]`'s). */
export interface SaveOrder {
  times: Float64Array;
  headers: readonly MemoryHeader[];
}

/**
 * `headers` in save order ({@link savedAtMs}, oldest first; equal times keep their order). The
 * scan lists headers newest first, so this is usually a reversed copy.
 */
export function saveOrder(headers: readonly MemoryHeader[]): SaveOrder {
  const ordered = headers.slice().reverse();
  let ascending = true;
  for (let i = 1; i < ordered.length && ascending; i++)
    if (savedAtMs(ordered[i]) < savedAtMs(ordered[i - 1])) ascending = false;
  if (!ascending) ordered.sort((a, b) => savedAtMs(a) - savedAtMs(b));
  return { times: Float64Array.from(ordered, savedAtMs), headers: ordered };
}

/** The first position whose time is at least `value`. */
export function lowerBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first position whose time is above `value`. */
export function upperBound(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
