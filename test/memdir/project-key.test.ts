import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { normalizeRemoteUrl, originUrlFromConfig, projectKey } from "../../src/memdir/project-key.ts";
import { gitIn } from "../helpers/sync-machines.ts";
import { makeTempDir } from "../helpers/temp.ts";

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
});
