import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  type ExtractionTicket,
  extractionTicket,
  pendingRequestFile,
  runOneAtATime,
} from "../../src/extract/extraction-queue.ts";
import { makeTempDir } from "../helpers/temp.ts";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("runOneAtATime", () => {
  it("queues requests made during a run and runs each session's latest once afterwards, oldest first", async () => {
    const memoryDir = makeTempDir("memdir-queue-");
    const started = deferred();
    const gate = deferred();
    const ran: string[] = [];
    let running = 0;
    const run = async (ticket: ExtractionTicket) => {
      running++;
      assert.equal(running, 1, "never two at once");
      ran.push(path.basename(ticket.transcript));
      if (ran.length === 1) {
        started.resolve();
        await gate.promise;
      }
      running--;
      return path.basename(ticket.transcript);
    };
    const first = runOneAtATime(memoryDir, extractionTicket({ transcript: "/s/a.jsonl", cwd: "/p" }), run);
    await started.promise;
    const second = await runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/b.jsonl", cwd: "/p" }),
      run,
    );
    const third = await runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/c.jsonl", cwd: "/p" }),
      run,
    );
    // b's session ends another turn: its newer request replaces its first one. The waiting
    // requests are dated back a minute (b's before c's, as written), so the rewrite gets a later
    // modification time than c's on any file system clock, with no wait.
    const minuteAgo = Date.now() / 1000 - 60;
    for (const [transcript, seconds] of [
      ["/s/b.jsonl", minuteAgo - 1],
      ["/s/c.jsonl", minuteAgo],
    ] as const)
      fs.utimesSync(pendingRequestFile(memoryDir, transcript), seconds, seconds);
    const fourth = await runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/b.jsonl", cwd: "/p" }),
      run,
    );
    assert.deepEqual([second.status, third.status, fourth.status], ["queued", "queued", "queued"]);
    gate.resolve();
    assert.deepEqual(await first, { status: "ran", own: "a.jsonl", trailing: ["c.jsonl", "b.jsonl"] });
    assert.deepEqual(ran, ["a.jsonl", "c.jsonl", "b.jsonl"], "one run per session; none forgotten");
    const state = path.join(memoryDir, ".memdir-extract");
    assert.deepEqual(fs.readdirSync(state), ["pending"], "the lock is gone");
    assert.deepEqual(fs.readdirSync(path.join(state, "pending")), [], "and every request taken");
  });

  it("when its own run throws: releases the lock, still runs the queued request, then reports the error", async () => {
    const memoryDir = makeTempDir("memdir-queue-");
    const started = deferred();
    const gate = deferred();
    const ran: string[] = [];
    const first = runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/a.jsonl", cwd: "/p" }),
      async (ticket) => {
        ran.push(path.basename(ticket.transcript));
        if (ran.length === 1) {
          started.resolve();
          await gate.promise;
          throw new Error("model unreachable");
        }
        return "ok";
      },
    );
    await started.promise;
    const queued = await runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/b.jsonl", cwd: "/p", all: true }),
      async () => "not here",
    );
    assert.equal(queued.status, "queued");
    gate.resolve();
    await assert.rejects(first, /model unreachable/);
    assert.deepEqual(ran, ["a.jsonl", "b.jsonl"]);
    const next = await runOneAtATime(
      memoryDir,
      extractionTicket({ transcript: "/s/d.jsonl", cwd: "/p" }),
      async () => 1,
    );
    assert.equal(next.status, "ran", "the lock was released");
  });
});
