/**
 * A long command that Ctrl-C or SIGTERM stops cleanly: the job gets an AbortSignal that the first
 * SIGTERM or SIGINT aborts, and finishes or fails on its own terms (a dream between two merges, an
 * export before its file takes its name). The listeners are gone afterwards, so a second signal
 * ends the process the default way.
 */
export async function untilSignal<T>(
  what: string,
  job: (signal: AbortSignal) => Promise<T>,
): Promise<{ value: T; stoppedBy: NodeJS.Signals | null }> {
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    controller.abort(new Error(`${what} was cancelled by ${signal}`));
  };
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    return { value: await job(controller.signal), stoppedBy };
  } catch (error) {
    if (stoppedBy !== null) throw new StoppedBySignal(stoppedBy, error);
    throw error;
  } finally {
    process.removeListener("SIGTERM", onSignal);
    process.removeListener("SIGINT", onSignal);
  }
}

/** What {@link untilSignal} throws when the job failed because a signal stopped it. */
export class StoppedBySignal extends Error {
  constructor(
    readonly signal: NodeJS.Signals,
    cause: unknown,
  ) {
    super(`stopped by ${signal}`, { cause });
  }
}

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGINT" ? 130 : 143;
}
