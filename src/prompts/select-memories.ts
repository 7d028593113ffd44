// Prompt text for the model memory selector (docs/design.md#model-selector), in our own words.

/** The system prompt of the selection side query. `limit` is the most files the model may name. */
export function selectMemoriesSystemPrompt(limit: number): string {
  return [
    "You choose which saved memories an AI coding agent should see before it answers the user's request.",
    "Each memory is one file, listed as `- [type] filename (saved at): description`.",
    "",
    `Return the filenames, exactly as listed, of at most ${limit} memories that will clearly help with this request.`,
    "Pick a memory only when you are confident it matters for this request, not because it shares a word with it.",
    "Returning an empty list is a good answer when nothing clearly helps.",
    "",
    "When the request lists tools the agent has just used successfully, do not pick memories that only explain how to use those tools: the agent already knows.",
    "Do pick memories that warn about those tools: known issues, pitfalls, things that broke before.",
    "",
    'Answer with JSON only: {"selected_memories": ["filename", ...]}.',
  ].join("\n");
}

/** The user message: the query, the tools used this turn (if any) and the manifest. */
export function selectMemoriesUserPrompt(input: {
  query: string;
  manifest: string;
  recentTools?: string[];
}): string {
  const parts = [`Query: ${input.query}`];
  if (input.recentTools && input.recentTools.length > 0) {
    parts.push(`Tools used successfully this turn: ${input.recentTools.join(", ")}`);
  }
  parts.push(`Available memories:\n${input.manifest}`);
  return parts.join("\n\n");
}
