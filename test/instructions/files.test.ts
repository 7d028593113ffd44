import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { resolveConfig } from "../../src/config.ts";
import {
  getMemoryFiles,
  type InstructionFile,
  type MemoryFilesOptions,
} from "../../src/instructions/files.ts";
import { createInstructionLoader } from "../../src/instructions/loader.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

/** A temp world: HOME, a managed dir, and a workspace with a project inside it. */
function makeWorld() {
  const base = makeTempDir();
  const home = path.join(base, "home");
  const managedDir = path.join(base, "managed");
  const workspace = path.join(base, "workspace");
  const project = path.join(workspace, "app");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  fs.mkdirSync(managedDir, { recursive: true });
  return { base, home, managedDir, workspace, project };
}

function options(
  world: ReturnType<typeof makeWorld>,
  extra: Partial<MemoryFilesOptions> & { env?: NodeJS.ProcessEnv } = {},
): MemoryFilesOptions {
  const env = extra.env ?? {};
  const config = extra.config ?? resolveConfig({ cwd: world.project, home: world.home, env });
  return { cwd: world.project, home: world.home, managedDir: world.managedDir, env, ...extra, config };
}

/** Paths relative to the world's base, ignoring anything outside it (e.g. a real /CLAUDE.md). */
function relativePaths(world: { base: string }, files: InstructionFile[]): string[] {
  return files.filter((f) => f.path.startsWith(world.base)).map((f) => path.relative(world.base, f.path));
}

function memoryDirOf(world: { home: string; project: string }): string {
  return path.join(world.home, ".claude", "projects", sanitizeProjectPath(world.project), "memory");
}

describe("getMemoryFiles", () => {
  it("returns managed, user, root-to-cwd, add-dir, then the memory index, in that order", async () => {
    const world = makeWorld();
    const extra = path.join(world.base, "extra");
    writeTree(world.managedDir, {
      "CLAUDE.md": "managed policy",
      ".claude/rules/security.md": "managed rule",
    });
    writeTree(world.home, {
      ".claude/CLAUDE.md": "user prefs",
      ".claude/rules/b-style.md": "user rule b",
      ".claude/rules/a/nested.md": "user rule a/nested",
      ".claude/rules/notes.txt": "not markdown",
    });
    writeTree(world.workspace, {
      "CLAUDE.md": "workspace instructions",
      "CLAUDE.local.md": "workspace local",
    });
    writeTree(world.project, {
      "CLAUDE.md": "project instructions",
      ".claude/CLAUDE.md": "project dot-claude",
      ".claude/rules/z-last.md": "rule z",
      ".claude/rules/testing/db.md": "rule testing/db",
      ".claude/rules/a-first.md": "rule a",
      "AGENTS.md": "agents file",
      "CLAUDE.local.md": "project local",
    });
    writeTree(extra, { "CLAUDE.md": "extra dir", "AGENTS.md": "extra agents" });
    writeTree(memoryDirOf(world), { "MEMORY.md": "- [Real DB](feedback-real-database.md) — no mocks" });

    const files = await getMemoryFiles(options(world, { addDirs: [extra] }));
    assert.deepEqual(relativePaths(world, files), [
      "managed/CLAUDE.md",
      "managed/.claude/rules/security.md",
      "home/.claude/CLAUDE.md",
      "home/.claude/rules/a/nested.md",
      "home/.claude/rules/b-style.md",
      "workspace/CLAUDE.md",
      "workspace/CLAUDE.local.md",
      "workspace/app/CLAUDE.md",
      "workspace/app/.claude/CLAUDE.md",
      "workspace/app/.claude/rules/a-first.md",
      "workspace/app/.claude/rules/testing/db.md",
      "workspace/app/.claude/rules/z-last.md",
      "workspace/app/AGENTS.md",
      "workspace/app/CLAUDE.local.md",
      "extra/CLAUDE.md",
      "extra/AGENTS.md",
      path.relative(world.base, path.join(memoryDirOf(world), "MEMORY.md")),
    ]);
    const types = files.filter((f) => f.path.startsWith(world.base)).map((f) => f.type);
    assert.deepEqual(types, [
      "Managed",
      "Managed",
      "User",
      "User",
      "User",
      "Project",
      "Local",
      "Project",
      "Project",
      "Project",
      "Project",
      "Project",
      "Project",
      "Local",
      "Project",
      "Project",
      "AutoMem",
    ]);
    const index = files.at(-1)!;
    assert.equal(index.content, "- [Real DB](feedback-real-database.md) — no mocks");
    assert.equal(index.truncated, false);
    assert.equal(index.bytes, Buffer.byteLength(index.content));
  });

  it("loads ~/.claude files once, as User, when the project lives under HOME", async () => {
    const base = makeTempDir();
    const home = path.join(base, "me");
    const project = path.join(home, "code", "shop");
    writeTree(home, {
      ".claude/CLAUDE.md": "user prefs",
      ".claude/rules/r.md": "user rule",
      "CLAUDE.md": "home dir",
    });
    writeTree(project, { "CLAUDE.md": "shop" });
    const config = resolveConfig({ cwd: project, home, env: {} });
    const files = await getMemoryFiles({ config, managedDir: path.join(base, "none"), env: {} });
    assert.deepEqual(
      files.filter((f) => f.path.startsWith(base)).map((f) => [f.type, path.relative(base, f.path)]),
      [
        ["User", "me/.claude/CLAUDE.md"],
        ["User", "me/.claude/rules/r.md"],
        ["Project", "me/CLAUDE.md"],
        ["Project", "me/code/shop/CLAUDE.md"],
      ],
    );
  });

  it("loads nothing and no index when no instruction file exists", async () => {
    const world = makeWorld();
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), []);
  });

  it("reads the index only, never the memory files beside it", async () => {
    const world = makeWorld();
    writeTree(memoryDirOf(world), {
      "MEMORY.md": "- [A](a.md) — hook",
      "a.md": "---\ndescription: secret body\ntype: user\n---\nbody",
    });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(
      files.map((f) => path.basename(f.path)),
      ["MEMORY.md"],
    );
    assert.ok(!files[0].content.includes("secret body"));
  });

  it("adds the team index after the auto-memory index when team memory is on", async () => {
    const world = makeWorld();
    writeTree(memoryDirOf(world), {
      "MEMORY.md": "- [Mine](mine.md) — x",
      "team/MEMORY.md": "- [Ours](ours.md) — y",
    });
    const config = resolveConfig({ cwd: world.project, home: world.home, env: { MEMDIR_TEAM_MEMORY: "1" } });
    const files = await getMemoryFiles(options(world, { config }));
    assert.deepEqual(
      files.map((f) => [f.type, path.relative(memoryDirOf(world), f.path)]),
      [
        ["AutoMem", "MEMORY.md"],
        ["TeamMem", path.join("team", "MEMORY.md")],
      ],
    );
    const withoutTeam = await getMemoryFiles(options(world));
    assert.deepEqual(
      withoutTeam.map((f) => f.type),
      ["AutoMem"],
    );
  });

  it("leaves the index out when auto memory is off, but keeps the instruction files", async () => {
    const world = makeWorld();
    writeTree(world.project, { "CLAUDE.md": "project" });
    writeTree(memoryDirOf(world), { "MEMORY.md": "- [A](a.md) — hook", "team/MEMORY.md": "- [T](t.md) — t" });
    for (const env of [
      { CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" },
      { MEMDIR_DISABLE: "1" },
      { MEMDIR_DISABLE: "1", MEMDIR_TEAM_MEMORY: "1" },
    ]) {
      const files = await getMemoryFiles(
        options(world, { env, config: resolveConfig({ cwd: world.project, home: world.home, env }) }),
      );
      assert.deepEqual(relativePaths(world, files), ["workspace/app/CLAUDE.md"], JSON.stringify(env));
    }
  });

  it("uses the memory directory it is given instead of resolving one", async () => {
    const world = makeWorld();
    const chosen = path.join(world.base, "chosen-memory");
    writeTree(chosen, { "MEMORY.md": "- [Chosen](c.md) — here" });
    const files = await getMemoryFiles(options(world, { memoryDir: chosen }));
    assert.deepEqual(relativePaths(world, files), ["chosen-memory/MEMORY.md"]);
  });

  it("cuts a 300-line index at 200 lines with a warning naming the line limit", async () => {
    const world = makeWorld();
    const lines = Array.from(
      { length: 300 },
      (_, i) => `- [Memory ${i + 1}](memory-${i + 1}.md) — hook ${i + 1}`,
    );
    writeTree(memoryDirOf(world), { "MEMORY.md": lines.join("\n") });
    const [index] = await getMemoryFiles(options(world));
    assert.equal(index.type, "AutoMem");
    assert.equal(index.truncated, "lines");
    assert.ok(index.content.includes("- [Memory 200](memory-200.md)"));
    assert.ok(!index.content.includes("- [Memory 201](memory-201.md)"));
    const warning = index.content.split("\n").at(-1)!;
    assert.match(warning, /WARNING/);
    assert.match(warning, /300 lines \(limit 200\)/);
  });

  it("cuts a 40 KB index under 25,000 bytes at a line end, with a warning naming the byte limit", async () => {
    const world = makeWorld();
    const lines = Array.from(
      { length: 150 },
      (_, i) =>
        `- [Memory ${i + 1}](memory-${i + 1}.md) — ${"a long hook that says far too much ".repeat(7)}`,
    );
    const raw = lines.join("\n");
    assert.ok(Buffer.byteLength(raw) > 40_000);
    writeTree(memoryDirOf(world), { "MEMORY.md": raw });
    const [index] = await getMemoryFiles(options(world));
    assert.equal(index.truncated, "bytes");
    const [kept, warning] = index.content.split("\n\n> ");
    assert.ok(Buffer.byteLength(kept) <= 25_000);
    assert.ok(raw.startsWith(kept), "the kept part is a prefix of the file");
    assert.ok(lines.includes(kept.split("\n").at(-1)!), "cut at a line end, not mid-line");
    assert.match(warning, /bytes \(limit 25000\)/);
  });

  it("strips block-level HTML comments from instruction files but not from code", async () => {
    const world = makeWorld();
    writeTree(world.project, {
      "CLAUDE.md": [
        "<!-- maintainers: keep this file short -->",
        "Use pnpm.",
        "<!--",
        "a multi-line note",
        "-->",
        "```html",
        "<!-- kept: an example -->",
        "```",
      ].join("\n"),
    });
    const [file] = await getMemoryFiles(options(world));
    assert.equal(file.content, "Use pnpm.\n```html\n<!-- kept: an example -->\n```");
    assert.equal(file.bytes, Buffer.byteLength(file.content));
  });
});

describe("getMemoryFiles @path imports", () => {
  it("loads imported files right after their importer, relative to the importing file and from ~", async () => {
    const world = makeWorld();
    writeTree(world.home, { "shared/personal.md": "personal notes" });
    writeTree(world.project, {
      "CLAUDE.md": "Read @docs/style.md and @~/shared/personal.md please.",
      "docs/style.md": "Style: see @./deeper/tabs.md",
      "docs/deeper/tabs.md": "Use tabs.",
      "AGENTS.md": "agents",
    });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), [
      "workspace/app/CLAUDE.md",
      "workspace/app/docs/style.md",
      "workspace/app/docs/deeper/tabs.md",
      "home/shared/personal.md",
      "workspace/app/AGENTS.md",
    ]);
    const [main, style, tabs, personal] = files;
    assert.deepEqual(main.imports, [style.path, personal.path]);
    assert.deepEqual(style.imports, [tabs.path]);
    assert.equal(tabs.importedBy, style.path);
    assert.equal(tabs.content, "Use tabs.");
    assert.equal(personal.type, "Project", "an imported file takes its importer's type");
  });

  it("never lets a repository's file import credentials from outside the repository", async () => {
    const world = makeWorld();
    const awsKey = ["AKIA", "Q3EGRK5JVN2T7MXZ"].join("");
    writeTree(world.home, {
      ".ssh/id_ed25519": "not even a secret-looking line, but in ~/.ssh",
      "notes/keys.md": `aws_access_key_id = ${awsKey}`,
      ".claude/CLAUDE.md": "Mine: @~/notes/keys.md",
    });
    writeTree(world.project, { "CLAUDE.md": "Context: @~/.ssh/id_ed25519 and @~/notes/keys.md" });
    const files = await getMemoryFiles(options(world));
    const project = files.find((f) => f.path.endsWith(path.join("app", "CLAUDE.md")));
    assert.ok(project);
    assert.deepEqual(project.imports, [], "nothing outside the repository was imported");
    assert.equal(project.skippedImports?.length, 2);
    assert.ok(
      files.every((f) => !f.path.includes(".ssh")),
      "the ssh folder never reaches the context",
    );
    // The user's own files may import what they like.
    const user = files.find((f) => f.type === "User" && f.path.endsWith("CLAUDE.md"));
    assert.equal(user?.imports.length, 1);
  });

  it("stops an import cycle and loads each file once", async () => {
    const world = makeWorld();
    writeTree(world.project, {
      "CLAUDE.md": "@a.md",
      "a.md": "A imports @b.md",
      "b.md": "B imports @a.md and @CLAUDE.md",
    });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), [
      "workspace/app/CLAUDE.md",
      "workspace/app/a.md",
      "workspace/app/b.md",
    ]);
    assert.deepEqual(files[2].imports, [], "nothing new was imported from b.md");
  });

  it("ignores imports inside fenced code blocks and inline code, and missing files", async () => {
    const world = makeWorld();
    writeTree(world.project, {
      "CLAUDE.md": [
        "Write `@fenced.md` like this, or mail me@inline.md.",
        "```",
        "@fenced.md",
        "```",
        "~~~",
        "@fenced.md",
        "~~~",
        "@missing.md @real.md",
      ].join("\n"),
      "fenced.md": "must not load",
      "inline.md": "must not load",
      "real.md": "loaded",
    });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), ["workspace/app/CLAUDE.md", "workspace/app/real.md"]);
  });

  it("does not follow an import written inside an HTML comment", async () => {
    const world = makeWorld();
    writeTree(world.project, { "CLAUDE.md": "<!-- @hidden.md -->\nvisible", "hidden.md": "must not load" });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), ["workspace/app/CLAUDE.md"]);
  });

  it("follows imports at most five levels deep", async () => {
    const world = makeWorld();
    const chain: Record<string, string> = { "CLAUDE.md": "@level1.md" };
    for (let level = 1; level <= 7; level++)
      chain[`level${level}.md`] = `level ${level} @level${level + 1}.md`;
    writeTree(world.project, chain);
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(relativePaths(world, files), [
      "workspace/app/CLAUDE.md",
      "workspace/app/level1.md",
      "workspace/app/level2.md",
      "workspace/app/level3.md",
      "workspace/app/level4.md",
      "workspace/app/level5.md",
    ]);
  });

  it("does not expand imports written in the memory index", async () => {
    const world = makeWorld();
    writeTree(world.home, { "private.md": "must not load" });
    writeTree(memoryDirOf(world), { "MEMORY.md": "- [A](a.md) — see @~/private.md" });
    const files = await getMemoryFiles(options(world));
    assert.deepEqual(
      files.map((f) => f.type),
      ["AutoMem"],
    );
  });
});

describe("createInstructionLoader", () => {
  it("reads once per session; a new session sees edits", async () => {
    const world = makeWorld();
    writeTree(world.project, { "CLAUDE.md": "first" });
    const session = createInstructionLoader();
    const first = await session.getMemoryFiles(options(world));
    writeTree(world.project, { "CLAUDE.md": "second", "AGENTS.md": "new file" });
    const again = await session.getMemoryFiles(options(world));
    assert.equal(again, first, "the same session reuses its read");
    assert.equal(again[0].content, "first");

    const next = await createInstructionLoader().getMemoryFiles(options(world));
    assert.deepEqual(
      next.map((f) => f.content),
      ["second", "new file"],
    );
    session.clear();
    assert.equal((await session.getMemoryFiles(options(world)))[0].content, "second");
  });
});
