// A teammate who pushes symbolic links into the memory remote: sync reads and writes the clone's
// tree without following any link (docs/sync.md, "What never leaves the machine" and "Files that
// come in"), so nothing outside the memory dir and the clone is read or written.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  gitIn,
  initBoth,
  makeWorld,
  memory,
  otherProject,
  PROJECT_KEY,
  pushAsTeammate,
  syncJson,
} from "../helpers/sync-machines.ts";

const BASHRC = "export PATH=$HOME/bin:$PATH\n";

describe("memdir sync: links in the remote", () => {
  for (const mode of ["auto", "review"] as const) {
    it(`never reads or writes through a MEMORY.md the remote holds as a symbolic link (${mode} mode)`, async () => {
      const world = makeWorld();
      await initBoth(world);
      world.a.write("project-ci.md", memory("CI runs on Buildkite", "pipeline shop-main", "project"));
      assert.equal((await world.a.memdir(["sync"])).code, 0);
      // The victim's own file, which the link points at.
      const bashrc = path.join(world.b.home, ".bashrc");
      fs.writeFileSync(bashrc, BASHRC);
      pushAsTeammate(world, (_folder, work) => {
        const index = path.join(work, PROJECT_KEY, "MEMORY.md");
        fs.rmSync(index, { force: true });
        fs.symlinkSync(bashrc, index);
      });
      const env = { MEMDIR_MEMORY_MODE: mode };
      const added = await world.b.memdir(["add", "--type", "user", "--description", "prefers tabs", "tabs"], {
        env,
      });
      assert.equal(added.code, 0, added.stderr);
      const synced = await world.b.memdir(["sync", "--json"], { env });
      assert.equal(synced.code, 0, synced.stderr);
      assert.equal(fs.readFileSync(bashrc, "utf8"), BASHRC, "the file behind the link is untouched");
      assert.ok(fs.lstatSync(bashrc).isFile());
      const report = JSON.parse(synced.stdout);
      assert.ok(
        report.skipped.some(
          (s: { file: string; reason: string }) => s.file === "MEMORY.md" && /symbolic link/.test(s.reason),
        ),
        JSON.stringify(report.skipped),
      );
      // Nothing of the file behind the link reached the local index.
      assert.doesNotMatch(world.b.read("MEMORY.md") ?? "", /PATH/);
      // The remote's index is a regular file again, rebuilt by this machine.
      const tree = gitIn(world.remoteDir, ["ls-tree", "main", "--", `${PROJECT_KEY}/MEMORY.md`]);
      assert.match(tree, /^100644 /);
      // And a second sync is as harmless as the first.
      assert.equal((await world.b.memdir(["sync"], { env })).code, 0);
      assert.equal(fs.readFileSync(bashrc, "utf8"), BASHRC);
    });
  }

  for (const link of ["github.com/acme/shop", "github.com/acme", "github.com"]) {
    it(`refuses a remote whose project folder is a symbolic link (${link} linked), writing nothing there or here`, async () => {
      const world = makeWorld();
      await initBoth(world);
      world.a.write("project-ci.md", memory("CI runs on Buildkite", "pipeline shop-main", "project"));
      assert.equal((await world.a.memdir(["sync"])).code, 0);
      // A folder anyone may write, where the teammate wants the victim's memories to land.
      const drop = path.join(world.dir, "world-writable");
      fs.mkdirSync(drop, { mode: 0o777 });
      fs.chmodSync(drop, 0o777);
      pushAsTeammate(world, (_folder, work) => {
        fs.rmSync(path.join(work, link), { recursive: true, force: true });
        fs.mkdirSync(path.dirname(path.join(work, link)), { recursive: true });
        fs.symlinkSync(drop, path.join(work, link));
      });
      const added = await world.b.memdir(["add", "--type", "user", "--description", "prefers tabs", "tabs"]);
      assert.equal(added.code, 0, added.stderr);
      const before = world.b.files();
      // `--status` says the same refusal, not every memory "behind" (the empty listing of a link).
      const status = await world.b.memdir(["sync", "--status", "--json"]);
      assert.notEqual(status.code, 0, status.stdout);
      assert.match(status.stderr, /\(the folder of this project's memory\) is a symbolic link/);
      const synced = await world.b.memdir(["sync", "--json"]);
      assert.notEqual(synced.code, 0);
      assert.match(
        synced.stderr,
        new RegExp(
          `${link.replace(/\./g, "\\.")} \\(the folder of this project's memory\\) is a symbolic link`,
        ),
      );
      assert.deepEqual(fs.readdirSync(drop, { recursive: true }), [], "nothing written behind the link");
      assert.deepEqual(world.b.files(), before, "nothing changed here");
      // The refusal holds on the next sync too, and a pull alone refuses as well.
      const pulled = await world.b.memdir(["sync", "--pull"]);
      assert.notEqual(pulled.code, 0);
      assert.deepEqual(fs.readdirSync(drop, { recursive: true }), []);
    });
  }

  it("checks a project's own folder even when another project of the same clone synced that commit first", async () => {
    const world = makeWorld();
    await initBoth(world);
    const shop = world.a;
    const other = otherProject(world.a, "other");
    shop.write("project-shop.md", memory("the shop's memory", "shop"));
    await syncJson(shop);
    other.write("project-other.md", memory("the other project's only copy", "other"));
    await syncJson(other);
    const drop = path.join(world.dir, "world-writable");
    fs.mkdirSync(drop);
    pushAsTeammate(world, (_folder, work) => {
      fs.rmSync(path.join(work, "github.com/acme/other"), { recursive: true, force: true });
      fs.symlinkSync(drop, path.join(work, "github.com/acme/other"));
    });
    // The shop's sync fetches the teammate's commit first; its own folder is fine.
    await syncJson(shop);
    const refused = await other.memdir(["sync", "--json"]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /github\.com\/acme\/other \(the folder of this project's memory\) is a symbolic link, not a folder/,
    );
    assert.deepEqual(other.files(), ["project-other.md"], "nothing deleted here");
    // A save and another sync are refused too: the link stays the teammate's, not replaced by a push.
    other.write("project-later.md", memory("saved after the link", "later"));
    assert.equal((await other.memdir(["sync"])).code, 1);
    assert.match(gitIn(world.remoteDir, ["ls-tree", "main", "--", "github.com/acme/other"]), /^120000 /);
    assert.deepEqual(fs.readdirSync(drop), []);
  });
});
