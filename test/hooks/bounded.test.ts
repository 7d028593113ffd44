import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bounded } from "../../src/hooks/bounded.ts";

describe("bounded", () => {
  it("returns the work's value when it finishes in time", async () => {
    assert.equal(await bounded(10_000, "fallback", async () => "done"), "done");
  });

  it("returns the fallback and aborts the work when it never finishes", async () => {
    let seen: AbortSignal | undefined;
    const reasons: string[] = [];
    const value = await bounded(
      20,
      "fallback",
      (signal) => {
        seen = signal;
        return new Promise<string>(() => {});
      },
      (reason) => reasons.push(reason),
    );
    assert.equal(value, "fallback");
    assert.equal(seen?.aborted, true, "the work is told to stop");
    assert.match(reasons[0], /timed out after 20 ms/);
  });

  it("returns the fallback when the work throws, never the error", async () => {
    const reasons: string[] = [];
    const value = await bounded(
      10_000,
      null,
      async () => {
        throw new Error("index unreadable");
      },
      (reason) => reasons.push(reason),
    );
    assert.equal(value, null);
    assert.deepEqual(reasons, ["index unreadable"]);
  });
});
