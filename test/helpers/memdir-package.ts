// memdir as a user installs it, for tests of what bin/memdir.js does (the memory helper's client).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { makeTempDir } from "./temp.ts";

const repo = path.resolve(import.meta.dirname, "../..");

/**
 * A package as bin/memdir.js sees it: `<pkg>/bin/memdir.js` and `bin/package.json` (this repo's), `<pkg>/dist` the
 * build `npm test` makes (else one compiled here), `<pkg>/package.json` naming memdir. The helper's
 * build identity then comes from that build's `cli/main.js`.
 */
export function makeMemdirPackage(): { bin: string; mainFile: string } {
  const pkg = makeTempDir("memdir-helper-pkg-");
  let build = process.env.MEMDIR_TEST_BUILD ? path.join(process.env.MEMDIR_TEST_BUILD, "src") : "";
  if (!build || !fs.existsSync(path.join(build, "cli/main.js"))) {
    build = path.join(pkg, "build");
    const tsc = spawnSync(
      process.execPath,
      [
        path.join(repo, "node_modules/typescript/bin/tsc"),
        "-p",
        path.join(repo, "tsconfig.build.json"),
        "--outDir",
        build,
      ],
      { cwd: repo, encoding: "utf8" },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  }
  fs.mkdirSync(path.join(pkg, "bin"));
  for (const file of ["bin/memdir.js", "bin/package.json"])
    fs.copyFileSync(path.join(repo, file), path.join(pkg, file));
  fs.symlinkSync(build, path.join(pkg, "dist"));
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {
    version: string;
  };
  fs.writeFileSync(
    path.join(pkg, "package.json"),
    JSON.stringify({ name: "memdir", version, type: "module" }),
  );
  return { bin: path.join(pkg, "bin/memdir.js"), mainFile: path.join(build, "cli/main.js") };
}
