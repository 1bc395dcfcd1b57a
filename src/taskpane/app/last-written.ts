// The grids Cellbound last wrote, kept in the pane's sessionStorage so that "Last written" in a diff
// survives a reload of the pane (Office reloads it; the user can too). Session only: report data is not
// kept at rest beyond the session. Large grids are not kept (the diff then says "(unknown)", as the
// engine always did for what it cannot know). Read back through zod: storage is a boundary.
import { z } from "zod";
import type { LastWrittenStore } from "../../sync/context";
import type { Grid } from "../../sync/fingerprint";

const PREFIX = "cellbound.lastWritten.";
/** Cells kept per placement at most (sessionStorage holds a few MB per origin). */
export const MAX_KEPT_CELLS = 20_000;
const GridSchema = z.array(z.array(z.union([z.string(), z.number(), z.boolean()])));

export function sessionLastWritten(
  storage: Storage | null = typeof sessionStorage === "undefined" ? null : sessionStorage,
): LastWrittenStore {
  const memory = new Map<string, Grid>();
  return {
    get(key) {
      const hit = memory.get(key);
      if (hit || !storage) return hit;
      try {
        const text = storage.getItem(PREFIX + key);
        if (text === null) return undefined;
        const parsed = GridSchema.safeParse(JSON.parse(text));
        if (parsed.success) return parsed.data;
        storage.removeItem(PREFIX + key); // unreadable: forget it
      } catch {
        /* storage unavailable or corrupt: unknown */
      }
      return undefined;
    },
    set(key, grid) {
      memory.set(key, grid);
      if (!storage) return;
      const cells = grid.reduce((n, row) => n + row.length, 0);
      try {
        if (cells <= MAX_KEPT_CELLS) storage.setItem(PREFIX + key, JSON.stringify(grid));
        else storage.removeItem(PREFIX + key);
      } catch {
        storage.removeItem(PREFIX + key); // over quota: this session's memory still has it
      }
    },
    delete(key) {
      memory.delete(key);
      try {
        storage?.removeItem(PREFIX + key);
      } catch {
        /* nothing to remove */
      }
    },
  };
}
