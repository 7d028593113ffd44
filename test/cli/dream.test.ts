import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { CONSOLIDATE_LOCK_FILE } from "../../src/dream/lock.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const HOUR = 60 * 60 * 1000;
/** A project dir (transcripts) holding a memory dir with two duplicates and one other memory. */
function fixture(options: { hoursAgo?: number; sessions?: number } = {}) {
  const home = makeTempDir();
  const projectDir = path.join(home, "project");
  const memoryDir = path.join(projectDir, "memory");
  writeTree(memoryDir, {
    "MEMORY.md":
      "- [Real DB](feedback-real-db.md) — login tests hit a real database\n" +
      "- [Real DB 2](feedback-real-db-copy.md) — login tests hit a real database\n" +
      "- [Fridays](project-fridays.md) — deploys happen on fridays\n",
    "feedback-real-db.md": memory("login tests hit a real database", "Never mock the database."),
    "feedback-real-db-copy.md": memory("Login tests hit a real database.", "never mock the database"),
    "project-fridays.md": memory("deploys happen on fridays", "Release train leaves Friday.", "project"),
  });
  if (options.hoursAgo !== undefined) {
    const lock = path.join(memoryDir, CONSOLIDATE_LOCK_FILE);
    fs.writeFileSync(lock, "");
    const at = (Date.now() - options.hoursAgo * HOUR) / 1000;
    fs.utimesSync(lock, at, at);
  }
  for (let i = 0; i < (options.sessions ?? 0); i++)
    writeTree(projectDir, {
      [`session-${i}.jsonl`]: `${JSON.stringify({ type: "message", sessionId: `session-${i}`, message: { id: "1", role: "user", content: "we no longer deploy on fridays" } })}\n`,
    });
  return { home, projectDir, memoryDir };
}

const mdFiles = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .sort();
const readAll = (dir: string) =>
  Object.fromEntries(mdFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]));

describe("memdir dream --status", () => {
  it("reports each gate as JSON", async () => {
    const { home, memoryDir } = fixture({ hoursAgo: 25, sessions: 5 });
    const result = await runCliInProcess(["dream", "--status", "--json", "--dir", memoryDir], { home });
    assert.equal(result.code, 0, result.stderr);
    const status = JSON.parse(result.stdout);
    assert.equal(status.enabled, true);
    assert.ok(Math.abs(status.hoursSinceLast - 25) < 0.1);
    assert.equal(status.sessionsSince, 5);
    assert.equal(status.lock, "free");
    assert.equal(status.wouldRun, true);
  });

  it("says it would not run 23 hours after the last consolidation", async () => {
    const { home, memoryDir } = fixture({ hoursAgo: 23, sessions: 5 });
    const result = await runCliInProcess(["dream", "--status", "--json", "--dir", memoryDir], { home });
    const status = JSON.parse(result.stdout);
    assert.equal(status.wouldRun, false);
    assert.equal(status.blockedBy, "time");
  });

  it("reports a live holder as held", async () => {
    const { home, memoryDir } = fixture({ hoursAgo: 25, sessions: 5 });
    // This test process is alive: its PID in a fresh lock blocks.
    fs.writeFileSync(path.join(memoryDir, CONSOLIDATE_LOCK_FILE), String(process.pid));
    const result = await runCliInProcess(["dream", "--status", "--json", "--dir", memoryDir], { home });
    const status = JSON.parse(result.stdout);
    assert.equal(status.lock, "held");
    assert.equal(status.wouldRun, false);
  });
});

describe("memdir dream (offline)", () => {
  it("does not run while the gates are closed, and --force runs the offline duplicate merge", async () => {
    const { home, memoryDir } = fixture({ hoursAgo: 2, sessions: 0 });
    const closed = await runCliInProcess(["dream", "--dir", memoryDir], { home });
    assert.equal(closed.code, 0, closed.stderr);
    assert.match(closed.stdout, /not consolidating/);
    assert.equal(mdFiles(memoryDir).length, 4);

    const forced = await runCliInProcess(["dream", "--force", "--dir", memoryDir], { home });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /no model configured: running the offline duplicate merge/);
    assert.match(forced.stdout, /Improved 1 memory/);
    assert.deepEqual(mdFiles(memoryDir), ["MEMORY.md", "feedback-real-db.md", "project-fridays.md"]);
    assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /copy/);
  });

  it("--propose changes nothing until the proposal is applied", async () => {
    const { home, memoryDir } = fixture();
    const before = readAll(memoryDir);
    const proposed = await runCliInProcess(["dream", "--force", "--propose", "--json", "--dir", memoryDir], {
      home,
    });
    assert.equal(proposed.code, 0, proposed.stderr);
    const report = JSON.parse(proposed.stdout);
    assert.equal(report.status, "proposed");
    assert.deepEqual(readAll(memoryDir), before, "nothing changed yet");

    const status = JSON.parse(
      (await runCliInProcess(["dream", "--status", "--json", "--dir", memoryDir], { home })).stdout,
    );
    assert.deepEqual(status.proposals, [report.proposal.id]);

    const applied = await runCliInProcess(["dream", "--apply", report.proposal.id, "--dir", memoryDir], {
      home,
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.deepEqual(mdFiles(memoryDir), ["MEMORY.md", "feedback-real-db.md", "project-fridays.md"]);
    const again = await runCliInProcess(["dream", "--apply", report.proposal.id, "--dir", memoryDir], {
      home,
    });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already applied/);
  });

  it("--propose says what it would merge, and that nothing changed yet", async () => {
    const { home, memoryDir } = fixture();
    const proposed = await runCliInProcess(["dream", "--force", "--propose", "--dir", memoryDir], { home });
    assert.equal(proposed.code, 0, proposed.stderr);
    assert.match(
      proposed.stdout,
      /^would merge feedback-real-db-copy\.md into feedback-real-db\.md \(exact\)$/m,
    );
    assert.doesNotMatch(proposed.stdout, /\bmerged\b/);
    assert.match(
      proposed.stdout,
      /^Proposed changes to 1 memory, nothing changed yet: memdir dream --apply \S+$/m,
    );
    // The inbox shows the proposal in the same words.
    const inbox = await runCliInProcess(["inbox", "--dir", memoryDir], { home });
    assert.match(inbox.stdout, /would merge feedback-real-db-copy\.md into feedback-real-db\.md/);
  });

  it("refuses to mix --status with a run", async () => {
    const { home, memoryDir } = fixture();
    const result = await runCliInProcess(["dream", "--status", "--force", "--dir", memoryDir], { home });
    assert.equal(result.code, 2);
  });
});

describe("memdir dream (model)", () => {
  it("runs a scripted consolidation that merges two memories and deletes a third; memdir undo restores them", async () => {
    const { home, memoryDir } = fixture({ hoursAgo: 30, sessions: 5 });
    const before = readAll(memoryDir);
    const server = await startFakeModelServer([
      { toolCalls: [{ name: "SearchTranscripts", input: { query: "fridays" } }] },
      {
        toolCalls: [
          {
            name: "Write",
            input: {
              file_path: path.join(memoryDir, "feedback-real-db.md"),
              content: memory(
                "login tests hit a real database",
                "Never mock the database.\nApplies to all login tests.",
              ),
            },
          },
          { name: "Delete", input: { file_path: "feedback-real-db-copy.md" } },
          { name: "Delete", input: { file_path: "project-fridays.md" } },
          { name: "Write", input: { file_path: "../escape.md", content: "nope" } },
        ],
      },
      "Merged the database rules. Deleted the Friday rule: session-0 says deploys moved.",
    ]);
    try {
      const env = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      const result = await runCliInProcess(["dream", "--json", "--dir", memoryDir], { home, env });
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout);
      assert.equal(report.status, "done", result.stdout);
      assert.equal(report.consolidator, "model");
      assert.equal(report.improved, 3);
      assert.equal(report.refused.length, 1);
      assert.equal(fs.existsSync(path.join(memoryDir, "..", "escape.md")), false);
      assert.deepEqual(mdFiles(memoryDir), ["MEMORY.md", "feedback-real-db.md"]);
      assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /fridays|copy/);

      const undo = await runCliInProcess(["undo", "--dir", memoryDir], { home });
      assert.equal(undo.code, 0, undo.stderr);
      assert.match(undo.stdout, new RegExp(`undid ${report.historyId}`));
      assert.deepEqual(readAll(memoryDir), before);
    } finally {
      await server.close();
    }
  });
});
