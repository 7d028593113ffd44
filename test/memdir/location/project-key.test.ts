import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  normalizeRemoteUrl,
  originUrlFromConfig,
  projectKey,
} from "../../../src/memdir/location/project-key.ts";
import { gitIn } from "../../helpers/sync-machines.ts";
import { makeTempDir } from "../../helpers/temp.ts";

describe("the project key", () => {
  const same = [
    "git@github.com:acme/shop.git",
    "https://github.com/acme/shop",
    "https://github.com/acme/shop.git/",
    "ssh://git@GitHub.com:22/acme/shop.git",
    "https://me@github.com/acme/shop",
  ];
  for (const url of same)
    it(`normalizes ${url} to github.com/acme/shop`, () =>
      assert.equal(normalizeRemoteUrl(url), "github.com/acme/shop"));

  it("keeps unrelated repositories apart and reads local paths as local/…", () => {
    assert.equal(normalizeRemoteUrl("git@github.com:acme/shop-admin.git"), "github.com/acme/shop-admin");
    assert.equal(normalizeRemoteUrl("file:///srv/git/shop.git"), "local/srv/git/shop");
    assert.equal(normalizeRemoteUrl("/srv/git/shop.git"), "local/srv/git/shop");
    assert.equal(normalizeRemoteUrl("https://evil.example/../../x"), "evil.example/x");
    assert.equal(normalizeRemoteUrl(""), null);
  });

  it("reads the origin URL from a git config without running git", () => {
    const config =
      '[core]\n\tbare = false\n[remote "upstream"]\n\turl = git@x:y/z.git\n[remote "origin"]\n\turl = git@github.com:acme/shop.git\n';
    assert.equal(originUrlFromConfig(config), "git@github.com:acme/shop.git");
    assert.equal(originUrlFromConfig("[core]\n"), null);
  });

  it("is the origin, else the first commit, else the path", async () => {
    const dir = makeTempDir();
    const repo = path.join(dir, "repo");
    fs.mkdirSync(repo);
    gitIn(repo, ["init", "-q"]);
    fs.writeFileSync(path.join(repo, "a.txt"), "a\n");
    gitIn(repo, ["add", "a.txt"]);
    gitIn(repo, ["commit", "-q", "-m", "first"]);
    const root = gitIn(repo, ["rev-parse", "HEAD"]).trim();
    assert.equal(await projectKey(repo), `commit/${root}`);
    gitIn(repo, ["remote", "add", "origin", "https://gitlab.com/team/app.git"]);
    assert.equal(await projectKey(repo), "gitlab.com/team/app");
    const plain = path.join(dir, "plain");
    fs.mkdirSync(plain);
    assert.match(await projectKey(plain), /^path\/-.*-plain$/);
  });
  it("is the origin of a submodule, a separate git dir and a linked worktree too (a .git file)", async () => {
    const dir = makeTempDir();
    const commit = (repo: string) => {
      fs.writeFileSync(path.join(repo, "a.txt"), `${repo}\n`);
      gitIn(repo, ["add", "a.txt"]);
      gitIn(repo, ["commit", "-q", "-m", "first"]);
    };
    const library = path.join(dir, "library");
    fs.mkdirSync(library);
    gitIn(library, ["init", "-q"]);
    commit(library);
    const app = path.join(dir, "app");
    fs.mkdirSync(app);
    gitIn(app, ["init", "-q"]);
    commit(app);
    gitIn(app, ["remote", "add", "origin", "git@github.com:acme/app.git"]);
    gitIn(app, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "vendor/library"]);
    const submodule = path.join(app, "vendor/library");
    assert.ok(fs.statSync(path.join(submodule, ".git")).isFile(), "the submodule's .git is a file");
    // Its origin is the URL it was added from (here the library's path), not the app's.
    assert.equal(await projectKey(submodule), normalizeRemoteUrl(library));

    const separate = path.join(dir, "separate");
    gitIn(dir, ["init", "-q", `--separate-git-dir=${path.join(dir, "separate.git")}`, separate]);
    gitIn(separate, ["remote", "add", "origin", "https://gitlab.com/team/separate.git"]);
    assert.equal(await projectKey(separate), "gitlab.com/team/separate");

    const worktree = path.join(dir, "app-feature");
    gitIn(app, ["worktree", "add", "-q", worktree]);
    assert.equal(await projectKey(worktree), "github.com/acme/app");

    const forged = path.join(dir, "forged");
    fs.mkdirSync(forged);
    fs.writeFileSync(path.join(forged, ".git"), "gitdir: ../nowhere\n");
    assert.match(await projectKey(forged), /^path\/-.*-forged$/);
  });
});
