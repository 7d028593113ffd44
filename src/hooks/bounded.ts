/**
 * Runs `work` for at most `timeoutMs`, resolving to its value, or to `fallback` when it fails or
 * runs out of time (then its signal is aborted so model calls and scans stop). A hook must never
 * block or fail the agent that called it (issue 9: "returns nothing rather than an error").
 *
 * @example
 * const context = await bounded(3000, null, (signal) => userPromptContext({ …, signal }), log);
 */
export async function bounded<T, F>(
  timeoutMs: number,
  fallback: F,
  work: (signal: AbortSignal) => Promise<T>,
  onFailure?: (reason: string, kind: "timeout" | "error") => void,
): Promise<T | F> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    // Kept referenced: the bound is what ends a hook whose work hangs on nothing else; the
    // finally block clears it as soon as the work settles.
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([work(controller.signal).then((value) => ({ value })), timedOut]);
    if (outcome === "timeout") {
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      onFailure?.(`timed out after ${timeoutMs} ms`, "timeout");
      return fallback;
    }
    return outcome.value;
  } catch (error) {
    controller.abort(error);
    onFailure?.(error instanceof Error ? error.message : String(error), "error");
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}
