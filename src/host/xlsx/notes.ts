// Notes on cells (issue 35 §3): what lets a refresh of a closed workbook skip reading a sheet it left as it was.
//
// The engine leaves a note on a placement's cells once it knows what they hold (a digest of their
// fingerprint: src/sync/cells-note.ts); the port keeps the note while none of the area's rows changes
// (SheetStore.changedSince) and writes it, when it writes the sheet part, into that part's central
// directory record, in an extra field zip readers skip (like the part's groups, zip.ts). The field names
// the part's CRC-32 and size, the shared strings part's CRC-32 and the date system it was written with:
// a note is believed only while all of them are as they were, so a part another program rewrote (Excel
// and LibreOffice rewrite every part and drop unknown fields), or a workbook whose shared strings or
// date system changed, has no notes. A note only ever spares a read; it never makes cells look edited.
import { z } from "zod";

/** The extra field ("CN") a sheet part's notes are kept in. */
export const NOTES_EXTRA = 0x4e43;

/** One note: an area of the sheet (zero-based, relative to nothing) and what the engine said of its cells. */
export interface CellNote {
  row: number;
  col: number;
  rows: number;
  cols: number;
  note: string;
}

/** What a note was written against: the part's bytes, the shared strings' bytes, the date system. */
export interface NotesBasis {
  crc: number;
  size: number;
  sst: number | null;
  date1904: boolean;
}

/** At most this many notes per part (an extra field holds 64 KiB; a note takes under 60 bytes). */
const MAX_NOTES = 500;

const uint = z.number().int().nonnegative();
const stored = z.object({
  v: z.literal(1),
  crc: uint,
  size: uint,
  sst: uint.nullable(),
  date1904: z.boolean(),
  notes: z.array(z.tuple([uint, uint, uint.min(1), uint.min(1), z.string().min(1).max(64)])).max(MAX_NOTES),
  // The part's dynamic-array formulas as written (anchor, spill range): present, the part's groups can be read
  // one at a time without scanning the rest for them (SheetStore's segments). Absent: unknown.
  spills: z
    .array(z.tuple([z.string().min(2).max(12), uint, uint, uint, uint]))
    .max(MAX_NOTES)
    .optional(),
});

/** A dynamic-array formula of a part: its anchor cell (A1) and the range it spills into (obstacles.ts SheetFacts). */
export interface SpillFact {
  anchor: string;
  ref: { row: number; col: number; rows: number; cols: number };
}

/** What a part's central record says of it while it is as written: the notes on its cells, its spills (null: not said). */
export interface PartNotes {
  notes: CellNote[];
  spills: SpillFact[] | null;
}

/**
 * The extra field holding `notes` for a part written against `basis` (empty when there are none), with the
 * part's spills when they are known (`spills`: null when not; more than fit are not said).
 */
export function notesExtra(notes: readonly CellNote[], basis: NotesBasis, spills: readonly SpillFact[] | null = null): Buffer {
  if (notes.length === 0) return Buffer.alloc(0);
  const out = fieldOf(notes, basis, spills);
  // Too long with the spills (the field holds 64 KiB): the notes alone — the part is then read whole when first looked at.
  return out.length || !spills ? out : fieldOf(notes, basis, null);
}

function fieldOf(notes: readonly CellNote[], basis: NotesBasis, spills: readonly SpillFact[] | null): Buffer {
  const said = spills && spills.length <= MAX_NOTES ? spills.map((x) => [x.anchor, x.ref.row, x.ref.col, x.ref.rows, x.ref.cols]) : null;
  const body = Buffer.from(
    JSON.stringify({
      v: 1,
      crc: basis.crc >>> 0,
      size: basis.size,
      sst: basis.sst,
      date1904: basis.date1904,
      notes: notes.slice(0, MAX_NOTES).map((n) => [n.row, n.col, n.rows, n.cols, n.note]),
      ...(said ? { spills: said } : {}),
    }),
    "utf8",
  );
  if (body.length > 0xffff - 4) return Buffer.alloc(0);
  const head = Buffer.alloc(4);
  head.writeUInt16LE(NOTES_EXTRA, 0);
  head.writeUInt16LE(body.length, 2);
  return Buffer.concat([head, body]);
}

const NONE: PartNotes = { notes: [], spills: null };

/** The notes of a central record's extra fields that still hold for `basis` (none when anything differs). */
export function readNotes(extra: Buffer, basis: NotesBasis): PartNotes {
  for (let q = 0; q + 4 <= extra.length;) {
    const id = extra.readUInt16LE(q);
    const len = extra.readUInt16LE(q + 2);
    if (q + 4 + len > extra.length) return NONE;
    if (id === NOTES_EXTRA) return notesIn(extra.toString("utf8", q + 4, q + 4 + len), basis);
    q += 4 + len;
  }
  return NONE;
}

function notesIn(text: string, basis: NotesBasis): PartNotes {
  let parsed: z.infer<typeof stored>;
  try {
    parsed = stored.parse(JSON.parse(text));
  } catch {
    return NONE; // not ours, or damaged: no notes, the cells are read
  }
  const same =
    parsed.crc === basis.crc >>> 0 && parsed.size === basis.size && parsed.sst === basis.sst && parsed.date1904 === basis.date1904;
  if (!same) return NONE;
  return {
    notes: parsed.notes.map(([row, col, rows, cols, note]) => ({ row, col, rows, cols, note })),
    spills: parsed.spills?.map(([anchor, row, col, rows, cols]) => ({ anchor, ref: { row, col, rows, cols } })) ?? null,
  };
}
