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
