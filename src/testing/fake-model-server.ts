import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  anthropicErrorBody,
  anthropicJsonSchema,
  anthropicSystem,
  anthropicUserText,
  writeAnthropicMessage,
} from "./fake-anthropic-wire.ts";
import {
  type GeminiRoute,
  geminiErrorBody,
  geminiJsonSchema,
  geminiRoute,
  geminiSystem,
  geminiUserText,
  writeGeminiMessage,
} from "./fake-gemini-wire.ts";
import {
  openaiErrorBody,
  openaiJsonSchema,
  openaiSystem,
  openaiUserText,
  writeOpenAIMessage,
} from "./fake-openai-wire.ts";
import * as responses from "./fake-responses-wire.ts";
import { type FakeRequest, type FakeStep, type FakeStepFunction, resolveStep } from "./fake-steps.ts";

/** A running fake model server. */
export interface FakeModelServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Base URL for the Anthropic SDK / `ANTHROPIC_BASE_URL` (the SDK appends `/v1/messages`). */
  readonly anthropicBaseURL: string;
  /**
   * Base URL for the OpenAI SDK / `OPENAI_BASE_URL` (`…/v1`; the SDK appends `/chat/completions`
   * or `/responses`), and for a Codex provider's `base_url`.
   */
  readonly openaiBaseURL: string;
  /** Base URL for the Gemini API / `GOOGLE_GEMINI_BASE_URL` (the client appends `/v1beta/models/…`). */
  readonly geminiBaseURL: string;
  /** Every request received, in order (including rejected and retried ones). */
  readonly requests: FakeRequest[];
  /** Appends steps to the script. */
  push(...steps: FakeStep[]): void;
  /** Steps not yet used. */
  readonly remaining: number;
  /** Stops the server and drops open connections (hanging requests included). */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a model server on `127.0.0.1` (a free port) that speaks the Anthropic Messages API
 * (`POST /v1/messages`), the OpenAI chat-completions API (`POST /v1/chat/completions`) and the
 * OpenAI Responses API (`POST /v1/responses`, what Codex CLI speaks) and the Gemini API
 * (`POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent`), JSON and
 * streaming, and answers each request with the next step of `script` (see {@link FakeStep}).
 * A function instead of an array answers every request. When the script runs out, the server
 * answers 500 with `x-should-retry: false`, so a test that makes one call too many fails loudly.
 *
 * Requests need a key (`x-api-key`, `x-goog-api-key`, `?key=` or `Authorization: Bearer`), like the
 * real services; any value works.
 *
 * @example
 * import { createAnthropicClient } from "memdir/model";
 * import { startFakeModelServer } from "memdir/testing";
 * const server = await startFakeModelServer(["Hello!", { json: { selected_memories: [] } }]);
 * const client = createAnthropicClient({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 });
 * await client.complete({ messages: [{ id: "1", role: "user", content: "hi" }], maxTokens: 100 });
 * server.requests[0].body; // what the client sent
 * await server.close();
 */
export async function startFakeModelServer(
  script: FakeStep[] | FakeStepFunction = [],
): Promise<FakeModelServer> {
  const queue: FakeStep[] = Array.isArray(script) ? [...script] : [];
  const every = Array.isArray(script) ? null : script;
  const requests: FakeRequest[] = [];
  let idCounter = 0;
  const nextToolId = (api: FakeRequest["api"]) => () =>
    `${api === "anthropic" ? "toolu" : "call"}_fake_${String(++idCounter).padStart(4, "0")}`;

  const server = http.createServer((incoming, response) => {
    readBody(incoming).then(
      (raw) => handle(incoming, raw, response),
      () => response.destroy(),
    );
  });

  async function handle(
    incoming: http.IncomingMessage,
    raw: string,
    response: http.ServerResponse,
  ): Promise<void> {
    const address = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const pathname = address.pathname.replace(/\/+$/, "");
    const gemini = geminiRoute(pathname);
    const api = apiOf(pathname, gemini);
    const errorBody = errorBodyFor(api);
    const sendError = (status: number, message: string, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(errorBody(status, message)));
    };
    if (incoming.method !== "POST" || api === null) {
      sendError(404, `fake model server: no route for ${incoming.method} ${pathname}`, {
        "x-should-retry": "false",
      });
      return;
    }
    const request = requestOf(incoming, address, pathname, api, gemini, parseJson(raw));
    const { body } = request;
    requests.push(request);
    if (!request.apiKey) {
      sendError(401, "fake model server: missing x-api-key or Authorization: Bearer header", {
        "x-should-retry": "false",
      });
      return;
    }
    const step = every ?? queue.shift();
    if (step === undefined) {
      sendError(500, `fake model server: the script has no step left for request ${requests.length}`, {
        "x-should-retry": "false",
      });
      return;
    }
    let reply: Awaited<ReturnType<typeof resolveStep>>;
    try {
      reply = await resolveStep(step, request, nextToolId(api));
    } catch (error) {
      sendError(500, `fake model server: step function failed: ${String(error)}`, {
        "x-should-retry": "false",
      });
      return;
    }
    if (reply.kind === "hang") return; // left open until the client aborts or close() drops it
    if (reply.kind === "error") {
      sendError(reply.status, reply.message, retryHeadersOf(reply));
      return;
    }
    const messageId = `${{ anthropic: "msg", openai: "chatcmpl", "openai-responses": "resp", gemini: "resp" }[api]}_fake_${requests.length}`;
    if (gemini !== null)
      writeGeminiMessage(response, reply, { body, stream: request.stream, messageId, model: gemini.model });
    else {
      const write = {
        anthropic: writeAnthropicMessage,
        openai: writeOpenAIMessage,
        "openai-responses": responses.writeResponsesMessage,
      }[api as "anthropic" | "openai" | "openai-responses"];
      write(response, reply, { body, stream: request.stream, messageId });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Hanging requests and keep-alive sockets would otherwise hold close() (and the test) open.
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    geminiBaseURL: url,
    requests,
    push: (...steps) => {
      queue.push(...steps);
    },
    get remaining() {
      return queue.length;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The wires the server answers on. */
type FakeApi = "anthropic" | "openai" | "openai-responses" | "gemini";

/** Which wire a request path speaks, or null for no route. */
function apiOf(pathname: string, gemini: GeminiRoute | null): FakeApi | null {
  if (pathname.endsWith("/messages")) return "anthropic";
  if (pathname.endsWith("/chat/completions")) return "openai";
  if (pathname.endsWith("/responses")) return "openai-responses";
  return gemini !== null ? "gemini" : null;
}

/** The error body each wire's clients parse (Anthropic's shape when there is no route). */
function errorBodyFor(api: FakeApi | null): typeof anthropicErrorBody {
  if (api === "openai" || api === "openai-responses") return openaiErrorBody;
  return api === "gemini" ? geminiErrorBody : anthropicErrorBody;
}

/** One POST request as the tests read it: headers, key, body and what the wire's body says. */
function requestOf(
  incoming: http.IncomingMessage,
  address: URL,
  pathname: string,
  api: FakeApi,
  gemini: GeminiRoute | null,
  body: Record<string, unknown> | null,
): FakeRequest {
  const headers = Object.fromEntries(
    Object.entries(incoming.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : (value ?? ""),
    ]),
  );
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1] ?? null;
  return {
    api,
    method: "POST",
    path: pathname,
    headers,
    body,
    apiKey: headers["x-api-key"] || headers["x-goog-api-key"] || address.searchParams.get("key") || bearer,
    stream: gemini?.stream ?? body?.stream === true,
    ...(api === "gemini"
      ? { system: geminiSystem(body), userText: geminiUserText(body), jsonSchema: geminiJsonSchema(body) }
      : api === "anthropic"
        ? {
            system: anthropicSystem(body),
            userText: anthropicUserText(body),
            jsonSchema: anthropicJsonSchema(body),
          }
        : {
            system: openaiSystem(body),
            userText: openaiUserText(body),
            jsonSchema: openaiJsonSchema(body),
          }),
    ...(api === "openai-responses" ? responses.requestFields(body) : {}),
  };
}

/** The retry headers an error step asks for. */
function retryHeadersOf(reply: {
  retryAfterMs?: number;
  retryAfter?: number | string;
}): Record<string, string> {
  const retryHeaders: Record<string, string> = {};
  if (reply.retryAfterMs !== undefined) retryHeaders["retry-after-ms"] = String(reply.retryAfterMs);
  if (reply.retryAfter !== undefined) retryHeaders["retry-after"] = String(reply.retryAfter);
  return retryHeaders;
}

function readBody(incoming: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.on("error", reject);
  });
}

function parseJson(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
