import type { QuarantineSecondOpinion } from "../memdir/trust/provenance.ts";
import type { ModelClient } from "../model/client.ts";
import {
  QUARANTINE_SECOND_OPINION_SYSTEM,
  quarantineSecondOpinionPrompt,
} from "../prompts/quarantine-second-opinion.ts";

/** Short: a verdict and one sentence. */
const MAX_TOKENS = 200;

/**
 * The quarantine's second opinion through `client` (docs/design.md#quarantine): one side query
 * per doubtful text, schema `{hostile, reason}`. A failure (timeout, a reply off the schema, an
 * abort) is no verdict, so the rules' hold stands.
 *
 * @example
 * const origin = { source: "extraction", secondOpinion: quarantineSecondOpinion(client) };
 */
export function quarantineSecondOpinion(client: ModelClient, signal?: AbortSignal): QuarantineSecondOpinion {
  return async (text, findings) => {
    const [{ z }, { sideQuery }] = await Promise.all([import("zod"), import("../model/side-query.ts")]);
    const result = await sideQuery(client, {
      system: QUARANTINE_SECOND_OPINION_SYSTEM,
      user: quarantineSecondOpinionPrompt(text, findings),
      schema: z.object({ hostile: z.boolean(), reason: z.string() }),
      name: "quarantine_second_opinion",
      maxTokens: MAX_TOKENS,
      signal,
    });
    return result.ok
      ? { hostile: result.data.hostile, reason: result.data.reason.trim().slice(0, 200) }
      : null;
  };
}
