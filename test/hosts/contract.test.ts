import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadTranscript } from "../../src/agent/transcript.ts";
import { planEdits, writePlanned } from "../../src/cli/setup/apply.ts";
import { configuredCommands } from "../../src/cli/setup/configured-commands.ts";
import { HOSTS } from "../../src/hosts/registry.ts";
import { HOOK_ACTIONS, type HookInput, normalizeHookEvent } from "../../src/hosts/shared/hook-events.ts";
import { HOST_NAMES, type Host, type HostName, type SetupRequest } from "../../src/hosts/shared/host.ts";
import { isRealUserMessage, messageText } from "../../src/types.ts";
import { makeTempDir } from "../helpers/temp.ts";

// One suite, run against every registered host, the way a storage library tests each driver
// (docs/design.md#hosts). What a host's real binary reads and sends is pinned here per host, from
// what test/integration/<agent>.test.ts sees the real agent do; the host's own code is then held
// to it.

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "hosts");
const CONTEXT = "# Memory index\n- [Staging](project_staging.md) — the staging database";
/** What the user said in every sample transcript (test/fixtures/hosts/<host>.jsonl). */
const USER_WORDS = "From now on the staging database listens on port 5433.";

/**
 * The answer each real binary reads for a context event, given the event name it sent: Claude
 * Code, Codex, Gemini CLI and Qwen Code read `hookSpecificOutput` and check its `hookEventName`;
 * Copilot CLI reads a top-level `additionalContext` (and drops `hookSpecificOutput`:
 * test/integration/copilot.test.ts); Cursor reads `additional_context` at `sessionStart` only.
 */
const READS: Record<HostName, ((hostEvent: string, context: string) => unknown) | null> = {
  "claude-code": (hostEvent, context) => ({
    hookSpecificOutput: { hookEventName: hostEvent, additionalContext: context },
  }),
  codex: (hostEvent, context) => ({
    hookSpecificOutput: { hookEventName: hostEvent, additionalContext: context },
  }),
  gemini: (hostEvent, context) => ({
    hookSpecificOutput: { hookEventName: hostEvent, additionalContext: context },
  }),
  qwen: (hostEvent, context) => ({
    hookSpecificOutput: { hookEventName: hostEvent, additionalContext: context },
  }),
  copilot: (_hostEvent, context) => ({ additionalContext: context }),
  cursor: (hostEvent, context) => (hostEvent === "sessionStart" ? { additional_context: context } : {}),
  // MCP (and opencode's plugin) only: no hook answers.
  opencode: null,
  cline: null,
};

/**
 * The `clientInfo.name` an agent sends in MCP's `initialize`, where a test pins it (Cline's:
 * test/mcp/structured-clients.test.ts); the others' names are not pinned anywhere yet.
 */
const MCP_CLIENT_NAMES: Record<HostName, readonly string[]> = {
  "claude-code": [],
  codex: [],
  gemini: [],
  qwen: [],
  copilot: [],
  opencode: [],
  cursor: [],
  cline: ["@cline/core"],
};

/** A hook run as each host starts one: its stdin, its environment, the `--host` setup wrote. */
function sampleHookRun(
  name: HostName,
  home: string,
): { input: HookInput; env: NodeJS.ProcessEnv; hostFlag?: string } | null {
  const cwd = path.join(home, "shop");
  switch (name) {
    case "claude-code":
      return {
        input: {
          session_id: "5f1c2d3e",
          transcript_path: path.join(home, ".claude", "projects", "-home-me-shop", "5f1c2d3e.jsonl"),
          cwd,
          hook_event_name: "SessionStart",
        },
        env: { HOME: home },
      };
    case "codex":
      return {
        input: {
          session_id: "019a2d7a",
          transcript_path: path.join(
            home,
            ".codex",
            "sessions",
            "2026",
            "12",
            "01",
            "rollout-2026-12-01T10-00-00-019a2d7a.jsonl",
          ),
          cwd,
          hook_event_name: "UserPromptSubmit",
          prompt: "fix the login test",
        },
        env: { HOME: home },
      };
    case "gemini":
      return {
        input: { session_id: "92f625c6", cwd, hook_event_name: "BeforeAgent", prompt: "fix the login test" },
        env: { HOME: home, GEMINI_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd },
      };
    case "qwen":
      return {
        input: { session_id: "q1", cwd, hook_event_name: "UserPromptSubmit", prompt: "fix the login test" },
        env: { HOME: home, QWEN_PROJECT_DIR: cwd, GEMINI_PROJECT_DIR: cwd, CLAUDE_PROJECT_DIR: cwd },
      };
    case "copilot":
      return {
        input: {
          session_id: "7d0e1c52",
          cwd,
          hook_event_name: "UserPromptSubmit",
          prompt: "fix the login test",
        },
        env: { HOME: home },
        hostFlag: "copilot",
      };
    case "cursor":
      return {
        input: {
          hook_event_name: "sessionStart",
          cursor_version: "2.0.77",
          workspace_roots: [cwd],
          session_id: "c1",
        },
        env: { HOME: home },
      };
    case "opencode":
    case "cline":
      return null;
  }
}

function setupRequest(host: Host, home: string, overrides: Partial<SetupRequest> = {}): SetupRequest {
  return {
    agent: host.name,
    scope: "user",
    home,
    projectRoot: path.join(home, "shop"),
    command: ["memdir"],
    commandLine: "memdir",
    remove: false,
    recommended: false,
    ...overrides,
  };
}

async function runSetup(request: SetupRequest): Promise<string[]> {
  const planned = await planEdits(
    (HOSTS.find((host) => host.name === request.agent) as Host).setup(request),
    { checkWrites: true, remove: request.remove, recommended: request.recommended },
  );
  await writePlanned(planned);
  return planned.map((file) => file.path);
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

describe("the host registry", () => {
  it("has one host per name setup takes, in the same order", () => {
    assert.deepEqual(
      HOSTS.map((host) => host.name),
      [...HOST_NAMES],
    );
  });
});

for (const host of HOSTS) {
  describe(`host ${host.name} (${host.displayName})`, () => {
    const hooks = host.hooks;
    if (hooks) {
      it("names its events, each one memdir knows, in the host's own spelling", () => {
        assert.ok(hooks.events.length > 0);
        for (const [hostEvent, memdirEvent] of hooks.events) {
          assert.notEqual(normalizeHookEvent(memdirEvent), null, `${memdirEvent} is a memdir event`);
          assert.equal(
            normalizeHookEvent(hostEvent),
            normalizeHookEvent(memdirEvent),
            `${hostEvent} means ${memdirEvent}`,
          );
        }
      });

      it("answers a session-start and a prompt context in the shape its real binary reads", () => {
        const reads = READS[host.name];
        assert.ok(reads, "a host with hooks has a pinned answer shape");
        const contextEvents = hooks.events.filter(([, memdirEvent]) => {
          const event = normalizeHookEvent(memdirEvent);
          return event !== null && ["session-context", "prompt-context"].includes(HOOK_ACTIONS[event]);
        });
        assert.ok(contextEvents.length > 0, "it wires at least one context event");
        for (const [hostEvent, memdirEvent] of contextEvents) {
          const event = normalizeHookEvent(memdirEvent);
          assert.ok(event);
          assert.deepEqual(hooks.answer(event, CONTEXT, hostEvent), reads(hostEvent, CONTEXT), hostEvent);
          assert.deepEqual(hooks.answer(event, "  ", hostEvent), {}, "nothing to add is {}");
        }
      });

      it("says what its hooks give (recall on every prompt, extraction after each turn) as its events do", () => {
        const actions = hooks.events.map(([, memdirEvent]) => {
          const event = normalizeHookEvent(memdirEvent);
          return event === null ? "nothing" : HOOK_ACTIONS[event];
        });
        assert.equal(host.lifecycle.everyPrompt, actions.includes("prompt-context"));
        assert.equal(host.lifecycle.afterEachTurn, actions.includes("extract"));
      });

      it("recognizes a hook run of its own", () => {
        const run = sampleHookRun(host.name, makeTempDir("memdir-host-"));
        assert.ok(run, "a host with hooks has a sample run");
        assert.equal(hooks.recognizes(run.input, run.env, run.hostFlag), true, hooks.recognizedBy);
      });
    }

    const transcript = host.transcript;
    if (transcript) {
      it("reads a sample session file of its real format as the user's words and the reply", () => {
        const file = path.join(FIXTURES, `${host.name}.jsonl`);
        const messages = transcript.read(fs.readFileSync(file, "utf8"));
        assert.deepEqual(
          messages.filter(isRealUserMessage).map(messageText),
          [USER_WORDS],
          "only the user's own words, not the context the host added",
        );
        assert.ok(messages.some((message) => message.role === "assistant"));
        // The extraction's own reader (src/agent/transcript.ts) reads the file the same way.
        assert.deepEqual(loadTranscript(file).messages, messages);
      });
    }

    it("writes setup files its own reader parses back, and --remove takes memdir out again", async () => {
      const home = makeTempDir("memdir-host-");
      const written = await runSetup(setupRequest(host, home));
      assert.ok(written.length > 0);
      const locations = { home, projectRoot: path.join(home, "shop") };
      const found = (await configuredCommands(locations)).filter((entry) => entry.agent === host.name);
      assert.ok(
        found.some((entry) => entry.entry === "MCP server" && entry.argv.join(" ") === "memdir mcp"),
        `the MCP server is read back: ${JSON.stringify(found)}`,
      );
      const hookEvents = found.filter((entry) => entry.entry.startsWith("hook ")).map((entry) => entry.entry);
      assert.deepEqual(
        hookEvents.sort(),
        (hooks?.events ?? []).map(([event]) => `hook ${event}`).sort(),
        "each hook it wires is read back under the host's event name",
      );

      await runSetup(setupRequest(host, home, { remove: true }));
      assert.deepEqual(
        (await configuredCommands(locations)).filter((entry) => entry.agent === host.name),
        [],
      );
      for (const file of written)
        if (fs.existsSync(file))
          assert.doesNotMatch(fs.readFileSync(file, "utf8"), /memdir/, `${file} keeps nothing of memdir's`);
    });

    const mcpClient = host.mcpClient;
    if (mcpClient) {
      it("names its MCP client as it introduces itself in initialize", () => {
        assert.ok(MCP_CLIENT_NAMES[host.name].length > 0, "a pinned client name");
        for (const name of MCP_CLIENT_NAMES[host.name]) assert.match(name, mcpClient.name);
        for (const other of HOSTS)
          if (other !== host)
            for (const name of MCP_CLIENT_NAMES[other.name]) assert.doesNotMatch(name, mcpClient.name);
      });
    }

    it("names the environment variables that move its folders, and setup writes there", () => {
      for (const [field, variable] of Object.entries(host.folderEnv)) {
        assert.match(variable, /^[A-Z][A-Z0-9_]*$/, `${field}: an environment variable's name`);
        const home = makeTempDir("memdir-host-");
        const moved = path.join(home, "moved");
        const paths = host.setup(setupRequest(host, home, { [field]: moved })).map((edit) => edit.path);
        assert.ok(
          paths.some((file) => file.startsWith(`${moved}${path.sep}`)),
          `${variable} moves a file setup writes: ${paths.join(", ")}`,
        );
      }
    });

    const doctor = host.doctor;
    if (doctor) {
      it("has a doctor check that finds nothing wrong with what its own setup wrote", async () => {
        const home = makeTempDir("memdir-host-");
        assert.deepEqual(await doctor({ home }), []);
        await runSetup(setupRequest(host, home));
        assert.deepEqual(await doctor({ home }), []);
      });
    }

    it("describes its native memory and how memdir coexists with it", async () => {
      assert.ok(host.nativeMemory.what.trim() !== "");
      assert.ok(host.nativeMemory.coexistence.trim() !== "");
      if (host.nativeMemory.recommended.length === 0) return;
      // `--recommended` sets each of them, and `--remove` puts back what the file held.
      const home = makeTempDir("memdir-host-");
      const request = setupRequest(host, home, { recommended: true });
      const edit = host
        .setup(request)
        .find((candidate) => candidate.format === "json" && candidate.recommended);
      assert.ok(edit, "the settings file that holds them");
      fs.mkdirSync(path.dirname(edit.path), { recursive: true });
      fs.writeFileSync(edit.path, `${JSON.stringify({ theme: "dark" }, null, 2)}\n`);
      const before = fs.readFileSync(edit.path, "utf8");
      await runSetup(request);
      const after = readJson(edit.path);
      for (const setting of host.nativeMemory.recommended) {
        const value = setting.path.reduce<unknown>(
          (at, key) => (at as Record<string, unknown> | undefined)?.[key],
          after,
        );
        assert.deepEqual(value, setting.value, setting.path.join("."));
      }
      await runSetup(setupRequest(host, home, { remove: true }));
      assert.equal(fs.readFileSync(edit.path, "utf8"), before);
    });
  });
}
