// The names a sync carries (docs/sync.md, "What is held stays"): a name one machine cannot hold
// is held and named on both sides, by one rule, and a name that is not UTF-8 is read from its
// bytes, never from a lossy decode. Real git, two machines, a teammate pushing with plain git.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { describe, it } from "node:test";
import { nameOfBytes, syncNameRefusal } from "../../src/sync/file-names.ts";
import {
  initBoth,
  makeWorld,
  memory,
  PROJECT_KEY,
  pushAsTeammate,
  syncJson,
  type World,
} from "../helpers/sync-machines.ts";

/** `caf` + one Latin-1 byte + `.md`: a name that is not UTF-8. */
const latin1Name = (byte: number) =>
  Buffer.concat([Buffer.from("caf"), Buffer.from([byte]), Buffer.from(".md")]);

/** The remote's files under the project's folder, by their bytes (hex) → [mode, blob]. */
function remoteTree(world: World): Map<string, [string, string]> {
  const out = execFileSync("git", ["ls-tree", "-r", "-z", "main", "--", `${PROJECT_KEY}/`], {
    cwd: world.remoteDir,
  });
  const tree = new Map<string, [string, string]>();
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0, at);
    const record = out.subarray(at, end);
    at = end + 1;
    const tab = record.indexOf(9);
    const [mode, , blob] = record.subarray(0, tab).toString("latin1").split(" ");
    const name = record.subarray(tab + 1 + PROJECT_KEY.length + 1);
    tree.set(name.toString("hex"), [mode, blob]);
  }
  return tree;
}

/** Every name under `dir`, as bytes (hex), dot-paths and MEMORY.md left out. */
function namesAsBytes(dir: string): string[] {
  return (fs.readdirSync(Buffer.from(dir), { encoding: "buffer" }) as Buffer[])
    .filter((name) => name[0] !== 0x2e && name.toString() !== "MEMORY.md")
    .map((name) => name.toString("hex"))
    .sort();
}

describe("memdir sync: names a memory dir cannot hold", () => {
  it("holds a teammate's names that are not UTF-8: named in skipped, never written, never pushed over", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.b.write("user-mine.md", memory("mine", "a memory of b's own", "user"));
    await syncJson(world.b);
    pushAsTeammate(world, (folder) => {
      fs.writeFileSync(Buffer.concat([Buffer.from(`${folder}/`), latin1Name(0xe9)]), memory("acute", "é"));
      fs.writeFileSync(Buffer.concat([Buffer.from(`${folder}/`), latin1Name(0xe8)]), memory("grave", "è"));
    });
    const before = remoteTree(world);
    for (let round = 0; round < 2; round++) {
      const report = await syncJson(world.b);
      assert.equal(report.pulled, 0, JSON.stringify(report));
      assert.equal(report.pushed, 0, JSON.stringify(report));
      const reasons = Object.fromEntries(report.skipped.map((skip) => [skip.file, skip.reason]));
      assert.deepEqual(Object.keys(reasons).sort(), ["caf\\xe8.md", "caf\\xe9.md"], JSON.stringify(report));
      for (const reason of Object.values(reasons)) assert.match(reason, /from the remote: .*not valid UTF-8/);
      // Nothing of theirs here: not one lossy `caf\uFFFD.md` for the two of them.
      assert.deepEqual(namesAsBytes(world.b.memoryDir), [Buffer.from("user-mine.md").toString("hex")]);
    }
    // A file b makes with the lossy name is its own memory: the teammate's two stay as they were.
    world.b.write("caf\uFFFD.md", memory("lossy", "a name b chose"));
    assert.equal((await syncJson(world.b)).pushed, 1);
    const after = remoteTree(world);
    for (const [name, entry] of before) assert.deepEqual(after.get(name), entry, name);
  });

  it("holds a local name that is not UTF-8, a file or a folder, and still sees every other memory", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("user-seed.md", memory("seed", "a memory that must stay in the remote", "user"));
    assert.equal((await syncJson(world.a)).pushed, 1);
    const dir = Buffer.from(`${world.a.memoryDir}/`);
    fs.writeFileSync(Buffer.concat([dir, latin1Name(0xe9)]), memory("a latin-1 name", "held"));
    // A folder so named failed Node's whole recursive listing, read as an empty memory dir.
    const folder = Buffer.concat([dir, Buffer.from([0x64, 0xe9])]);
    fs.mkdirSync(folder);
    fs.writeFileSync(Buffer.concat([folder, Buffer.from("/x.md")]), memory("in a latin-1 folder", "held"));
    for (let round = 0; round < 2; round++) {
      const report = await syncJson(world.a);
      assert.equal(report.pushed, 0, JSON.stringify(report));
      const reasons = Object.fromEntries(report.skipped.map((skip) => [skip.file, skip.reason]));
      assert.deepEqual(Object.keys(reasons).sort(), ["caf\\xe9.md", "d\\xe9/x.md"], JSON.stringify(report));
      for (const reason of Object.values(reasons)) assert.match(reason, /not valid UTF-8.*not pushed/);
      assert.deepEqual(world.remoteFiles(), ["user-seed.md"]);
    }
  });

  it("holds local files named like the index in any case or folder, as every pulling machine refuses them", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("memory.md", memory("lowercase", "named like the index"));
    world.a.write("notes/MEMORY.md", memory("in a folder", "named like the index"));
    world.a.write("notes/deploy.md", memory("deploy", "an ordinary memory"));
    const report = await syncJson(world.a);
    assert.equal(report.pushed, 1, JSON.stringify(report));
    const reasons = Object.fromEntries(report.skipped.map((skip) => [skip.file, skip.reason]));
    assert.deepEqual(Object.keys(reasons).sort(), ["memory.md", "notes/MEMORY.md"]);
    for (const reason of Object.values(reasons)) assert.match(reason, /named like the index.*not pushed/);
    assert.deepEqual(world.remoteFiles(), ["notes/deploy.md"]);
    const pulled = await syncJson(world.b);
    assert.deepEqual(pulled.skipped, []);
    assert.deepEqual(world.b.files(), ["notes/deploy.md"]);
  });

  it("spells a name by its bytes, and refuses the same names both ways", () => {
    assert.deepEqual(nameOfBytes(Buffer.from("caf\u00e9.md")), { name: "caf\u00e9.md", notUtf8: false });
    assert.deepEqual(nameOfBytes(latin1Name(0xe9)), { name: "caf\\xe9.md", notUtf8: true });
    assert.deepEqual(nameOfBytes(Buffer.from([0x5c, 0xff, 0x0a])), { name: "\\\\\\xff\\x0a", notUtf8: true });
    // The spelling of a name that is not UTF-8 is one no sync writes or pushes.
    assert.notEqual(syncNameRefusal(nameOfBytes(latin1Name(0xe9)).name), null);
    for (const file of ["memory.md", "Memory.MD", "notes/MEMORY.md", ".git/x.md", "run.sh", "a<b.md"])
      assert.notEqual(syncNameRefusal(file), null, file);
    for (const file of ["user-mine.md", "notes/deploy plan.md", "my-memory.md", "memory.md.md"])
      assert.equal(syncNameRefusal(file), null, file);
  });
});
