/**
 * Verbs and particles that developers also write as one word: "set up" and "setup", "logged in"
 * and "login", "timed out" and "timeout", "roll back" and "rollback" (docs/design.md#phrasal-verbs).
 * Where a text says the pair, the tokenizer adds the joined word's term after the pair's own
 * terms, so a memory that writes "we set up CI" is found by "setup", and a prompt that writes
 * "set up the frontend" asks for setup, not for the verb alone ("set" also names a Redis command).
 *
 * The verb is matched by its term, so its forms count ("sets up", "setting up", "timed out"); the
 * particle by its word. A pair with "in" after an article or a possessive is a noun and a
 * preposition ("the log in Grafana"), so it is not joined.
 */

/** `verb particle:joined` — each joined word a common word in software projects of its own. */
const PAIRS =
  "set up:setup, back up:backup, clean up:cleanup, sign up:signup, start up:startup, look up:lookup, " +
  "warm up:warmup, pop up:popup, follow up:followup, stand up:standup, " +
  "shut down:shutdown, tear down:teardown, break down:breakdown, drop down:dropdown, cool down:cooldown, " +
  "log in:login, sign in:signin, plug in:plugin, " +
  "log out:logout, sign out:signout, check out:checkout, roll out:rollout, lay out:layout, time out:timeout, " +
  "back off:backoff, kick off:kickoff, sign off:signoff, hand off:handoff, cut off:cutoff, " +
  "roll back:rollback, fall back:fallback, call back:callback, " +
  "fail over:failover, hand over:handover, cut over:cutover, " +
  "work around:workaround, walk through:walkthrough";

/** The words before which "in" is a preposition, not a particle. */
const NOUN_MARKERS: ReadonlySet<string> = new Set(
  "the a an this that these those each every any no my our your his her its their".split(" "),
);

/** One pair as written in {@link PAIRS}. */
export interface PhrasalPair {
  verb: string;
  particle: string;
  joined: string;
}

/** The pairs of {@link PAIRS}, as written. */
export const PHRASAL_PAIRS: readonly PhrasalPair[] = PAIRS.split(",").map((entry) => {
  const [words, joined] = entry.trim().split(":");
  const [verb, particle] = words.split(" ");
  return { verb, particle, joined };
});

/**
 * The joined word's term when `word` is the particle of the verb before it (`particles`, that
 * verb's entry of {@link phrasalTable}) and `text[from, to)`, between the two, joins them; else
 * undefined. "in" after a noun marker (`afterMarker`) is a preposition ("the log in Grafana").
 * The one rule of the tokenizer and of the index build's scanner.
 */
export function joinedAfter(
  particles: ReadonlyMap<string, string> | undefined,
  word: string,
  afterMarker: boolean,
  text: string,
  from: number,
  to: number,
): string | undefined {
  if (particles === undefined || (afterMarker && word === "in") || !joinsWords(text, from, to))
    return undefined;
  return particles.get(word);
}

/** Verb term → particle word → the joined word's term. */
export type PhrasalTable = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The table by terms, from `termOf` (the tokenizer's term of one word). */
export function phrasalTable(termOf: (word: string) => string | undefined): PhrasalTable {
  const table = new Map<string, Map<string, string>>();
  for (const { verb, particle, joined } of PHRASAL_PAIRS) {
    const verbTerm = termOf(verb);
    const joinedTermOf = termOf(joined);
    if (verbTerm === undefined || joinedTermOf === undefined) continue;
    let particles = table.get(verbTerm);
    if (!particles) {
      particles = new Map();
      table.set(verbTerm, particles);
    }
    particles.set(particle, joinedTermOf);
  }
  return table;
}

/** True for a word after which "in" is a preposition ("the log in Grafana"). */
export function isNounMarker(word: string): boolean {
  return NOUN_MARKERS.has(word);
}

/**
 * True when `text[from, to)`, the text between two words, joins them: spaces, tabs, hyphens and
 * underscores only ("set up", "set-up", "set_up"), never punctuation ("set. Up").
 */
function joinsWords(text: string, from: number, to: number): boolean {
  if (to <= from) return false;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x2d && code !== 0x5f) return false;
  }
  return true;
}

/** The particles of {@link PHRASAL_PAIRS}. */
const PARTICLES: ReadonlySet<string> = new Set(PHRASAL_PAIRS.map((pair) => pair.particle));
/** A joined pair's surface: two words and what joined them (a segmenter's word such as `foo_カナ` is no pair). */
const JOINED_SURFACE = /^([\p{L}\p{N}]+)[ \t_-]+([\p{L}\p{N}]+)$/u;

/**
 * `tokens` without the words of each phrasal verb the tokenizer joined: a prompt that says "set
 * up the frontend" asks for setup, not for "set" (also a Redis command), and "roll back" for
 * rollback, not for "back". Memories keep both: the index holds the words and the joined one, so
 * such a prompt still finds a memory that writes the pair apart.
 */
export function withoutJoinedParts<T extends { surface: string }>(tokens: readonly T[]): T[] {
  const dropped = new Set<number>();
  for (const [i, token] of tokens.entries()) {
    const pair = JOINED_SURFACE.exec(token.surface);
    if (pair === null || !PARTICLES.has(pair[2])) continue;
    let at = i - 1;
    if (at >= 0 && tokens[at].surface === pair[2]) dropped.add(at--);
    if (at >= 0 && tokens[at].surface === pair[1]) dropped.add(at);
  }
  return dropped.size === 0 ? [...tokens] : tokens.filter((_, i) => !dropped.has(i));
}
