import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import {
  agentMemoryDir,
  ensureMemoryDir,
  findOrphanedMemoryDirs,
  findProjectRoot,
  MAX_SANITIZED_LENGTH,
  migrateMemory,
  PROJECT_MARKER,
  readProjectMarker,
  resolveMemoryLocation,
  sanitizeProjectPath,
} from "../../../src/memdir/location/paths.ts";
import { saveMemory } from "../../../src/memdir/write/write.ts";
import { makeTempDir, writeTree } from "../../helpers/temp.ts";

describe("sanitizeProjectPath", () => {
  it("turns every non-ASCII-alphanumeric character into -", () => {
    assert.equal(sanitizeProjectPath("/Users/me/shop"), "-Users-me-shop");
    assert.equal(sanitizeProjectPath("C:\\Users\\me\\my_app.v2"), "C--Users-me-my-app-v2");
    assert.equal(sanitizeProjectPath("/home/我的项目"), "-home-----");
  });

  it("cuts names over 200 characters and appends a hash of the full path", () => {
    const long = `/projects/${"deep/".repeat(60)}app`;
    const sanitized = sanitizeProjectPath(long);
    assert.equal(sanitized.slice(0, MAX_SANITIZED_LENGTH), long.replace(/[^a-zA-Z0-9]/g, "-").slice(0, 200));
    assert.match(sanitized.slice(MAX_SANITIZED_LENGTH), /^-[0-9a-z]+$/);
    assert.equal(sanitizeProjectPath(long), sanitized, "deterministic");
    assert.notEqual(sanitizeProjectPath(`${long}2`), sanitized, "same 200-char prefix, different hash");
  });

  it("keeps a name of exactly 200 characters whole", () => {
    const exact = `/${"a".repeat(199)}`;
    assert.equal(sanitizeProjectPath(exact), `-${"a".repeat(199)}`);
  });
});

/** Builds a repository with a linked worktree the way `git worktree add` lays it out on disk. */
function fakeWorktree(base: string): { main: string; worktree: string } {
  const main = path.join(base, "main");
  const worktree = path.join(base, "wt");
  const gitDir = path.join(main, ".git", "worktrees", "wt");
  writeTree(base, {
    "main/.git/HEAD": "ref: refs/heads/main\n",
    "main/.git/worktrees/wt/commondir": "../..\n",
    "main/.git/worktrees/wt/gitdir": `${path.join(worktree, ".git")}\n`,
    "wt/.git": `gitdir: ${gitDir}\n`,
    "wt/src/index.ts": "",
  });
  return { main, worktree };
}

describe("findProjectRoot", () => {
  it("returns the directory itself (real path) outside any repository", () => {
    const dir = makeTempDir();
    assert.equal(findProjectRoot(dir), dir);
  });

  it("returns the repository root from a sub-folder", () => {
    const base = makeTempDir();
    writeTree(base, { "shop/.git/HEAD": "ref: refs/heads/main\n", "shop/src/auth/login.ts": "" });
    assert.equal(findProjectRoot(path.join(base, "shop", "src", "auth")), path.join(base, "shop"));
  });

  it("maps a linked worktree to its main repository", () => {
    const { main, worktree } = fakeWorktree(makeTempDir());
    assert.equal(findProjectRoot(path.join(worktree, "src")), main);
  });

  it("does not trust a .git file whose worktree does not link back to it", () => {
    const base = makeTempDir();
    const { main } = fakeWorktree(base);
    writeTree(base, { "intruder/.git": `gitdir: ${path.join(main, ".git", "worktrees", "wt")}\n` });
    assert.equal(findProjectRoot(path.join(base, "intruder")), path.join(base, "intruder"));
  });

  it("treats a submodule as its own project", () => {
    const base = makeTempDir();
    writeTree(base, {
      "main/.git/HEAD": "ref: refs/heads/main\n",
      "main/.git/modules/lib/HEAD": "ref: refs/heads/main\n",
      "main/lib/.git": "gitdir: ../.git/modules/lib\n",
      "main/lib/src/x.ts": "",
    });
    assert.equal(findProjectRoot(path.join(base, "main", "lib", "src")), path.join(base, "main", "lib"));
  });

  it("resolves symlinked checkouts to the real repository", () => {
    const base = makeTempDir();
    writeTree(base, { "shop/.git/HEAD": "x", "shop/src/a.ts": "" });
    fs.symlinkSync(path.join(base, "shop"), path.join(base, "shop-link"));
    assert.equal(findProjectRoot(path.join(base, "shop-link", "src")), path.join(base, "shop"));
  });

  it("agrees with a real `git worktree add`", (t) => {
    const probe = spawnSync("git", ["--version"]);
    if (probe.status !== 0) {
      t.skip("git is not installed");
      return;
    }
    const base = makeTempDir();
    const main = path.join(base, "repo");
    const git = (args: string[], cwd: string) => {
      const result = spawnSync("git", args, {
        cwd,
        encoding: "utf8",
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      });
      assert.equal(result.status, 0, result.stderr);
    };
    fs.mkdirSync(main);
    git(["init", "-q"], main);
    git(
      ["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"],
      main,
    );
    git(["worktree", "add", "-q", path.join(base, "feature")], main);
    assert.equal(findProjectRoot(path.join(base, "feature")), main);
  });
});

describe("resolveMemoryLocation", () => {
  it("puts memory at <root>/projects/<sanitized project>/memory", async () => {
    const home = makeTempDir();
    const project = path.join(makeTempDir(), "shop");
    writeTree(project, { ".git/HEAD": "x", "src/a.ts": "" });
    const location = await resolveMemoryLocation({ cwd: path.join(project, "src"), home, env: {} });
    const projectDir = path.join(home, ".claude", "projects", sanitizeProjectPath(project));
    assert.deepEqual(location, {
      root: path.join(home, ".claude"),
      projectRoot: project,
      projectDir,
      memoryDir: path.join(projectDir, "memory"),
      indexPath: path.join(projectDir, "memory", "MEMORY.md"),
    });
    assert.equal(fs.existsSync(location.memoryDir), false, "resolving creates nothing");
  });

  it("takes the root from the option, then MEMDIR_ROOT, then Claude Code's config dir", async () => {
    const home = makeTempDir();
    const cwd = makeTempDir();
    assert.equal((await resolveMemoryLocation({ cwd, home, env: {} })).root, path.join(home, ".claude"));
    assert.equal(
      (await resolveMemoryLocation({ cwd, home, env: { MEMDIR_ROOT: "/from-env" } })).root,
      "/from-env",
    );
    assert.equal(
      (await resolveMemoryLocation({ cwd, home, root: "/from-option", env: { MEMDIR_ROOT: "/from-env" } }))
        .root,
      "/from-option",
    );
  });

  it("uses Claude Code's autoMemoryDirectory (user settings) as the memory dir of every project", async () => {
    const home = makeTempDir();
    const shop = makeTempDir();
    const blog = makeTempDir();
    writeTree(home, { ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: "~/notes/memory/" }) });
    const shared = path.join(home, "notes", "memory");
    for (const cwd of [shop, blog]) {
      const location = await resolveMemoryLocation({ cwd, home, env: {} });
      const project = fs.realpathSync(cwd);
      assert.deepEqual(location, {
        root: path.join(home, ".claude"),
        projectRoot: null,
        // Each project keeps its own folder (transcripts, agent memory) beside the shared memory.
        projectDir: path.join(home, ".claude", "projects", sanitizeProjectPath(project)),
        memoryDir: shared,
        indexPath: path.join(shared, "MEMORY.md"),
        sharedFolderOf: project,
      });
      // No owner marker: a second project must not be refused as "another project's" dir.
      await ensureMemoryDir(location);
    }
    // The root passed on explicitly, as callers pass a resolved config's root, changes nothing.
    const passedOn = await resolveMemoryLocation({
      cwd: shop,
      home,
      root: path.join(home, ".claude"),
      env: {},
    });
    assert.equal(passedOn.memoryDir, shared);
    // CLAUDE_CONFIG_DIR moves the settings file read with the config dir.
    const configDir = path.join(home, "other-config");
    writeTree(configDir, {
      "settings.json": JSON.stringify({ autoMemoryDirectory: path.join(home, "elsewhere") }),
    });
    const moved = await resolveMemoryLocation({ cwd: shop, home, env: { CLAUDE_CONFIG_DIR: configDir } });
    assert.equal(moved.memoryDir, path.join(home, "elsewhere"));
  });

  it("follows a symlinked autoMemoryDirectory to its folder, which the writer then accepts", async () => {
    const home = makeTempDir();
    const real = path.join(makeTempDir(), "synced-memory");
    fs.mkdirSync(real);
    fs.symlinkSync(real, path.join(home, "memory-link"));
    writeTree(home, { ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: "~/memory-link" }) });
    const location = await resolveMemoryLocation({ cwd: makeTempDir(), home, env: {} });
    assert.equal(location.memoryDir, fs.realpathSync(real));
    await saveMemory(location.memoryDir, { type: "user", description: "prefers tabs", body: "" });
    assert.ok(fs.existsSync(path.join(real, "MEMORY.md")));
  });

  it("ignores autoMemoryDirectory when memdir's root is moved, and values Claude Code ignores", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    writeTree(project, { ".git/HEAD": "x" });
    const perProject = (root: string) => path.join(root, "projects", sanitizeProjectPath(project), "memory");
    writeTree(home, {
      ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: path.join(home, "shared") }),
    });
    const rooted = await resolveMemoryLocation({
      cwd: project,
      home,
      env: { MEMDIR_ROOT: path.join(home, "mine") },
    });
    assert.equal(rooted.memoryDir, perProject(path.join(home, "mine")));
    for (const ignored of ["relative/memory", "/", "~/", "~/..", "~", "/a\u0000b", 7]) {
      writeTree(home, { ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: ignored }) });
      const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
      assert.equal(
        location.memoryDir,
        perProject(path.join(home, ".claude")),
        `autoMemoryDirectory: ${ignored}`,
      );
    }
  });

  it("never lets a project settings file move the memory root", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    writeTree(project, {
      ".git/HEAD": "x",
      ".claude/settings.json": JSON.stringify({ autoMemoryDirectory: path.join(home, ".ssh") }),
    });
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    assert.equal(location.root, path.join(home, ".claude"));
    assert.equal(
      location.memoryDir,
      path.join(home, ".claude", "projects", sanitizeProjectPath(fs.realpathSync(project)), "memory"),
    );
    assert.equal(location.sharedFolderOf, undefined);
  });

  it("uses --dir as is, with no project resolution", async () => {
    const cwd = makeTempDir();
    const location = await resolveMemoryLocation({ cwd, dir: "my-memory", home: cwd, env: {} });
    assert.deepEqual(location, {
      root: path.join(cwd, ".claude"),
      projectRoot: null,
      projectDir: cwd,
      memoryDir: path.join(cwd, "my-memory"),
      indexPath: path.join(cwd, "my-memory", "MEMORY.md"),
    });
  });

  it("refuses a project whose name collides with the directory's owner, naming both and --dir", async () => {
    const home = makeTempDir();
    const base = makeTempDir();
    const owner = path.join(base, "a-b");
    const other = path.join(base, "a", "b");
    fs.mkdirSync(owner, { recursive: true });
    fs.mkdirSync(other, { recursive: true });
    assert.equal(sanitizeProjectPath(owner), sanitizeProjectPath(other));

    await ensureMemoryDir(await resolveMemoryLocation({ cwd: owner, home, env: {} }));
    await assert.rejects(resolveMemoryLocation({ cwd: other, home, env: {} }), (error: unknown) => {
      assert.ok(isMemdirError(error, "project-mismatch"));
      const message = (error as Error).message;
      assert.ok(message.includes(owner), message);
      assert.ok(message.includes(other), message);
      assert.match(message, /--dir/);
      return true;
    });
    const separate = await resolveMemoryLocation({
      cwd: other,
      home,
      env: {},
      dir: path.join(base, "b-memory"),
    });
    assert.equal(separate.memoryDir, path.join(base, "b-memory"));
  });
});

describe("ensureMemoryDir", () => {
  it("creates the directory and records its owner", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    await ensureMemoryDir(location);
    assert.ok(fs.statSync(location.memoryDir).isDirectory());
    assert.deepEqual(await readProjectMarker(location.memoryDir), { projectRoot: project });
    await ensureMemoryDir(location); // idempotent
    const leftovers = fs.readdirSync(location.memoryDir).filter((name) => name !== PROJECT_MARKER);
    assert.deepEqual(leftovers, [], "no temp files left behind");
  });

  it("adopts a directory the other agent made without a marker, keeping its memories", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    writeTree(location.memoryDir, { "MEMORY.md": "- [Role](user-role.md) — who\n", "user-role.md": "old" });
    await ensureMemoryDir(location);
    assert.deepEqual(await readProjectMarker(location.memoryDir), { projectRoot: project });
    assert.equal(fs.readFileSync(path.join(location.memoryDir, "user-role.md"), "utf8"), "old");
  });

  it("replaces a broken marker", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    writeTree(location.memoryDir, { [PROJECT_MARKER]: "{not json" });
    await ensureMemoryDir(location);
    assert.deepEqual(await readProjectMarker(location.memoryDir), { projectRoot: project });
  });

  it("writes no marker into a --dir directory", async () => {
    const base = makeTempDir();
    const location = await resolveMemoryLocation({
      cwd: base,
      dir: path.join(base, "mem"),
      home: base,
      env: {},
    });
    await ensureMemoryDir(location);
    assert.deepEqual(fs.readdirSync(location.memoryDir), []);
  });

  it("refuses to claim a directory another project owns", async () => {
    const home = makeTempDir();
    const project = makeTempDir();
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    writeTree(location.memoryDir, { [PROJECT_MARKER]: JSON.stringify({ projectRoot: "/somewhere/else" }) });
    await assert.rejects(ensureMemoryDir(location), (error: unknown) =>
      isMemdirError(error, "project-mismatch"),
    );
  });
});

describe("agentMemoryDir", () => {
  it("puts an agent's memory under the project dir and keeps hostile names inside agents/", async () => {
    const home = makeTempDir();
    const location = await resolveMemoryLocation({ cwd: makeTempDir(), home, env: {} });
    assert.equal(
      agentMemoryDir(location, "code-reviewer"),
      path.join(location.projectDir, "agents", "code-reviewer", "memory"),
    );
    const hostile = agentMemoryDir(location, "../../../etc");
    assert.equal(path.dirname(path.dirname(hostile)), path.join(location.projectDir, "agents"));
    assert.throws(
      () => agentMemoryDir(location, "../.."),
      (error: unknown) => isMemdirError(error, "invalid-input"),
    );
  });
});

describe("migrating memory after a project moved", () => {
  it("finds the orphaned directory and moves its memories to the new location", async () => {
    const home = makeTempDir();
    const base = makeTempDir();
    const oldPath = path.join(base, "old-shop");
    const newPath = path.join(base, "shop");
    fs.mkdirSync(oldPath);
    const oldLocation = await resolveMemoryLocation({ cwd: oldPath, home, env: {} });
    await ensureMemoryDir(oldLocation);
    writeTree(oldLocation.memoryDir, {
      "MEMORY.md": "- [Role](user-role.md) — who\n",
      "user-role.md": "keep me",
    });
    fs.renameSync(oldPath, newPath);

    const root = oldLocation.root;
    assert.deepEqual(await findOrphanedMemoryDirs(root), [
      { memoryDir: oldLocation.memoryDir, projectRoot: oldPath },
    ]);
    const moved = await migrateMemory({ from: oldPath, to: newPath, root });

    const newLocation = await resolveMemoryLocation({ cwd: newPath, home, env: {} });
    assert.equal(moved.to, newLocation.memoryDir);
    assert.equal(fs.readFileSync(path.join(newLocation.memoryDir, "user-role.md"), "utf8"), "keep me");
    assert.deepEqual(await readProjectMarker(newLocation.memoryDir), { projectRoot: newPath });
    assert.equal(fs.existsSync(oldLocation.memoryDir), false);
    assert.deepEqual(await findOrphanedMemoryDirs(root), []);
  });

  it("refuses to migrate over existing memories", async () => {
    const home = makeTempDir();
    const root = path.join(home, ".claude");
    const from = path.join(home, "gone");
    const to = makeTempDir();
    writeTree(path.join(root, "projects", sanitizeProjectPath(from), "memory"), { "a.md": "a" });
    writeTree(path.join(root, "projects", sanitizeProjectPath(to), "memory"), { "b.md": "b" });
    await assert.rejects(migrateMemory({ from, to, root }), /already holds memories/);
    assert.equal(
      fs.readFileSync(path.join(root, "projects", sanitizeProjectPath(to), "memory", "b.md"), "utf8"),
      "b",
    );
  });
});
