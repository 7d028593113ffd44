import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli, runProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

// The first run in an agent: the command setup writes resolves the way the agent runs it, setup
// ends with what happens from now on, `--remove` gives back what `--recommended` changed, and
// `memdir doctor` finds commands that will not start memdir.

const root = path.resolve(import.meta.dirname, "../..");
const bin = path.join(root, "bin", "memdir.js");
const version = (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string })
  .version;

interface SetupJson {
  files: Array<{ path: string; changed: boolean }>;
  command: { written: string; absolute: boolean; note: string | null };
  fromNowOn: {
    recall: string;
    remember: string;
    afterEachTurn: string;
    modelConfigured: boolean;
    agentMemoryAlsoSaves: boolean;
  };
}

/** A PATH folder holding only what `files` names: a link to this memdir, or a script. */
function pathFolder(files: Record<string, { link: string } | { script: string }> = {}): string {
  const dir = makeTempDir("memdir-path-");
  for (const [name, file] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    if ("link" in file) fs.symlinkSync(file.link, path.join(dir, name));
    else fs.writeFileSync(path.join(dir, name), file.script, { mode: 0o755 });
  }
  return dir;
}

async function setupJson(home: string, args: string[], env: Record<string, string>): Promise<SetupJson> {
  const result = await runCli(["setup", ...args, "--json"], { home, env });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as SetupJson;
}

/** Runs a command line the way an agent runs a hook: `sh -c` with the agent's PATH. */
function runAsAgent(line: string, pathValue: string, home: string) {
  return runProcess("/bin/sh", ["-c", line], {
    cwd: home,
    env: { PATH: pathValue, HOME: home, MEMDIR_HELPER: "0" },
  });
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

describe("memdir setup writes a command the agent can run", () => {
  it("writes memdir when the memdir on the agent's PATH is this one, and the hook starts it", async () => {
    const home = makeTempDir();
    const linked = pathFolder({ memdir: { link: bin }, node: { link: process.execPath } });
    const result = await setupJson(home, ["claude-code"], { PATH: linked });
    assert.deepEqual(result.command, { written: "memdir", absolute: false, note: null });
    const settings = readJson(path.join(home, ".claude/settings.json")) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    const hook = settings.hooks.SessionStart[0].hooks[0].command;
    assert.equal(hook, "memdir hook session-start");
    const started = await runAsAgent(hook.replace("hook session-start", "--version"), linked, home);
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout.trim(), version);
  });

  it("writes the absolute command when memdir is on PATH but the node its first line asks for is not", async () => {
    const home = makeTempDir();
    const withoutNode = pathFolder({ memdir: { link: bin } });
    const result = await setupJson(home, ["codex"], { PATH: withoutNode });
    assert.equal(result.command.absolute, true);
    assert.match(result.command.note ?? "", /starts with "#!\/usr\/bin\/env node" and node is not on PATH/);
    const doctor = await runCli(["doctor", "--json"], { home, env: { PATH: withoutNode } });
    assert.deepEqual(JSON.parse(doctor.stdout), { issues: [] }, "the absolute command needs no PATH");
  });

  it("writes node and this memdir's bin/memdir.js when memdir is not on PATH, says so, and both the hooks and the MCP entry start memdir", async () => {
    const home = makeTempDir();
    const empty = pathFolder();
    const human = await runCli(["setup", "claude-code"], { home, env: { PATH: empty } });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /note: memdir is not on PATH, so the agent is given the absolute command: /);
    const settings = readJson(path.join(home, ".claude/settings.json")) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    const hook = settings.hooks.UserPromptSubmit[0].hooks[0].command;
    assert.equal(hook, `${process.execPath} ${bin} hook user-prompt-submit`);
    const started = await runAsAgent(hook.replace("hook user-prompt-submit", "--version"), empty, home);
    assert.equal(started.code, 0, started.stderr);
    assert.equal(started.stdout.trim(), version);

    const server = (
      readJson(path.join(home, ".claude.json")).mcpServers as Record<
        string,
        { command: string; args: string[] }
      >
    ).memdir;
    assert.deepEqual(server, { type: "stdio", command: process.execPath, args: [bin, "mcp"] });
    const mcp = await runProcess(server.command, [...server.args.slice(0, -1), "--version"], {
      cwd: home,
      env: { PATH: empty, HOME: home },
    });
    assert.equal(mcp.stdout.trim(), version, mcp.stderr);

    const json = await setupJson(makeTempDir(), ["codex"], { PATH: empty });
    assert.equal(json.command.absolute, true);
    assert.equal(json.command.written, `${process.execPath} ${bin}`);
  });

  it("writes the absolute command when the memdir on PATH is another one, naming it", async () => {
    const home = makeTempDir();
    const other = pathFolder({ memdir: { script: "#!/bin/sh\necho another memdir\n" } });
    const result = await setupJson(home, ["gemini"], { PATH: other });
    assert.equal(result.command.absolute, true);
    assert.match(
      result.command.note ?? "",
      new RegExp(`the memdir on PATH \\(${other}/memdir\\) is another one`),
    );
    const settings = readJson(path.join(home, ".gemini/settings.json")) as {
      mcpServers: { memdir: { command: string; args: string[] } };
    };
    assert.deepEqual(settings.mcpServers.memdir, { command: process.execPath, args: [bin, "mcp"] });
  });

  it("does not count the node_modules/.bin that npx puts on PATH, which the agent will not have", async () => {
    const home = makeTempDir();
    const npx = pathFolder({ "node_modules/.bin/memdir": { link: bin } });
    const env = { PATH: path.join(npx, "node_modules/.bin"), npm_command: "exec" };
    const result = await setupJson(home, ["codex"], env);
    assert.equal(result.command.absolute, true);
    assert.match(result.command.note ?? "", /memdir is not on PATH/);
  });

  it("writes --command as given, and says when its executable is not on PATH", async () => {
    const home = makeTempDir();
    const result = await setupJson(home, ["cursor", "--command", "no-such-memdir"], { PATH: pathFolder() });
    assert.equal(result.command.written, "no-such-memdir");
    assert.match(result.command.note ?? "", /no-such-memdir \(from --command\) is not on PATH/);
    assert.deepEqual(readJson(path.join(home, ".cursor/mcp.json")).mcpServers, {
      memdir: { command: "no-such-memdir", args: ["mcp"] },
    });
  });
});

describe("memdir doctor checks the commands agents run", () => {
  it("reports each hook and MCP entry whose command does not resolve, with the file and a fix, and is clean once setup rewrote them", async () => {
    const home = makeTempDir();
    const empty = pathFolder();
    // Written for a PATH that had memdir, then run where it has none.
    await setupJson(home, ["codex", "--command", "memdir"], { PATH: empty });
    const doctor = await runCli(["doctor", "--json"], { home, env: { PATH: empty } });
    assert.equal(doctor.code, 1);
    const issues = (
      JSON.parse(doctor.stdout) as { issues: Array<{ code: string; file: string; message: string }> }
    ).issues;
    assert.deepEqual(
      issues.map((issue) => [issue.code, path.relative(home, issue.file), issue.message.split(" runs ")[0]]),
      [
        [
          "agent-command",
          ".codex/hooks.json",
          `${path.join(home, ".codex/hooks.json")}: hook SessionStart (codex)`,
        ],
        [
          "agent-command",
          ".codex/hooks.json",
          `${path.join(home, ".codex/hooks.json")}: hook UserPromptSubmit (codex)`,
        ],
        [
          "agent-command",
          ".codex/hooks.json",
          `${path.join(home, ".codex/hooks.json")}: hook PostToolUse (codex)`,
        ],
        ["agent-command", ".codex/hooks.json", `${path.join(home, ".codex/hooks.json")}: hook Stop (codex)`],
        [
          "agent-command",
          ".codex/config.toml",
          `${path.join(home, ".codex/config.toml")}: MCP server (codex)`,
        ],
      ],
    );
    for (const issue of issues) {
      assert.match(issue.message, /but memdir is not on PATH; fix: run `memdir setup codex`/);
    }

    const human = await runCli(["doctor"], { home, env: { PATH: empty } });
    assert.match(human.stdout, /5 agent commands that will not start memdir/);

    await setupJson(home, ["codex"], { PATH: empty });
    const clean = await runCli(["doctor", "--json"], { home, env: { PATH: empty } });
    assert.deepEqual(JSON.parse(clean.stdout), { issues: [] }, clean.stderr);
    assert.equal(clean.code, 0);
  });

  it("reports a node command whose script is gone, and passes a memdir found on PATH", async () => {
    const home = makeTempDir();
    const linked = pathFolder({ memdir: { link: bin }, node: { link: process.execPath } });
    await setupJson(home, ["opencode", "--command", `${process.execPath} /gone/bin/memdir.js`], {
      PATH: linked,
    });
    await setupJson(home, ["cline"], { PATH: linked });
    const doctor = await runCli(["doctor", "--json"], { home, env: { PATH: linked } });
    const issues = (JSON.parse(doctor.stdout) as { issues: Array<{ code: string; message: string }> }).issues;
    assert.equal(issues.length, 1, doctor.stdout);
    assert.match(
      issues[0].message,
      /opencode\.json: MCP server \(opencode\) runs .*, but \/gone\/bin\/memdir\.js does not exist/,
    );
  });
});

describe("memdir setup says what happens from now on", () => {
  const linked = pathFolder({ memdir: { link: bin }, node: { link: process.execPath } });
  const model = {
    MEMDIR_PROVIDER: "anthropic",
    MEMDIR_MODEL: "claude-haiku-5-5",
    ANTHROPIC_API_KEY: "test-key",
  };

  it("gives each agent's facts, true for what it runs, in --json", async () => {
    const expected: Record<string, [string, string, string]> = {
      "claude-code": ["every-prompt", "agent-own-memory", "agent-own-memory"],
      codex: ["every-prompt", "offline", "needs-model"],
      gemini: ["every-prompt", "offline", "needs-model"],
      qwen: ["every-prompt", "offline", "needs-model"],
      copilot: ["every-prompt", "offline", "needs-model"],
      cursor: ["when-model-calls-memory_recall", "when-model-calls-memory_save", "needs-model"],
      // opencode's prompt hook runs through memdir's plugin; it has no end-of-turn hook.
      opencode: ["every-prompt", "offline", "not-available"],
      cline: ["when-model-calls-memory_recall", "when-model-calls-memory_save", "not-available"],
    };
    for (const [agent, [recall, remember, afterEachTurn]] of Object.entries(expected)) {
      const result = await setupJson(makeTempDir(), [agent], { PATH: linked });
      assert.deepEqual(
        result.fromNowOn,
        { recall, remember, afterEachTurn, modelConfigured: false, agentMemoryAlsoSaves: agent === "qwen" },
        agent,
      );
    }
    const recommended = await setupJson(makeTempDir(), ["claude-code", "--recommended"], { PATH: linked });
    assert.equal(recommended.fromNowOn.remember, "offline");
    assert.equal(recommended.fromNowOn.afterEachTurn, "needs-model");
    const withModel = await setupJson(makeTempDir(), ["codex"], { PATH: linked, ...model });
    assert.equal(withModel.fromNowOn.afterEachTurn, "on");
    assert.equal(withModel.fromNowOn.modelConfigured, true);
    // A key in the environment alone does not make memdir call a model (model use is opt-in).
    const keyOnly = await setupJson(makeTempDir(), ["codex"], { PATH: linked, ANTHROPIC_API_KEY: "k" });
    assert.equal(keyOnly.fromNowOn.afterEachTurn, "needs-model");
    const off = await setupJson(makeTempDir(), ["gemini"], { PATH: linked, MEMDIR_DISABLE: "1" });
    assert.deepEqual([off.fromNowOn.recall, off.fromNowOn.afterEachTurn], ["off", "off"]);
  });

  it("says it in plain words: hooks agents recall on every prompt, MCP-only agents when the model asks, and how saving after a turn is turned on and what it costs", async () => {
    const codex = await runCli(["setup", "codex"], { home: makeTempDir(), env: { PATH: linked } });
    assert.match(
      codex.stdout,
      /From now on, in Codex:\n {2}recall on every prompt: yes \(lexical, offline, no model call\)\n/,
    );
    assert.match(codex.stdout, / {2}saving "remember …": yes, offline, the moment you send it\n/);
    assert.match(
      codex.stdout,
      / {2}automatic saving after each turn: no: no model is configured\. To turn it on, set MEMDIR_PROVIDER \(anthropic or openai\) and MEMDIR_MODEL in the environment Codex starts from, with that provider's key .*It then costs one extraction run in the background per turn that added messages .*at most 5\), and one small selection call per prompt .*under 100 output tokens\)\.\n/,
    );
    const withModel = await runCli(["setup", "codex"], {
      home: makeTempDir(),
      env: { PATH: linked, ...model },
    });
    assert.match(withModel.stdout, /recall on every prompt: yes \(picked by the configured model\)/);
    assert.match(
      withModel.stdout,
      /after each turn: yes, with anthropic \(MEMDIR_PROVIDER=anthropic\); it costs one extraction run/,
    );

    const cline = await runCli(["setup", "cline"], { home: makeTempDir(), env: { PATH: linked } });
    assert.doesNotMatch(cline.stdout, /hook/i, cline.stdout);
    assert.match(
      cline.stdout,
      /recall on every prompt: no; memories are recalled when the model calls memory_recall/,
    );
    assert.match(cline.stdout, /saving "remember …": only when the model calls memory_save/);
    assert.match(cline.stdout, /after each turn: no: Cline gives memdir no way to act after a turn/);
    // opencode: memdir's plugin runs the prompt hook, so recall and "remember …" work per prompt.
    const opencode = await runCli(["setup", "opencode"], { home: makeTempDir(), env: { PATH: linked } });
    assert.doesNotMatch(opencode.stdout, /hook/i, opencode.stdout);
    assert.match(opencode.stdout, /recall on every prompt: yes/);
    assert.match(opencode.stdout, /saving "remember …": yes, offline/);
    assert.match(opencode.stdout, /after each turn: no: opencode gives memdir no way to act after a turn/);
    const cursor = await runCli(["setup", "cursor"], { home: makeTempDir(), env: { PATH: linked } });
    assert.match(cursor.stdout, /when the model calls memory_recall/);
    assert.match(cursor.stdout, /after each turn: no: no model is configured\. To turn it on/);
    assert.doesNotMatch(cursor.stdout, /selection call per prompt/, "Cursor has no prompt hook to make one");

    const claude = await runCli(["setup", "claude-code"], { home: makeTempDir(), env: { PATH: linked } });
    assert.match(claude.stdout, /saving "remember …": by Claude Code's own auto memory, not memdir/);
    assert.match(claude.stdout, /`memdir setup claude-code --recommended` turns it off/);
    const copilot = await runCli(["setup", "copilot"], { home: makeTempDir(), env: { PATH: linked } });
    assert.match(copilot.stdout, /Copilot CLI keeps OPENAI_API_KEY and OPENAI_BASE_URL out of hooks/);
  });
});

describe("memdir setup --remove gives back what --recommended changed", () => {
  const linked = pathFolder({ memdir: { link: bin }, node: { link: process.execPath } });
  const env = { PATH: linked };

  it("claude-code: the user's own values come back and both files are byte for byte what they were", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".claude/settings.json");
    const claudeJson = path.join(home, ".claude.json");
    const settingsText =
      '{\n\t"theme": "dark",\n\t"autoMemoryEnabled": true,\n\t"env": { "MEMDIR_DISABLE": "1", "FOO": "bar" },\n\t"hooks": {}\n}\n';
    const claudeJsonText = '{"numStartups":3,"mcpServers":{}}';
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, settingsText);
    fs.writeFileSync(claudeJson, claudeJsonText);

    await setupJson(home, ["claude-code", "--recommended"], env);
    const set = readJson(settings) as { autoMemoryEnabled: boolean; env: Record<string, string> };
    assert.equal(set.autoMemoryEnabled, false);
    assert.deepEqual(set.env, { MEMDIR_DISABLE: "0", FOO: "bar" });
    // Later runs, one with another command, must not take memdir's values for the user's.
    await setupJson(home, ["claude-code", "--recommended"], env);
    await setupJson(home, ["claude-code", "--recommended", "--command", "npx -y memdir"], env);

    const removed = await setupJson(home, ["claude-code", "--remove"], env);
    assert.ok(removed.files.every((file) => file.changed));
    assert.equal(fs.readFileSync(settings, "utf8"), settingsText);
    assert.equal(fs.existsSync(`${settings}.memdir-prior`), false, "the record goes with the removal");

    // .claude.json holds no recommended setting: its backup (the file before setup's last change) is what comes back.
    const again = makeTempDir();
    fs.writeFileSync(path.join(again, ".claude.json"), claudeJsonText);
    await setupJson(again, ["claude-code", "--recommended"], env);
    await setupJson(again, ["claude-code", "--remove"], env);
    assert.equal(fs.readFileSync(path.join(again, ".claude.json"), "utf8"), claudeJsonText);
  });

  it("claude-code: absent settings stay absent, and a value the user changed since stays theirs", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".claude/settings.json");
    const text = `${JSON.stringify({ theme: "dark", permissions: { allow: ["Bash(npm test)"] } }, null, 2)}\n`;
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, text);
    await setupJson(home, ["claude-code", "--recommended"], env);
    await setupJson(home, ["claude-code", "--remove"], env);
    assert.equal(fs.readFileSync(settings, "utf8"), text);

    await setupJson(home, ["claude-code", "--recommended"], env);
    const changed = readJson(settings);
    changed.autoMemoryEnabled = true;
    fs.writeFileSync(settings, JSON.stringify(changed, null, 2));
    await setupJson(home, ["claude-code", "--remove"], env);
    assert.deepEqual(readJson(settings), {
      theme: "dark",
      permissions: { allow: ["Bash(npm test)"] },
      autoMemoryEnabled: true,
    });
  });

  it("qwen: enableManagedAutoMemory comes back as the user had it, the file byte for byte", async () => {
    for (const memory of [{ enableManagedAutoMemory: true, enableManagedAutoDream: false }, undefined]) {
      const home = makeTempDir();
      const settings = path.join(home, ".qwen/settings.json");
      const text = `${JSON.stringify({ model: { name: "qwen3-coder" }, ...(memory ? { memory } : {}) }, null, 4)}\n`;
      fs.mkdirSync(path.dirname(settings), { recursive: true });
      fs.writeFileSync(settings, text);
      await setupJson(home, ["qwen", "--recommended"], env);
      assert.equal((readJson(settings).memory as Record<string, unknown>).enableManagedAutoMemory, false);
      await setupJson(home, ["qwen", "--remove"], env);
      assert.equal(fs.readFileSync(settings, "utf8"), text);
    }
  });
});
