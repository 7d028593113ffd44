// docs/sync.md's two-machine walk-through runs as written: its shell
// block, with `memdir` on the PATH starting the CLI from the sources.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir } from "../helpers/temp.ts";

const doc = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/sync.md"), "utf8");

describe("docs/sync.md", () => {
  it("runs the two-machine walk-through as written: the memory reaches machine b, and the conflict is named", () => {
    const section = /<!-- walkthrough:start -->\n```sh\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(doc);
    assert.ok(section, "the walk-through block");
    const bin = makeTempDir("memdir-walkthrough-");
    const quoted = [process.execPath, ...cliNodeArgs()]
      .map((arg) => `'${arg.replace(/'/g, "'\\''")}'`)
      .join(" ");
    fs.writeFileSync(path.join(bin, "memdir"), `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
    const result = spawnSync("bash", ["-c", section[1]], {
      encoding: "utf8",
      env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: bin, TMPDIR: bin, NO_COLOR: "1" },
      timeout: 240_000,
    });
    assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /user-prefers-tabs\.md/);
    assert.match(result.stdout, /prefers tabs/);
    assert.match(result.stdout, /conflict: user-prefers-tabs\.conflict-[0-9a-f]{8}\.md/);
    assert.match(result.stdout + result.stderr, /sync-conflict|the other version of/);
  });
});
