/**
 * The most a hook reads of its stdin, in bytes; past it the hook stops reading, answers `{}` and
 * says why on stderr. A host's payload is a JSON object of a few KB (a pasted prompt, a last
 * assistant message: rarely a few hundred KB). Read without a limit, 100 MB of garbage on stdin
 * kept a hook 9.3–10.3 s against its 8 s bound; a cap keeps it well inside the bound whatever
 * arrives, and no reading of stdin holds more than this.
 */
export const MAX_HOOK_INPUT_BYTES = 4 * 1024 * 1024;

/**
 * Runs `work` for at most `timeoutMs`, resolving to its value, or to `fallback` when it fails or
 * runs out of time (then its signal is aborted so model calls and scans stop). A hook must never
 * block or fail the agent that called it (docs/design.md#hooks: "returns nothing rather than an error").
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
