// One helper process serves many sessions' requests (docs/design.md#the-memory-helper): each is
// run with the client's own cwd and environment, handed to the CLI's main, while the helper's own
// cwd and environment stay as they were. Run here in this process, as the helper runs them.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runHelperRequest } from "../../src/cli/commands/hosts/helper.ts";
import { main } from "../../src/cli/main.ts";
import { HELPER_PROTOCOL } from "../../src/helper/paths.ts";
import type { HelperRequest, MemdirProvider } from "../../src/helper/server.ts";
import { type Memdir, openMemdir } from "../../src/memdir/instance.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** The helper's instances, as its MemdirCache keeps them (one per memory dir). */
function provider(): MemdirProvider & { closeAll(): Promise<void> } {
  const open = new Map<string, Memdir>();
  return {
    open(memoryDir, env) {
      const memdir = open.get(memoryDir) ?? openMemdir(memoryDir, { env, watch: false });
      open.set(memoryDir, memdir);
      return memdir;
    },
    kept: (memoryDir) => open.get(memoryDir),
    preloadLater() {},
    async closeAll() {
      await Promise.all([...open.values()].map((memdir) => memdir.close()));
    },
  };
}

function request(args: string[], cwd: string, env: Record<string, string>): HelperRequest {
  return { v: HELPER_PROTOCOL, build: "test", args, cwd, env };
}

/** A client: its HOME, a project folder with a memory dir `mem/` in it holding one memory named `tag`. */
function client(tag: string, env: Record<string, string> = {}) {
  const home = makeTempDir(`memdir-helper-client-${tag}-`);
  const project = path.join(home, "work", tag);
  writeMemory(
    path.join(project, "mem"),
    `project-${tag}.md`,
    memory(`the ${tag} project's rule`, "", "project"),
  );
  return { home, project, env: { HOME: home, ...env } };
}

describe("memory helper: each request's cwd and environment", () => {
  it("gives two clients with different cwd and environment their own answers, and leaves the helper's own unchanged", async () => {
    const a = client("alpha");
    const rootB = makeTempDir("memdir-helper-root-");
    const b = client("beta", { MEMDIR_ROOT: rootB });
    const memdirs = provider();
    const cwdBefore = process.cwd();
    const envBefore = JSON.stringify(process.env);
    const run = (args: string[], who: typeof a) =>
      runHelperRequest(main, "memdir", request(args, who.project, who.env), memdirs);

    // Side by side, and one after the other: neither sees the other's cwd or environment.
    const [pathA, pathB] = await Promise.all([run(["path"], a), run(["path"], b)]);
    assert.equal(pathA.code, 0, pathA.stderr);
    assert.equal(
      pathA.stdout,
      `${path.join(a.home, ".claude", "projects", sanitizeProjectPath(a.project), "memory")}\n`,
    );
    assert.equal(pathB.code, 0, pathB.stderr);
    assert.equal(pathB.stdout, `${path.join(rootB, "projects", sanitizeProjectPath(b.project), "memory")}\n`);
    for (const who of [a, b, a]) {
      // A relative --dir is the client's folder, not the helper's.
      const listed = await run(["list", "--json", "--dir", "mem"], who);
      assert.equal(listed.code, 0, listed.stderr);
      const files = (JSON.parse(listed.stdout) as { file: string }[]).map((entry) => entry.file);
      assert.deepEqual(files, [`project-${path.basename(who.project)}.md`]);
    }
    assert.equal(process.cwd(), cwdBefore, "the helper's cwd is unchanged");
    assert.equal(JSON.stringify(process.env), envBefore, "the helper's environment is unchanged");
    await memdirs.closeAll();
  });

  it("hands a request whose cwd is gone back to its client", async () => {
    const gone = makeTempDir("memdir-helper-gone-");
    fs.rmSync(gone, { recursive: true });
    const result = await runHelperRequest(main, "memdir", request(["path"], gone, {}), provider());
    assert.equal(result.code, 1);
    assert.match(result.fallback ?? "", /ENOENT/);
  });
});
