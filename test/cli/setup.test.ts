import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCli } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * A PATH folder whose `memdir` is a link to this checkout's bin/memdir.js, as a global install
 * makes it: setup then finds this memdir on PATH and writes the plain `memdir` command.
 */
const linkedBin = (() => {
  const dir = makeTempDir("memdir-path-");
  fs.symlinkSync(path.join(root, "bin", "memdir.js"), path.join(dir, "memdir"));
  return dir;
})();

/** The CLI with this memdir first on PATH (see {@link linkedBin}). */
function cli(args: string[], options: Parameters<typeof runCli>[1]) {
  return runCli(args, {
    ...options,
    env: { PATH: `${linkedBin}${path.delimiter}${process.env.PATH ?? ""}`, ...options.env },
  });
}

interface SetupJson {
  agent: string;
  scope: string;
  files: Array<{ path: string; changed: boolean; backup: string | null }>;
  command?: { written: string; absolute: boolean; note: string | null };
  fromNowOn?: Record<string, unknown>;
}

async function setup(
  home: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  const result = await cli(["setup", ...args, "--json"], { home, ...options });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as SetupJson;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = fs.readFileSync(full, "utf8");
  }
  return files;
}

function gitRepo(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
  return dir;
}

/** memdir's server table in Codex's config.toml as setup writes it new. */
const CODEX_SERVER_TABLE =
  '[mcp_servers.memdir]\ncommand = "memdir"\nargs = ["mcp"]\nrequired = true\nstartup_timeout_sec = 30\n';

/**
 * The trust entries for memdir's four Codex hooks in `codexHome`, the hashes as Codex 0.169.0
 * computes them for these handlers (test/integration/codex.test.ts runs them untrusted-by-default).
 */
function codexTrust(codexHome: string): string {
  const hashes: Array<[string, string]> = [
    ["session_start", "sha256:a0fedadf2cd43a051e45910464c0e9c7a302c55c6dff374a6f996c4e1876489d"],
    ["user_prompt_submit", "sha256:31e061f7ffdf9063792b1aec2cfaaeb79b600e3215ba6d5607531f9bb51821c9"],
    ["post_tool_use", "sha256:063c52d1cafb77d519027c80319a6cee13a6c495b3e7d322627957aa0f0af676"],
    ["stop", "sha256:a8c1dfbeed77e41901b8f7161cab6ab675988f5f1fc1d6a4150c8390c8239d72"],
  ];
  return hashes
    .map(
      ([event, hash]) => `[hooks.state."${codexHome}/hooks.json:${event}:0:0"]\ntrusted_hash = "${hash}"\n`,
    )
    .join("");
}

const USER_FILES: Record<string, string[]> = {
  "claude-code": [".claude/settings.json", ".claude.json"],
  codex: [".codex/hooks.json", ".codex/config.toml"],
  gemini: [".gemini/settings.json", ".gemini/policies/memdir.toml"],
  qwen: [".qwen/settings.json"],
  copilot: [".copilot/hooks/memdir.json", ".copilot/mcp-config.json"],
  opencode: [".config/opencode/opencode.json", ".config/opencode/plugins/memdir.js"],
  cursor: [".cursor/hooks.json", ".cursor/mcp.json"],
  cline: [".cline/data/settings/cline_mcp_settings.json"],
};

describe("memdir setup <agent>", () => {
  it("writes each agent's documented files in its own format, and --json says which", async () => {
    const home = makeTempDir();
    for (const [agent, files] of Object.entries(USER_FILES)) {
      const result = await setup(home, [agent]);
      assert.deepEqual(Object.keys(result), ["agent", "scope", "files", "command", "fromNowOn"]);
      assert.deepEqual(
        { agent: result.agent, scope: result.scope, files: result.files },
        {
          agent,
          scope: "user",
          files: files.map((file) => ({ path: path.join(home, file), changed: true, backup: null })),
        },
      );
      assert.deepEqual(result.command, { written: "memdir", absolute: false, note: null });
      for (const file of result.files) assert.deepEqual(Object.keys(file), ["path", "changed", "backup"]);
    }
    const claude = readJson(path.join(home, ".claude/settings.json")) as { hooks: Record<string, unknown> };
    assert.deepEqual(Object.keys(claude.hooks), ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"]);
    assert.deepEqual(claude.hooks.UserPromptSubmit, [
      { hooks: [{ type: "command", command: "memdir hook user-prompt-submit", timeout: 10 }] },
    ]);
    // After Claude Code's file tools only: the memories about the file read or edited.
    assert.deepEqual(claude.hooks.PostToolUse, [
      {
        matcher: "Read|Edit|Write|MultiEdit|NotebookEdit",
        hooks: [{ type: "command", command: "memdir hook post-tool-use", timeout: 10 }],
      },
    ]);
    assert.deepEqual(readJson(path.join(home, ".claude.json")).mcpServers, {
      memdir: { type: "stdio", command: "memdir", args: ["mcp"] },
    });
    assert.equal(
      fs.readFileSync(path.join(home, ".codex/config.toml"), "utf8"),
      `${CODEX_SERVER_TABLE}\n${codexTrust(path.join(home, ".codex"))}`,
    );
    const gemini = readJson(path.join(home, ".gemini/settings.json")) as {
      hooks: Record<string, unknown>;
      mcpServers: unknown;
    };
    assert.deepEqual(Object.keys(gemini.hooks), ["SessionStart", "BeforeAgent", "AfterTool", "AfterAgent"]);
    assert.deepEqual(gemini.hooks.BeforeAgent, [
      {
        hooks: [
          {
            name: "memdir-before-agent",
            type: "command",
            command: "memdir hook before-agent",
            timeout: 10000,
          },
        ],
      },
    ]);
    assert.deepEqual(gemini.mcpServers, { memdir: { command: "memdir", args: ["mcp"] } });
    assert.deepEqual(readJson(path.join(home, ".config/opencode/opencode.json")), {
      mcp: { memdir: { type: "local", command: ["memdir", "mcp"], enabled: true, timeout: 30000 } },
    });
    assert.deepEqual(readJson(path.join(home, ".cursor/hooks.json")), {
      version: 1,
      hooks: {
        sessionStart: [{ command: "memdir hook session-start" }],
        stop: [{ command: "memdir hook stop" }],
      },
    });
    // Cline's `timeout` is in seconds (its schema: at least 1, default 60).
    assert.deepEqual(readJson(path.join(home, ".cline/data/settings/cline_mcp_settings.json")), {
      mcpServers: { memdir: { command: "memdir", args: ["mcp"], disabled: false, timeout: 60 } },
    });
    // Qwen Code: Claude Code's event names and hook shape, timeouts in seconds, the server beside them.
    assert.deepEqual(readJson(path.join(home, ".qwen/settings.json")), {
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: "memdir hook session-start", timeout: 10 }] }],
        UserPromptSubmit: [
          { hooks: [{ type: "command", command: "memdir hook user-prompt-submit", timeout: 10 }] },
        ],
        PostToolUse: [
          {
            matcher: "^(read_file|write_file|edit)$",
            hooks: [{ type: "command", command: "memdir hook post-tool-use", timeout: 10 }],
          },
        ],
        Stop: [{ hooks: [{ type: "command", command: "memdir hook stop", timeout: 10 }] }],
      },
      mcpServers: { memdir: { command: "memdir", args: ["mcp"] } },
      // Headless Qwen Code denies what would ask: memdir's reading tools and memory_save are allowed.
      permissions: {
        allow: [
          "mcp__memdir__memory_recall",
          "mcp__memdir__memory_save",
          "mcp__memdir__memory_list",
          "mcp__memdir__memory_read",
          "mcp__memdir__memory_context",
          "mcp__memdir__memory_inbox_list",
        ],
      },
    });
    // Gemini CLI: memdir's own policy file allows the same tools.
    assert.match(
      fs.readFileSync(path.join(home, ".gemini/policies/memdir.toml"), "utf8"),
      /\[\[rule\]\]\nmcpName = "memdir"\ntoolName = \["mcp_memdir_memory_recall", "mcp_memdir_memory_save", .*\]\ndecision = "allow"\npriority = 100\n$/,
    );
    // Copilot CLI: its own hook format (bash, timeoutSec), told to answer in Copilot's format.
    assert.deepEqual(readJson(path.join(home, ".copilot/hooks/memdir.json")), {
      version: 1,
      hooks: {
        SessionStart: [{ type: "command", bash: "memdir hook session-start --host copilot", timeoutSec: 10 }],
        UserPromptSubmit: [
          { type: "command", bash: "memdir hook user-prompt-submit --host copilot", timeoutSec: 10 },
        ],
        PostToolUse: [
          {
            matcher: "Read|Edit|Write",
            type: "command",
            bash: "memdir hook post-tool-use --host copilot",
            timeoutSec: 10,
          },
        ],
        Stop: [{ type: "command", bash: "memdir hook stop --host copilot", timeoutSec: 10 }],
      },
    });
    assert.deepEqual(readJson(path.join(home, ".copilot/mcp-config.json")), {
      mcpServers: { memdir: { type: "local", command: "memdir", args: ["mcp"], tools: ["*"] } },
    });
  });

  it("qwen and copilot honour QWEN_HOME and COPILOT_HOME, --recommended turns Qwen's managed auto memory off, and --remove undoes all of it", async () => {
    const home = makeTempDir();
    const env = { QWEN_HOME: path.join(home, "qh"), COPILOT_HOME: path.join(home, "ch") };
    const settings = path.join(home, "qh/settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(
      settings,
      JSON.stringify({
        model: { name: "qwen3-coder" },
        memory: { enableManagedAutoDream: true },
        permissions: { allow: ["Bash(git *)"] },
      }),
    );
    assert.deepEqual(
      (await setup(home, ["qwen", "--recommended"], { env })).files.map((file) => file.path),
      [settings],
    );
    const written = readJson(settings) as { memory: unknown; model: unknown; hooks: Record<string, unknown> };
    assert.deepEqual(written.memory, { enableManagedAutoDream: true, enableManagedAutoMemory: false });
    assert.deepEqual(written.model, { name: "qwen3-coder" });
    assert.deepEqual(Object.keys(written.hooks), ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"]);
    const allowed = (readJson(settings) as { permissions: { allow: string[] } }).permissions.allow;
    assert.deepEqual(allowed.slice(0, 3), [
      "Bash(git *)",
      "mcp__memdir__memory_recall",
      "mcp__memdir__memory_save",
    ]);
    await setup(home, ["qwen", "--recommended", "--remove"], { env });
    assert.deepEqual(readJson(settings), {
      model: { name: "qwen3-coder" },
      memory: { enableManagedAutoDream: true },
      permissions: { allow: ["Bash(git *)"] },
    });

    const hooks = path.join(home, "ch/hooks/memdir.json");
    assert.deepEqual(
      (await setup(home, ["copilot"], { env })).files.map((file) => file.path),
      [hooks, path.join(home, "ch/mcp-config.json")],
    );
    await setup(home, ["copilot", "--remove"], { env });
    // Files setup made hold only memdir's entries: --remove takes them away whole, no `{}` and no
    // backup of memdir's own lines left behind.
    assert.deepEqual(fs.readdirSync(path.join(home, "ch")).sort(), ["hooks"]);
    assert.deepEqual(fs.readdirSync(path.join(home, "ch/hooks")), []);
  });

  it("opencode: writes memdir's plugin beside opencode.json, leaves a plugin of the same name that is not memdir's, and --remove deletes its own", async () => {
    const home = makeTempDir();
    const plugin = path.join(home, ".config/opencode/plugins/memdir.js");
    await setup(home, ["opencode", "--command", "npx -y memdir"]);
    const text = fs.readFileSync(plugin, "utf8");
    assert.match(text, /^\/\/ memdir for opencode: written by `memdir setup opencode`\./);
    assert.match(text, /const COMMAND = \["npx","-y","memdir"\];/);
    assert.equal((await setup(home, ["opencode", "--command", "npx -y memdir"])).files[1].changed, false);
    await setup(home, ["opencode", "--remove"]);
    assert.equal(fs.existsSync(plugin), false);
    fs.writeFileSync(plugin, "export const Mine = async () => ({});\n");
    const mine = await setup(home, ["opencode"]);
    assert.equal(mine.files[1].changed, false);
    assert.equal(fs.readFileSync(plugin, "utf8"), "export const Mine = async () => ({});\n");
  });

  it("takes the agents' other names: claude, gemini-cli, qwen-code, copilot-cli", async () => {
    const home = makeTempDir();
    for (const [alias, agent] of [
      ["claude", "claude-code"],
      ["gemini-cli", "gemini"],
      ["qwen-code", "qwen"],
      ["copilot-cli", "copilot"],
    ]) {
      const result = await cli(["setup", alias, "--print", "--json"], { home });
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as SetupJson).agent, agent);
    }
    const unknown = await cli(["setup", "claude-desktop"], { home });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown agent "claude-desktop" \(one of claude-code, /);
  });

  it("speaks of hooks only to agents that get them", async () => {
    const home = makeTempDir();
    const cline = await cli(["setup", "cline"], { home });
    assert.equal(cline.code, 0, cline.stderr);
    assert.doesNotMatch(cline.stdout, /hook/i, cline.stdout);
    assert.match(cline.stdout, /MCP server only/);
    const opencode = await cli(["setup", "opencode"], { home });
    assert.equal(opencode.code, 0, opencode.stderr);
    assert.doesNotMatch(opencode.stdout, /hook/i, opencode.stdout);
    assert.match(opencode.stdout, /MCP server and memdir's plugin/);
    const qwen = await cli(["setup", "qwen"], { home });
    assert.match(qwen.stdout, /memdir setup qwen --recommended/);
    assert.match(qwen.stdout, /MEMDIR_PROVIDER/);
  });

  it("keeps everything else in the file, changes nothing the second time, backs up what it changes, and --remove undoes it", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".claude/settings.json");
    const original = {
      model: "opus",
      permissions: { allow: ["Bash(npm test)"] },
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "notify-send done" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard.sh" }] }],
      },
    };
    const originalText = `${JSON.stringify(original, null, 4)}\n`;
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, originalText);
    fs.writeFileSync(
      path.join(home, ".claude.json"),
      JSON.stringify({ numStartups: 3, mcpServers: { other: { command: "x" } } }),
    );

    const first = await cli(["setup", "claude-code"], { home });
    assert.equal(first.code, 0, first.stderr);
    const after = readJson(settings) as typeof original & { hooks: Record<string, unknown[]> };
    assert.equal(after.model, "opus");
    assert.deepEqual(after.permissions, original.permissions);
    assert.deepEqual(after.hooks.PreToolUse, original.hooks.PreToolUse);
    assert.equal(after.hooks.Stop.length, 2, "the user's Stop hook stays beside memdir's");
    assert.deepEqual(after.hooks.Stop[0], original.hooks.Stop[0]);
    assert.match(fs.readFileSync(settings, "utf8"), /^ {4}"model"/m, "the file keeps its indentation");
    assert.deepEqual(readJson(path.join(home, ".claude.json")).numStartups, 3);
    const backups = fs
      .readdirSync(path.dirname(settings))
      .filter((name) => name.startsWith("settings.json.memdir-backup"));
    assert.deepEqual(backups, ["settings.json.memdir-backup"]);
    assert.equal(fs.readFileSync(`${settings}.memdir-backup`, "utf8"), originalText);
    assert.match(first.stdout, new RegExp(`changed   ${settings} \\(backup: ${settings}\\.memdir-backup\\)`));
    const setUpText = fs.readFileSync(settings, "utf8");

    const before = snapshot(home);
    const second = await setup(home, ["claude-code"]);
    assert.ok(
      second.files.every((file) => !file.changed),
      "a second run changes nothing",
    );
    assert.deepEqual(snapshot(home), before, "…and writes nothing, not even a backup");

    const removed = await setup(home, ["claude-code", "--remove"]);
    assert.ok(removed.files.every((file) => file.changed));
    assert.deepEqual(
      removed.files.map((file) => file.backup),
      [`${settings}.memdir-backup`, path.join(home, ".claude.json.memdir-backup")],
      "--json names each backup",
    );
    assert.deepEqual(readJson(settings), original);
    assert.deepEqual(readJson(path.join(home, ".claude.json")), {
      numStartups: 3,
      mcpServers: { other: { command: "x" } },
    });
    const allBackups = fs
      .readdirSync(path.dirname(settings))
      .filter((name) => name.startsWith("settings.json.memdir-backup"));
    assert.deepEqual(allBackups, ["settings.json.memdir-backup"], "one backup per file, not one per run");
    assert.equal(fs.readFileSync(`${settings}.memdir-backup`, "utf8"), setUpText, "the newest one");
    const again = await setup(home, ["claude-code", "--remove"]);
    assert.ok(
      again.files.every((file) => !file.changed),
      "removing twice changes nothing",
    );
  });

  it("--print shows the change and writes nothing", async () => {
    const home = makeTempDir();
    const result = await cli(["setup", "gemini", "--print"], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /\.gemini\/settings\.json \(new file\)/);
    assert.match(result.stdout, /^\+.*"command": "memdir hook before-agent"/m);
    assert.deepEqual(snapshot(home), {});
    const json = await setup(home, ["gemini", "--print"]);
    assert.equal(json.files[0].changed, true, "--print --json says what would change");
    assert.deepEqual(snapshot(home), {});
  });

  it("--project writes the repository's files", async () => {
    const home = makeTempDir();
    const repo = gitRepo(path.join(home, "repo"));
    const sub = path.join(repo, "packages", "app");
    fs.mkdirSync(sub, { recursive: true });
    const expected: Record<string, string[]> = {
      "claude-code": [".claude/settings.json", ".mcp.json"],
      codex: [".codex/hooks.json", ".codex/config.toml"],
      gemini: [".gemini/settings.json", ".gemini/policies/memdir.toml"],
      opencode: ["opencode.json", ".opencode/plugins/memdir.js"],
      cursor: [".cursor/hooks.json", ".cursor/mcp.json"],
    };
    for (const [agent, files] of Object.entries(expected)) {
      const result = await setup(home, [agent, "--project"], { cwd: sub });
      assert.equal(result.scope, "project");
      assert.deepEqual(
        result.files.map((file) => file.path),
        files.map((file) => path.join(repo, file)),
      );
    }
    assert.deepEqual(readJson(path.join(repo, ".mcp.json")).mcpServers, {
      memdir: { type: "stdio", command: "memdir", args: ["mcp"] },
    });
    const cline = await cli(["setup", "cline", "--project"], { home, cwd: repo });
    assert.equal(cline.code, 2);
    assert.match(cline.stderr, /cline keeps its MCP servers per user only/);
  });

  it("--project writes the portable `memdir` even where memdir is not on PATH, and says so", async () => {
    // A project's files are committed: `node /this/machine/…/memdir.js` would point at nothing on
    // a teammate's machine.
    const home = makeTempDir();
    const repo = gitRepo(path.join(home, "repo"));
    const bare = { PATH: path.dirname(process.execPath) };
    const result = await runCli(["setup", "claude-code", "--project", "--json"], {
      home,
      cwd: repo,
      env: bare,
    });
    assert.equal(result.code, 0, result.stderr);
    const json = JSON.parse(result.stdout) as SetupJson;
    assert.equal(json.command?.written, "memdir");
    assert.equal(json.command?.absolute, false);
    assert.match(json.command?.note ?? "", /memdir is not on PATH: the project's files run `memdir`/);
    // No package name to install from the registry: memdir is put on PATH from a checkout.
    assert.match(json.command?.note ?? "", /`npm link` in a memdir checkout/);
    assert.doesNotMatch(json.command?.note ?? "", /npm install -g/);
    assert.deepEqual(readJson(path.join(repo, ".mcp.json")).mcpServers, {
      memdir: { type: "stdio", command: "memdir", args: ["mcp"] },
    });
    assert.ok(!fs.readFileSync(path.join(repo, ".claude/settings.json"), "utf8").includes(root));
  });

  it("follows CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME, GEMINI_CLI_HOME and CLINE_DIR / CLINE_DATA_DIR", async () => {
    const home = makeTempDir();
    const env = {
      CLAUDE_CONFIG_DIR: path.join(home, "cc"),
      CODEX_HOME: path.join(home, "cx"),
      XDG_CONFIG_HOME: path.join(home, "xdg"),
      GEMINI_CLI_HOME: path.join(home, "gh"),
      CLINE_DIR: path.join(home, "cl"),
    };
    assert.deepEqual(
      (await setup(home, ["gemini"], { env })).files.map((file) => file.path),
      [path.join(home, "gh/.gemini/settings.json"), path.join(home, "gh/.gemini/policies/memdir.toml")],
    );
    assert.deepEqual(
      (await setup(home, ["cline"], { env })).files.map((file) => file.path),
      [path.join(home, "cl/data/settings/cline_mcp_settings.json")],
    );
    // CLINE_DATA_DIR wins over CLINE_DIR, as in Cline.
    assert.deepEqual(
      (await setup(home, ["cline"], { env: { ...env, CLINE_DATA_DIR: path.join(home, "cd") } })).files.map(
        (file) => file.path,
      ),
      [path.join(home, "cd/settings/cline_mcp_settings.json")],
    );
    assert.deepEqual(
      (await setup(home, ["claude-code"], { env })).files.map((file) => file.path),
      [path.join(home, "cc/settings.json"), path.join(home, "cc/.claude.json")],
    );
    assert.deepEqual(
      (await setup(home, ["codex"], { env })).files.map((file) => file.path),
      [path.join(home, "cx/hooks.json"), path.join(home, "cx/config.toml")],
    );
    assert.deepEqual(
      (await setup(home, ["opencode"], { env })).files.map((file) => file.path),
      [path.join(home, "xdg/opencode/opencode.json"), path.join(home, "xdg/opencode/plugins/memdir.js")],
    );
  });

  it("edits only its own table in Codex's config.toml and keeps the rest byte for byte", async () => {
    const home = makeTempDir();
    const config = path.join(home, ".codex/config.toml");
    const original = [
      "# my Codex settings",
      'model = "gpt-5.5"',
      "",
      "[features]",
      "hooks = true # keep",
      "",
      "[mcp_servers.docs]",
      'command = "docs-mcp"',
      'args = ["--port", "0"]',
      "",
    ].join("\n");
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, original);
    await setup(home, ["codex"]);
    const written = fs.readFileSync(config, "utf8");
    const trust = codexTrust(path.join(home, ".codex"));
    assert.equal(written, `${original}\n${CODEX_SERVER_TABLE}\n${trust}`);
    assert.ok((await setup(home, ["codex"])).files.every((file) => !file.changed));
    // An older memdir table: memdir's keys are set, the user's keys and env sub-table stay.
    const older = `${original}\n[mcp_servers.memdir]\ncommand = "old"\nstartup_timeout_sec = 30\nrequired = true\n\n[mcp_servers.memdir.env]\nA = "1"\n\n[tui]\nx = 1\n`;
    fs.writeFileSync(config, older);
    await setup(home, ["codex"]);
    const replaced = fs.readFileSync(config, "utf8");
    assert.equal(
      replaced,
      `${older.replace('command = "old"\n', 'command = "memdir"\nargs = ["mcp"]\n')}\n${trust}`,
      "only command and args changed, and the hooks' trust added",
    );
    await setup(home, ["codex", "--remove"]);
    assert.doesNotMatch(fs.readFileSync(config, "utf8"), /memdir/);
    assert.match(fs.readFileSync(config, "utf8"), /\[mcp_servers\.docs\]/);
  });

  it("refuses a file it cannot edit safely and changes no file at all", async () => {
    const home = makeTempDir();
    fs.mkdirSync(path.join(home, ".codex"), { recursive: true });
    fs.writeFileSync(
      path.join(home, ".codex/config.toml"),
      '[mcp_servers]\nmemdir = { command = "memdir" }\n',
    );
    const before = snapshot(home);
    const inline = await cli(["setup", "codex"], { home });
    assert.equal(inline.code, 1);
    assert.match(inline.stderr, /config\.toml: line 2: the memdir MCP server is defined inline/);
    assert.deepEqual(snapshot(home), before, "hooks.json was not written either");

    fs.mkdirSync(path.join(home, ".claude"), { recursive: true });
    fs.writeFileSync(path.join(home, ".claude/settings.json"), '{\n  "model": "opus",\n}');
    const broken = await cli(["setup", "claude-code"], { home });
    assert.equal(broken.code, 1);
    // Where it stopped, whichever Node says it (Node 24 names the line itself, Node 20 only a position).
    assert.match(broken.stderr, /settings\.json: not valid JSON .*line 3,? column 1.*nothing was changed/);
    // It names a page the user has: the package ships docs/ (test/package.test.ts).
    const page = /add the snippet from (\S+integrations\.md) by hand/.exec(broken.stderr)?.[1] ?? "";
    assert.ok(fs.existsSync(page), `${page} exists`);
    assert.equal(
      fs.readFileSync(path.join(home, ".claude/settings.json"), "utf8"),
      '{\n  "model": "opus",\n}',
    );
    assert.equal(fs.existsSync(path.join(home, ".claude.json")), false);

    const unknown = await cli(["setup", "vim"], { home });
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /unknown agent "vim" \(one of claude-code, codex, gemini, qwen, copilot, opencode, cursor, cline\)/,
    );
  });

  it("claude-code offers the recommended setup, says how model use in hooks is turned on, and --recommended turns auto memory off", async () => {
    const home = makeTempDir();
    const plain = await cli(["setup", "claude-code"], { home });
    assert.match(plain.stdout, /memdir setup claude-code --recommended/);
    assert.match(plain.stdout, /after each turn: by Claude Code's own auto memory, not memdir/);
    assert.equal(readJson(path.join(home, ".claude/settings.json")).autoMemoryEnabled, undefined);
    const recommended = await cli(["setup", "claude-code", "--recommended"], { home });
    assert.match(recommended.stdout, /auto memory is off \(autoMemoryEnabled: false\) and memdir on/);
    assert.match(
      recommended.stdout,
      /after each turn: no: no model is configured\. To turn it on, set MEMDIR_PROVIDER/,
    );
    assert.match(recommended.stdout, /MEMDIR_MODEL/);
    const settings = readJson(path.join(home, ".claude/settings.json")) as {
      autoMemoryEnabled: boolean;
      env: Record<string, string>;
    };
    assert.equal(settings.autoMemoryEnabled, false);
    assert.deepEqual(settings.env, { MEMDIR_DISABLE: "0" });
    // Claude Code runs hooks with the settings' env: memdir stays on although the setting says off.
    const repo = gitRepo(path.join(home, "repo"));
    const hook = await cli(["hook", "session-start"], {
      home,
      cwd: repo,
      env: settings.env,
      input: JSON.stringify({ session_id: "s", cwd: repo, hook_event_name: "SessionStart" }),
    });
    assert.match(hook.stdout, /MEMORY\.md/, hook.stderr);
    const withoutEnv = await cli(["hook", "session-start"], {
      home,
      cwd: repo,
      input: JSON.stringify({ session_id: "s", cwd: repo, hook_event_name: "SessionStart" }),
    });
    // memdir's own switches win over the host's (docs/design.md#turning-memory-off): the setting
    // turns only Claude Code's own memory off, so memdir gives the whole cycle either way.
    assert.match(
      withoutEnv.stdout,
      /MEMORY\.md/,
      "autoMemoryEnabled: false turns only Claude Code's memory off",
    );
    await cli(["setup", "claude-code", "--remove", "--recommended"], { home });
    assert.deepEqual(readJson(path.join(home, ".claude/settings.json")), {});
    const wrong = await cli(["setup", "codex", "--recommended"], { home });
    assert.equal(wrong.code, 2);
  });

  it("uses --command in every hook and the MCP server, and another prefix replaces memdir's entries", async () => {
    const home = makeTempDir();
    const bin = path.join(root, "bin", "memdir.js");
    await setup(home, ["claude-code", "--command", `node ${bin}`]);
    const settings = readJson(path.join(home, ".claude/settings.json")) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    assert.equal(settings.hooks.SessionStart[0].hooks[0].command, `node ${bin} hook session-start`);
    assert.deepEqual(readJson(path.join(home, ".claude.json")).mcpServers, {
      memdir: { type: "stdio", command: "node", args: [bin, "mcp"] },
    });
    // Another prefix replaces memdir's entries instead of adding a second set.
    await setup(home, ["claude-code"]);
    const replaced = readJson(path.join(home, ".claude/settings.json")) as typeof settings;
    assert.deepEqual(
      replaced.hooks.SessionStart.map((group) => group.hooks[0].command),
      ["memdir hook session-start"],
    );
  });
});

describe("memdir setup respects the user's files", () => {
  it("writes through a symlinked settings.json (a dotfiles link) to its target and keeps the link", async () => {
    const home = makeTempDir();
    const dotfiles = path.join(home, "dotfiles");
    fs.mkdirSync(dotfiles, { recursive: true });
    const targetFile = path.join(dotfiles, "claude-settings.json");
    const originalText = '{\n  "model": "opus"\n}\n';
    fs.writeFileSync(targetFile, originalText);
    const settings = path.join(home, ".claude/settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    // A relative link, resolved against the link's own folder.
    fs.symlinkSync("../dotfiles/claude-settings.json", settings);

    const result = await cli(["setup", "claude-code"], { home });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.lstatSync(settings).isSymbolicLink(), "the link is still a link");
    assert.equal(fs.readlinkSync(settings), "../dotfiles/claude-settings.json");
    const written = readJson(targetFile) as { model: string; hooks: Record<string, unknown> };
    assert.equal(written.model, "opus");
    assert.deepEqual(Object.keys(written.hooks), ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"]);
    assert.equal(fs.readFileSync(`${settings}.memdir-backup`, "utf8"), originalText);
    assert.match(result.stdout, /a link: wrote .*dotfiles\/claude-settings\.json/);
    assert.deepEqual(
      fs.readdirSync(dotfiles),
      ["claude-settings.json"],
      "no temp file or backup is left in the dotfiles folder",
    );

    await setup(home, ["claude-code", "--remove"]);
    assert.ok(fs.lstatSync(settings).isSymbolicLink());
    assert.equal(fs.readFileSync(targetFile, "utf8"), originalText);
  });

  it("refuses a dangling symlink, saying where it points, and writes nothing", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".claude/settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.symlinkSync("../dotfiles/missing.json", settings);
    const result = await cli(["setup", "claude-code"], { home });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /settings\.json: is a symbolic link to \.\.\/dotfiles\/missing\.json, which does not exist .*nothing was changed/,
    );
    assert.ok(fs.lstatSync(settings).isSymbolicLink());
    assert.equal(fs.existsSync(path.join(home, "dotfiles")), false);
    assert.equal(fs.existsSync(path.join(home, ".claude.json")), false, "no other file was written");
  });

  it("refuses a read-only config with a clear message and writes nothing", async () => {
    const home = makeTempDir();
    const settings = path.join(home, ".claude/settings.json");
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, '{ "model": "opus" }\n');
    fs.chmodSync(settings, 0o444);
    const before = snapshot(home);
    const result = await cli(["setup", "claude-code"], { home });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /settings\.json: is read-only \(mode 0444\).*nothing was changed/);
    assert.deepEqual(snapshot(home), before);
    assert.equal(fs.statSync(settings).mode & 0o777, 0o444, "its mode was not touched");
    // --print writes nothing, so it still shows the change.
    assert.equal((await cli(["setup", "claude-code", "--print"], { home })).code, 0);
  });

  it("keeps the keys a user added to memdir's server entry, in JSON and in TOML", async () => {
    const home = makeTempDir();
    fs.writeFileSync(
      path.join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          memdir: { type: "stdio", command: "old", args: ["mcp"], env: { MEMDIR_MODEL: "m" }, timeout: 5 },
        },
      }),
    );
    fs.mkdirSync(path.join(home, ".gemini"), { recursive: true });
    fs.writeFileSync(
      path.join(home, ".gemini/settings.json"),
      JSON.stringify({
        mcpServers: { memdir: { command: "memdir", args: ["mcp"], timeout: 30000, trust: true } },
      }),
    );
    await setup(home, ["claude-code"]);
    assert.deepEqual(readJson(path.join(home, ".claude.json")).mcpServers, {
      memdir: { type: "stdio", command: "memdir", args: ["mcp"], env: { MEMDIR_MODEL: "m" }, timeout: 5 },
    });
    await setup(home, ["gemini"]);
    assert.deepEqual(readJson(path.join(home, ".gemini/settings.json")).mcpServers, {
      memdir: { command: "memdir", args: ["mcp"], timeout: 30000, trust: true },
    });
    const config = path.join(home, ".codex/config.toml");
    fs.mkdirSync(path.dirname(config), { recursive: true });
    const toml =
      '[mcp_servers.memdir]\ncommand = "npx"\nargs = ["-y", "memdir", "mcp"]\nrequired = true\nstartup_timeout_sec = 20\n';
    fs.writeFileSync(config, toml);
    fs.writeFileSync(config, toml.replace("required = true", "required = false"));
    await setup(home, ["codex"]);
    assert.equal(
      fs.readFileSync(config, "utf8"),
      `${toml.replace('"npx"', '"memdir"').replace('"-y", "memdir", "mcp"', '"mcp"').replace("required = true", "required = false")}\n${codexTrust(path.join(home, ".codex"))}`,
      "the user's required = false and startup_timeout_sec stay",
    );
  });

  it("edits Codex's config.toml where a multi-line string holds a [mcp_servers.memdir] line, and --remove restores it byte for byte", async () => {
    const home = makeTempDir();
    const config = path.join(home, ".codex/config.toml");
    const original = [
      "#   my settings   ",
      'model="gpt-5.5"',
      'developer_instructions = """',
      "To add memory, paste:",
      "[mcp_servers.memdir]",
      'command = "memdir"',
      '"""',
      "",
      "[mcp_servers.docs]   # docs",
      "args = [",
      '  "--port", # the port',
      '  "0",',
      "]",
      "",
    ].join("\n");
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, original);
    await setup(home, ["codex"]);
    const written = fs.readFileSync(config, "utf8");
    assert.equal(written, `${original}\n${CODEX_SERVER_TABLE}\n${codexTrust(path.join(home, ".codex"))}`);
    await setup(home, ["codex", "--remove"]);
    assert.equal(fs.readFileSync(config, "utf8"), original);
  });
});

// Claude Code expands this variable in a plugin's hooks and MCP servers to the plugin's folder.
const PLUGIN_ROOT = "$" + "{CLAUDE_PLUGIN_ROOT}";

describe("the Claude Code plugin in the repository", () => {
  it("has a manifest, a marketplace entry, and hooks and MCP server equal to what setup writes for the plugin folder", async () => {
    const packageJson = readJson(path.join(root, "package.json"));
    const plugin = readJson(path.join(root, ".claude-plugin/plugin.json"));
    assert.equal(plugin.name, "memdir");
    assert.equal(plugin.version, packageJson.version);
    assert.equal(plugin.license, packageJson.license);
    const marketplace = readJson(path.join(root, ".claude-plugin/marketplace.json")) as {
      name: string;
      owner: { name: string };
      plugins: Array<{ name: string; version: string; source: unknown }>;
    };
    assert.ok(marketplace.name && marketplace.owner.name);
    assert.deepEqual(
      marketplace.plugins.map((entry) => [entry.name, entry.version]),
      [["memdir", packageJson.version]],
    );
    assert.deepEqual(marketplace.plugins[0].source, {
      source: "npm",
      package: "memdir",
      version: packageJson.version,
    });

    const home = makeTempDir();
    await setup(home, ["claude-code", "--command", `node "${PLUGIN_ROOT}/bin/memdir.js"`]);
    const written = readJson(path.join(home, ".claude/settings.json"));
    assert.deepEqual(readJson(path.join(root, "hooks/hooks.json")).hooks, written.hooks);
    const mcp = readJson(path.join(home, ".claude.json")).mcpServers as { memdir: { args: string[] } };
    mcp.memdir.args[0] = mcp.memdir.args[0].replaceAll('"', "");
    assert.deepEqual(readJson(path.join(root, ".mcp.json")).mcpServers, mcp);
  });
});

describe("docs/integrations.md", () => {
  it("shows, for each agent, exactly what memdir setup writes", async () => {
    const docs = fs.readFileSync(path.join(root, "docs/integrations.md"), "utf8");
    const snippets = [...docs.matchAll(/<!-- memdir setup (\S+): (\S+) -->\n```(json|toml)\n([\s\S]*?)```/g)];
    assert.deepEqual([...new Set(snippets.map((match) => match[1]))].sort(), [
      "claude-code",
      "cline",
      "codex",
      "copilot",
      "cursor",
      "gemini",
      "opencode",
      "qwen",
    ]);
    const home = makeTempDir();
    for (const agent of Object.keys(USER_FILES)) await setup(home, [agent]);
    for (const [, agent, file, format, text] of snippets) {
      // Codex's hook trust keys name the hooks file by its absolute path: shown for a /home/you.
      const written = fs
        .readFileSync(path.join(home, file.replace(/^~\//, "")), "utf8")
        .replaceAll(`"${home}/`, '"/home/you/');
      if (format === "toml") assert.equal(text, written, `${agent}: ${file}`);
      else assert.deepEqual(JSON.parse(text), JSON.parse(written), `${agent}: ${file}`);
    }
  });
});
