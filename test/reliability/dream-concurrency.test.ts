import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCli } from "../helpers/cli.ts";
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
