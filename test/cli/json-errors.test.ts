import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { makeTempDir } from "../helpers/temp.ts";

/** A home with one memory in `<home>/memory`. */
function fixture(): { home: string; dir: string } {
  const home = makeTempDir();
  const dir = path.join(home, "memory");
  writeMemory(dir, "feedback-a.md", memory("a note", "body"));
  return { home, dir };
}

describe("--json errors", () => {
  it("prints {error: {code, message}} on stdout with the exit code the error has without --json", async () => {
    const { home, dir } = fixture();
    const cases: { args: string[]; exit: number; code: string; says: RegExp }[] = [
      // commander's own usage errors
      { args: ["list", "--bogus"], exit: 2, code: "usage", says: /unknown option '--bogus'/ },
      { args: ["nosuchcommand"], exit: 2, code: "usage", says: /unknown command 'nosuchcommand'/ },
      {
        args: ["lsit"],
        exit: 2,
        code: "usage",
        says: /^memdir: unknown command 'lsit' \(did you mean list\?\)$/m,
      },
      // a MemdirError with code "usage"
      { args: ["dream", "--status", "--force"], exit: 2, code: "usage", says: /use one of --status/ },
      // a MemdirError of another code
      { args: ["show", "nope.md"], exit: 1, code: "not-found", says: /no memory nope\.md/ },
      { args: ["show", "../outside.md"], exit: 1, code: "path-outside", says: /outside/ },
    ];
    for (const { args, exit, code, says } of cases) {
      const human = await runCliInProcess([...args, "--dir", dir], { home });
      assert.equal(human.code, exit, `${args.join(" ")}: ${human.stderr}`);
      assert.equal(human.stdout, "", `${args.join(" ")}: human output keeps stdout empty`);
      assert.match(human.stderr, says);
      // One `memdir: …` line, commander's own usage errors included (its suggestion on that line).
      assert.match(human.stderr, /^memdir: [^\n]*\n$/, `${args.join(" ")}: ${human.stderr}`);

      const json = await runCliInProcess([...args, "--dir", dir, "--json"], { home });
      assert.equal(json.code, exit, `${args.join(" ")} --json: ${json.stderr}`);
      const parsed = JSON.parse(json.stdout) as { error: { code: string; message: string } };
      assert.deepEqual(Object.keys(parsed), ["error"]);
      assert.deepEqual(Object.keys(parsed.error), ["code", "message"]);
      assert.equal(parsed.error.code, code, args.join(" "));
      assert.match(parsed.error.message, says);
      assert.match(parsed.error.message, /^memdir: /);
    }
  });
});
