import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

/** HOME, an empty managed dir and a project, all in one temp dir. */
function makeWorld() {
  const base = makeTempDir();
  const home = path.join(base, "home");
  const managed = path.join(base, "managed");
  const project = path.join(base, "shop");
  for (const dir of [home, managed, project]) fs.mkdirSync(dir, { recursive: true });
  const memoryDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project), "memory");
  return { base, home, managed, project, memoryDir };
}

type World = ReturnType<typeof makeWorld>;

// The child runs from the repository so `--import tsx` resolves; the project is always given by --cwd.
const repo = path.resolve(import.meta.dirname, "../..");

async function contextJson(world: World, args: string[] = [], env: Record<string, string> = {}) {
  const result = await runCliInProcess(
    ["context", "--json", "--cwd", world.project, "--managed-dir", world.managed, ...args],
    {
      home: world.home,
      env,
      cwd: repo,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout);
}

describe("memdir context", () => {
  it("reports every file loaded, the index and the user context a new session would get", async () => {
    const world = makeWorld();
    writeTree(world.home, { ".claude/CLAUDE.md": "Answer briefly." });
    writeTree(world.project, {
      "CLAUDE.md": "<!-- note for maintainers -->\nUse pnpm. See @docs/testing.md",
      "docs/testing.md": "Integration tests hit a real database.",
    });
    writeTree(world.memoryDir, {
      "MEMORY.md": "- [真实数据库测试](feedback-real-database.md) — 登录模块的集成测试不得 mock 数据库\n",
      "feedback-real-database.md": "---\ndescription: body\ntype: feedback\n---\nnot in the context",
    });
    const report = await contextJson(world);
    const ours = report.files.filter((f: { path: string }) => f.path.startsWith(world.base));
    assert.deepEqual(
      ours.map((f: { path: string; type: string }) => [path.relative(world.base, f.path), f.type]),
      [
        ["home/.claude/CLAUDE.md", "User"],
        ["shop/CLAUDE.md", "Project"],
        ["shop/docs/testing.md", "Project"],
        [path.relative(world.base, path.join(world.memoryDir, "MEMORY.md")), "AutoMem"],
      ],
    );
    for (const file of ours) assert.equal(typeof file.bytes, "number");
    assert.deepEqual(ours[1].imports, [path.join(world.project, "docs", "testing.md")]);
    assert.equal(ours[1].bytes, Buffer.byteLength("Use pnpm. See @docs/testing.md"));
    assert.deepEqual(
      { path: report.index.path, truncated: report.index.truncated },
      { path: path.join(world.memoryDir, "MEMORY.md"), truncated: false },
    );
    assert.equal(report.autoMemory, true);
    assert.match(report.context, /^What follows are instructions/);
    assert.ok(
      report.context.includes(
        `Contents of ${path.join(world.memoryDir, "MEMORY.md")} (user's auto-memory, persists across conversations):`,
      ),
    );
    assert.ok(report.context.includes("登录模块的集成测试不得 mock 数据库"));
    assert.ok(report.context.includes("Integration tests hit a real database."));
    assert.ok(!report.context.includes("note for maintainers"));
    assert.ok(!report.context.includes("not in the context"));
    assert.match(report.context, /Today's date is \d{4}-\d{2}-\d{2}\.$/);
    assert.ok(report.memoryRules.includes(world.memoryDir));
    assert.equal(fs.existsSync(path.join(world.home, ".claude", "projects", "x")), false);
  });

  it("loads --add-dir directories after the project", async () => {
    const world = makeWorld();
    const extra = path.join(world.base, "extra");
    writeTree(world.project, { "CLAUDE.md": "project" });
    writeTree(extra, { "CLAUDE.md": "extra", "CLAUDE.local.md": "extra local" });
    const report = await contextJson(world, ["--add-dir", extra]);
    assert.deepEqual(
      report.files
        .filter((f: { path: string }) => f.path.startsWith(world.base))
        .map((f: { path: string }) => path.relative(world.base, f.path)),
      ["shop/CLAUDE.md", "extra/CLAUDE.md", "extra/CLAUDE.local.md"],
    );
  });

  it("says which limit cut a 300-line index, in JSON and as a warning", async () => {
    const world = makeWorld();
    const lines = Array.from({ length: 300 }, (_, i) => `- [M${i}](m-${i}.md) — hook ${i}`);
    writeTree(world.memoryDir, { "MEMORY.md": lines.join("\n") });
    const report = await contextJson(world);
    assert.equal(report.index.truncated, "lines");
    assert.match(report.context, /300 lines \(limit 200\)/);

    const text = await runCliInProcess(["context", "--cwd", world.project, "--managed-dir", world.managed], {
      home: world.home,
      cwd: repo,
    });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /cut by the 200-line limit/);
    assert.match(text.stderr, /200-line limit/);
  });

  it("says the byte limit cut a 40 KB index", async () => {
    const world = makeWorld();
    const lines = Array.from({ length: 100 }, (_, i) => `- [M${i}](m-${i}.md) — ${"x".repeat(400)}`);
    writeTree(world.memoryDir, { "MEMORY.md": lines.join("\n") });
    const report = await contextJson(world);
    assert.equal(report.index.truncated, "bytes");
    assert.match(report.context, /bytes \(limit 25000\)/);
  });

  it("leaves the index and the memory rules out when memory is turned off", async () => {
    const world = makeWorld();
    writeTree(world.project, { "CLAUDE.md": "project" });
    writeTree(world.memoryDir, { "MEMORY.md": "- [A](a.md) — remembered hook" });
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[], { CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }, /CLAUDE_CODE_DISABLE_AUTO_MEMORY=1/],
      [[], { MEMDIR_DISABLE: "1" }, /MEMDIR_DISABLE=1/],
      [["--bare"], {}, /bare mode/],
    ];
    for (const [args, env, reason] of cases) {
      const report = await contextJson(world, args, env);
      assert.equal(report.autoMemory, false);
      assert.match(report.autoMemoryOffReason, reason);
      assert.ok(!report.files.some((f: { type: string }) => f.type === "AutoMem"));
      assert.ok(!report.context.includes("remembered hook"));
      assert.ok(report.context.includes("project"));
      assert.equal(report.index.truncated, false);
      assert.equal(report.memoryRules, null);
    }
    const forced = await contextJson(world, ["--bare"], { CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0" });
    assert.equal(forced.autoMemory, true);
    assert.ok(forced.context.includes("remembered hook"));
  });

  it("turns memory off with autoMemoryEnabled: false in user or project settings", async () => {
    for (const where of ["home", "project"] as const) {
      const world = makeWorld();
      writeTree(world.memoryDir, { "MEMORY.md": "- [A](a.md) — remembered hook" });
      writeTree(where === "home" ? world.home : world.project, {
        ".claude/settings.json": JSON.stringify({ autoMemoryEnabled: false }),
      });
      const report = await contextJson(world);
      assert.equal(report.autoMemory, false, where);
      assert.ok(!report.context.includes("remembered hook"));
    }
  });

  it("never lets project settings move the memory directory", async () => {
    const world = makeWorld();
    const hostile = path.join(world.base, "hostile");
    writeTree(hostile, {
      [`projects/${sanitizeProjectPath(world.project)}/memory/MEMORY.md`]: "- [X](x.md) — planted",
    });
    writeTree(world.project, {
      ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: hostile }),
      ".claude/settings.local.json": JSON.stringify({ autoMemoryDirectory: hostile }),
    });
    writeTree(world.memoryDir, { "MEMORY.md": "- [Mine](mine.md) — the real index" });
    const report = await contextJson(world);
    assert.equal(report.index.path, path.join(world.memoryDir, "MEMORY.md"));
    assert.equal(report.memoryDir, world.memoryDir);
    assert.ok(report.context.includes("the real index"));
    assert.ok(!report.context.includes("planted"));

    // The same setting in user settings is honoured: only the user may move their memory. As in
    // Claude Code, it names the memory dir itself (not a root with projects/ below it).
    writeTree(hostile, { "MEMORY.md": "- [Y](y.md) — chosen by the user" });
    writeTree(world.home, { ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: hostile }) });
    const moved = await contextJson(world);
    assert.equal(moved.index.path, path.join(hostile, "MEMORY.md"));
    assert.ok(moved.context.includes("chosen by the user"));
    assert.ok(!moved.context.includes("planted"));
  });
  it("names the imports it skipped (a repository's file reaching into ~/.ssh)", async () => {
    const world = makeWorld();
    writeTree(world.home, { ".ssh/config": "Host *" });
    writeTree(world.project, { ".git/HEAD": "x", "CLAUDE.md": "Context: @~/.ssh/config" });
    const report = await contextJson(world);
    const claudeMd = (report.files as { path: string; imports: string[]; skippedImports?: string[] }[]).find(
      (f) => f.path.endsWith(path.join("shop", "CLAUDE.md")),
    );
    assert.ok(claudeMd, JSON.stringify(report.files));
    assert.deepEqual(claudeMd.imports, []);
    assert.deepEqual(claudeMd.skippedImports, [path.join(world.home, ".ssh", "config")]);
    assert.ok(!report.context.includes("Host *"));
    const text = await runCliInProcess(["context", "--cwd", world.project, "--managed-dir", world.managed], {
      home: world.home,
      cwd: repo,
    });
    assert.match(text.stdout, /skipped import .*\.ssh[/\\]config/);
  });
});
