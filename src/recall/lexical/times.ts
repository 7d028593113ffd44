/** Save times (`modified`, else mtime) in order, which the saved-together and recency stages read. */
import { type MemoryHeader, savedAtMs } from "../../types.ts";

/**
 * Every header's save time ({@link savedAtMs}), ascending. The scan lists headers newest first, so this is usually a
 * reversed copy (no sort of 20,000 numbers per query); any other order is sorted.
 */
export function sortedTimes(headers: readonly MemoryHeader[]): Float64Array {
  const count = headers.length;
  const times = new Float64Array(count);
  let ascending = true;
  for (let i = 0; i < count; i++) {
    const time = savedAtMs(headers[count - 1 - i]);
    times[i] = time;
    if (i > 0 && time < times[i - 1]) ascending = false;
  }
  return ascending ? times : times.sort();
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
