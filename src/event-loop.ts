/**
 * Lets the event loop take a turn (I/O callbacks, timers, new connections) before going on: a
 * macrotask, where an awaited promise is only a microtask. Long synchronous stretches call it
 * between their parts, so that a process serving others still answers them (the memory helper
 * acknowledges a prompt within the client's wait while it loads a memory dir,
 * docs/design.md#the-memory-helper) and a hook's time bound still fires.
 *
 * @example
 * for (const slice of slices) { work(slice); await yieldToEventLoop(); }
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
