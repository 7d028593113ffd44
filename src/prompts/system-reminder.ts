// Any closing tag a model might read as the end of the wrapper: any case, spaces inside the
// brackets, `_` or spaces for the dash, attributes before `>`.
const CLOSING_TAG = /<\s*\/\s*system[-_\s]*reminder\b[^>]*>/gi;

/**
 * Escapes every closing `</system-reminder>` variant in `text` as `<\/system-reminder>`, so a
 * memory body cannot end the wrapper early and smuggle text out as if the user had typed it.
 * The escaped form keeps its meaning for a human reader and is not matched again.
 */
export function escapeSystemReminder(text: string): string {
  return text.replace(CLOSING_TAG, (tag) => tag.replace("/", "\\/"));
}

// Any opening tag a host could read as the start of its own wrapper (same spellings as above).
const OPENING_TAG = /<\s*system[-_\s]*reminder\b[^>]*>/gi;

/**
 * Escapes closing tags as {@link escapeSystemReminder} does and opening ones as
 * `<\system-reminder>`, so `text` holds no `<system-reminder>` tag at all: what a hook hands a
 * host that wraps it in its own reminder (Claude Code does) must not open or close one.
 *
 * @example
 * escapeAllSystemReminderTags("<system-reminder>x</system-reminder>") // "<\\system-reminder>x<\\/system-reminder>"
 */
export function escapeAllSystemReminderTags(text: string): string {
  return escapeSystemReminder(text).replace(OPENING_TAG, (tag) => `<\\${tag.slice(1)}`);
}
