import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { applyDuplicateGroups, loadMemoryDocuments } from "../../src/dream/dedupe.ts";
import { findDuplicateGroups } from "../../src/dream/dedupe-groups.ts";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { counted } from "../helpers/reliability-counts.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

describe("two dream runs at once", () => {
  it("lets one consolidate while the other backs off", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "project", "memory");
    writeTree(memoryDir, {
      "MEMORY.md": "- [A](a.md) — a rule\n",
      "a.md": "---\ndescription: a rule\ntype: feedback\n---\nA.\n",
    });
    // The winner's first model call is held until the other run has finished, so the two runs
    // certainly overlap however the processes are scheduled.
    let firstDone: () => void = () => {};
    const otherFinished = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    const server = await startFakeModelServer(async () => {
      await Promise.race([otherFinished, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      return "Nothing needed consolidating.";
    });
    try {
      const env = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      const run = () =>
        runCli(["dream", "--force", "--json", "--dir", memoryDir], { home, env, timeoutMs: 60_000 }).finally(
          () => firstDone(),
        );
      const results = await counted("races", () => Promise.all([run(), run()]), "losses");
      for (const result of results) assert.equal(result.code, 0, result.stderr);
      const statuses = results.map((r) => JSON.parse(r.stdout).status).sort();
      assert.deepEqual(statuses, ["locked", "unchanged"]);
      assert.equal(server.requests.length, 1, "only the winner called the model");
    } finally {
      await server.close();
    }
  });
});

describe("an offline dream and a save in between its plan and its merge", () => {
  // The offline dream plans without the writer lock (reading every memory can take long), then
  // merges. The plan is a plain value, so a real save by another process can land between the two.
  it("leaves the re-saved memory and its merge alone, reports it, and still applies the other merges", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "memory");
    writeTree(memoryDir, {
      "MEMORY.md":
        "- [Real DB](feedback-real-db.md) — tests hit a real database\n" +
        "- [Real DB again](feedback-real-db-2.md) — tests hit a real database\n" +
        "- [Fridays](project-fridays.md) — deploys on fridays\n" +
        "- [Fridays again](project-fridays-2.md) — deploys on fridays\n",
      "feedback-real-db.md": memory("tests hit a real database", "Never mock the database."),
      "feedback-real-db-2.md": memory("Tests hit a real database.", "never mock the database"),
      "project-fridays.md": memory("deploys on fridays", "We deploy on Fridays.", "project"),
      "project-fridays-2.md": memory("Deploys on Fridays.", "we deploy on fridays", "project"),
    });
    const plan = findDuplicateGroups(await loadMemoryDocuments(memoryDir));
    assert.equal(plan.length, 2, "both pairs are planned as merges");
    const resaved = plan.find((group) => group.type === "feedback")?.remove[0] ?? "";
    assert.ok(resaved, "the feedback merge removes one copy");

    // Another process re-saves the copy the plan would remove, with news in it.
    const saved = await runCli(
      [
        "add",
        "--dir",
        memoryDir,
        "--file",
        resaved,
        "--type",
        "feedback",
        "--description",
        "tests hit a real database",
        "Never mock the database. Since March: the staging replica, not production.",
      ],
      { home },
    );
    assert.equal(saved.code, 0, saved.stderr);

    const result = await applyDuplicateGroups(memoryDir, plan);
    assert.deepEqual(result.leftAlone, [resaved]);
    assert.match(fs.readFileSync(path.join(memoryDir, resaved), "utf8"), /staging replica/);
    assert.ok(fs.existsSync(path.join(memoryDir, "feedback-real-db.md")), "its partner stays too");
    assert.ok(fs.existsSync(path.join(memoryDir, "feedback-real-db-2.md")));
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.ok(index.includes(`(${resaved})`), "its index line stays");
    // The merge nobody touched is applied.
    assert.equal(result.removed.length, 1);
    const fridays = ["project-fridays.md", "project-fridays-2.md"].filter((f) =>
      fs.existsSync(path.join(memoryDir, f)),
    );
    assert.equal(fridays.length, 1, "the untouched pair is merged into one");
  });
});
