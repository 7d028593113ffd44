import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

// setup knows its own hook entries by what it writes — the `hook <event>` tail after whatever
// command launches memdir, and Gemini CLI's `memdir-<event>` names — not by the launcher naming
// memdir: a second run with another `--command` replaces them, `--remove` removes them, and
// `memdir doctor` checks their commands (docs/integrations.md#one-command-setup-memdir-setup-agent).

const root = path.resolve(import.meta.dirname, "../..");
const bin = path.join(root, "bin", "memdir.js");

/** A PATH folder holding only what `files` names: a link, or a script. */
function pathFolder(files: Record<string, { link: string } | { script: string }> = {}): string {
  const dir = makeTempDir("memdir-path-");
  for (const [name, file] of Object.entries(files)) {
    if ("link" in file) fs.symlinkSync(file.link, path.join(dir, name));
    else fs.writeFileSync(path.join(dir, name), file.script, { mode: 0o755 });
  }
  return dir;
}

/** memdir and node on PATH: a plain setup writes `memdir`. */
const linked = pathFolder({ memdir: { link: bin }, node: { link: process.execPath } });
/** A wrapper a user starts memdir through, as `--command ~/bin/md`. */
const wrapper = path.join(
  pathFolder({
    md: { script: `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"\n` },
  }),
  "md",
);

async function setup(home: string, args: string[]): Promise<void> {
  const result = await runCliInProcess(["setup", ...args, "--json"], { home, env: { PATH: linked } });
  assert.equal(result.code, 0, result.stderr);
}

type Json = Record<string, unknown>;

interface HookHost {
  /** The hooks file, under HOME. */
  file: string;
  /** memdir's events in that file, in the host's names. */
  events: string[];
  /** The user's own hooks already in the file, which setup must leave as they are. */
  own: Json;
}

/**
 * Every host setup writes hook commands for, in each of their shapes: Claude Code's groups
 * (Codex, Qwen Code), the same with a `name` per handler (Gemini CLI), Copilot CLI's bare
 * `{type, bash}` entries, Cursor's bare `{command}`. The user's hooks include near misses of
 * memdir's tail (`hook` as part of a word, an event memdir does not know).
 */
const HOSTS: Record<string, HookHost> = {
  "claude-code": {
    file: ".claude/settings.json",
    events: ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"],
    own: {
      Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "my-tool hook stop-the-world" }] }],
    },
  },
  codex: {
    file: ".codex/hooks.json",
    events: ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"],
    own: { Stop: [{ hooks: [{ type: "command", command: "/opt/lint-hook stop" }] }] },
  },
  gemini: {
    file: ".gemini/settings.json",
    events: ["SessionStart", "BeforeAgent", "AfterTool", "AfterAgent"],
    own: { AfterAgent: [{ hooks: [{ name: "notify", type: "command", command: "notify-send done" }] }] },
  },
  qwen: {
    file: ".qwen/settings.json",
    events: ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"],
    own: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "audit prompt" }] }] },
  },
  copilot: {
    file: ".copilot/hooks/memdir.json",
    events: ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"],
    own: { Stop: [{ type: "command", bash: "notify-send done", timeoutSec: 5 }] },
  },
  cursor: {
    file: ".cursor/hooks.json",
    events: ["sessionStart", "stop"],
    own: { stop: [{ command: "notify-send done" }] },
  },
};

/** A home whose hooks file for `host` holds only the user's own hooks. */
function homeWithOwnHooks(host: HookHost): string {
  const home = makeTempDir();
  const file = path.join(home, host.file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ hooks: host.own }, null, 2)}\n`);
  return home;
}

function hooksOf(home: string, host: HookHost): Record<string, unknown[]> {
  const doc = JSON.parse(fs.readFileSync(path.join(home, host.file), "utf8")) as Json;
  return (doc.hooks ?? {}) as Record<string, unknown[]>;
}

/** The command lines under `event` (a group's handlers, or the entries themselves), in file order. */
function commandsUnder(hooks: Record<string, unknown[]>, event: string): string[] {
  return (hooks[event] ?? []).flatMap((entry) => {
    const handlers = Array.isArray((entry as Json).hooks)
      ? ((entry as Json).hooks as Json[])
      : [entry as Json];
    return handlers.map((handler) => String(handler.command ?? handler.bash));
  });
}

/** The user's own command lines under `event` before setup. */
function ownUnder(host: HookHost, event: string): string[] {
  return commandsUnder(host.own as Record<string, unknown[]>, event);
}

/** What is under each of memdir's events besides the user's own hooks. */
function memdirCommands(home: string, host: HookHost): Record<string, string[]> {
  const hooks = hooksOf(home, host);
  return Object.fromEntries(
    host.events.map((event) => [
      event,
      commandsUnder(hooks, event).filter((command) => !ownUnder(host, event).includes(command)),
    ]),
  );
}

/** The user's own hooks as they are in the file now (memdir's events' entries of memdir's left out). */
function ownHooksNow(home: string, host: HookHost): Json {
  const hooks = hooksOf(home, host);
  return Object.fromEntries(
    Object.keys(host.own).map((event) => [
      event,
      (hooks[event] ?? []).filter((entry) => JSON.stringify(entry).includes(ownUnder(host, event)[0])),
    ]),
  );
}

describe("memdir setup knows its own hook entries whatever command runs them", () => {
  for (const [agent, host] of Object.entries(HOSTS)) {
    it(`${agent}: a second --command run replaces memdir's entries, a plain run replaces them again, the user's hooks stay`, async () => {
      const home = homeWithOwnHooks(host);
      await setup(home, [agent, "--command", wrapper]);
      await setup(home, [agent, "--command", wrapper]);
      const commands = memdirCommands(home, host);
      for (const event of host.events) {
        assert.equal(
          commands[event].length,
          1,
          `${event}: one memdir entry, not ${commands[event].join(" | ")}`,
        );
        assert.ok(commands[event][0].startsWith(`${wrapper} hook `), commands[event][0]);
      }
      assert.deepEqual(ownHooksNow(home, host), host.own, "the user's hooks are untouched");

      await setup(home, [agent]);
      const replaced = memdirCommands(home, host);
      for (const event of host.events) {
        assert.equal(replaced[event].length, 1, `${event}: ${replaced[event].join(" | ")}`);
        assert.match(replaced[event][0], /^memdir hook [a-z-]+( --host copilot)?$/);
      }
      assert.deepEqual(ownHooksNow(home, host), host.own);
    });

    it(`${agent}: --remove after --command removes memdir's entries and keeps the user's`, async () => {
      const home = homeWithOwnHooks(host);
      await setup(home, [agent, "--command", wrapper]);
      await setup(home, [agent, "--remove"]);
      assert.deepEqual(hooksOf(home, host), host.own);
    });
  }

  it("codex: the trust entries follow the replaced hooks, none left for the wrapper's", async () => {
    const home = makeTempDir();
    await setup(home, ["codex", "--command", wrapper]);
    await setup(home, ["codex"]);
    const config = fs.readFileSync(path.join(home, ".codex/config.toml"), "utf8");
    // One trust entry per event, for the one group under it: the plain run's hooks, in the
    // wrapper's place (a second set would sit at group 1 and leave the wrapper's running).
    assert.deepEqual(
      [...config.matchAll(/\[hooks\.state\."[^"]*:([a-z_]+:\d+:\d+)"\]/g)].map((match) => match[1]),
      ["session_start:0:0", "user_prompt_submit:0:0", "post_tool_use:0:0", "stop:0:0"],
      config,
    );
    assert.equal(config.match(/trusted_hash/g)?.length, 4, config);
    const doctor = await runCliInProcess(["doctor", "--json"], { home, env: { PATH: linked } });
    assert.deepEqual(JSON.parse(doctor.stdout), { issues: [] }, doctor.stderr);
    await setup(home, ["codex", "--remove"]);
    assert.doesNotMatch(fs.readFileSync(path.join(home, ".codex/config.toml"), "utf8"), /trusted_hash/);
  });
});

describe("memdir doctor checks memdir's hooks whatever command runs them", () => {
  it("names each hook whose command is not on PATH, and the setup it suggests leaves one working entry per event", async () => {
    const home = makeTempDir();
    const gemini = HOSTS.gemini;
    await setup(home, ["gemini", "--command", "memdir-typo"]);
    await setup(home, ["gemini", "--command", "memdir-typo"]);
    const doctor = await runCliInProcess(["doctor", "--json"], { home, env: { PATH: linked } });
    assert.equal(doctor.code, 1);
    const issues = (JSON.parse(doctor.stdout) as { issues: Array<{ code: string; message: string }> }).issues;
    const settings = path.join(home, ".gemini/settings.json");
    assert.deepEqual(
      issues.map((issue) => [issue.code, issue.message.split(", but ")[0]]),
      [
        ["agent-command", `${settings}: hook SessionStart (gemini) runs "memdir-typo hook session-start"`],
        ["agent-command", `${settings}: hook BeforeAgent (gemini) runs "memdir-typo hook before-agent"`],
        ["agent-command", `${settings}: hook AfterTool (gemini) runs "memdir-typo hook after-tool"`],
        ["agent-command", `${settings}: hook AfterAgent (gemini) runs "memdir-typo hook after-agent"`],
        ["agent-command", `${settings}: MCP server (gemini) runs "memdir-typo mcp"`],
      ],
    );
    for (const issue of issues)
      assert.match(issue.message, /but memdir-typo is not on PATH; fix: run `memdir setup gemini`/);

    await setup(home, ["gemini"]);
    const clean = await runCliInProcess(["doctor", "--json"], { home, env: { PATH: linked } });
    assert.deepEqual(JSON.parse(clean.stdout), { issues: [] }, clean.stderr);
    assert.deepEqual(memdirCommands(home, gemini), {
      SessionStart: ["memdir hook session-start"],
      BeforeAgent: ["memdir hook before-agent"],
      AfterTool: ["memdir hook after-tool"],
      AfterAgent: ["memdir hook after-agent"],
    });
  });

  it("names a hook run by a wrapper that is not executable, and leaves the user's own hooks unjudged", async () => {
    const home = homeWithOwnHooks(HOSTS["claude-code"]);
    const notExecutable = path.join(makeTempDir(), "md");
    fs.writeFileSync(notExecutable, "#!/bin/sh\n");
    await setup(home, ["claude-code", "--command", notExecutable]);
    const doctor = await runCliInProcess(["doctor", "--json"], { home, env: { PATH: linked } });
    const issues = (JSON.parse(doctor.stdout) as { issues: Array<{ code: string; message: string }> }).issues;
    assert.deepEqual(
      issues.map((issue) => issue.message.split(" (claude-code) ")[0].split(": ").at(-1)),
      // In file order: the user's Stop key was there first.
      ["hook Stop", "hook SessionStart", "hook UserPromptSubmit", "hook PostToolUse", "MCP server"],
    );
    for (const issue of issues) assert.match(issue.message, /does not exist or is not executable/);
  });

  it("checks a Gemini CLI hook known by its memdir name alone, and setup replaces it", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".gemini/settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    const handler = { name: "memdir-after-agent", type: "command", command: "/gone/run-memdir after" };
    fs.writeFileSync(settings, JSON.stringify({ hooks: { AfterAgent: [{ hooks: [handler] }] } }));
    const doctor = await runCliInProcess(["doctor", "--json"], { home, env: { PATH: linked } });
    const issues = (JSON.parse(doctor.stdout) as { issues: Array<{ code: string; message: string }> }).issues;
    assert.deepEqual(
      issues.map((issue) => issue.message.split(", but ")[0]),
      [`${settings}: hook AfterAgent (gemini) runs "/gone/run-memdir after"`],
    );
    await setup(home, ["gemini"]);
    assert.deepEqual(memdirCommands(home, HOSTS.gemini).AfterAgent, ["memdir hook after-agent"]);
  });
});
