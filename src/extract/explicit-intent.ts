import type { MemoryType } from "../types.ts";

/** What an explicit memory instruction in a user message asks for. */
export type ExplicitIntent =
  | { kind: "remember"; statement: string; type: MemoryType }
  | { kind: "forget"; query: string };

// Triggers must open the message (or a sentence of it) and be imperative, so that
// "do you remember…" or "I can't remember the password" never save anything.
const POLITE = String.raw`(?:(?:hey|ok|okay|also|and|oh|btw|so)[,\s]+)*(?:please\s+|pls\s+|kindly\s+)?`;
const REMEMBER_EN = new RegExp(
  String.raw`^${POLITE}(?:remember|memorize|note down|make a note)(?:\s*[:：,-]\s*|\s+that\s+|\s+(?=(?:to|i|we|my|our|the|always|never|don't|do not|use|prefer)\b))(.+)$`,
  "is",
);
const DONT_FORGET_EN = new RegExp(
  String.raw`^${POLITE}(?:don't|do not|never) forget(?:\s*[:：,-]\s*|\s+that\s+|\s+)(.+)$`,
  "is",
);
const FORGET_EN = new RegExp(
  String.raw`^${POLITE}forget(?:\s+about|\s+that)?(?:\s*[:：,-]\s*|\s+)(.+)$`,
  "is",
);
const REMEMBER_ZH =
  /^(?:请你?|麻烦你?|帮我)?(?:记住|记一下|记下来|记下|牢记|记着)(?:这一?点|这个)?[：:，,\s]*(.+)$/s;
const FORGET_ZH = /^(?:请你?|帮我)?(?:忘掉|忘记|忘了|删掉|删除)(?:这条记忆|记忆)?[：:，,\s]*(.+)$/s;
const REMEMBER_JA_PREFIX = /^(?:覚えて(?:おいて)?(?:ください)?|記憶して(?:ください)?)[：:、,\s]+(.+)$/s;
const REMEMBER_JA_SUFFIX =
  /^(.+?)(?:ということ|こと)?(?:を|って|と)?(?:覚えて|記憶して)(?:おいて)?(?:ください|ね|な)?[。.!！]?$/s;
const FORGET_JA = /^(.+?)(?:のこと)?(?:を|は)?忘れて(?:ください)?[。.!！]?$/s;

/**
 * Finds an explicit "remember …" or "forget …" instruction in one user message. Pure.
 *
 * @example
 * parseExplicitMemory("记住：登录模块的集成测试不得 mock 数据库")
 * // { kind: "remember", statement: "登录模块的集成测试不得 mock 数据库", type: "feedback" }
 */
export function parseExplicitMemory(text: string): ExplicitIntent | null {
  const message = unwrapQuotes(text.trim());
  if (message === "" || message.length > 4000) return null;
  // Questions never instruct ("can you remember …?", "还记得吗？").
  if (/[?？]\s*$/.test(message) && !/^(?:please\s+)?remember\s*:/i.test(message)) return null;

  for (const pattern of [REMEMBER_EN, DONT_FORGET_EN, REMEMBER_ZH, REMEMBER_JA_PREFIX]) {
    const match = pattern.exec(message);
    if (match) return remember(match[1]);
  }
  const forget = FORGET_EN.exec(message) ?? FORGET_ZH.exec(message);
  if (forget) return forgetIntent(forget[1]);
  const japaneseForget = FORGET_JA.exec(message);
  if (japaneseForget) return forgetIntent(japaneseForget[1]);
  const japanese = REMEMBER_JA_SUFFIX.exec(message);
  if (japanese) return remember(japanese[1]);
  return null;
}

/**
 * A message wholly inside one pair of quotes, without them: `opencode run "remember …"` hands the
 * model (and memdir's plugin) the prompt in double quotes, and a user may quote a request too. A
 * quote inside the message (`remember "pnpm", not npm`) is left alone.
 */
function unwrapQuotes(message: string): string {
  const pairs: Record<string, string> = { '"': '"', "'": "'", "“": "”", "「": "」", "『": "』" };
  const close = pairs[message[0] ?? ""];
  if (close === undefined || message.length < 3 || !message.endsWith(close)) return message;
  const inner = message.slice(1, -1);
  return inner.includes(message[0]) || inner.includes(close) ? message : inner.trim();
}

function remember(raw: string): ExplicitIntent | null {
  const statement = cleanStatement(raw);
  if (statement.length < 2) return null;
  // "remember to X" is an instruction about how to work, whatever X says.
  const type = /^\s*to\s/i.test(raw) ? "feedback" : classifyStatement(statement);
  return { kind: "remember", statement, type };
}

function forgetIntent(raw: string): ExplicitIntent | null {
  const query = cleanStatement(raw);
  return query.length < 2 ? null : { kind: "forget", query };
}

export function cleanStatement(raw: string): string {
  return raw
    .trim()
    .replace(/^(?:that|to)\s+(?=\S)/i, "")
    .replace(/^["'“”「『]+|["'“”」』]+$/g, "")
    .trim();
}

const REFERENCE =
  /(https?:\/\/|\b(?:dashboard|grafana|kibana|jira|linear|ticket|runbook|wiki|confluence|notion|sentry|datadog)\b|看板|工单|文档在)/i;
const USER_FACT =
  /^(?:i\s+(?:am|'m|was|work|live|prefer|like|love|hate|use|have|speak|come)\b|i'm\b|my\b|me\b|我(?:是|叫|在|喜欢|偏好|习惯|的|更喜欢|住)|私は|僕は|私の)/i;
const RULE =
  /\b(?:always|never|don't|do not|must|should|shouldn't|avoid|prefer|use|stop|keep|make sure|only|no)\b|不要|不得|不能|别|必须|总是|始终|一律|应该|务必|禁止|优先|使用|用|しないで|してください|必ず|使う|使って|禁止/i;

/**
 * Guesses the memory type of an explicit statement: `reference` for pointers to outside
 * systems, `user` for facts about the user, `feedback` for rules about how to work, else `project`.
 */
export function classifyStatement(statement: string): MemoryType {
  if (REFERENCE.test(statement)) return "reference";
  if (USER_FACT.test(statement)) return "user";
  if (RULE.test(statement)) return "feedback";
  return "project";
}

/** The description of an explicit memory: the statement, trimmed to one short line. */
export function describeStatement(statement: string, maxLength = 150): string {
  const firstLine = statement.split(/\r?\n/)[0].trim();
  if (firstLine.length <= maxLength) return firstLine;
  return `${firstLine.slice(0, maxLength - 1).trimEnd()}…`;
}
