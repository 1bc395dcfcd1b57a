// How the stand-in's agent reads a question (issue 31, item 6): which measures and dimensions of the
// semantic layer it names, matched against the titles GET /v1/meta serves ("Total Amount", "Orders
// Total Amount", "Country", "Signed up at"; case-insensitive, singular or plural) and a few everyday
// words ("revenue"/"sales" → Total Amount, "orders" → Count, "by customer" → Customers Name, "monthly"
// → by month, …). A title wins over an everyday word for the same words, a longer phrase over a
// shorter one. Dimensions are what follows "by", "per", "each" or "across" ("revenue by country and
// status"); measures are named anywhere (also after "by": "top customers by revenue"). What the
// question names that the data model does not have is kept too, so the agent can say so. Pure.
import { metaBody, VIEWS } from "./semantic";

export type Granularity = "day" | "week" | "month" | "quarter" | "year";
export const GRANULARITIES: readonly Granularity[] = ["day", "week", "month", "quarter", "year"];

/** A member of the semantic layer, as the agent uses it. */
export interface Member {
  /** "orders.total_amount" */
  name: string;
  /** Its view ("orders"). */
  view: string;
  kind: "measure" | "dimension";
  /** As /v1/meta has them: "Orders Total Amount", "Total Amount". */
  title: string;
  shortTitle: string;
  /** A dimension's type ("string", "number", "boolean", "time"); "number" for a measure. */
  type: string;
  time: boolean;
  format: string | undefined;
  decimals: number;
  /** Its SQL over the data API's SQL views (what /v1/svcsql reads): "sum(o.amount)", "c.country". */
  sql: string;
}

/** A phrase that names a member (by a title or an everyday word) or a time granularity. */
interface Term {
  stems: string[];
  member: Member | null;
  granularity: Granularity | null;
  /** What the answer calls it. */
  title: string;
  /** Its column in the answer, when it has its own ("revenue"); else one is made from the title. */
  alias: string | null;
  /** Over the same words: a full title (3) beats a short title (2) beats an everyday word (1). */
  rank: number;
  /** Read anywhere in the question, or only as what a "by …" groups by. */
  where: "anywhere" | "by";
}

/** What a question named. */
export interface Reading {
  /** Measures, in the order named, each once. */
  measures: Named[];
  /** Dimensions to group by, in the order named, each once (time ones without their granularity). */
  dimensions: Named[];
  /** The first time granularity named ("by month", "monthly"), if any. */
  granularity: Granularity | null;
  /** Dimensions named where a measure was looked for ("amount by status": Amount). */
  notMeasures: Named[];
  /** The words before "by" when they name no measure ("profit" in "profit by month"). */
  unknownMeasure: string | null;
  /** Words after a "by" that name nothing in the data model ("planet" in "revenue by planet"). */
  unknownDimension: string | null;
  /** Whether the question has anything like a "by …" (or any words at all before one). */
  hasBy: boolean;
}
export interface Named {
  member: Member;
  title: string;
  alias: string | null;
}

const BY_WORDS = new Set(["by", "per", "each", "across"]);
const FILLERS = new Set(
  (
    "what whats what's was is are were our my the a an show me give tell list plot chart display please of how much many did do does " +
    "we us i you can could would want to see get all total some about for in on with was were which whose"
  ).split(" "),
);
const CLAUSE_END = /[\n?.!;:()“”"[\]{}]/;

/** Lower case, singular: "Countries" → "country", "statuses" → "status", "Orders" → "order". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  if (/ies$/.test(w) && w.length > 4) return w.slice(0, -3) + "y";
  if (/(s|x|ch|sh)es$/.test(w)) return w.slice(0, -2);
  if (/[^su]s$/.test(w) && w.length > 2) return w.slice(0, -1);
  return w;
}

interface Token {
  text: string;
  stem: string;
  /** A clause ends before it (a full stop, a question mark, a bracket, a new line …). */
  breakBefore: boolean;
  /** A comma or an ampersand stands before it (a list goes on). */
  listBefore: boolean;
}

/** Words: letters and digits, with inner dots, underscores and apostrophes kept ("orders.count" is one word). */
export function tokens(text: string): Token[] {
  const out: Token[] = [];
  const re = /[\p{L}\p{N}]+(?:[._'’][\p{L}\p{N}]+)*/gu;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const gap = text.slice(last, m.index);
    out.push({ text: m[0], stem: stem(m[0]), breakBefore: out.length === 0 || CLAUSE_END.test(gap), listBefore: /[,&]/.test(gap) });
    last = m.index + m[0].length;
  }
  return out;
}

const stems = (phrase: string) => tokens(phrase).map((t) => t.stem);

/** The semantic layer's members: titles from /v1/meta, SQL from the views' definitions. */
export function members(): Member[] {
  return metaBody().cubes.flatMap((cube) => {
    const view = VIEWS.find((v) => v.name === cube.name)!;
    const key = (name: string) => name.slice(cube.name.length + 1);
    const measures = cube.measures.map((m): Member => {
      const def = view.measures[key(m.name)]!;
      return {
        name: m.name,
        view: cube.name,
        kind: "measure",
        title: m.title,
        shortTitle: m.shortTitle,
        type: "number",
        time: false,
        format: def.format,
        decimals: def.decimals,
        sql: def.sql,
      };
    });
    const dimensions = cube.dimensions.map((d): Member => {
      const def = view.dimensions[key(d.name)]!;
      const sql = `${view.alias}.${key(d.name)}`;
      return {
        name: d.name,
        view: cube.name,
        kind: "dimension",
        title: d.title,
        shortTitle: d.shortTitle,
        type: d.type,
        time: d.type === "time",
        format: def.format,
        decimals: 0,
        sql,
      };
    });
    return [...measures, ...dimensions];
  });
}

/** Everyday words for members: [title, member, column, phrases, where]. */
const EVERYDAY: Array<[string, string, string, string[], Term["where"]]> = [
  ["Revenue", "orders.total_amount", "revenue", ["revenue", "sales", "turnover", "income", "takings"], "anywhere"],
  ["Orders", "orders.count", "orders", ["orders", "order count", "number of orders", "how many orders", "how many"], "anywhere"],
  ["Units sold", "orders.total_quantity", "units", ["units", "units sold", "items sold", "volume"], "anywhere"],
  [
    "Customers",
    "orders.customers_count",
    "customers",
    ["customers", "buyers", "customer count", "number of customers", "how many customers"],
    "anywhere",
  ],
  [
    "Average order value",
    "orders.avg_amount",
    "average_order_value",
    ["average order value", "avg order value", "mean order value", "aov", "average order", "average sale", "average revenue"],
    "anywhere",
  ],
  ["Customer", "customers.name", "customer", ["customer"], "by"],
  ["Customer", "customers.name", "customer", ["top customers"], "anywhere"],
  ["Product", "products.name", "product", ["product"], "by"],
  ["Product", "products.name", "product", ["top products"], "anywhere"],
  ["Country", "customers.country", "country", ["market"], "by"],
  ["Category", "products.category", "category", ["product line"], "by"],
];
const GRANULARITY_WORDS: Array<[Granularity, string[], Term["where"]]> = [
  ...GRANULARITIES.map((g): [Granularity, string[], Term["where"]] => [g, [g], "by"]),
  ["day", ["daily"], "anywhere"],
  ["week", ["weekly"], "anywhere"],
  ["month", ["monthly", "over time", "trend"], "anywhere"],
  ["quarter", ["quarterly"], "anywhere"],
  ["year", ["yearly", "annual", "annually"], "anywhere"],
];

/** The title a member is shown with: its short title, unless another member has the same one. */
export function displayTitle(m: Member, all: Member[]): string {
  return all.some((o) => o !== m && o.shortTitle.toLowerCase() === m.shortTitle.toLowerCase()) ? m.title : m.shortTitle;
}

function vocabulary(all: Member[]): Term[] {
  const terms: Term[] = [];
  for (const m of all) {
    const where = m.kind === "measure" ? "anywhere" : "by";
    const title = displayTitle(m, all);
    terms.push({ stems: stems(m.title), member: m, granularity: null, title, alias: null, rank: 3, where });
    terms.push({ stems: stems(m.shortTitle), member: m, granularity: null, title, alias: null, rank: 2, where });
  }
  for (const [title, name, alias, phrases, where] of EVERYDAY) {
    const member = all.find((m) => m.name === name);
    if (member) for (const p of phrases) terms.push({ stems: stems(p), member, granularity: null, title, alias, rank: 1, where });
  }
  for (const [g, phrases, where] of GRANULARITY_WORDS)
    for (const p of phrases) terms.push({ stems: stems(p), member: null, granularity: g, title: g, alias: null, rank: 1, where });
  return terms;
}

/** The longest term (then the best ranked) that starts at token i and stays inside its clause. */
function termAt(toks: Token[], i: number, terms: Term[], accept: (t: Term) => boolean): { term: Term; end: number } | null {
  let best: Term | null = null;
  for (const t of terms) {
    if (!accept(t) || i + t.stems.length > toks.length) continue;
    if (!t.stems.every((s, k) => toks[i + k]!.stem === s && (k === 0 || !toks[i + k]!.breakBefore))) continue;
    if (!best || t.stems.length > best.stems.length || (t.stems.length === best.stems.length && t.rank > best.rank)) best = t;
  }
  return best ? { term: best, end: i + best.stems.length } : null;
}

/** The words from token i up to the end of its clause, a list separator or a "by" (at most 5). */
function phraseAt(toks: Token[], i: number): string {
  const out: string[] = [];
  for (let j = i; j < toks.length && out.length < 5; j++) {
    const t = toks[j]!;
    if (j > i && (t.breakBefore || t.listBefore || t.stem === "and" || BY_WORDS.has(t.stem))) break;
    out.push(t.text);
  }
  return out.join(" ");
}

/** The words of the clause before the first "by", without fillers ("what was our profit" → "profit"). */
function measureWords(toks: Token[]): string | null {
  const by = toks.findIndex((t) => BY_WORDS.has(t.stem));
  if (by <= 0) return null;
  let start = by;
  while (start > 0 && !toks[start]!.breakBefore) start--;
  const words = toks.slice(start, by).filter((t) => !FILLERS.has(t.text.toLowerCase()));
  return words.length > 0 && words.length <= 6 ? words.map((t) => t.text).join(" ") : null;
}

/** Reads a question: what it names of the semantic layer, and what it names that is not there. */
export function readQuestion(question: string, all: Member[] = members()): Reading {
  const toks = tokens(question);
  const terms = vocabulary(all);
  const r: Reading = {
    measures: [],
    dimensions: [],
    granularity: null,
    notMeasures: [],
    unknownMeasure: null,
    unknownDimension: null,
    hasBy: toks.some((t) => BY_WORDS.has(t.stem)),
  };
  const add = (list: Named[], t: Term) => {
    if (t.member && !list.some((n) => n.member === t.member)) list.push({ member: t.member, title: t.title, alias: t.alias });
  };
  const take = (t: Term) => {
    if (t.granularity) r.granularity ??= t.granularity;
    else if (t.member?.kind === "measure") add(r.measures, t);
    else if (t.member) add(r.dimensions, t);
  };
  // Words after "by" that name nothing count only where the same clause names a measure ("revenue by
  // planet"), not in a passive "added by Cellbound".
  let measureInClause = false;
  for (let i = 0; i < toks.length;) {
    if (toks[i]!.breakBefore) measureInClause = false;
    if (BY_WORDS.has(toks[i]!.stem) && i + 1 < toks.length && !toks[i + 1]!.breakBefore && !/^\d/.test(toks[i + 1]!.text)) {
      const named = measureInClause;
      i = readBy(toks, i + 1, terms, take, (words) => {
        if (named) r.unknownDimension ??= words;
      });
      continue;
    }
    const hit = termAt(toks, i, terms, (t) => t.where === "anywhere" || t.member?.kind === "dimension");
    if (!hit) {
      i++;
      continue;
    }
    if (hit.term.where === "by" && hit.term.member) add(r.notMeasures, hit.term);
    else take(hit.term);
    if (hit.term.member?.kind === "measure") measureInClause = true;
    i = hit.end;
  }
  if (r.measures.length === 0) r.unknownMeasure = measureWords(toks);
  return r;
}

/**
 * A "by …" clause from token i: one or more things to group by ("country and status", "month,
 * segment"), or measures to rank by ("top customers by revenue"). Returns where it ends; words
 * right after "by" that name nothing are reported.
 */
function readBy(toks: Token[], i: number, terms: Term[], take: (t: Term) => void, unknown: (words: string) => void): number {
  let j = i;
  while (j < toks.length - 1 && ["the", "each", "every", "a", "an"].includes(toks[j]!.stem) && !toks[j + 1]!.breakBefore) j++;
  for (let first = true; j < toks.length && (first || !toks[j]!.breakBefore); first = false) {
    const hit = termAt(toks, j, terms, (t) => t.member?.kind !== "measure") ?? termAt(toks, j, terms, (t) => t.member?.kind === "measure");
    if (!hit) {
      if (first) unknown(phraseAt(toks, j));
      return first ? j + 1 : j;
    }
    take(hit.term);
    j = hit.end;
    const next = toks[j];
    if (!next || next.breakBefore) break;
    if (next.stem === "and" && !toks[j + 1]?.breakBefore) j++;
    else if (!next.listBefore) break;
  }
  return j;
}
