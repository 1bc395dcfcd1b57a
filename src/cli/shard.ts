// Which workbooks one run takes: folders expanded to the workbooks below them, and with `--shard i/n`
// only those whose key hashes to shard i — so a CI matrix or a Kubernetes Indexed Job spreads
// thousands of workbooks over machines with no coordinator: every machine computes the same split.
//
// A workbook's key is its path relative to the argument that named it (a folder: "north/Sales.xlsx";
// a file named on the command line: its own name), with "/" separators: the same wherever the folder
// is mounted. Each workbook lands in exactly one shard, whatever else is in the folder.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export interface Shard {
  /** 1-based: shard 1 of 4 … shard 4 of 4. */
  index: number;
  count: number;
}

export interface Listed {
  /** The path to open (the argument, or the argument joined with the path below it). */
  file: string;
  /** What the shard is computed from (see above). */
  key: string;
}

const WORKBOOK = /\.xls[xm]$/i;

/** The shard (1…count) a key belongs to: the first 32 bits of its SHA-256, modulo count. */
export function shardOf(key: string, count: number): number {
  const h = createHash("sha256").update(key, "utf8").digest();
  return (h.readUInt32BE(0) % count) + 1;
}

/**
 * The workbooks the arguments name: a file as it is, a folder as every .xlsx/.xlsm below it (sorted by
 * key; names beginning with "." or "~$" — temporary and lock files, Excel's owner files — left out).
 * An argument that does not exist is kept as a file (opening it says so).
 */
export function listWorkbooks(args: readonly string[]): Listed[] {
  const out: Listed[] = [];
  for (const arg of args) {
    let dir = false;
    try {
      dir = statSync(arg).isDirectory();
    } catch {
      // missing: reported when opened
    }
    if (!dir) out.push({ file: arg, key: path.basename(arg) });
    else out.push(...below(arg, ""));
  }
  return out;
}

function below(root: string, rel: string): Listed[] {
  const entries = readdirSync(path.join(root, rel), { withFileTypes: true })
    .filter((e) => !e.name.startsWith(".") && !e.name.startsWith("~$"))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Listed[] = [];
  for (const e of entries) {
    const key = rel ? `${rel}/${e.name}` : e.name;
    const file = path.join(root, key);
    const kind = e.isSymbolicLink() ? statOrNull(file) : e;
    if (kind?.isDirectory()) out.push(...below(root, key));
    else if (kind?.isFile() && WORKBOOK.test(e.name)) out.push({ file, key });
  }
  return out;
}

function statOrNull(file: string): { isDirectory(): boolean; isFile(): boolean } | null {
  try {
    return statSync(file);
  } catch {
    return null; // a link to nothing
  }
}

/** The listed workbooks of one shard (all of them without a shard). */
export function inShard(listed: readonly Listed[], shard: Shard | null): Listed[] {
  return shard ? listed.filter((l) => shardOf(l.key, shard.count) === shard.index) : [...listed];
}
