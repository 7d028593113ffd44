import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  consolidationNotice,
  maybeStartConsolidation,
  runConsolidation,
} from "../../src/dream/consolidate.ts";
import { SessionScanThrottle } from "../../src/dream/gate.ts";
import { listHistory, undoChange } from "../../src/dream/history.ts";
import { CONSOLIDATE_LOCK_FILE, readLastConsolidatedAt } from "../../src/dream/lock.ts";
import { applyProposal } from "../../src/dream/proposal.ts";
import { createAnthropicClient } from "../../src/model/anthropic.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const HOUR = 60 * 60 * 1000;

function seed() {
  const projectDir = makeTempDir();
  const memoryDir = path.join(projectDir, "memory");
  writeTree(memoryDir, {
    "MEMORY.md":
      "- [Real DB](feedback-real-db.md) — login tests hit a real database\n" +
      "- [No mocks](feedback-no-mocks.md) — do not mock the database in login tests\n" +
      "- [Fridays](project-fridays.md) — deploys happen on fridays\n",
    "feedback-real-db.md": memory("login tests hit a real database", "Never mock the DB."),
    "feedback-no-mocks.md": memory(
      "do not mock the database in login tests",
      "A mocked test hid a broken migration.",
    ),
    "project-fridays.md": memory("deploys happen on fridays", "Release train leaves Friday.", "project"),
  });
  writeTree(projectDir, {
    "s1.jsonl": `${JSON.stringify({ type: "message", sessionId: "s1", message: { id: "1", role: "user", content: "we no longer deploy on fridays" } })}\n`,
  });
  return { projectDir, memoryDir };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir).sort())
    if (name.endsWith(".md")) out[name] = fs.readFileSync(path.join(dir, name), "utf8");
  return out;
}

/** A model that merges the two database memories and deletes the contradicted Friday one. */
function mergeScript(memoryDir: string) {
  const merged = memory(
    "login integration tests must hit a real database",
    "Never mock the DB.\nWhy: a mocked test hid a broken migration.",
  );
  return [
    {
      toolCalls: [
        { name: "Read", input: { file_path: path.join(memoryDir, "MEMORY.md") } },
        { name: "SearchTranscripts", input: { query: "fridays" } },
      ],
    },
    {
      toolCalls: [
        { name: "Write", input: { file_path: path.join(memoryDir, "feedback-real-db.md"), content: merged } },
        { name: "Delete", input: { file_path: "feedback-no-mocks.md" } },
        { name: "Delete", input: { file_path: "project-fridays.md" } },
        {
          name: "Write",
          input: {
            file_path: path.join(memoryDir, "MEMORY.md"),
            content: "- [Real DB](feedback-real-db.md) — login integration tests must hit a real database\n",
          },
        },
      ],
    },
    "Merged the two database rules; deleted the Friday deploy rule (contradicted in s1).",
  ];
}

async function withServer<T>(
  script: Parameters<typeof startFakeModelServer>[0],
  fn: (
    client: ReturnType<typeof createAnthropicClient>,
    server: Awaited<ReturnType<typeof startFakeModelServer>>,
  ) => Promise<T>,
): Promise<T> {
  const server = await startFakeModelServer(script);
  try {
    const client = createAnthropicClient({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    return await fn(client, server);
  } finally {
    await server.close();
  }
}

describe("runConsolidation", () => {
  it("merges two memories and deletes a third, and undo restores all of it", async () => {
    const { projectDir, memoryDir } = seed();
    const before = snapshot(memoryDir);
    const result = await withServer(mergeScript(memoryDir), async (client, server) => {
      const result = await runConsolidation({ memoryDir, projectDir, client });
      const toolResults = JSON.stringify(server.requests[1].body);
      assert.match(toolResults, /we no longer deploy on fridays/, "the transcript search answered");
      return result;
    });
    assert.equal(result.status, "done", result.error?.message);
    assert.equal(result.improved, 3);
    assert.equal(consolidationNotice(result), "Improved 3 memories");
    assert.deepEqual(Object.keys(snapshot(memoryDir)), ["MEMORY.md", "feedback-real-db.md"]);
    const [entry] = await listHistory(memoryDir);
    assert.equal(entry.kind, "dream");
    assert.match(entry.message, /Merged the two database rules/);
    assert.notEqual(await readLastConsolidatedAt(memoryDir), null);

    await undoChange(memoryDir);
    assert.deepEqual(snapshot(memoryDir), before);
  });

  it("cannot write outside the memory dir", async () => {
    const { projectDir, memoryDir } = seed();
    const script = [
      {
        toolCalls: [
          { name: "Write", input: { file_path: "../x.md", content: "escaped" } },
          { name: "Write", input: { file_path: path.join(projectDir, "y.md"), content: "escaped" } },
          { name: "Delete", input: { file_path: "../s1.jsonl" } },
          { name: "Write", input: { file_path: ".git/hooks/post-commit", content: "#!/bin/sh\necho pwned" } },
        ],
      },
      "Done.",
    ];
    const result = await withServer(script, (client) => runConsolidation({ memoryDir, projectDir, client }));
    assert.equal(result.refused.length, 4);
    assert.equal(fs.existsSync(path.join(projectDir, "x.md")), false);
    assert.equal(fs.existsSync(path.join(projectDir, "y.md")), false);
    assert.ok(fs.existsSync(path.join(projectDir, "s1.jsonl")));
    assert.equal(fs.existsSync(path.join(memoryDir, ".git", "hooks", "post-commit")), false);
  });

  it("winds the lock back when the model fails", async () => {
    const { projectDir, memoryDir } = seed();
    const lock = path.join(memoryDir, CONSOLIDATE_LOCK_FILE);
    const prior = Date.now() - 30 * HOUR;
    fs.writeFileSync(lock, "");
    fs.utimesSync(lock, prior / 1000, prior / 1000);
    const result = await withServer([{ error: 500, message: "boom" }], (client) =>
      runConsolidation({ memoryDir, projectDir, client }),
    );
    assert.equal(result.status, "failed");
    assert.equal(Math.round((await readLastConsolidatedAt(memoryDir)) ?? 0), prior);
  });

  it("in propose mode changes nothing until the proposal is applied", async () => {
    const { projectDir, memoryDir } = seed();
    const before = snapshot(memoryDir);
    // The agent works on a scratch copy: the script's paths are decided when each request arrives.
    let workDir = "";
    const script = mergeScript("WORKDIR");
    const steps = script.map((step) => (request: { body: Record<string, unknown> | null }) => {
      if (!workDir) workDir = /It lives in `([^`]+)`/.exec(JSON.stringify(request.body))?.[1] ?? "";
      return JSON.parse(JSON.stringify(step).replaceAll("WORKDIR", workDir));
    });
    const result = await withServer(steps, (client) =>
      runConsolidation({ memoryDir, projectDir, client, mode: "propose" }),
    );
    assert.equal(result.status, "proposed", result.error?.message);
    assert.ok(result.proposal);
    assert.notEqual(workDir, memoryDir);
    assert.deepEqual(snapshot(memoryDir), before, "nothing changed yet");
    assert.match(consolidationNotice(result) ?? "", /memdir dream --apply/);

    await applyProposal(memoryDir, result.proposal.id);
    assert.deepEqual(Object.keys(snapshot(memoryDir)), ["MEMORY.md", "feedback-real-db.md"]);
    await assert.rejects(applyProposal(memoryDir, result.proposal.id), /already applied/);
    await undoChange(memoryDir);
    assert.deepEqual(snapshot(memoryDir), before);
  });
});

describe("maybeStartConsolidation", () => {
  it("does not run for a sub-agent or before the gates open", async () => {
    const { projectDir, memoryDir } = seed();
    await withServer([], async (client, server) => {
      const settings = { enabled: true, minHours: 24, minSessions: 5 };
      const throttle = new SessionScanThrottle();
      const sub = await maybeStartConsolidation({
        settings,
        memoryDir,
        projectDir,
        client,
        isMainAgent: false,
        throttle,
      });
      assert.equal(sub.result, null);
      const main = await maybeStartConsolidation({
        settings,
        memoryDir,
        projectDir,
        client,
        isMainAgent: true,
        throttle,
      });
      assert.equal(main.decision?.blockedBy, "sessions");
      assert.equal(main.result, null);
      assert.equal(server.requests.length, 0);
    });
  });

  it("runs when the gates pass and tells the user what improved", async () => {
    const { projectDir, memoryDir } = seed();
    const notices: string[] = [];
    await withServer(mergeScript(memoryDir), async (client) => {
      const settings = { enabled: true, minHours: 24, minSessions: 1 };
      const outcome = await maybeStartConsolidation({
        settings,
        memoryDir,
        projectDir,
        client,
        isMainAgent: true,
        throttle: new SessionScanThrottle(),
        notify: (text) => notices.push(text),
      });
      assert.equal(outcome.result?.status, "done");
    });
    assert.deepEqual(notices, ["Improved 3 memories"]);
  });
});
