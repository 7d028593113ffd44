import { z } from "zod";
import { isMemdirError } from "../errors.ts";
import type { ModelClient } from "./client.ts";
import { parseJsonReply, responseText } from "./json-repair.ts";
import type { SideQueryFailure } from "./side-query-failure.ts";

export type SideQueryResult<T> = { ok: true; data: T } | { ok: false; failure: SideQueryFailure };

export interface SideQueryOptions<T> {
  system: string;
  user: string;
  /** Validates the reply; also the source of the JSON schema when `jsonSchema` is not given. */
  schema: z.ZodType<T>;
  /** The JSON schema sent to the model; defaults to `z.toJSONSchema(schema)`. */
  jsonSchema?: Record<string, unknown>;
  /** Schema name for providers that want one (OpenAI). */
  name?: string;
  maxTokens: number;
  model?: string;
  signal?: AbortSignal;
  /** Gives up after this long; default 15 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * One structured call to a model on the side of the main conversation (memory selection, …):
 * one user message, JSON-schema output, a timeout. Model errors, timeouts, aborts and replies that
 * do not match `schema` come back as a typed failure; this never throws for them, so a caller can
 * fall back (recall falls back to the lexical picks).
 *
 * @example
 * const result = await sideQuery(client, { system, user, schema: z.object({ picks: z.array(z.string()) }), maxTokens: 256 });
 * if (result.ok) use(result.data.picks); else explain(result.failure.message);
 */
export async function sideQuery<T>(
  client: ModelClient,
  options: SideQueryOptions<T>,
): Promise<SideQueryResult<T>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  const failedBySignal = (): SideQueryFailure | null => {
    if (options.signal?.aborted) return { kind: "aborted", message: `${client.name}: aborted` };
    if (timeout.signal.aborted)
      return { kind: "timeout", message: `${client.name}: timed out after ${timeoutMs} ms` };
    return null;
  };
  try {
    if (options.signal?.aborted) return { ok: false, failure: failedBySignal()! };
    const response = await client.complete({
      model: options.model,
      system: options.system,
      messages: [{ id: "side-query", role: "user", content: options.user }],
      maxTokens: options.maxTokens,
      jsonSchema: {
        name: options.name ?? "side_query",
        schema: options.jsonSchema ?? toJsonSchema(options.schema),
        validate: (value) => validationError(options.schema, value),
      },
      signal,
    });
    const bySignal = failedBySignal();
    if (bySignal) return { ok: false, failure: bySignal };
    const parsed = parseJsonReply(responseText(response));
    if (!parsed.ok)
      return { ok: false, failure: { kind: "invalid", message: `${client.name}: ${parsed.error}` } };
    const checked = options.schema.safeParse(parsed.value);
    if (!checked.success) {
      return {
        ok: false,
        failure: {
          kind: "invalid",
          message: `${client.name}: reply does not match the schema: ${oneLine(checked.error)}`,
        },
      };
    }
    return { ok: true, data: checked.data };
  } catch (error) {
    const bySignal = failedBySignal();
    if (bySignal) return { ok: false, failure: { ...bySignal, cause: error } };
    const message = isMemdirError(error) ? error.message.replace(/^memdir: /, "") : String(error);
    return { ok: false, failure: { kind: "model", message, cause: error } };
  } finally {
    clearTimeout(timer);
  }
}

/** A zod schema as the plain JSON schema providers accept (no `$schema` key). */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

function validationError(schema: z.ZodType, value: unknown): string | null {
  const checked = schema.safeParse(value);
  return checked.success ? null : `it does not match the schema: ${oneLine(checked.error)}`;
}

function oneLine(error: z.ZodError): string {
  return z
    .prettifyError(error)
    .replace(/\s*\n\s*/g, " ")
    .replace(/✖ /g, "");
}
