import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli, runProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const { version } = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {
  version: string;
};

describe("memdir --version", () => {
  it("prints the package's version for --version and -V, and exits 0", async () => {
    const home = makeTempDir();
    for (const flag of ["--version", "-V"]) {
      const result = await runCli([flag], { home });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`, flag);
      assert.equal(result.stderr, "");
    }
  });

  it("is answered by bin/memdir.js from the installed package.json without loading the CLI", async () => {
    // An installed package whose CLI cannot load (no dist/): only the entry's own answer works.
    const pkg = makeTempDir("memdir-version-pkg-");
    fs.mkdirSync(path.join(pkg, "bin"));
    for (const file of ["bin/memdir.js", "bin/package.json"])
      fs.copyFileSync(path.join(repo, file), path.join(pkg, file));
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "memdir", version: "9.8.7" }));
    for (const flag of ["--version", "-V"]) {
      const result = await runProcess(process.execPath, [path.join(pkg, "bin/memdir.js"), flag], {
        cwd: pkg,
        env: { PATH: process.env.PATH ?? "", HOME: pkg },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "9.8.7\n", flag);
    }
  });
});
