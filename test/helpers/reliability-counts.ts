import fs from "node:fs";

/** The reliability suite's families, one summary line each (scripts/run-tests.mjs prints them). */
export type ReliabilityFamily = "escapes" | "secrets" | "races" | "faults";

export interface ReliabilityCounts {
  /** Attacks, secrets, races or faults actually run. */
  tried: number;
  /** Of those, how many got out: a path outside written/read/deleted, a secret saved. */
  escapes?: number;
  /** Memories or index lines lost. */
  losses?: number;
  /** Operations that did not finish within their bound. */
  hangs?: number;
}

/**
 * Adds what a reliability test ran and observed to the counts file the test runner names in
 * `MEMDIR_RELIABILITY_COUNTS` (one JSON line per call; files run in parallel processes, and an
 * append of one short line is atomic). Without the variable (a test run alone) it does nothing.
 * Call it with the observed numbers *before* asserting on them, so a failure is counted too.
 *
 * @example recordReliability("races", { tried: operations, escapes: outsideChanged });
 */
export function recordReliability(family: ReliabilityFamily, counts: ReliabilityCounts): void {
  const file = process.env.MEMDIR_RELIABILITY_COUNTS;
  if (!file) return;
  const line = {
    family,
    tried: counts.tried,
    escapes: counts.escapes ?? 0,
    losses: counts.losses ?? 0,
    hangs: counts.hangs ?? 0,
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/**
 * Runs one attack, secret, race or fault check and records it: `tried` once, and one escape
 * (or loss) when the check fails, i.e. the refusal or the guarantee it asserts did not hold.
 *
 * @example it(testCase.name, () => counted("escapes", () => expectRefused(testCase, tool)));
 */
export async function counted<T>(
  family: ReliabilityFamily,
  check: () => T | Promise<T>,
  failure: "escapes" | "losses" = "escapes",
): Promise<T> {
  try {
    const result = await check();
    recordReliability(family, { tried: 1 });
    return result;
  } catch (error) {
    recordReliability(family, { tried: 1, [failure]: 1 });
    throw error;
  }
}

/**
 * Records one fault run by a child process under a time bound, before the test asserts on it:
 * tried once, and a hang when the child ran past its bound and was killed there (`timedOut` of
 * {@link import("./cli.ts").runProcess}).
 *
 * @example recordBoundedRun("faults", await runCli(["show", "x.md"], { home, timeoutMs: 20_000 }));
 */
export function recordBoundedRun(
  family: ReliabilityFamily,
  run: { timedOut?: boolean },
  counts: Pick<ReliabilityCounts, "escapes" | "losses"> = {},
): void {
  recordReliability(family, { ...counts, tried: 1, hangs: run.timedOut ? 1 : 0 });
}

/**
 * Runs one operation under a time bound and records it: tried once, and a hang when it was
 * still running at `boundMs` (it then fails with a message saying so; the operation itself is
 * left to the caller's clean-up, such as killing its child). Other failures are rethrown as they
 * are, for the test's own assertions.
 *
 * @example const result = await withinBound("faults", 20_000, () => client.callTool(…));
 */
export async function withinBound<T>(
  family: ReliabilityFamily,
  boundMs: number,
  operation: () => Promise<T>,
  what = "the operation",
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = Symbol("hang");
  const bound = new Promise<typeof hang>((resolve) => {
    timer = setTimeout(() => resolve(hang), boundMs);
  });
  const settled = operation().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  try {
    const outcome = await Promise.race([settled, bound]);
    recordReliability(family, { tried: 1, hangs: outcome === hang ? 1 : 0 });
    if (outcome === hang) throw new Error(`${what} hung: still running after its bound of ${boundMs} ms`);
    if ("error" in outcome) throw outcome.error;
    return outcome.value;
  } finally {
    clearTimeout(timer);
  }
}
