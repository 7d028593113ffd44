import assert from "node:assert/strict";
import { it } from "node:test";
import type { FakeRequest, FakeStep } from "../../src/testing/index.ts";
import { type AgentTraits, describeHeadlessAgent } from "../helpers/headless-agent-suite.ts";
import { GEMINI_CLI_VERSION, installHeadlessAgent } from "../helpers/headless-agents.ts";

// The real Gemini CLI, installed from the npm registry and run headless (`gemini -p`) against the
// fake model server's Gemini API, wired by the real `memdir setup gemini` (hooks, MCP server and
// memdir's policy file): what memdir puts in front of the model, and what it saves.

const install = installHeadlessAgent("gemini");

/** Gemini CLI's model router asks for a complexity score first (a JSON, non-streamed request). */
function routerStep(request: FakeRequest): FakeStep | null {
  if (request.stream || request.jsonSchema === null) return null;
  const wanted = JSON.stringify(request.jsonSchema);
  assert.match(wanted, /complexity_score/, "the only JSON request Gemini CLI makes here is its router's");
  return { json: { complexity_reasoning: "a short question", complexity_score: 10 } };
}

const GEMINI: AgentTraits = {
  agent: "gemini",
  setupArgs: [],
  isMain: (request) => request.api === "gemini" && request.stream,
  sideStep: routerStep,
  saveStep: (request, input) => {
    if (JSON.stringify(request.body?.contents ?? []).includes('"functionResponse"')) return "Saved.";
    // Headless, Gemini CLI offers an MCP tool only when a policy allows it (memdir's policy file).
    if (JSON.stringify(request.body?.tools ?? []).includes('"mcp_memdir_memory_save"'))
      return { toolCall: { name: "mcp_memdir_memory_save", input } };
    return "memory_save was not offered.";
  },
};

const TITLE = `Gemini CLI ${GEMINI_CLI_VERSION} with memdir (the real CLI, headless, offline)`;
if ("skip" in install) it(TITLE, { skip: install.skip }, () => {});
else describeHeadlessAgent(TITLE, GEMINI, install.bin);
