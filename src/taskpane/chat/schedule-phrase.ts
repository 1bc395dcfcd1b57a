// Turns what a user says ("every Monday at 8:00", "weekdays at 7:30", "hourly at :15", "on the 1st
// of every month") into the five-field cron the platform takes, and a cron back into words. The
// platform runs a scheduled prompt at most once an hour (its minute field is one number): asking
// for more ("every 15 minutes") gets the reason in words, before anything is sent. Pure; no API.

export type Built =
  /** `cron` null = on demand (Run now only). `text`: the schedule in words, e.g. "every Monday at 08:00". */
  { ok: true; cron: string | null; text: string } | { ok: false; problem: string };

export const HOURLY_LIMIT =
  "The platform runs a scheduled prompt at most once an hour, at one fixed minute (for example hourly at :15, daily at 8:00, or every Monday at 8:00).";

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"] as const;
const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const DAY_RE = "(sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)(day|nesday|sday|urday|s)?s?";

const pad = (n: number) => String(n).padStart(2, "0");
const clock = (h: number, m: number) => `${pad(h)}:${pad(m)}`;

function dayIndex(word: string): number | null {
  const w = word.toLowerCase().slice(0, 3);
  const i = DAYS.findIndex((d) => d.startsWith(w));
  return i >= 0 ? i : null;
}

/** "8", "8:30", "08:30", "8am", "8.30 pm", "14h", "noon", "midnight" → [hour, minute]. */
function parseTime(s: string): [number, number] | null {
  const t = s.trim().toLowerCase();
  if (t === "noon" || t === "midday") return [12, 0];
  if (t === "midnight") return [0, 0];
  const m = /^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.|h)?$/.exec(t);
  if (!m) return null;
  let h = Number(m[1]);
  const min = m[2] ? Number(m[2]) : 0;
  const ampm = m[3]?.replace(/\./g, "");
  if (ampm === "am" || ampm === "pm") {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (ampm === "pm" ? 12 : 0);
  }
  if (h > 23 || min > 59) return null;
  return [h, min];
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${s}`;
}

/**
 * The cron for a phrase. `checkCron` is the platform's own shape rule (five fields, one-number
 * minute), used when the user typed a cron directly.
 */
export function scheduleFromPhrase(phrase: string, checkCron: (cron: string) => string | null): Built {
  const p = phrase.trim().toLowerCase().replace(/\s+/g, " ").replace(/[.!]$/, "");
  if (p === "" || /^(on demand|manually|manual|only when i run it|never)$/.test(p))
    return { ok: true, cron: null, text: "on demand (Run now only)" };
  // A cron typed as such.
  if (/^[\d*/,\-?LW#A-Za-z]+( [\d*/,\-?LW#A-Za-z]+){4}$/.test(phrase.trim()) && /^[\d*]/.test(phrase.trim())) {
    const problem = checkCron(phrase.trim());
    return problem
      ? { ok: false, problem: `That cron is not accepted: ${problem}.` }
      : { ok: true, cron: phrase.trim(), text: describeCron(phrase.trim()) };
  }
  // More often than once an hour.
  if (
    /\b(every|each) (\d+ )?(minute|min|second|sec)s?\b|\bevery (half|quarter)[- ]hour\b|\b(twice|\d+ times) (an|per|every) hour\b/.test(p)
  )
    return { ok: false, problem: `“${phrase.trim()}” is more often than the platform allows. ${HOURLY_LIMIT}` };

  // Hourly: "hourly", "every hour" [at :15 | at 15 past | at minute 15].
  if (/^(hourly|every hour|each hour)\b/.test(p)) {
    const mm = /(?::(\d{1,2})\b|\b(\d{1,2}) (?:minutes? )?past\b|\bminute (\d{1,2})\b)/.exec(p);
    const minute = mm ? Number(mm[1] ?? mm[2] ?? mm[3]) : 0;
    if (minute > 59) return { ok: false, problem: "The minute must be from 0 to 59." };
    return { ok: true, cron: `${minute} * * * *`, text: `every hour at :${pad(minute)}` };
  }
  // "at <time>" anywhere (default 09:00 when none is given, said in the text).
  const at = /\bat ([0-9:.h]+\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midday|midnight)\b/.exec(p);
  let hm: [number, number] = [9, 0];
  if (at) {
    const t = parseTime(at[1]!);
    if (!t) return { ok: false, problem: `“${at[1]}” is not a time of day (write 8:00, 8:30 pm or 14:15).` };
    hm = t;
  }
  const rest = (at ? p.replace(at[0], " ") : p).replace(/\s+/g, " ").trim();
  const [h, m] = hm;

  const everyN = /^every (\d{1,2}) hours?$/.exec(rest);
  if (everyN) {
    const n = Number(everyN[1]);
    if (n < 1 || n > 23) return { ok: false, problem: "Every N hours takes N from 1 to 23." };
    return { ok: true, cron: n === 1 ? `${m} * * * *` : `${m} */${n} * * *`, text: `every ${n} hours at :${pad(m)}` };
  }
  if (/^(daily|every day|each day)$/.test(rest)) return { ok: true, cron: `${m} ${h} * * *`, text: `every day at ${clock(h, m)}` };
  if (/^(every |on |each )?weekdays?$|^every working day$|^monday to friday$/.test(rest))
    return { ok: true, cron: `${m} ${h} * * 1-5`, text: `every weekday at ${clock(h, m)}` };
  if (/^(every |on )?weekends?$/.test(rest))
    return { ok: true, cron: `${m} ${h} * * 0,6`, text: `every Saturday and Sunday at ${clock(h, m)}` };
  if (/^weekly$|^every week$/.test(rest)) return { ok: true, cron: `${m} ${h} * * 1`, text: `every Monday at ${clock(h, m)}` };
  // "every Monday", "on Mondays and Thursdays", "every mon, wed, fri".
  const days = new RegExp(`^(?:every|on|each)? ?((?:${DAY_RE})(?:(?:,| and|,? &) ?(?:${DAY_RE}))*)$`).exec(rest);
  if (days) {
    const list = [...days[1]!.matchAll(new RegExp(DAY_RE, "g"))].map((x) => dayIndex(x[0])!).filter((d) => d !== null);
    const uniq = [...new Set(list)].sort((a, b) => a - b);
    const names = uniq.map((d) => DAY_NAMES[d]!);
    const said = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
    return { ok: true, cron: `${m} ${h} * * ${uniq.join(",")}`, text: `every ${said} at ${clock(h, m)}` };
  }
  // Monthly: "monthly", "every month" [on the 15th], "on the 1st of every month", "the first of the month".
  const monthly =
    /^(?:(?:monthly|every month|each month)(?: on the (\d{1,2})(?:st|nd|rd|th)?)?|(?:on )?the (\d{1,2}|first)(?:st|nd|rd|th)? (?:of )?(?:every|each|the) month)$/.exec(
      rest,
    );
  if (monthly) {
    const raw = monthly[1] ?? monthly[2];
    const day = raw === undefined || raw === "first" ? 1 : Number(raw);
    if (day < 1 || day > 31) return { ok: false, problem: "The day of the month must be from 1 to 31." };
    return { ok: true, cron: `${m} ${h} ${day} * *`, text: `on the ${ordinal(day)} of every month at ${clock(h, m)}` };
  }
  return {
    ok: false,
    problem:
      "Cellbound did not understand that schedule. Write for example “every Monday at 8:00”, “weekdays at 7:30”, “daily at 18:00”, “hourly at :15”, “on the 1st of every month at 6:00”, or a cron such as 0 8 * * 1.",
  };
}

/** A cron of the forms above, in words; anything else as the cron itself. */
export function describeCron(cron: string): string {
  const f = cron.trim().split(/\s+/);
  if (f.length !== 5 || !/^\d{1,2}$/.test(f[0]!)) return `cron ${cron}`;
  const [mi, ho, dom, mon, dow] = f as [string, string, string, string, string];
  const m = Number(mi);
  if (ho === "*" && dom === "*" && mon === "*" && dow === "*") return `every hour at :${pad(m)}`;
  const every = /^\*\/(\d{1,2})$/.exec(ho);
  if (every && dom === "*" && mon === "*" && dow === "*") return `every ${every[1]} hours at :${pad(m)}`;
  if (!/^\d{1,2}$/.test(ho) || mon !== "*") return `cron ${cron}`;
  const t = clock(Number(ho), m);
  if (dom === "*" && dow === "*") return `every day at ${t}`;
  if (dom === "*" && dow === "1-5") return `every weekday at ${t}`;
  if (dom === "*" && /^\d(,\d)*$/.test(dow)) {
    const names = dow.split(",").map((d) => DAY_NAMES[Number(d) % 7]!);
    const said = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
    return `every ${said} at ${t}`;
  }
  if (/^\d{1,2}$/.test(dom) && dow === "*") return `on the ${ordinal(Number(dom))} of every month at ${t}`;
  return `cron ${cron}`;
}

/**
 * A question that ends with a schedule ("revenue by month every Monday at 8:00") → the prompt and the
 * schedule phrase; a question without one → the question and null.
 */
export function splitQuestion(question: string, checkCron: (cron: string) => string | null): { prompt: string; when: string | null } {
  const q = question.trim();
  const starts = [...q.matchAll(/\b(every|each|on|daily|weekly|monthly|hourly|weekdays)\b/gi)].map((x) => x.index);
  for (const i of starts) {
    if (i === 0) continue;
    const when = q.slice(i).trim();
    const r = scheduleFromPhrase(when, checkCron);
    if (r.ok && r.cron !== null)
      return {
        prompt: q
          .slice(0, i)
          .trim()
          .replace(/[,;:-]+$/, "")
          .trim(),
        when,
      };
  }
  return { prompt: q, when: null };
}
