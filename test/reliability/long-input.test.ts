// Long input (docs/design.md#long-input): a pasted log as the prompt, a memory of megabytes. Every case
// runs the real CLI process; its time bound is only a generous kill timeout, never a measurement.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";
import { memory } from "../helpers/memory.ts";
import { recordBoundedRun } from "../helpers/reliability-counts.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

const HOOK_BOUND_MS = 60_000;

describe("a 100 MB prompt", () => {
  it("is answered within the hook's bound: nothing added, the reason on stderr, exit 0 (a hook reads at most 4 MB of stdin)", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "memory");
    writeTree(memoryDir, {
      "MEMORY.md": "- [Real DB](feedback-real-db.md) — login tests hit a real database\n",
      "feedback-real-db.md": memory(
        "login integration tests must hit a real database",
        "Never mock the database in the login tests.",
      ),
    });
    // A question, then 100 MB of a pasted log (50 million words).
    const prompt = `why do the login integration tests hit a real database? ${"x ".repeat(50_000_000)}`;
    const result = await runCli(
      ["hook", "user-prompt-submit", "--dir", memoryDir, "--timeout-ms", String(HOOK_BOUND_MS)],
      {
        home,
        input: JSON.stringify({ session_id: "s-1", hook_event_name: "UserPromptSubmit", prompt }),
        timeoutMs: HOOK_BOUND_MS * 2,
      },
    );
    recordBoundedRun("faults", result);
    assert.equal(result.code, 0, `the hook answered (stderr: ${result.stderr.slice(0, 500)})`);
    // docs/design.md#hooks: past 4 MB no host's payload is read; the host's turn goes on unchanged.
    assert.deepEqual(JSON.parse(result.stdout), {});
    assert.match(result.stderr, /stdin is over 4 MB/);
  });
});

describe("a memory of 5 MB", () => {
  it("is merged by the offline dream with its shorter copy, nothing said lost", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "memory");
    // 5 MB of a build log (distinct words, one line every ten), saved twice: the second copy
    // has one more line at the end.
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 5 * 1024 * 1024; i += 10) {
      lines.push(Array.from({ length: 10 }, (_, j) => `step${i + j}`).join(" "));
      size += (lines.at(-1)?.length ?? 0) + 1;
    }
    const log = lines.join("\n");
    writeTree(memoryDir, {
      "MEMORY.md":
        "- [Build log](project-build-log.md) — the release build log\n" +
        "- [Build log again](project-build-log-2.md) — the release build log\n" +
        "- [Fridays](project-fridays.md) — deploys on fridays\n",
      "project-build-log.md": memory("the release build log", log, "project"),
      "project-build-log-2.md": memory("the release build log", `${log}\nrelease tagged v2.3.1`, "project"),
      "project-fridays.md": memory("deploys on fridays", "We deploy on Fridays.", "project"),
    });
    const result = await runCli(["dream", "--force", "--json", "--dir", memoryDir], {
      home,
      timeoutMs: 120_000,
    });
    recordBoundedRun("faults", result, {
      losses: fs.existsSync(path.join(memoryDir, "project-fridays.md")) ? 0 : 1,
    });
    assert.equal(result.code, 0, result.stderr.slice(0, 500));
    const output = JSON.parse(result.stdout) as { status: string; consolidator: string };
    assert.equal(output.consolidator, "offline");
    assert.equal(output.status, "done");
    assert.ok(!fs.existsSync(path.join(memoryDir, "project-build-log.md")), "the shorter copy is gone");
    const kept = fs.readFileSync(path.join(memoryDir, "project-build-log-2.md"), "utf8");
    assert.ok(kept.includes(lines.at(-1) ?? "?"), "the log is whole");
    assert.match(kept, /release tagged v2\.3\.1/);
    assert.ok(fs.existsSync(path.join(memoryDir, "project-fridays.md")), "the other memory stays");
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.ok(!index.includes("(project-build-log.md)"));
    assert.ok(index.includes("(project-build-log-2.md)"));
  });
});
