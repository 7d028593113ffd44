import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { pendingRequestFile } from "../../src/extract/extraction-queue.ts";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { runCli } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

// `memdir hook stop` after every turn of an agent with hooks: each call starts a detached
// `memdir extract`; across those processes only one extracts at a time, turns that end meanwhile
// become ONE trailing run over what they added, and each run covers only messages after the cursor.

function line(message: Message): string {
  return `${JSON.stringify({ type: "message", sessionId: "s-1", message })}\n`;
}

// The extraction runs in detached processes we cannot await: polled, with a bound for a loaded machine.
const DETACHED = { timeout: 60_000, interval: 100 };

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

describe("memdir hook stop → background extraction", () => {
  it("three turns ending in quick succession: one extraction, then one trailing run over the new turns", async () => {
    const home = makeTempDir("memdir-hook-stop-");
    const project = path.join(home, "shop");
    const memoryDir = path.join(home, "memory");
    fs.mkdirSync(project);
    fs.mkdirSync(memoryDir);
    const transcript = path.join(home, "s-1.jsonl");
    fs.writeFileSync(
      transcript,
      line({ id: "m1", role: "user", content: "The staging database is reset every night." }) +
        line({ id: "m2", role: "assistant", content: [{ type: "text", text: "Noted." }] }),
    );

    let arrived!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const opened = new Promise<void>((resolve) => {
      release = resolve;
    });
    const write = (file: string, description: string): FakeStep => ({
      toolCall: {
        name: "Write",
        input: {
          file_path: path.join(memoryDir, file),
          content: memory(description, `${description}.`, "project"),
        },
      },
    });
    const server = await startFakeModelServer([
      async () => {
        arrived();
        await opened; // the first extraction stays inside its first model call until released
        return write("project-staging-reset.md", "The staging database is reset every night");
      },
      "Saved.",
      write("project-release-freeze.md", "Release freeze starts on the 20th"),
      "Saved.",
    ]);
    after(() => server.close());
    const env = {
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
      MEMDIR_PROVIDER: "anthropic",
    };
    const stop = async () => {
      const result = await runCli(["hook", "stop", "--dir", memoryDir], {
        home,
        env,
        input: JSON.stringify({
          session_id: "s-1",
          transcript_path: transcript,
          cwd: project,
          hook_event_name: "Stop",
        }),
      });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), {}, "the hook answers at once, adding nothing");
      const pid = /pid (\d+)/.exec(result.stderr)?.[1];
      assert.ok(pid, result.stderr);
      return Number(pid);
    };

    await stop();
    await reached;
    const pendingFile = pendingRequestFile(memoryDir, transcript);
    fs.appendFileSync(
      transcript,
      line({ id: "m3", role: "user", content: "The release freeze starts on the 20th." }) +
        line({ id: "m4", role: "assistant", content: [{ type: "text", text: "Got it." }] }),
    );
    // Two more turns end while it runs; each one's extraction leaves its request and exits.
    for (const _ of [1, 2]) {
      const pid = await stop();
      await waitFor(() => readJson(pendingFile)?.pid === pid, {
        ...DETACHED,
        what: `the request of pid ${pid}`,
      });
      assert.equal(server.requests.length, 1, "no second extraction while one runs");
    }

    release();
    const cursors = path.join(memoryDir, ".memdir-extract", "cursors");
    const cursor = () => {
      const files = fs.existsSync(cursors) ? fs.readdirSync(cursors) : [];
      return files.length === 1 ? readJson(path.join(cursors, files[0]))?.cursor : null;
    };
    await waitFor(
      () => cursor() === "m4" && !fs.existsSync(path.join(memoryDir, ".memdir-extract", "lock")),
      { ...DETACHED, what: "the trailing run to finish" },
    );
    assert.equal(fs.existsSync(pendingFile), false);
    assert.equal(server.requests.length, 4, "one run and one trailing run, two model calls each");
    assert.match(server.requests[0].userText, /newest 2 messages/);
    assert.match(
      server.requests[2].userText,
      /newest 2 messages/,
      "the trailing run counts only the new turn",
    );
    assert.deepEqual(
      fs
        .readdirSync(memoryDir)
        .filter((name) => name.endsWith(".md"))
        .sort(),
      ["project-release-freeze.md", "project-staging-reset.md"],
    );

    // The next turn's hook over an unchanged transcript: nothing new, no model call.
    const last = await stop();
    await waitFor(() => processGone(last), { ...DETACHED, what: "the last extraction process to exit" });
    assert.equal(server.requests.length, 4);
    assert.equal(cursor(), "m4");
  });
});
