/**
 * Child process of the loop-overhead benchmark; prints one JSON line. What it measures:
 *
 * - `pendingMs`: what the agent loop runs for memory after each iteration while the prefetch is
 *   still searching — `collectSettledMemories` on an unsettled handle and the length check
 *   (mean over 200,000 calls).
 * - `settledMs`: the iteration that takes a settled prefetch's 5 memories — `collectSettledMemories`
 *   (de-duplication against the read-file state) plus what the loop does with the messages
 *   (timestamps, appending to the conversation, the surfaced-path list); median of 300 trials.
 * - `startMs`: the synchronous part of `startRelevantMemoryPrefetch` (gates, then return), once
 *   per turn, not per iteration; median of 300 trials.
 * - `loopAB`: `queryLoop` with an in-process scripted client and a no-op tool, 400 iterations,
 *   without memory and with a prefetch that never settles; the per-iteration difference is the
 *   loop's whole memory cost, including the memory rules in the request (median of 7 runs each).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { type LoopMemory, queryLoop } from "../src/agent/loop.ts";
import { allowAll } from "../src/agent/permissions.ts";
import { createToolContext, type ToolSpec } from "../src/agent/tools/spec.ts";
import { type Memdir, openMemdir } from "../src/memdir/instance.ts";
import type { ModelClient, ModelResponse } from "../src/model/client.ts";
import { collectSettledMemories, startRelevantMemoryPrefetch } from "../src/recall/prefetch.ts";
import { createLexicalSelector } from "../src/recall/select-lexical.ts";
import type { Selector } from "../src/recall/selector.ts";
import { surfacedMemoryPath } from "../src/recall/surface.ts";
import type { Message, ReadFileState } from "../src/types.ts";
import { median, round } from "./stats.ts";

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memdir-bench-loop-")));
try {
  const memoryDir = path.join(base, "memory");
  fs.mkdirSync(memoryDir);
  const topics = [
    "login tests",
    "database migrations",
    "deploy pipeline",
    "release checklist",
    "search indexer",
  ];
  for (const [i, topic] of topics.entries()) {
    fs.writeFileSync(
      path.join(memoryDir, `feedback-${i}.md`),
      `---\ndescription: ${topic} must hit a real database, never a mock\ntype: feedback\n---\nThe ${topic} must hit a real database.\nWhy: a mocked test once passed while the migration failed.\n`,
    );
  }
  const messages: Message[] = [
    { id: "u1", role: "user", content: "how do we test the login flow against the real database?" },
  ];
  const location = { memoryDir, projectDir: base };
  // The process's instance of the memory dir, as an agent session has one.
  const memdir = openMemdir(memoryDir);
  const never: Selector = { name: "never", select: () => new Promise(() => {}) };
  const lexical = createLexicalSelector();

  // pending: the per-iteration check on a prefetch that is still searching.
  const pending = startRelevantMemoryPrefetch(messages, { location, selector: never, memdir });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const readFileState: ReadFileState = new Map();
  const calls = 200_000;
  let found = 0;
  let started = performance.now();
  for (let i = 0; i < calls; i++) {
    const memoryMessages = collectSettledMemories(pending, readFileState, i);
    if (memoryMessages.length > 0) found++;
  }
  const pendingMs = (performance.now() - started) / calls;
  pending[Symbol.dispose]();

  // settled: the iteration that consumes 5 memories; start: the synchronous start.
  const settledTimes: number[] = [];
  const startTimes: number[] = [];
  let surfaced = 0;
  for (let trial = 0; trial < 300; trial++) {
    started = performance.now();
    const handle = startRelevantMemoryPrefetch(messages, {
      location,
      selector: lexical,
      memdir,
    });
    startTimes.push(performance.now() - started);
    await handle.promise;
    let conversation: Message[] = [...messages];
    started = performance.now();
    const memoryMessages = collectSettledMemories(handle, new Map(), 1);
    if (memoryMessages.length > 0) {
      for (const message of memoryMessages) {
        message.timestamp ??= new Date().toISOString();
        conversation = [...conversation, message];
      }
      memoryMessages.map(surfacedMemoryPath).filter((p): p is string => p !== null);
    }
    settledTimes.push(performance.now() - started);
    surfaced = memoryMessages.length;
    handle[Symbol.dispose]();
  }

  const loopAB = await measureLoop(memoryDir, location, never, memdir);
  console.log(
    JSON.stringify({
      pendingMs: round(pendingMs, 6),
      settledMs: round(median(settledTimes), 4),
      settledSurfaced: surfaced,
      startMs: round(median(startTimes), 4),
      loopAB,
      pendingChecksThatFoundSomething: found,
    }),
  );
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}

/** queryLoop per-iteration time without memory and with a never-settling prefetch. */
async function measureLoop(
  memoryDir: string,
  location: { memoryDir: string; projectDir: string },
  never: Selector,
  memdir: Memdir,
): Promise<{ iterations: number; withoutMemoryMs: number; pendingMs: number; differenceMs: number }> {
  const iterations = 400;
  const noop: ToolSpec = {
    name: "Noop",
    description: "does nothing",
    inputSchema: z.object({}),
    readOnly: true,
    handler: async () => ({ content: "ok" }),
  };
  const run = async (memory: LoopMemory | null): Promise<number> => {
    let call = 0;
    const client: ModelClient = {
      name: "scripted",
      async complete(): Promise<ModelResponse> {
        call++;
        const usage = { inputTokens: 1, outputTokens: 1 };
        if (call >= iterations)
          return { content: [{ type: "text", text: "done" }], stopReason: "end_turn", usage };
        return {
          content: [{ type: "tool_use", id: `t${call}`, name: "Noop", input: {} }],
          stopReason: "tool_use",
          usage,
        };
      },
    };
    const started = performance.now();
    for await (const _event of queryLoop({
      messages: [
        { id: "u1", role: "user", content: "how do we test the login flow against the real database?" },
      ],
      tools: [noop],
      client,
      memory,
      maxTurns: iterations + 1,
      permissions: allowAll,
      toolContext: createToolContext({ cwd: memoryDir, memoryDir }),
    })) {
      // events are consumed and dropped
    }
    return (performance.now() - started) / iterations;
  };
  const withMemory: LoopMemory = {
    memoryDir,
    rules: "# Memory\n(the memory rules would be here)",
    prefetch: { location, selector: never, memdir },
  };
  const without: number[] = [];
  const pendingRuns: number[] = [];
  await run(null); // warm-up of the loop's code paths
  await run(withMemory);
  for (let i = 0; i < 7; i++) {
    without.push(await run(null));
    pendingRuns.push(await run(withMemory));
  }
  const withoutMemoryMs = median(without);
  const pendingMs = median(pendingRuns);
  return {
    iterations,
    withoutMemoryMs: round(withoutMemoryMs, 4),
    pendingMs: round(pendingMs, 4),
    differenceMs: round(pendingMs - withoutMemoryMs, 4),
  };
}
