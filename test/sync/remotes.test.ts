// Setting sync's remotes (docs/sync.md#commands, docs/design.md#sync): `memdir sync init` records a
// remote only once it was reached and never as both the memory remote and a team remote, and a
// remote whose objects git refuses is named as such. Real git, local bare remotes, the CLI's
// `main` in this process.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { cloneDir } from "../../src/sync/remotes.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { gitIn, type Machine, makeWorld, memory } from "../helpers/sync-machines.ts";

/** {@link gitIn} with bytes on stdin; its output, trimmed. */
const gitBytesIn = (cwd: string, args: string[], input: Buffer) => gitIn(cwd, args, input).trim();

function memdir(m: Machine, args: string[]) {
  return runCliInProcess(args, { home: m.home, cwd: m.project });
}

async function succeeds(m: Machine, args: string[]): Promise<string> {
  const result = await memdir(m, args);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

const syncFolder = (m: Machine) => path.join(m.home, ".claude", "sync");
const readRemotes = (m: Machine) =>
  JSON.parse(fs.readFileSync(path.join(syncFolder(m), "remotes.json"), "utf8"));

function snapshot(m: Machine): Record<string, string> {
  return Object.fromEntries(m.files().map((file) => [file, m.read(file) ?? ""]));
}

/**
 * Commits on the remote's main, with plain git, a root tree that lists a folder with the
 * zero-padded mode `040000`, as some older tools wrote: git's fsck refuses it
 * (`zeroPaddedFilemode`); a plain clone, which does not check, takes it.
 */
function pushZeroPaddedTree(remoteDir: string): void {
  const blob = gitBytesIn(remoteDir, ["hash-object", "-w", "--stdin"], Buffer.from("hello\n"));
  const folder = gitBytesIn(remoteDir, ["mktree"], Buffer.from(`100644 blob ${blob}\tnote.txt\n`));
  const root = execFileSync("git", ["cat-file", "tree", "main^{tree}"], { cwd: remoteDir });
  // `odd` sorts after `github.com`, the one entry there: appended, the tree stays sorted.
  const padded = Buffer.concat([root, Buffer.from("040000 odd\0"), Buffer.from(folder, "hex")]);
  const tree = gitBytesIn(remoteDir, ["hash-object", "-t", "tree", "-w", "--literally", "--stdin"], padded);
  const commit = gitBytesIn(
    remoteDir,
    ["commit-tree", tree, "-p", "main", "-m", "an old tool"],
    Buffer.alloc(0),
  );
  gitIn(remoteDir, ["update-ref", "refs/heads/main", commit]);
}

describe("memdir sync init: the memory remote and the team remote", () => {
  it("refuses a team remote that is the memory remote, however it is spelled, and keeps both sides' memories", async () => {
    const world = makeWorld();
    const { a } = world;
    await succeeds(a, ["sync", "init", world.remoteUrl]);
    a.write("user-personal.md", memory("a personal fact", "personal", "user"));
    await succeeds(a, ["sync", "--json"]);
    const remoteBefore = world.remoteFiles();
    // The URL itself, a path with a trailing slash, and the path without the `.git` git adds.
    for (const spelling of [world.remoteUrl, `${world.remoteDir}/`, world.remoteDir.replace(/\.git$/, "")]) {
      const refused = await memdir(a, ["sync", "init", "--team", spelling]);
      assert.equal(refused.code, 1, spelling);
      assert.match(refused.stderr, /a team remote must be another repository/, spelling);
      assert.match(refused.stderr, /nothing was saved/);
      assert.deepEqual(readRemotes(a), { user: world.remoteUrl }, spelling);
    }
    // The other way round: a memory remote that is already this project's team remote.
    const teamRemote = path.join(world.dir, "team.git");
    gitIn(world.dir, ["init", "-q", "--bare", teamRemote]);
    await succeeds(a, ["sync", "init", "--team", `file://${teamRemote}`]);
    const refused = await memdir(a, ["sync", "init", `${teamRemote}/`]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /the team remote of github\.com\/acme\/shop .*your memory remote must be another repository/,
    );
    assert.equal(readRemotes(a).user, world.remoteUrl);
    assert.deepEqual(world.remoteFiles(), remoteBefore);
  });

  it("refuses to sync a memory remote and a team remote that are one repository (remotes.json edited by hand): nothing is pushed or deleted", async () => {
    const world = makeWorld();
    const { a } = world;
    await succeeds(a, ["sync", "init", world.remoteUrl]);
    a.write("user-personal.md", memory("a personal fact", "personal", "user"));
    a.write("user-second.md", memory("a second fact", "second", "user"));
    await succeeds(a, ["sync", "--json"]);
    const remoteBefore = world.remoteFiles();
    const remotes = readRemotes(a);
    remotes.team = { "github.com/acme/shop": `${world.remoteDir}/` };
    fs.writeFileSync(path.join(syncFolder(a), "remotes.json"), JSON.stringify(remotes));
    a.write("team/shared.md", memory("a team fact", "team", "project"));
    const before = snapshot(a);
    for (const args of [["sync"], ["sync", "--status"]]) {
      const refused = await memdir(a, args);
      assert.equal(refused.code, 1, args.join(" "));
      assert.match(refused.stderr, /are one repository/);
      assert.match(refused.stderr, /memdir sync init --team <git-url>/);
    }
    assert.deepEqual(world.remoteFiles(), remoteBefore);
    assert.deepEqual(snapshot(a), before);
  });
});

describe("memdir sync init: a remote it cannot reach", () => {
  it("saves nothing, leaves no folder behind, and says so; a remote set before stays as it was", async () => {
    const world = makeWorld();
    const { a } = world;
    const missing = `file://${path.join(world.dir, "no-such-remote.git")}`;
    const failed = await memdir(a, ["sync", "init", missing]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr.trim().split("\n").length, 1, failed.stderr);
    assert.match(failed.stderr, /^memdir: sync init: cannot reach file:\/\/.*the remote was not saved/);
    assert.match(failed.stderr, /run memdir sync init again/);
    assert.doesNotMatch(failed.stderr, /next sync catches up/);
    assert.ok(!fs.existsSync(syncFolder(a)), "no clone, no sync folder");
    const none = await memdir(a, ["sync"]);
    assert.match(none.stderr, /no sync remote; run `memdir sync init <git-url>` first/);
    // With a remote set and synced, a failed init of another one changes nothing.
    await succeeds(a, ["sync", "init", world.remoteUrl]);
    a.write("user-personal.md", memory("a personal fact", "personal", "user"));
    await succeeds(a, ["sync", "--json"]);
    const sync = fs.readdirSync(syncFolder(a)).sort();
    const again = await memdir(a, ["sync", "init", missing]);
    assert.equal(again.code, 1);
    assert.deepEqual(readRemotes(a), { user: world.remoteUrl });
    assert.deepEqual(fs.readdirSync(syncFolder(a)).sort(), sync);
    assert.ok(
      fs.existsSync(path.join(cloneDir(path.join(a.home, ".claude"), world.remoteUrl), "state.json")),
    );
    assert.equal(JSON.parse(await succeeds(a, ["sync", "--json"])).remote, world.remoteUrl);
  });
});

describe("memdir sync: a remote whose objects git refuses", () => {
  it("says the remote holds objects git refuses, quotes git, and does not promise the next sync catches up", async () => {
    const world = makeWorld();
    const { a, b } = world;
    await succeeds(a, ["sync", "init", world.remoteUrl]);
    a.write("user-personal.md", memory("a personal fact", "personal", "user"));
    await succeeds(a, ["sync", "--json"]);
    pushZeroPaddedTree(world.remoteDir);
    const before = snapshot(a);
    const failed = await memdir(a, ["sync", "--json"]);
    assert.equal(failed.code, 1);
    const { error } = JSON.parse(failed.stdout);
    assert.equal(error.code, "remote-invalid");
    assert.match(
      error.message,
      /holds objects git refuses \(object [0-9a-f]{40}: zeroPaddedFilemode: contains zero-padded file modes\)/,
    );
    assert.match(error.message, /no sync with it can succeed until the remote is fixed/);
    assert.doesNotMatch(error.message, /cannot reach|catches up/);
    assert.deepEqual(snapshot(a), before);
    const status = await memdir(a, ["sync", "--status"]);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /holds objects git refuses/);
    // A new machine's init: not saved, with the same reason.
    const init = await memdir(b, ["sync", "init", world.remoteUrl]);
    assert.equal(init.code, 1);
    assert.match(init.stderr, /holds objects git refuses \(object [0-9a-f]{40}: zeroPaddedFilemode/);
    assert.match(init.stderr, /the remote was not saved/);
    assert.ok(!fs.existsSync(syncFolder(b)));
  });
});
