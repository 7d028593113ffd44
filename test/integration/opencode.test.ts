import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type FakeModelServer,
  type FakeRequest,
  type FakeStep,
  startFakeModelServer,
} from "../../src/testing/index.ts";
import { occurrences, processesOfHome } from "../helpers/claude-code.ts";
import { runCli } from "../helpers/cli.ts";
import {
  type AgentProject,
  type AgentRun,
  ANSWER,
  agentProject,
  chatText,
  INDEX_LINE,
  installOpencode,
  newMemories,
  OPENCODE_VERSION,
  PROMPT,
  provideOpencodeConfigDeps,
  runAgent,
  SAVE_INPUT,
  SECRET_WORD,
  toolNames,
  toolResults,
} from "../helpers/openai-agents.ts";
import { waitFor } from "../helpers/wait.ts";

// The real opencode, installed from the npm registry and run with `opencode run` against the fake
// model server (an OpenAI-compatible provider in the project's opencode.json, as a user
// configures one), wired by the real `memdir setup opencode`: the MCP server and memdir's plugin.

const install = installOpencode();
const skip = "skip" in install ? install.skip : false;
const opencodeBin = "bin" in install ? install.bin : "";
const configDeps = "configDeps" in install ? install.configDeps : "";

const SAVE_TOOL = "memdir_memory_save";
/** opencode's first request of a session names it; it has no tools. */
const TITLE_SYSTEM = "You are a title generator";

function fromOpencode(request: FakeRequest): boolean {
  return (request.headers["user-agent"] ?? "").startsWith("opencode/");
}

/** opencode's requests that run the agent (not the title request). */
function mainRequests(server: FakeModelServer): FakeRequest[] {
  return server.requests.filter((request) => fromOpencode(request) && !request.system.includes(TITLE_SYSTEM));
}

function modelServer(step: (request: FakeRequest) => FakeStep): Promise<FakeModelServer> {
  const server = startFakeModelServer((request) => {
    if (request.system.includes(TITLE_SYSTEM)) return "Staging freeze";
    if (fromOpencode(request)) return step(request);
    return "Nothing worth saving.";
  });
  // Registered now, not once started: an `after` added from a `before` hook runs as that hook ends.
  after(async () => (await server).close());
  return server;
}

function opencodeProject(): AgentProject {
  const fixture = agentProject("memdir-opencode-");
  after(() => {
    for (const pid of processesOfHome(fixture.home)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });
  return fixture;
}

/**
 * `memdir setup opencode` as a user runs it (the MCP server in `~/.config/opencode/opencode.json`,
 * the plugin in `~/.config/opencode/plugins/memdir.js`), and the user's own model provider in the
 * project's opencode.json.
 */
async function setupMemdir({ home, project }: AgentProject): Promise<void> {
  // `--command memdir`: the documented command, which the wrapper on the agent's PATH answers.
  const setup = await runCli(["setup", "opencode", "--json", "--command", "memdir"], { home, cwd: project });
  assert.equal(setup.code, 0, `memdir setup: ${setup.stderr}`);
  const files = (JSON.parse(setup.stdout) as { files: { path: string }[] }).files.map((file) => file.path);
  const config = path.join(home, ".config", "opencode");
  assert.deepEqual(files, [path.join(config, "opencode.json"), path.join(config, "plugins", "memdir.js")]);
  // What opencode would fetch from the registry on this HOME's first start, from the cache.
  provideOpencodeConfigDeps(home, configDeps);
  fs.writeFileSync(
    path.join(project, "opencode.json"),
    JSON.stringify({
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: "{env:FAKE_BASE_URL}", apiKey: "dummy" },
          models: { "fake-model": { tool_call: true } },
        },
      },
      model: "fake/fake-model",
      small_model: "fake/fake-model",
      autoupdate: false,
      share: "disabled",
    }),
  );
}

function promptOpencode(fixture: AgentProject, server: FakeModelServer, prompt = PROMPT): Promise<AgentRun> {
  return runAgent(opencodeBin, ["run", prompt], {
    cwd: fixture.project,
    env: {
      PATH: [fixture.binDir, process.env.PATH ?? ""].join(path.delimiter),
      HOME: fixture.home,
      NO_COLOR: "1",
      MEMDIR_HELPER: "0",
      MEMDIR_HOOK_TIMEOUT_MS: "60000",
      FAKE_BASE_URL: server.openaiBaseURL,
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    },
  });
}

async function backgroundDone(home: string): Promise<void> {
  await waitFor(() => processesOfHome(home).length === 0, { what: "the run's background processes" });
}

function assertRan(run: AgentRun): void {
  assert.equal(run.code, 0, `opencode exited ${run.code}: ${run.stderr}${run.stdout}`);
}

const TITLE = `opencode ${OPENCODE_VERSION} with memdir (the real CLI, offline)`;

if (skip) it(TITLE, { skip }, () => {});
else
  describe(TITLE, () => {
    describe("one prompt after `memdir setup opencode`", () => {
      const fixture = opencodeProject();
      const started = modelServer(() => ANSWER);
      let server: FakeModelServer;
      let run: AgentRun;
      before(async () => {
        await setupMemdir(fixture);
        server = await started;
        run = await promptOpencode(fixture, server);
      });

      it("answers, with the index (memdir's plugin) in the system prompt exactly once", () => {
        assertRan(run);
        assert.ok(run.stdout.includes(ANSWER), run.stdout);
        const [main] = mainRequests(server);
        assert.ok(main, "opencode sent the prompt to the model");
        assert.equal(occurrences(main.system, INDEX_LINE), 1, "the index line, once, in the system prompt");
        assert.equal(occurrences(chatText(main), INDEX_LINE), 1, "and nowhere else");
      });

      it("starts without installing anything: no npm cache in its HOME, its plugin dependencies untouched", () => {
        assertRan(run);
        // opencode installs its config folder's dependencies through npm when they are missing,
        // which would reach the registry from a test: they must have been there already.
        assert.equal(fs.existsSync(path.join(fixture.home, ".npm")), false, "opencode ran npm");
        const config = path.join(fixture.home, ".config", "opencode");
        assert.equal(
          fs.readlinkSync(path.join(config, "node_modules")),
          path.join(configDeps, "node_modules"),
        );
        assert.deepEqual(
          fs.readFileSync(path.join(config, "package-lock.json")),
          fs.readFileSync(path.join(configDeps, "package-lock.json")),
        );
      });

      it("adds the recalled memory to the prompt exactly once", () => {
        const [main] = mainRequests(server);
        assert.equal(occurrences(main.userText, SECRET_WORD), 1, "in the user's message");
        assert.equal(occurrences(chatText(main), SECRET_WORD), 1, "once in the request");
        assert.ok(main.userText.includes(PROMPT), "beside the prompt");
      });

      it("offers memdir's MCP tools and makes no model request of memdir's own", async () => {
        assert.ok(toolNames(mainRequests(server)[0]).includes(SAVE_TOOL));
        await backgroundDone(fixture.home);
        const own = server.requests.filter((request) => !fromOpencode(request));
        assert.deepEqual(
          own.map((request) => request.headers["user-agent"]),
          [],
        );
      });
    });

    it("saves through memdir's MCP tool (memdir_memory_save): the file and its MEMORY.md line, 3 runs of 3", async () => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const fixture = opencodeProject();
        await setupMemdir(fixture);
        const server = await modelServer((request) => {
          if (toolResults(request).length > 0) return "Saved.";
          return toolNames(request).includes(SAVE_TOOL)
            ? { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } }
            : "memory_save was not offered.";
        });
        const run = await promptOpencode(
          fixture,
          server,
          "For future sessions: the release train leaves on Thursdays.",
        );
        assertRan(run);
        const saved = newMemories(fixture.memoryDir);
        assert.equal(saved.length, 1, `run ${attempt}: ${saved.join(", ")} (${run.stdout})`);
        assert.match(
          fs.readFileSync(path.join(fixture.memoryDir, saved[0]), "utf8"),
          /every Thursday at 15:00 UTC/,
        );
        const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier line is kept");
        assert.equal(occurrences(index, `](${saved[0]})`), 1, `run ${attempt}: its index line`);
        const last = mainRequests(server).at(-1)!;
        assert.ok(toolResults(last).join("\n").includes(saved[0]), "the tool result names the file");
        await backgroundDone(fixture.home);
      }
    });

    it('ends a "remember …" prompt with exactly one memory: the plugin\'s prompt hook saves it and tells the model', async () => {
      const fixture = opencodeProject();
      await setupMemdir(fixture);
      const server = await modelServer((request) => {
        if (toolResults(request).length > 0) return "Saved.";
        if (chatText(request).includes("memdir: Saved")) return "Noted.";
        return { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } };
      });
      assertRan(
        await promptOpencode(
          fixture,
          server,
          "Remember that the release train leaves every Thursday at 15:00 UTC.",
        ),
      );
      await backgroundDone(fixture.home);
      const saved = newMemories(fixture.memoryDir);
      assert.equal(saved.length, 1, saved.join(", "));
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8").trim().split("\n");
      assert.equal(index.length, 2, index.join("\n"));
    });

    it('ends a "remember …" with one memory even when the model saves it again: memory_save answers it is already saved', async () => {
      const fixture = opencodeProject();
      await setupMemdir(fixture);
      // A model that follows "save it immediately" and ignores the hook's notice.
      const server = await modelServer((request) =>
        toolResults(request).length > 0 ? "Saved." : { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } },
      );
      assertRan(
        await promptOpencode(
          fixture,
          server,
          "Remember that the release train leaves every Thursday at 15:00 UTC.",
        ),
      );
      await backgroundDone(fixture.home);
      const saved = newMemories(fixture.memoryDir);
      assert.equal(saved.length, 1, saved.join(", "));
      const last = mainRequests(server).at(-1)!;
      assert.match(toolResults(last).join("\n"), new RegExp(`Already saved in this session as ${saved[0]}`));
    });
  });
