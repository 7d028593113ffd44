// The helper's change watch for `memdir sync` (src/helper/change-watch.ts), called in this
// process against real folders and real inotify watchers: whatever a sync would read differently
// must make the next answer "not unchanged", and nothing else should.
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { helperChangeWatch } from "../../src/helper/ask.ts";
import { ChangeWatches } from "../../src/helper/change-watch.ts";
import type { HelperPaths } from "../../src/helper/paths.ts";
import { memory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

const linux = process.platform === "linux";
const opened: ChangeWatches[] = [];
afterEach(() => {
  for (const watches of opened.splice(0)) watches.close();
});

/** A memory dir with two memories (one in a sub-folder), a watch on it, and the watch's first token. */
async function watchedDir(): Promise<{ dir: string; watches: ChangeWatches; token: string }> {
  const dir = makeTempDir("memdir-change-watch-");
  fs.writeFileSync(path.join(dir, "project-deploys.md"), memory("deploys run on fridays", "from main"));
  fs.mkdirSync(path.join(dir, "team"));
  fs.writeFileSync(path.join(dir, "team", "project-ci.md"), memory("CI runs on every push", "all branches"));
  fs.writeFileSync(path.join(dir, "MEMORY.md"), "- [Deploys](project-deploys.md) — fridays\n");
  const watches = new ChangeWatches();
  opened.push(watches);
  const first = await watches.check(dir, undefined);
  assert.equal(first.unchanged, false, "a dir asked about for the first time is not vouched for");
  assert.ok(first.token, "a watch began");
  return { dir, watches, token: first.token };
}

/** Asserts the dir reads as changed since `token`, and returns the new watch's token. */
async function assertChanged(
  watches: ChangeWatches,
  dir: string,
  token: string,
  what: string,
): Promise<string> {
  const answer = await watches.check(dir, token);
  assert.equal(answer.unchanged, false, `${what}: the watch must see it`);
  assert.ok(answer.token && answer.token !== token, `${what}: a new watch begins`);
  return answer.token;
}

describe("the helper's change watch", { skip: !linux && "inotify watches: Linux only" }, () => {
  it("vouches for a dir nothing was written in, again and again, with the same token", async () => {
    const { dir, watches, token } = await watchedDir();
    for (let i = 0; i < 3; i++) assert.deepEqual(await watches.check(dir, token), { unchanged: true, token });
    assert.deepEqual(watches.dirs(), [fs.realpathSync(dir)]);
  });

  it("sees a memory rewritten with the same size and its modification time put back", async () => {
    const { dir, watches, token } = await watchedDir();
    const file = path.join(dir, "project-deploys.md");
    const before = fs.statSync(file);
    const changed = memory("deploys run on mondays", "from main");
    assert.equal(Buffer.byteLength(changed), before.size);
    fs.writeFileSync(file, changed);
    fs.utimesSync(file, before.atime, before.mtime);
    const next = await assertChanged(watches, dir, token, "a same-size rewrite");
    assert.deepEqual(await watches.check(dir, next), { unchanged: true, token: next });
  });

  it("sees each kind of change a sync would read differently", async () => {
    const { dir, watches, token } = await watchedDir();
    let current = token;
    const changes: [string, () => void][] = [
      ["a file in a sub-folder", () => fs.appendFileSync(path.join(dir, "team", "project-ci.md"), "more\n")],
      ["a new memory", () => fs.writeFileSync(path.join(dir, "user-tabs.md"), memory("tabs", "two spaces"))],
      ["a deletion", () => fs.rmSync(path.join(dir, "user-tabs.md"))],
      ["a mode change", () => fs.chmodSync(path.join(dir, "project-deploys.md"), 0o600)],
      [
        "MEMORY.md",
        () => fs.appendFileSync(path.join(dir, "MEMORY.md"), "- [CI](team/project-ci.md) — pushes\n"),
      ],
      [
        "an atomic save (a temp file renamed over the memory)",
        () => {
          fs.writeFileSync(path.join(dir, ".project-deploys.md.tmp"), memory("deploys", "on tuesdays"));
          fs.renameSync(path.join(dir, ".project-deploys.md.tmp"), path.join(dir, "project-deploys.md"));
        },
      ],
      ["a new sub-folder", () => fs.mkdirSync(path.join(dir, "notes"))],
      // Only seen because the watch after the last change listed the new folder and watches it.
      [
        "a memory in that new sub-folder",
        () => fs.writeFileSync(path.join(dir, "notes", "a.md"), memory("a", "b")),
      ],
      ["a sub-folder renamed", () => fs.renameSync(path.join(dir, "notes"), path.join(dir, "notes-old"))],
      [
        "a folder moved in from outside",
        () => {
          const outside = makeTempDir("memdir-change-watch-outside-");
          fs.mkdirSync(path.join(outside, "imported"));
          fs.renameSync(path.join(outside, "imported"), path.join(dir, "imported"));
        },
      ],
      // Seen only because the folder moved in is watched from the watch after it.
      [
        "a memory in the folder moved in",
        () => fs.writeFileSync(path.join(dir, "imported", "b.md"), memory("b", "c")),
      ],
      // The sub-folder that was there from the start, after several new tokens kept its watcher.
      ["team/ again", () => fs.appendFileSync(path.join(dir, "team", "project-ci.md"), "and tags\n")],
    ];
    for (const [what, change] of changes) {
      change();
      current = await assertChanged(watches, dir, current, what);
    }
  });

  it("sees a folder made and filled between two syncs' questions, after the watch listed its parent", async () => {
    const { dir, watches, token } = await watchedDir();
    fs.mkdirSync(path.join(dir, "team", "backend"));
    fs.writeFileSync(path.join(dir, "team", "backend", "project-db.md"), memory("db", "postgres 16"));
    await assertChanged(watches, dir, token, "a new folder with a memory in it");
  });

  it("vouches for nothing once a folder whose name is not UTF-8 is made (it cannot be watched by name)", async () => {
    const { dir, watches, token } = await watchedDir();
    fs.mkdirSync(Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.from([0xe9])]));
    assert.deepEqual(await watches.check(dir, token), { unchanged: false, token: null });
    assert.deepEqual(await watches.check(dir, undefined), { unchanged: false, token: null });
  });

  it("ignores what sync never reads: the writer's lock, dot-files, the cache folder", async () => {
    const { dir, watches, token } = await watchedDir();
    fs.writeFileSync(path.join(dir, ".memdir-write.lock"), "123\n");
    fs.rmSync(path.join(dir, ".memdir-write.lock"));
    fs.mkdirSync(path.join(dir, ".memdir-cache"));
    fs.writeFileSync(path.join(dir, ".memdir-cache", "lexical.bin"), "x");
    assert.deepEqual(await watches.check(dir, token), { unchanged: true, token });
  });

  it("does not vouch for a dir replaced by another at the same path", async () => {
    const { dir, watches, token } = await watchedDir();
    fs.renameSync(dir, `${dir}-old`);
    fs.cpSync(`${dir}-old`, dir, { recursive: true });
    await assertChanged(watches, dir, token, "the dir replaced");
  });

  it("answers for the token it gave, and no other: a new helper vouches for nothing", async () => {
    const { dir, watches, token } = await watchedDir();
    assert.equal((await watches.check(dir, "0123456789abcdef01234567")).unchanged, false);
    const restarted = new ChangeWatches();
    opened.push(restarted);
    assert.equal((await restarted.check(dir, token)).unchanged, false);
  });

  it("gives no token where it cannot watch: not Linux, or a dir that is gone", async () => {
    const dir = makeTempDir("memdir-change-watch-");
    const elsewhere = new ChangeWatches("darwin");
    opened.push(elsewhere);
    assert.deepEqual(await elsewhere.check(dir, undefined), { unchanged: false, token: null });
    const watches = new ChangeWatches();
    opened.push(watches);
    assert.deepEqual(await watches.check(path.join(dir, "missing"), undefined), {
      unchanged: false,
      token: null,
    });
  });
});

/** A socket where a helper would listen, answering every request with `answer`; its paths. */
async function fakeHelper(answer: string): Promise<{ paths: HelperPaths; close: () => void }> {
  const dir = makeTempDir("memdir-change-watch-socket-");
  fs.chmodSync(dir, 0o700);
  const paths: HelperPaths = {
    dir,
    socket: path.join(dir, "h.sock"),
    starting: path.join(dir, "h.sock.starting"),
    secret: path.join(dir, "h.sock.secret"),
    build: "test",
    mainFile: "",
    stamp: "",
  };
  fs.writeFileSync(paths.secret, "secret", { mode: 0o600 });
  const server = net.createServer((socket) => socket.once("data", () => socket.end(answer)));
  await new Promise<void>((resolve) => server.listen(paths.socket, resolve));
  return { paths, close: () => server.close() };
}

describe("memdir sync asking the helper's change watch", {
  skip: !linux && "unix sockets and inotify",
}, () => {
  const env = { HOME: "/nonexistent-home" };

  it('takes "unchanged" only for the token it asked about', async () => {
    const helper = await fakeHelper(`{"ack":1}\n${JSON.stringify({ unchanged: true, token: "T" })}\n`);
    try {
      const ask = helperChangeWatch(env, helper.paths);
      assert.ok(ask);
      assert.deepEqual(await ask("/m", "T"), { unchanged: true, token: "T" });
      assert.deepEqual(await ask("/m", "U"), { unchanged: false, token: "T" });
      assert.deepEqual(await ask("/m", undefined), { unchanged: false, token: "T" });
    } finally {
      helper.close();
    }
  });

  it("reads an answer that is not the helper's, or none at all, as no token", async () => {
    const none = { unchanged: false, token: null };
    for (const answer of ["hello\n", `{"ack":1}\n{"unchanged":"yes"}\n`, ""]) {
      const helper = await fakeHelper(answer);
      try {
        assert.deepEqual(await helperChangeWatch(env, helper.paths)?.("/m", "T"), none, answer);
      } finally {
        helper.close();
      }
    }
    const gone = await fakeHelper("");
    gone.close();
    fs.rmSync(gone.paths.socket, { force: true });
    assert.deepEqual(await helperChangeWatch(env, gone.paths)?.("/m", "T"), none);
    assert.equal(helperChangeWatch({ ...env, MEMDIR_HELPER: "0" }, gone.paths), undefined);
    assert.equal(helperChangeWatch({ ...env, MEMDIR_NO_WATCH: "1" }, gone.paths), undefined);
  });
});
