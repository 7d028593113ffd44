import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  codexEventLabel,
  codexHookHash,
  memdirHookTrust,
  untrustedMemdirHooks,
  withHookTrust,
} from "../../../src/hosts/codex/hook-trust.ts";
import { runCli } from "../../helpers/cli.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// Codex's hook trust (src/hosts/codex/hook-trust.ts). The pinned hashes are the ones the real
// Codex CLI 0.169.0 accepted for these handlers: test/integration/codex.test.ts runs the hooks
// with exactly these entries and no --dangerously-bypass-hook-trust.

const handler = (event: string) => ({ type: "command", command: `memdir hook ${event}`, timeout: 10 });

describe("Codex hook trust", () => {
  it("hashes a hook as Codex 0.169.0 does", () => {
    assert.equal(
      codexHookHash("SessionStart", undefined, handler("session-start")),
      "sha256:a0fedadf2cd43a051e45910464c0e9c7a302c55c6dff374a6f996c4e1876489d",
    );
    assert.equal(
      codexHookHash("UserPromptSubmit", undefined, handler("user-prompt-submit")),
      "sha256:31e061f7ffdf9063792b1aec2cfaaeb79b600e3215ba6d5607531f9bb51821c9",
    );
    assert.equal(
      codexHookHash("Stop", "ignored: Stop has no matcher", handler("stop")),
      "sha256:a8c1dfbeed77e41901b8f7161cab6ab675988f5f1fc1d6a4150c8390c8239d72",
    );
    assert.notEqual(
      codexHookHash("SessionStart", undefined, { ...handler("session-start"), timeout: 11 }),
      codexHookHash("SessionStart", undefined, handler("session-start")),
      "an edited timeout is another hook",
    );
    assert.equal(codexEventLabel("UserPromptSubmit"), "user_prompt_submit");
    assert.equal(codexEventLabel("PreToolUse"), "pre_tool_use");
  });

  it("keys memdir's handlers by their place in hooks.json, the user's own skipped", () => {
    const doc = {
      hooks: {
        Stop: [
          { hooks: [{ type: "command", command: "notify-me" }] },
          { hooks: [{ type: "command", command: "lint" }, handler("stop")] },
        ],
      },
    };
    assert.deepEqual(
      memdirHookTrust("/h/.codex/hooks.json", doc).map((trust) => trust.key),
      ["/h/.codex/hooks.json:stop:1:1"],
    );
  });

  it("sets a hash in place, keeps the user's other keys, and takes back only the hashes memdir wrote", () => {
    const mine = { key: "/h/hooks.json:stop:0:0", hash: "sha256:new" };
    const text = `# mine\n[hooks.state."/h/hooks.json:stop:0:0"]\nenabled = true\ntrusted_hash = "sha256:old"\n`;
    const set = withHookTrust(text, [mine], [], "config.toml");
    assert.equal(set, text.replace("sha256:old", "sha256:new"));
    assert.equal(withHookTrust(set, [mine], [], "config.toml"), set, "a second run changes nothing");
    const removed = withHookTrust(set, [], [mine], "config.toml");
    assert.equal(removed, `# mine\n[hooks.state."/h/hooks.json:stop:0:0"]\nenabled = true\n`);
    const userTrusted = text.replace("sha256:old", "sha256:user");
    assert.equal(withHookTrust(userTrusted, [], [mine], "config.toml"), userTrusted, "another hash stays");
  });

  it("says which of memdir's hooks Codex will not run", () => {
    const doc = {
      hooks: { SessionStart: [{ hooks: [handler("session-start")] }], Stop: [{ hooks: [handler("stop")] }] },
    };
    const trust = memdirHookTrust("/h/hooks.json", doc);
    const config = `[hooks.state."${trust[0]!.key}"]\ntrusted_hash = "sha256:stale"\n`;
    assert.deepEqual(untrustedMemdirHooks("/h/hooks.json", doc, config, "config.toml"), [
      { key: "/h/hooks.json:session_start:0:0", state: "modified" },
      { key: "/h/hooks.json:stop:0:0", state: "untrusted" },
    ]);
  });

  it("memdir doctor reports an edited memdir hook of Codex's until setup trusts it again", async () => {
    const home = makeTempDir();
    const codexHome = path.join(home, ".codex");
    assert.equal((await runCli(["setup", "codex"], { home, env: { CODEX_HOME: codexHome } })).code, 0);
    const doctor = () => runCli(["doctor", "--json"], { home, env: { CODEX_HOME: codexHome } });
    const clean = JSON.parse((await doctor()).stdout) as { issues: { code: string }[] };
    assert.deepEqual(
      clean.issues.map((issue) => issue.code),
      [],
    );
    const hooksFile = path.join(codexHome, "hooks.json");
    fs.writeFileSync(hooksFile, fs.readFileSync(hooksFile, "utf8").replace('"timeout": 10', '"timeout": 20'));
    const edited = await doctor();
    assert.equal(edited.code, 1);
    const { issues } = JSON.parse(edited.stdout) as {
      issues: { code: string; file: string; message: string }[];
    };
    assert.deepEqual(
      issues.map((issue) => [issue.code, issue.file]),
      [["codex-hook-untrusted", path.join(codexHome, "config.toml")]],
    );
    assert.match(issues[0]!.message, /hooks\.json:session_start:0:0: it changed since it was trusted/);
    assert.equal((await runCli(["setup", "codex"], { home, env: { CODEX_HOME: codexHome } })).code, 0);
    assert.equal((await doctor()).code, 0);
  });
});

describe("Codex hook trust keys", () => {
  it("name the hooks file under CODEX_HOME with its links resolved, as Codex canonicalizes it", async () => {
    const home = makeTempDir();
    const real = path.join(home, "dotfiles", "codex");
    fs.mkdirSync(real, { recursive: true });
    fs.symlinkSync(real, path.join(home, "codex-link"));
    const result = await runCli(["setup", "codex"], {
      home,
      env: { CODEX_HOME: path.join(home, "codex-link") },
    });
    assert.equal(result.code, 0, result.stderr);
    const config = fs.readFileSync(path.join(real, "config.toml"), "utf8");
    const realHome = fs.realpathSync(real);
    assert.equal(occurrencesOf(config, `[hooks.state."${realHome}/hooks.json:`), 4, config);
    assert.equal(occurrencesOf(config, "codex-link"), 0);
  });
});

function occurrencesOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
