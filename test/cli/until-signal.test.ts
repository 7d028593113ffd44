// Ctrl-C or SIGTERM during a long command (dream, export --out): the job sees its signal abort and
// stops on its own terms; the command learns which signal it was (src/cli/support/until-signal.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StoppedBySignal, signalExitCode, untilSignal } from "../../src/cli/support/until-signal.ts";

/** A job that runs until its signal aborts, then fails with the abort's reason. */
const untilAborted = (signal: AbortSignal, started: () => void) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason));
    started();
  });

describe("untilSignal", () => {
  for (const name of ["SIGTERM", "SIGINT"] as const) {
    it(`aborts the job on ${name}, names the signal, and leaves no listener behind`, async () => {
      const before = process.listenerCount(name);
      const run = untilSignal("export", (signal) =>
        untilAborted(signal, () => {
          process.emit(name, name);
        }),
      );
      const error = await run.then(
        () => assert.fail("the job was stopped"),
        (thrown: unknown) => thrown,
      );
      assert.ok(error instanceof StoppedBySignal);
      assert.equal(error.signal, name);
      assert.match(String((error.cause as Error).message), new RegExp(`export was cancelled by ${name}`));
      assert.equal(signalExitCode(name), name === "SIGINT" ? 130 : 143);
      assert.equal(
        process.listenerCount(name),
        before,
        "the listener is gone: a second signal ends the process",
      );
    });
  }

  it("returns a job that finishes anyway after the signal (a dream between two merges) with the signal", async () => {
    const result = await untilSignal("consolidation", async (signal) => {
      process.emit("SIGTERM", "SIGTERM");
      return signal.aborted ? "stopped between merges" : "ran to the end";
    });
    assert.deepEqual(result, { value: "stopped between merges", stoppedBy: "SIGTERM" });
  });

  it("passes a job's own failure through unchanged when no signal came", async () => {
    const failure = new Error("disk full");
    await assert.rejects(
      untilSignal("export", async () => {
        throw failure;
      }),
      (thrown) => thrown === failure,
    );
    const quiet = await untilSignal("export", async () => 7);
    assert.deepEqual(quiet, { value: 7, stoppedBy: null });
  });
});
