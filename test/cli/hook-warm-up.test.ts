import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { PERSIST_MIN_MEMORIES } from "../../src/memdir/cache/persisted-cache.ts";
import { runCli } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

// A big memory dir's caches are warmed in the background at session start, so the session's first
// prompt finds them ready (docs/design.md#session-start): at 2,000+ memories a cold first prompt
// ran out of the hook's 3 s bound and answered {}.

const TOPICS = ["billing", "search", "checkout", "inventory", "shipping", "reports", "profiles", "alerts"];

/** `count` generated memories, plus one the test prompt should recall. */
function bigMemoryDir(count: number): { home: string; project: string; memoryDir: string } {
  const home = makeTempDir("memdir-warm-up-");
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, "memory");
  fs.mkdirSync(project);
  fs.mkdirSync(path.join(memoryDir, "archive"), { recursive: true });
  for (let i = 0; i < count; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const folder = i % 3 === 0 ? "archive/" : "";
    fs.writeFileSync(
      path.join(memoryDir, `${folder}project-${topic}-${i}.md`),
      `---\ndescription: ${topic} service note number ${i}\ntype: project\n---\nThe ${topic} service keeps note ${i} about its queue depth and batch size ${i * 7}.\n`,
    );
  }
  fs.writeFileSync(
    path.join(memoryDir, "feedback-ingress-timeouts.md"),
    "---\ndescription: Kubernetes ingress timeouts must stay at 120 seconds for the export endpoint\ntype: feedback\n---\nRaising the ingress timeout broke nothing; lowering it cut off CSV exports.\n",
  );
  fs.writeFileSync(
    path.join(memoryDir, "MEMORY.md"),
    "- [Ingress timeouts](feedback-ingress-timeouts.md) — keep 120 s\n",
  );
  return { home, project, memoryDir };
}

function hookInput(project: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: "s-1",
    transcript_path: "/nonexistent/s-1.jsonl",
    cwd: project,
    ...fields,
  });
}

/** Polls until `done()` (bounded: the warm-up runs in another process that we cannot await). */
// The warm-up runs in a detached process we cannot await: polled, with a bound for a loaded machine.
const DETACHED = { timeout: 60_000, interval: 100 };

const cacheDir = (memoryDir: string) => path.join(memoryDir, ".memdir-cache");

describe("memdir hook session-start: cache warm-up", () => {
  it("warms a big dir's caches in a background process, and a fresh prompt hook then recalls from them", async () => {
    const { home, project, memoryDir } = bigMemoryDir(600);
    assert.equal(fs.existsSync(cacheDir(memoryDir)), false);

    const start = await runCli(["hook", "session-start", "--dir", memoryDir], {
      home,
      input: hookInput(project),
    });
    assert.equal(start.code, 0, start.stderr);
    assert.match(
      JSON.parse(start.stdout).hookSpecificOutput.additionalContext,
      /feedback-ingress-timeouts\.md/,
    );
    const started = /cache warm-up started in the background \(pid (\d+)\)/.exec(start.stderr);
    assert.ok(started, `the hook says it started a warm-up: ${start.stderr}`);

    // The hook has answered and exited; the warm-up finishes on its own and leaves its marker.
    const markerFile = path.join(cacheDir(memoryDir), "warm-up.json");
    const lockFile = path.join(cacheDir(memoryDir), "warm-up.lock");
    await waitFor(() => fs.existsSync(markerFile) && !fs.existsSync(lockFile), {
      ...DETACHED,
      what: "the warm-up to finish",
    });
    const marker = JSON.parse(fs.readFileSync(markerFile, "utf8"));
    assert.equal(marker.pid, Number(started[1]), "done by the detached process, not the hook");
    assert.equal(marker.memories, 601);
    assert.deepEqual(Object.keys(marker.caches).sort(), ["headers.v8", "lexical.bin"]);

    const prompt = await runCli(["hook", "user-prompt-submit", "--dir", memoryDir], {
      home,
      input: hookInput(project, { prompt: "why did the CSV export get cut off by the ingress timeout?" }),
    });
    assert.equal(prompt.code, 0, prompt.stderr);
    const context = JSON.parse(prompt.stdout).hookSpecificOutput?.additionalContext ?? "";
    assert.match(context, /^Memory \(saved today\): .*feedback-ingress-timeouts\.md:/m);

    // Nothing changed since: the next session start starts no second warm-up.
    const again = await runCli(["hook", "session-start", "--dir", memoryDir], {
      home,
      input: hookInput(project),
    });
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /warm-up started/);

    // A memory added since: warmed again.
    fs.writeFileSync(
      path.join(memoryDir, "archive", "project-new.md"),
      "---\ndescription: a new note\ntype: project\n---\nnew\n",
    );
    const changed = await runCli(["hook", "session-start", "--dir", memoryDir], {
      home,
      input: hookInput(project),
    });
    assert.match(changed.stderr, /warm-up started in the background .*added, removed or renamed/);
    const rewarmed = /pid (\d+)/.exec(changed.stderr)?.[1];
    await waitFor(
      () =>
        JSON.parse(fs.readFileSync(markerFile, "utf8")).pid === Number(rewarmed) && !fs.existsSync(lockFile),
      { ...DETACHED, what: "the second warm-up to finish" },
    );
    assert.equal(JSON.parse(fs.readFileSync(markerFile, "utf8")).memories, 602);
  });

  it("starts no second warm-up while one is running", async () => {
    const { home, project, memoryDir } = bigMemoryDir(520);
    // A live warm-up holds the lock (this test process stands in for it).
    fs.mkdirSync(cacheDir(memoryDir));
    fs.writeFileSync(path.join(cacheDir(memoryDir), "warm-up.lock"), `${process.pid}\n${os.hostname()}\n`);
    const start = await runCli(["hook", "session-start", "--dir", memoryDir], {
      home,
      input: hookInput(project),
    });
    assert.equal(start.code, 0, start.stderr);
    assert.doesNotMatch(start.stderr, /warm-up started/);
    const direct = await runCli(["warm-up", "--dir", memoryDir, "--json"], { home });
    assert.equal(direct.code, 0, direct.stderr);
    assert.deepEqual(JSON.parse(direct.stdout).status, "busy");
    assert.equal(JSON.parse(direct.stdout).holder, process.pid);
  });

  it("leaves a small dir alone: no warm-up, no cache folder", async () => {
    // One memory short of the line (the helper adds one).
    const { home, project, memoryDir } = bigMemoryDir(PERSIST_MIN_MEMORIES - 2);
    const start = await runCli(["hook", "session-start", "--dir", memoryDir], {
      home,
      input: hookInput(project),
    });
    assert.equal(start.code, 0, start.stderr);
    assert.doesNotMatch(start.stderr, /warm-up started/);
    assert.equal(fs.existsSync(cacheDir(memoryDir)), false);
  });

  it("memdir warm-up fills the caches in the foreground and says how many memories", async () => {
    const { home, memoryDir } = bigMemoryDir(510);
    const result = await runCli(["warm-up", "--dir", memoryDir], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Caches of 511 memories are warm \(\d+ ms\)\n$/);
    assert.ok(fs.existsSync(path.join(cacheDir(memoryDir), "lexical.bin")));
    assert.ok(fs.existsSync(path.join(cacheDir(memoryDir), "headers.v8")));
  });
});
