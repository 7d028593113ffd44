import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { startFakeModelServer } from "../../src/testing/index.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

const FIXTURE = path.resolve(import.meta.dirname, "../fixtures/worked-example");
const QUERY = "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A copy of the worked-example memory dir. Both memories were saved two days ago, in different
 * sessions (hours apart, as in the worked example, docs/design.md#worked-example).
 */
function workedExample(): { home: string; memoryDir: string } {
  const home = makeTempDir();
  const memoryDir = path.join(home, "memory");
  fs.cpSync(FIXTURE, memoryDir, { recursive: true });
  const now = Date.now();
  const saved: Record<string, number> = {
    "feedback-real-database.md": now - 2 * DAY - 60_000,
    "project-auth-migration.md": now - 2 * DAY - 3 * HOUR,
    "MEMORY.md": now - 2 * DAY - 60_000,
  };
  for (const [name, time] of Object.entries(saved))
    fs.utimesSync(path.join(memoryDir, name), new Date(time), new Date(time));
  return { home, memoryDir };
}

describe("memdir recall", () => {
  it("prints the system-reminder the worked example would inject (offline, lexical)", async () => {
    const { home, memoryDir } = workedExample();
    const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir], { home });
    assert.equal(result.code, 0, result.stderr);
    const target = path.join(memoryDir, "feedback-real-database.md");
    assert.ok(
      result.stdout.startsWith(`<system-reminder>Memory (saved 2 days ago): ${target}:\n`),
      result.stdout,
    );
    assert.match(result.stdout, /point-in-time note/);
    assert.match(result.stdout, /登录模块的集成测试/);
    assert.ok(!result.stdout.includes("project-auth-migration.md"));
  });

  it("takes the query's words unquoted, as forget and remember do", async () => {
    const { home, memoryDir } = workedExample();
    const quoted = await runCliInProcess(["recall", "real database tests", "--json", "--dir", memoryDir], {
      home,
    });
    const unquoted = await runCliInProcess(
      ["recall", "real", "database", "tests", "--json", "--dir", memoryDir],
      {
        home,
      },
    );
    assert.equal(unquoted.code, 0, unquoted.stderr);
    const parsed = JSON.parse(unquoted.stdout) as { query: string; selected: string[] };
    assert.equal(parsed.query, "real database tests");
    assert.deepEqual(parsed.selected, (JSON.parse(quoted.stdout) as { selected: string[] }).selected);
    assert.ok(parsed.selected.length > 0);
  });

  it("--json has exactly the documented keys", async () => {
    const { home, memoryDir } = workedExample();
    const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--json"], { home });
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(json).sort(), ["messages", "query", "selected", "selector", "skipped"]);
    assert.equal(json.query, QUERY);
    assert.equal(json.selector, "lexical");
    assert.deepEqual(
      json.selected.map((s: { file: string }) => s.file),
      ["feedback-real-database.md"],
    );
    assert.deepEqual(Object.keys(json.selected[0]).sort(), ["file", "path", "score"]);
    assert.equal(json.selected[0].path, path.join(memoryDir, "feedback-real-database.md"));
    assert.equal(json.messages.length, 1);
    assert.deepEqual(Object.keys(json.messages[0]).sort(), ["content", "isMeta", "role"]);
    assert.equal(json.messages[0].role, "user");
    assert.equal(json.messages[0].isMeta, true);
    assert.match(
      json.messages[0].content,
      /^<system-reminder>Memory \(saved 2 days ago\): .*feedback-real-database\.md:/,
    );
    assert.deepEqual(json.skipped, []);
  });

  it("--explain lists every candidate with its score and why", async () => {
    const { home, memoryDir } = workedExample();
    const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--explain"], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^selector: lexical$/m);
    assert.match(result.stdout, /candidates \(2\):/);
    assert.match(result.stdout, /^ {2}picked +\d+\.\d+ +feedback-real-database\.md/m);
    assert.match(result.stdout, /^ {2}(below-floor|beyond-k) +\S+ +project-auth-migration\.md/m);
    assert.match(result.stdout, /would inject 1 memory/);

    const withK = await runCliInProcess(
      ["recall", QUERY, "--dir", memoryDir, "--explain", "--json", "--k", "1"],
      {
        home,
      },
    );
    const json = JSON.parse(withK.stdout);
    assert.equal(json.candidates.length, 2);
    assert.ok(json.candidates.every((c: { status: string; reason: string }) => c.status && c.reason));
  });

  it("--explain shows the picks, the nearest misses and counts the rest; --all lists every candidate", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "memory");
    // 30 memories about the deploy pipeline (they all score) and 10 about other things.
    for (let i = 0; i < 30; i++)
      writeMemory(
        memoryDir,
        `deploy-${i}.md`,
        memory(`deploy pipeline step ${i} for the staging cluster`, `step ${i}`),
      );
    for (let i = 0; i < 10; i++)
      writeMemory(memoryDir, `other-${i}.md`, memory(`favourite lunch place number ${i}`, "noodles"));
    const lines = (stdout: string) => stdout.split("\n").filter((line) => /^ {2}\S/.test(line));
    const brief = await runCliInProcess(
      ["recall", "how does the staging deploy pipeline work", "--dir", memoryDir, "--explain"],
      {
        home,
      },
    );
    assert.equal(brief.code, 0, brief.stderr);
    assert.match(brief.stdout, /candidates \(40\):/);
    const shown = lines(brief.stdout).filter((line) => !line.startsWith("  …"));
    const picked = shown.filter((line) => /^ {2}picked /.test(line));
    assert.equal(picked.length, 5, brief.stdout);
    assert.equal(shown.length, 5 + 10, "the picks and the ten nearest misses");
    assert.ok(
      shown.every((line) => /deploy-\d+\.md/.test(line)),
      "the nearest misses are the other deploy memories, not the lunch places",
    );
    assert.match(brief.stdout, /… and 25 more \(.*\); --all lists every candidate/);

    const full = await runCliInProcess(
      ["recall", "how does the staging deploy pipeline work", "--dir", memoryDir, "--explain", "--all"],
      { home },
    );
    assert.equal(lines(full.stdout).length, 40);
    assert.doesNotMatch(full.stdout, /--all lists every candidate/);
  });

  it("says when nothing would be recalled", async () => {
    const { home, memoryDir } = workedExample();
    const result = await runCliInProcess(
      ["recall", "quarterly marketing budget spreadsheet", "--dir", memoryDir],
      {
        home,
      },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /no memories would be recalled/);
  });

  it("says on stderr that agents recall nothing while auto memory is off, and still shows the picks", async () => {
    const { home, memoryDir } = workedExample();
    const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir], {
      home,
      env: { MEMDIR_DISABLE: "1" },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /auto memory is off \(.*MEMDIR_DISABLE.*\): agents recall nothing/);
    assert.match(result.stdout, /feedback-real-database\.md/);
    const on = await runCliInProcess(["recall", QUERY, "--dir", memoryDir], { home });
    assert.equal(on.stderr, "", "no note while memory is on");
  });

  it("--selector model without a model exits 1 naming the variable to set", async () => {
    const { home, memoryDir } = workedExample();
    for (const selector of ["model", "hybrid"]) {
      const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--selector", selector], {
        home,
      });
      assert.equal(result.code, 1);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.match(result.stderr, /ANTHROPIC_API_KEY/);
    }
  });

  it("rejects an unknown selector and a bad --k as usage errors", async () => {
    const { home, memoryDir } = workedExample();
    assert.equal(
      (await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--selector", "magic"], { home })).code,
      2,
    );
    assert.equal(
      (await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--k", "0"], { home })).code,
      2,
    );
  });

  describe("with a model configured", () => {
    const servers: { close(): Promise<void> }[] = [];
    after(async () => {
      for (const server of servers) await server.close();
    });

    it("defaults to hybrid and injects what the model chose", async () => {
      const { home, memoryDir } = workedExample();
      const server = await startFakeModelServer(() => ({
        json: { selected_memories: ["feedback-real-database.md"] },
      }));
      servers.push(server);
      const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--json"], { home, env });
      assert.equal(result.code, 0, result.stderr);
      const json = JSON.parse(result.stdout);
      assert.equal(json.selector, "hybrid");
      assert.deepEqual(
        json.selected.map((s: { file: string }) => s.file),
        ["feedback-real-database.md"],
      );
      assert.equal(server.requests.length, 1, "one side query");
    });

    it("--explain reports the lexical fallback when the model fails", async () => {
      const { home, memoryDir } = workedExample();
      const server = await startFakeModelServer(() => ({ error: 400, message: "model not found" }));
      servers.push(server);
      const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, "--explain"], { home, env });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^selector: hybrid$/m);
      assert.match(result.stdout, /^fallback: model selector failed .*; used the lexical picks$/m);
      assert.match(result.stdout, /^ {2}picked +\S+ +feedback-real-database\.md +lexical fallback/m);
      assert.doesNotMatch(result.stdout, /model: model:/, "the failure's kind is said once");
    });

    it("says on stderr that the model failed when it falls back, --explain or not", async () => {
      const { home, memoryDir } = workedExample();
      const server = await startFakeModelServer(() => ({ error: 400, message: "model not found" }));
      servers.push(server);
      const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL };
      for (const json of [[], ["--json"]]) {
        const result = await runCliInProcess(["recall", QUERY, "--dir", memoryDir, ...json], { home, env });
        assert.equal(result.code, 0, result.stderr);
        assert.match(
          result.stderr,
          /^memdir: recall: model selector failed \(.*model not found.*\); used the lexical picks$/m,
        );
        // The answer is still the lexical one, on stdout as usual.
        assert.match(result.stdout, /feedback-real-database\.md|Integration tests/);
      }
    });
  });
});
