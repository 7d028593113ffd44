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
  CLINE_VERSION,
  chatText,
  INDEX_LINE,
  installCline,
  newMemories,
  PROMPT,
  runAgent,
  SAVE_INPUT,
  SECRET_WORD,
  toolNames,
  toolResults,
} from "../helpers/openai-agents.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

// The real Cline CLI, installed from the npm registry and run headless (`cline --json -c <dir>`,
// act mode, auto-approve) against the fake model server as an OpenAI-compatible provider
// (`cline auth`), wired by the real `memdir setup cline`: memdir's MCP server in Cline's settings.

const install = installCline();
const skip = "skip" in install ? install.skip : false;
const clineBin = "bin" in install ? install.bin : "";

const SAVE_TOOL = "memdir__memory_save";
const RECALL_TOOL = "memdir__memory_recall";

function fromCline(request: FakeRequest): boolean {
  return (request.headers["user-agent"] ?? "").startsWith("ai-sdk/");
}

function modelServer(step: (request: FakeRequest) => FakeStep): Promise<FakeModelServer> {
  const server = startFakeModelServer((request) =>
    fromCline(request) ? step(request) : "Nothing worth saving.",
  );
  // Registered now, not once started: an `after` added from a `before` hook runs as that hook ends.
  after(async () => (await server).close());
  return server;
}

function clineProject(): AgentProject {
  const fixture = agentProject("memdir-cline-");
  after(() => {
    for (const pid of processesOfHome(fixture.home)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
  });
  return fixture;
}

function clineEnv(fixture: AgentProject): Record<string, string> {
  return {
    PATH: [fixture.binDir, process.env.PATH ?? ""].join(path.delimiter),
    HOME: fixture.home,
    NO_COLOR: "1",
    MEMDIR_HELPER: "0",
    // Cline polls its feature flags from data.cline.bot (PostHog) on every run; it skips that,
    // and only that, when IS_TEST is "true" (the global settings below turn off the rest).
    IS_TEST: "true",
  };
}

/**
 * `memdir setup cline` as a user runs it (`~/.cline/data/settings/cline_mcp_settings.json`), and
 * Cline pointed at the fake model server with its own `cline auth`.
 */
async function setupMemdir(fixture: AgentProject, server: FakeModelServer): Promise<void> {
  const { home, project } = fixture;
  // `--command memdir`: the documented command, which the wrapper on the agent's PATH answers.
  const setup = await runCli(["setup", "cline", "--json", "--command", "memdir"], { home, cwd: project });
  assert.equal(setup.code, 0, `memdir setup: ${setup.stderr}`);
  const files = (JSON.parse(setup.stdout) as { files: { path: string }[] }).files.map((file) => file.path);
  assert.deepEqual(files, [path.join(home, ".cline", "data", "settings", "cline_mcp_settings.json")]);
  // Cline sends telemetry (otel.cline.bot, data.cline.bot) and checks the npm registry for updates
  // unless its global settings opt out, as a user does: a test reaches no network.
  fs.writeFileSync(
    path.join(home, ".cline", "data", "settings", "global-settings.json"),
    JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }),
  );
  const auth = await runAgent(
    clineBin,
    ["auth", "-p", "openai-compatible", "-k", "dummy", "-m", "fake-model", "-b", server.openaiBaseURL],
    { cwd: project, env: clineEnv(fixture) },
  );
  assert.equal(auth.code, 0, `cline auth: ${auth.stderr}${auth.stdout}`);
}

/**
 * Stops what Cline left running for the HOME — its hub daemon (`--cline-hub-daemon`), by pid —
 * and waits until nothing of the run is left.
 */
async function stopHub(fixture: AgentProject): Promise<void> {
  for (const pid of processesOfHome(fixture.home)) {
    let command = "";
    try {
      command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
    } catch {}
    if (command.includes("--cline-hub-daemon")) process.kill(pid, "SIGTERM");
  }
  await waitFor(() => processesOfHome(fixture.home).every(processGone), {
    what: "Cline's hub daemon and the run's other processes to exit",
  });
}

async function promptCline(fixture: AgentProject, prompt = PROMPT): Promise<AgentRun> {
  const run = await runAgent(clineBin, ["--json", "-c", fixture.project, prompt], {
    cwd: fixture.project,
    env: clineEnv(fixture),
  });
  await stopHub(fixture);
  return run;
}

function assertRan(run: AgentRun): void {
  assert.equal(run.code, 0, `cline exited ${run.code}: ${run.stderr}${run.stdout}`);
}

const TITLE = `Cline CLI ${CLINE_VERSION} with memdir (the real CLI, offline)`;

if (skip) it(TITLE, { skip }, () => {});
else
  describe(TITLE, () => {
    describe("a prompt the model answers with memory_recall", () => {
      const fixture = clineProject();
      const started = modelServer((request) =>
        toolResults(request).length > 0
          ? ANSWER
          : { toolCall: { name: RECALL_TOOL, input: { query: PROMPT } } },
      );
      let server: FakeModelServer;
      let run: AgentRun;
      before(async () => {
        server = await started;
        await setupMemdir(fixture, server);
        run = await promptCline(fixture);
      });

      it("offers memdir's tools in its first request: the MCP server was not dropped at start", () => {
        assertRan(run);
        const [first] = server.requests.filter(fromCline);
        assert.ok(first, "Cline asked the model");
        assert.ok(toolNames(first).includes(RECALL_TOOL), toolNames(first).join(", "));
        assert.ok(toolNames(first).includes(SAVE_TOOL));
      });

      // Cline 3.0.65 puts the tool result's text block and its structuredContent in the one tool
      // message; memory_recall's structuredContent carries each memory's body, so for Cline the
      // text only points at it (src/mcp/tools.ts, test/mcp/structured-clients.test.ts).
      it("gives the model each recalled memory once (Cline sends the text block and structuredContent)", () => {
        const last = server.requests.filter(fromCline).at(-1)!;
        const results = toolResults(last);
        assert.equal(results.length, 1, "the recall's result");
        assert.equal(occurrences(chatText(last), SECRET_WORD), 1, results[0]);
        assert.ok(run.stdout.includes(ANSWER));
      });

      it("brings no index of its own (no hooks): the model sees MEMORY.md only through the tools", () => {
        const [first] = server.requests.filter(fromCline);
        assert.equal(occurrences(chatText(first), INDEX_LINE), 0);
      });

      it("makes no model request of memdir's own, and the hub daemon is gone", () => {
        assert.deepEqual(
          server.requests
            .filter((request) => !fromCline(request))
            .map((request) => request.headers["user-agent"]),
          [],
        );
        assert.deepEqual(processesOfHome(fixture.home), []);
      });
    });

    it("saves through memdir's MCP tool (memdir__memory_save), offered from the first request: 3 runs of 3", async () => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const fixture = clineProject();
        const server = await modelServer((request) => {
          if (toolResults(request).length > 0) return "Saved.";
          return toolNames(request).includes(SAVE_TOOL)
            ? { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } }
            : "memory_save was not offered.";
        });
        await setupMemdir(fixture, server);
        const run = await promptCline(fixture, "For future sessions: the release train leaves on Thursdays.");
        assertRan(run);
        const [first] = server.requests.filter(fromCline);
        assert.ok(toolNames(first).includes(SAVE_TOOL), `run ${attempt}: memory_save in the first request`);
        const saved = newMemories(fixture.memoryDir);
        assert.equal(saved.length, 1, `run ${attempt}: ${saved.join(", ")} (${run.stdout.slice(-2000)})`);
        assert.match(
          fs.readFileSync(path.join(fixture.memoryDir, saved[0]), "utf8"),
          /every Thursday at 15:00 UTC/,
        );
        const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8");
        assert.ok(index.startsWith(`${INDEX_LINE}\n`), "the earlier line is kept");
        assert.equal(occurrences(index, `](${saved[0]})`), 1, `run ${attempt}: its index line`);
      }
    });

    it('ends a "remember …" prompt with exactly one memory (the model\'s memory_save; no hook saves)', async () => {
      const fixture = clineProject();
      const server = await modelServer((request) =>
        toolResults(request).length > 0 ? "Saved." : { toolCall: { name: SAVE_TOOL, input: SAVE_INPUT } },
      );
      await setupMemdir(fixture, server);
      assertRan(
        await promptCline(fixture, "Remember that the release train leaves every Thursday at 15:00 UTC."),
      );
      const saved = newMemories(fixture.memoryDir);
      assert.equal(saved.length, 1, saved.join(", "));
      const index = fs.readFileSync(path.join(fixture.memoryDir, "MEMORY.md"), "utf8").trim().split("\n");
      assert.equal(index.length, 2, index.join("\n"));
    });
  });
