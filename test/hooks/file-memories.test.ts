import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fitHookContext } from "../../src/hooks/context-limit.ts";
import { fileLink, fileMemories } from "../../src/hooks/file-memories.ts";
import { readSessionSeen, recordSessionSeen, shownMemories } from "../../src/hooks/session-seen.ts";
import { toolFilePath } from "../../src/hosts/shared/tool-file.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

// The file hook's decision (docs/design.md#file-hook): which memories a file brings, and that a
// session is shown each of them once.

/** A memory whose frontmatter anchors `file`, as the writer stamps it. */
function anchored(description: string, body: string, file: string): string {
  return `---\ndescription: ${description}\ntype: project\nanchors:\n  - path: ${file}\n    hash: 0a1b2c3d4e5f\n---\n${body}\n`;
}

function project(): { root: string; memoryDir: string; file: string } {
  const base = makeTempDir("memdir-file-hook-");
  const root = path.join(base, "shop");
  const memoryDir = path.join(base, "memory");
  fs.mkdirSync(path.join(root, "src", "auth"), { recursive: true });
  fs.writeFileSync(path.join(root, "src", "auth", "login.ts"), "export function login() {}\n");
  fs.mkdirSync(memoryDir);
  return { root, memoryDir, file: path.join(root, "src", "auth", "login.ts") };
}

const NO_SEEN = { paths: new Set<string>(), bytes: 0 };

describe("toolFilePath", () => {
  it("reads the file of a shell line that only reads one (Codex's Bash), against cwd", () => {
    assert.equal(
      toolFilePath("Bash", { command: "cat src/auth/login.ts" }, "/repo"),
      "/repo/src/auth/login.ts",
    );
    assert.equal(toolFilePath("Bash", { command: "sed -n '1,40p' /repo/a.ts" }, "/repo"), "/repo/a.ts");
    assert.equal(toolFilePath("Bash", { command: "cat src/a.ts | grep x" }, "/repo"), null);
    assert.equal(toolFilePath("Bash", { command: 42 }, "/repo"), null);
  });

  it("reads the path of Claude Code's and Gemini CLI's file tools, and nothing of other tools", () => {
    assert.equal(toolFilePath("Read", { file_path: "/repo/a.ts" }, "/repo"), "/repo/a.ts");
    assert.equal(toolFilePath("Edit", { file_path: "src/a.ts" }, "/repo"), "/repo/src/a.ts");
    assert.equal(toolFilePath("NotebookEdit", { notebook_path: "/repo/n.ipynb" }, "/repo"), "/repo/n.ipynb");
    assert.equal(toolFilePath("read_file", { absolute_path: "/repo/a.ts" }, "/repo"), "/repo/a.ts");
    assert.equal(toolFilePath("Bash", { command: "ls" }, "/repo"), null);
    assert.equal(toolFilePath("Bash", {}, "/repo"), null);
    assert.equal(toolFilePath("Read", {}, "/repo"), null);
    assert.equal(toolFilePath("toString", { file_path: "/repo/a.ts" }, "/repo"), null);
  });
});

describe("fileLink", () => {
  const abs = "/repo/src/auth/login.ts";
  it("tells an anchored memory from one whose text names the file", () => {
    assert.equal(
      fileLink(anchored("login", "About login.", "src/auth/login.ts"), "src/auth/login.ts", abs),
      "anchor",
    );
    assert.equal(
      fileLink(memory("login", "The retry lives in src/auth/login.ts."), "src/auth/login.ts", abs),
      "named",
    );
    assert.equal(
      fileLink(memory("login", "See `./src/auth/login.ts` first"), "src/auth/login.ts", abs),
      "named",
    );
    assert.equal(fileLink(memory("login", `Opened ${abs}:12 last time`), "src/auth/login.ts", abs), "named");
  });

  it("does not match a longer path, another file, or a folder anchor", () => {
    const rel = "src/auth/login.ts";
    assert.equal(fileLink(memory("x", "lib/src/auth/login.ts is vendored"), rel, abs), null);
    assert.equal(fileLink(memory("x", "src/auth/login.ts.bak is a leftover"), rel, abs), null);
    assert.equal(fileLink(memory("x", "src/auth/logout.ts"), rel, abs), null);
    const folder =
      "---\ndescription: x\ntype: project\nanchors:\n  - path: src/auth/login.ts\n    dir: true\n---\nAuth.\n";
    assert.equal(fileLink(folder, rel, abs), null);
  });
});

describe("fileMemories", () => {
  it("brings the anchored memory first, then the ones naming the file, and none about other files", async () => {
    const { root, memoryDir, file } = project();
    const named = writeMemory(
      memoryDir,
      "named.md",
      memory("retry note", "The retry in src/auth/login.ts doubles."),
      new Date(Date.UTC(2026, 5, 2)),
    );
    const pinned = writeMemory(
      memoryDir,
      "pinned.md",
      anchored("login rule", "Login must refresh tokens.", "src/auth/login.ts"),
      new Date(Date.UTC(2026, 5, 1)),
    );
    writeMemory(memoryDir, "other.md", memory("billing", "src/billing/pay.ts rounds down."));
    const found = await fileMemories({ memoryDir, projectRoot: root, file, seen: NO_SEEN });
    assert.equal(found.relativePath, "src/auth/login.ts");
    assert.deepEqual(
      found.parts.map((part) => part.path),
      [undefined, pinned, named],
    );
    assert.match(found.parts[0].text, /src\/auth\/login\.ts/);
    assert.match(found.parts[1].text, /^Memory \(saved [^)]*\): .*pinned\.md:\n/);
    assert.match(found.parts[1].text, /Login must refresh tokens\./);
  });

  it("leaves out what the session was shown, and adds nothing when nothing is left", async () => {
    const { root, memoryDir, file } = project();
    const pinned = writeMemory(
      memoryDir,
      "pinned.md",
      anchored("login rule", "Login must refresh tokens.", "src/auth/login.ts"),
    );
    const found = await fileMemories({
      memoryDir,
      projectRoot: root,
      file,
      seen: { paths: new Set([pinned]), bytes: 100 },
    });
    assert.deepEqual(found.parts, []);
  });

  it("stops at k memories and at the session budget", async () => {
    const { root, memoryDir, file } = project();
    for (let i = 0; i < 7; i++)
      writeMemory(memoryDir, `m${i}.md`, memory(`note ${i}`, `src/auth/login.ts note ${i}`));
    const all = await fileMemories({ memoryDir, projectRoot: root, file, seen: NO_SEEN });
    assert.equal(all.parts.length, 1 + 5, "a line naming the file, then recall's k of 5");
    const tight = await fileMemories({
      memoryDir,
      projectRoot: root,
      file,
      seen: { paths: new Set(), bytes: 0 },
      budgetBytes: 1,
    });
    assert.deepEqual(tight.parts, []);
  });

  it("brings nothing for a file outside the project", async () => {
    const { root, memoryDir } = project();
    writeMemory(memoryDir, "etc.md", memory("hosts", "/etc/hosts maps the staging name"));
    const found = await fileMemories({ memoryDir, projectRoot: root, file: "/etc/hosts", seen: NO_SEEN });
    assert.equal(found.relativePath, null);
    assert.deepEqual(found.parts, []);
  });
});

describe("the session ledger", () => {
  it("keeps what a session was shown, per session, across processes' appends", async () => {
    const { memoryDir } = project();
    assert.deepEqual(await readSessionSeen(memoryDir, "s-1"), { paths: new Set(), bytes: 0 });
    assert.equal(await recordSessionSeen(memoryDir, "s-1", [{ path: "/m/a.md", bytes: 10 }]), true);
    assert.equal(await recordSessionSeen(memoryDir, "s-1", [{ path: "/m/b.md", bytes: 5 }]), true);
    assert.deepEqual(await readSessionSeen(memoryDir, "s-1"), {
      paths: new Set(["/m/a.md", "/m/b.md"]),
      bytes: 15,
    });
    assert.deepEqual((await readSessionSeen(memoryDir, "s-2")).paths, new Set());
    // An id that is no safe file name still gets its own ledger inside the cache folder.
    assert.equal(await recordSessionSeen(memoryDir, "../../escape", [{ path: "/m/c.md", bytes: 1 }]), true);
    assert.deepEqual((await readSessionSeen(memoryDir, "../../escape")).paths, new Set(["/m/c.md"]));
    assert.deepEqual(fs.readdirSync(path.dirname(memoryDir)).sort(), ["memory", "shop"]);
  });

  it("never creates a memory directory that does not exist", async () => {
    const missing = path.join(makeTempDir(), "no-memory");
    assert.equal(await recordSessionSeen(missing, "s-1", [{ path: "/m/a.md", bytes: 1 }]), false);
    assert.equal(fs.existsSync(missing), false);
  });

  it("counts as shown only the memories the fitted context holds", () => {
    const parts = [
      { text: "memdir: saved memories about a.ts:" },
      { text: "Memory (saved today): /m/a.md:\n\nA", path: "/m/a.md" },
      { text: "Memory (saved today): /m/b.md:\n\nB", path: "/m/b.md" },
    ];
    assert.deepEqual(shownMemories(parts, fitHookContext(parts)), [
      { path: "/m/a.md", bytes: Buffer.byteLength(parts[1].text) },
      { path: "/m/b.md", bytes: Buffer.byteLength(parts[2].text) },
    ]);
    assert.deepEqual(
      shownMemories(parts, fitHookContext(parts.slice(0, 2))).map((m) => m.path),
      ["/m/a.md"],
    );
    assert.deepEqual(shownMemories(parts, null), []);
  });
});
