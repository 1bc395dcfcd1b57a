// The file beneath a workbook argument: where it really is (a link is resolved, never replaced),
// whether it may be rewritten (read-only, open in Excel) and what it is on disk right now (its identity,
// checked again right before the new file is renamed over it).
import { accessSync, constants, lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

export interface Target {
  /** As named on the command line (what the output says). */
  given: string;
  /** Links resolved: the file read, and the one the new file is renamed over. */
  real: string;
  exists: boolean;
}

/** Where `given` really is; a string says why it cannot be used. */
export function resolveTarget(given: string): Target | string {
  let link = false;
  try {
    link = lstatSync(given).isSymbolicLink();
  } catch {
    // Missing: a new workbook (place) is created beside the real folder; refresh and status say "no such file".
    return { given, real: path.join(realFolder(path.dirname(path.resolve(given))), path.basename(given)), exists: false };
  }
  try {
    return { given, real: realpathSync(given), exists: true };
  } catch (e) {
    if (!link) return `its path cannot be resolved (${(e as Error).message})`;
    let to = "?";
    try {
      to = readlinkSync(given);
    } catch {
      // named below as "?"
    }
    return `it is a link to ${to}, which does not exist`;
  }
}

function realFolder(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir; // a missing folder: saving says so
  }
}

/**
 * Why the file may not be rewritten, or null. A file with no write bit at all is read-only for
 * everyone — also for root, whom the operating system would let write it anyway; a file with write bits
 * that this user may not write is refused too (the rename beside it would replace it nonetheless).
 */
export function readOnlyProblem(real: string): string | null {
  let mode: number;
  try {
    mode = statSync(real).mode;
  } catch {
    return null; // missing: not ours to judge here
  }
  if ((mode & 0o222) === 0)
    return `it is marked read-only (mode ${(mode & 0o777).toString(8).padStart(4, "0")}, no write permission): Cellbound does not rewrite it; make it writable (chmod u+w) to refresh it`;
  try {
    accessSync(real, constants.W_OK);
  } catch {
    return "you may not write it (permission denied): Cellbound does not rewrite it";
  }
  return null;
}

/** Excel's owner file for a workbook: `~$Book.xlsx` beside `Book.xlsx` while Excel has it open. */
export function ownerFilePath(workbook: string): string {
  return path.join(path.dirname(workbook), `~$${path.basename(workbook)}`);
}

/**
 * The user named in an Office owner file (reverse-engineered, as LibreOffice reads it): one byte with the
 * name's length and the name in the Windows code page, padded to byte 54 (Word) or 55 (Excel,
 * PowerPoint); there, a 16-bit length and the same name in UTF-16LE; 162 or 165 bytes in all. Null when
 * no name can be read.
 */
export function ownerName(bytes: Uint8Array): string | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const plausible = (s: string) => s.trim() !== "" && ![...s].some((c) => c.charCodeAt(0) < 0x20);
  for (const at of [55, 54]) {
    if (b.length < at + 2) continue;
    const len = b.readUInt16LE(at);
    if (len < 1 || len > 52 || b.length < at + 2 + 2 * len) continue;
    const name = b.toString("utf16le", at + 2, at + 2 + 2 * len);
    if (plausible(name)) return name.trim();
  }
  const n = b[0] ?? 0;
  if (n >= 1 && n <= 52 && b.length >= 1 + n) {
    const name = b.toString("latin1", 1, 1 + n);
    if (plausible(name)) return name.trim();
  }
  return null;
}

/** Excel has the workbook open (its owner file is beside it, under the name given or the real one): who, as far as it says. */
export function openInExcel(t: Target): { owner: string | null; ownerFile: string } | null {
  for (const f of new Set([ownerFilePath(t.real), ownerFilePath(path.resolve(t.given))])) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(f);
    } catch {
      continue;
    }
    return { owner: ownerName(bytes), ownerFile: f };
  }
  return null;
}

export function openInExcelProblem(open: { owner: string | null; ownerFile: string }): string {
  const who = open.owner ? ` by ${open.owner}` : "";
  return `it is open in Excel${who} (its owner file ${path.basename(open.ownerFile)} is beside it): Cellbound leaves it alone — close it in Excel and run again, or pass --ignore-lock if it is not open`;
}

/** What the file is on disk now: device, inode, size and modification time; null when there is none. */
export function identityOf(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return null;
  }
}
