// Comment text and times as the pane shows them: bodies split so @mentions stand out (still plain text,
// never HTML), and timestamps in the user's own time zone (Intl's default is the user's zone).

const exact = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" });
const short = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function localTime(iso: string): { text: string; title: string } {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return { text: "unknown time", title: iso };
  return { text: short.format(d), title: exact.format(d) };
}

/** The body as text pieces; a piece with `mention` is an @name. */
export function bodyPieces(body: string): { text: string; mention: boolean }[] {
  return body
    .split(/(@[^\s@]+)/)
    .filter((s) => s !== "")
    .map((text) => ({ text, mention: /^@[^\s@]+$/.test(text) }));
}

/** The @word being typed just before the caret, or null. */
export function mentionAt(text: string, caret: number): { query: string; start: number } | null {
  const m = /(^|\s)@([^\s@]{0,64})$/.exec(text.slice(0, caret));
  return m ? { query: m[2]!, start: caret - m[2]!.length - 1 } : null;
}

/**
 * Whether a mentionable user fits what was typed after "@" (issue 31 item 5): the start of their
 * username or name, or of a word in it ("@an" finds ana and "Mary Ann"; "@a" does not find ben, whose
 * email merely holds an a). Case is ignored; an empty query fits everyone.
 */
export function mentionMatches(u: { username: string; firstName: string | null }, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (q === "") return true;
  const words = (s: string | null) => (s ?? "").toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return (
    [u.username, u.firstName].some((name) => (name ?? "").toLowerCase().startsWith(q)) ||
    [...words(u.username), ...words(u.firstName)].some((w) => w.startsWith(q))
  );
}

/** A comment author as the comments API names them: their name (firstName) when it gives one, else the username. */
export function displayName(u: { username: string; firstName?: string | null }): string {
  return u.firstName?.trim() || u.username;
}
