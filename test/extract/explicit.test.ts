import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  applyExplicitMemory,
  explicitMemoryNotice,
  findMemoryToForget,
  rememberStatement,
} from "../../src/extract/explicit.ts";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";
import { SECRET_CASES } from "../reliability/secret-cases.ts";

function memoryDirWith(files: Record<string, string> = {}): string {
  const memoryDir = path.join(makeTempDir(), "memory");
  fs.mkdirSync(memoryDir, { recursive: true });
  writeTree(memoryDir, files);
  return memoryDir;
}

function memoryFiles(memoryDir: string): string[] {
  return fs
    .readdirSync(memoryDir)
    .filter((name) => name.endsWith(".md") && name !== "MEMORY.md")
    .sort();
}

const existing = {
  "MEMORY.md":
    "- [Real database](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n" +
    "- [Auth migration](project-auth-migration.md) — 认证重构由合规要求推动\n",
  "feedback-real-database.md":
    "---\ndescription: 登录模块的集成测试不得 mock 数据库\ntype: feedback\n---\n登录模块的集成测试不得 mock 数据库\n",
  "project-auth-migration.md": "---\ndescription: 认证重构由合规要求推动\ntype: project\n---\nCompliance.\n",
};

describe("applyExplicitMemory (offline, no model)", () => {
  it("saves the demo's 记住：… message as a feedback memory with an index line", async () => {
    const memoryDir = memoryDirWith();
    const result = await applyExplicitMemory("记住：登录模块的集成测试不得 mock 数据库", { memoryDir });
    assert.equal(result.action, "saved");
    assert.ok(result.action === "saved");
    assert.equal(result.type, "feedback");
    assert.equal(result.description, "登录模块的集成测试不得 mock 数据库");
    const parsed = parseFrontmatter(fs.readFileSync(result.path, "utf8"));
    assert.equal(parsed.type, "feedback");
    assert.equal(parsed.description, "登录模块的集成测试不得 mock 数据库");
    assert.match(parsed.body, /登录模块的集成测试不得 mock 数据库/);
    const index = fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8");
    assert.match(
      index,
      new RegExp(`\\(${result.file.replace(".", "\\.")}\\) — 登录模块的集成测试不得 mock 数据库`),
    );
  });

  it("saves nothing when remember that … points back at a bug from before, and saves a statement", async () => {
    const memoryDir = memoryDirWith();
    for (const text of [
      "Remember that bug from yesterday, it's back",
      "remember that flaky checkout test, it's failing again on main",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" }, text);
    assert.deepEqual(memoryFiles(memoryDir), []);
    const saved = await applyExplicitMemory("Remember that the build uses Node 20", { memoryDir });
    assert.ok(saved.action === "saved");
    assert.equal(saved.description, "the build uses Node 20");
    assert.equal(memoryFiles(memoryDir).length, 1);
  });

  it("saves nothing when remember, with a comma, reports a problem that is back; saves it after a colon", async () => {
    const memoryDir = memoryDirWith();
    for (const text of [
      "Remember, the flaky test is failing again",
      "Remember, the login bug is back",
      "记住，CI 又红了",
      "覚えておいて、CI がまた落ちてる",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" }, text);
    assert.deepEqual(memoryFiles(memoryDir), []);
    for (const text of ["Remember: we deploy on Fridays", "Remember, never retry flaky tests again"])
      assert.equal((await applyExplicitMemory(text, { memoryDir })).action, "saved", text);
    assert.equal(memoryFiles(memoryDir).length, 2);
  });

  it("updates the same memory when the same thing is said twice", async () => {
    const memoryDir = memoryDirWith();
    const first = await applyExplicitMemory("记住：登录模块的集成测试不得 mock 数据库", { memoryDir });
    const second = await applyExplicitMemory("请记住：登录模块的集成测试不得 mock 数据库。", { memoryDir });
    assert.ok(first.action === "saved" && second.action === "saved");
    assert.equal(second.file, first.file);
    assert.equal(second.created, false);
    assert.equal(memoryFiles(memoryDir).length, 1);
    assert.equal(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8").trim().split("\n").length, 1);
  });

  it("saves facts about the user as type user", async () => {
    const memoryDir = memoryDirWith();
    const result = await applyExplicitMemory("Remember that I am a data scientist", { memoryDir });
    assert.ok(result.action === "saved");
    assert.equal(result.type, "user");
    assert.equal(result.description, "I am a data scientist");
  });

  it("saves nothing for a sentence that merely mentions remembering", async () => {
    const memoryDir = memoryDirWith();
    for (const text of [
      "I can't remember the password",
      "Do you remember when we fixed it?",
      "修复 src/auth/login.integration.test.ts 的失败测试，保留现有测试方式。",
    ]) {
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" });
    }
    assert.deepEqual(fs.readdirSync(memoryDir), []);
  });

  it("cuts a long statement to a one-line description and keeps the whole text in the body", async () => {
    const memoryDir = memoryDirWith();
    const long = `remember: ${"always run the whole integration suite before a release ".repeat(5).trim()}\nand tag it`;
    const result = await applyExplicitMemory(long, { memoryDir });
    assert.ok(result.action === "saved");
    assert.ok(!result.description.includes("\n"));
    assert.ok(result.description.length <= 150);
    assert.match(fs.readFileSync(result.path, "utf8"), /and tag it/);
  });

  it("refuses to save a credential and writes nothing", async () => {
    const memoryDir = memoryDirWith();
    const github = SECRET_CASES.find((c) => c.kind === "GitHub personal access token");
    assert.ok(github);
    const key = github.value;
    const result = await applyExplicitMemory(`remember: the deploy token is ${key}`, { memoryDir });
    assert.equal(result.action, "refused");
    assert.ok(result.action === "refused");
    assert.ok(!result.reason.includes(key), "the reason never repeats the secret");
    assert.deepEqual(memoryFiles(memoryDir), []);
  });

  it("forgets the best match: file and index line both go", async () => {
    const memoryDir = memoryDirWith(existing);
    const result = await applyExplicitMemory("忘掉：登录模块集成测试 mock 数据库", { memoryDir });
    assert.equal(result.action, "removed");
    assert.ok(result.action === "removed");
    assert.equal(result.file, "feedback-real-database.md");
    assert.deepEqual(memoryFiles(memoryDir), ["project-auth-migration.md"]);
    assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), /feedback-real-database/);
  });

  it("deletes only a memory that holds the request's own words, not a related one", async () => {
    const docker = {
      "MEMORY.md":
        "- [Docker compose](project-docker-compose.md) — local dev runs every service with docker-compose\n",
      "project-docker-compose.md":
        "---\ndescription: local dev runs every service with docker-compose\ntype: project\n---\n" +
        "`docker compose up` starts the database, the queue and the API.\n",
    };
    const memoryDir = memoryDirWith(docker);
    // Kubernetes and docker are related words: enough to rank, not to delete.
    const unrelated = await applyExplicitMemory("forget about the kubernetes cluster", { memoryDir });
    assert.deepEqual(unrelated, { action: "not-found", query: "the kubernetes cluster" });
    assert.deepEqual(memoryFiles(memoryDir), ["project-docker-compose.md"]);
    const named = await applyExplicitMemory("forget what I said about docker-compose", { memoryDir });
    assert.ok(named.action === "removed");
    assert.equal(named.file, "project-docker-compose.md");
    assert.deepEqual(memoryFiles(memoryDir), []);
  });

  it("forgets a fact said with a name after `that`, and not the thing `that` points at", async () => {
    const staging = {
      "MEMORY.md": "- [Staging DB port](project-staging-port.md) — staging's database is on port 5433\n",
      "project-staging-port.md":
        "---\ndescription: staging's database is on port 5433\ntype: project\n---\nstaging is on port 5433, not 5432.\n",
    };
    const memoryDir = memoryDirWith(staging);
    assert.deepEqual(await applyExplicitMemory("forget that staging, it's a mess", { memoryDir }), {
      action: "none",
    });
    const result = await applyExplicitMemory("forget that staging is on port 5433", { memoryDir });
    assert.ok(result.action === "removed", JSON.stringify(result));
    assert.equal(result.file, "project-staging-port.md");
    assert.deepEqual(memoryFiles(memoryDir), []);
  });

  it("deletes nothing when a prompt only opens with 删除 or forget", async () => {
    const memoryDir = memoryDirWith(existing);
    for (const text of [
      "删除登录模块集成测试里没用的 console.log",
      "forget the auth migration for now, fix the build",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" });
    assert.equal(memoryFiles(memoryDir).length, 2);
  });

  it("keeps the memory when a forget holds only for now, and deletes it when it does not", async () => {
    const e2e = {
      "MEMORY.md": "- [E2E suite](project-e2e-suite.md) — the e2e suite runs against staging every night\n",
      "project-e2e-suite.md":
        "---\ndescription: the e2e suite runs against staging every night\ntype: project\n---\n" +
        "The e2e suite runs against staging every night.\n",
    };
    const memoryDir = memoryDirWith(e2e);
    for (const text of [
      "forget about the e2e suite for the moment",
      "forget about the e2e suite for the time being",
      "e2e suite のことは一旦忘れて",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" }, text);
    assert.deepEqual(memoryFiles(memoryDir), ["project-e2e-suite.md"]);
    const removed = await applyExplicitMemory("forget that the e2e suite runs against staging", {
      memoryDir,
    });
    assert.ok(removed.action === "removed");
    assert.deepEqual(memoryFiles(memoryDir), []);
  });

  it("removes nothing when the request names two memories alike, and says which match", async () => {
    const memoryDir = memoryDirWith({
      "MEMORY.md":
        "- [Docker compose](project-docker-compose.md) — local services run in docker compose\n" +
        "- [Docker postgres](feedback-docker-postgres.md) — integration tests use postgres in docker\n",
      "project-docker-compose.md":
        "---\ndescription: local services run in docker compose\ntype: project\n---\nRun `docker compose up` for redis and kafka.\n",
      "feedback-docker-postgres.md":
        "---\ndescription: integration tests use postgres in docker\ntype: feedback\n---\nNo mocks: a real postgres in docker.\n",
    });
    const vague = await applyExplicitMemory("forget about docker", { memoryDir });
    assert.equal(vague.action, "ambiguous");
    assert.deepEqual(vague.action === "ambiguous" ? [...vague.files].sort() : [], [
      "feedback-docker-postgres.md",
      "project-docker-compose.md",
    ]);
    assert.match(
      explicitMemoryNotice(vague) ?? "",
      /2 memories match "docker" equally .*nothing forgotten: ask the user which one/,
    );
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-docker-postgres.md", "project-docker-compose.md"]);
    const named = await applyExplicitMemory("forget the docker compose memory", { memoryDir });
    assert.equal(named.action === "removed" ? named.file : named.action, "project-docker-compose.md");
  });

  it("deletes the named memory when the forget says why it is wrong, in English, Chinese and Japanese", async () => {
    const saved = {
      "MEMORY.md":
        "- [Use pnpm](feedback-use-pnpm.md) — use pnpm, not npm\n" +
        "- [Jest](project-jest.md) — unit tests run on Jest\n",
      "feedback-use-pnpm.md":
        "---\ndescription: use pnpm, not npm\ntype: feedback\n---\nUse pnpm, not npm, for every install.\n",
      "project-jest.md":
        "---\ndescription: unit tests run on Jest\ntype: project\n---\nThe unit tests run on Jest.\n",
    };
    for (const [text, gone] of [
      ["forget the pnpm rule, we use yarn now", "feedback-use-pnpm.md"],
      ["forget the memory about Jest; we moved to Vitest", "project-jest.md"],
      // It forgot before, but looked the memory up by "we moved to Vitest" too, and found none.
      ["forget that we use Jest; we moved to Vitest", "project-jest.md"],
      ["忘掉 pnpm 那条，我们现在用 yarn 了", "feedback-use-pnpm.md"],
      ["忘掉关于 Jest 的记忆，我们已经换成 Vitest 了", "project-jest.md"],
      ["pnpm のルールは忘れて、今は yarn を使ってる", "feedback-use-pnpm.md"],
      ["Jest のメモは忘れて、もう Vitest に移行した", "project-jest.md"],
      ["forget about pnpm, we use yarn now", "feedback-use-pnpm.md"],
      ["Forget about Jest, we switched to Vitest.", "project-jest.md"],
      ["forget that unit tests run on Jest, we moved to Vitest", "project-jest.md"],
      ["不用记 pnpm 了，我们现在用 yarn", "feedback-use-pnpm.md"],
      // "the thing about" names what was said before, and is no word of the lookup.
      ["forget the thing about pnpm, we use yarn now", "feedback-use-pnpm.md"],
      ["forget the one about Jest", "project-jest.md"],
    ]) {
      const memoryDir = memoryDirWith(saved);
      const result = await applyExplicitMemory(text, { memoryDir });
      assert.equal(result.action === "removed" ? result.file : result.action, gone, text);
      assert.ok(!memoryFiles(memoryDir).includes(gone), text);
      assert.doesNotMatch(fs.readFileSync(path.join(memoryDir, "MEMORY.md"), "utf8"), new RegExp(gone), text);
    }
    // What to do in this task instead, in the same sentence or the next, keeps the memory.
    const memoryDir = memoryDirWith(saved);
    for (const text of [
      "forget the pnpm rule, just use npm for this one",
      "Forget the pnpm rule. Use npm for this one.",
      "忘掉 pnpm 那条，直接用 npm 吧",
      "pnpm のルールは忘れて、今回は npm でお願い",
      "不用记 pnpm 了，这次先用 npm",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" }, text);
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-use-pnpm.md", "project-jest.md"]);
  });

  it("keeps the memory when a forget about something is followed by this task's plan", async () => {
    const redis = {
      "MEMORY.md": "- [Redis cache](project-redis-cache.md) — sessions live in the redis cache for 24h\n",
      "project-redis-cache.md":
        "---\ndescription: sessions live in the redis cache for 24h\ntype: project\n---\n" +
        "Sessions live in the redis cache for 24h.\n",
    };
    const memoryDir = memoryDirWith(redis);
    for (const text of [
      "Forget about the redis cache. Just use an in-memory map.",
      "Forget about the redis cache, just use an in-memory map.",
    ])
      assert.deepEqual(await applyExplicitMemory(text, { memoryDir }), { action: "none" }, text);
    assert.deepEqual(memoryFiles(memoryDir), ["project-redis-cache.md"]);
  });

  it("reports not-found when nothing matches what to forget", async () => {
    const memoryDir = memoryDirWith(existing);
    const result = await applyExplicitMemory("forget about kubernetes helm charts", { memoryDir });
    assert.deepEqual(result, { action: "not-found", query: "kubernetes helm charts" });
    assert.equal(memoryFiles(memoryDir).length, 2);
  });
});

describe("rememberStatement", () => {
  it("saves a plain statement as it is, with a type override", async () => {
    const memoryDir = memoryDirWith();
    const result = await rememberStatement("The staging dashboard lives in Grafana", {
      memoryDir,
      type: "project",
    });
    assert.ok(result.action === "saved");
    assert.equal(result.type, "project");
    assert.equal(result.description, "The staging dashboard lives in Grafana");
  });
});

describe("findMemoryToForget", () => {
  it("finds nothing in an empty memory dir", async () => {
    assert.equal(await findMemoryToForget("anything", memoryDirWith()), null);
  });
});
