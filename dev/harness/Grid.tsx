// A virtualized grid over a HarnessBook sheet: only the visible rows and columns are in the DOM, so a
// 100,000-row placement scrolls smoothly. Click selects (Shift+click extends), arrow keys move, typing
// or Enter / F2 / double-click edits; Enter commits (as the user types it), Escape cancels.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { parseAddress } from "../../src/host/a1.ts";
import { formatValue } from "../../src/host/number-format.ts";
import { columnName, type CellShown, type HarnessBook } from "./book";
import { SheetCharts, tableLook } from "./sheet-objects";

const ROW_H = 22;
const COL_W = 124; // wide enough for a formatted amount such as $150,465,588.16
const HEAD_W = 56;

/** What Excel shows for a value under its number format (Range.text). */
export function display(v: CellShown, format: string): string {
  return formatValue(v, format);
}

/** Excel's Name Box: shows the selection; type an address (e.g. B12 or B3:D7) and Enter to go there. */
function NameBox({ address, onGo }: { address: string; onGo: (a: { row: number; col: number; rows: number; cols: number }) => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const [bad, setBad] = useState(false);
  return (
    <input
      class="hx-namebox"
      aria-label="Name box"
      aria-invalid={bad || undefined}
      data-testid="namebox"
      value={draft ?? address}
      onFocus={(e) => e.currentTarget.select()}
      onInput={(e) => setDraft(e.currentTarget.value)}
      onBlur={() => {
        setDraft(null);
        setBad(false);
      }}
      onKeyDown={(e) => {
        if (e.key !== "Enter") return;
        try {
          const a = parseAddress(e.currentTarget.value);
          onGo({ row: a.row, col: a.col, rows: a.rows, cols: a.cols });
          setDraft(null);
          setBad(false);
          e.currentTarget.blur();
        } catch {
          setBad(true);
        }
      }}
    />
  );
}

/** Points → the harness grid: a default column is 48 pt (COL_W px here), a row 15 pt (ROW_H px). */
const toPx = (p: { left: number; top: number; width: number; height: number }) => ({
  left: HEAD_W + (p.left * COL_W) / 48,
  top: ROW_H + (p.top * ROW_H) / 15,
  width: (p.width * COL_W) / 48,
  height: (p.height * ROW_H) / 15,
});

export function Grid({ book, version }: { book: HarnessBook; version: number }) {
  const scroller = useRef<HTMLDivElement>(null);
  const editor = useRef<HTMLInputElement>(null);
  const [, setPictureVersion] = useState(0);
  useEffect(() => book.onPictures?.(() => setPictureVersion((v) => v + 1)), [book]);
  const [view, setView] = useState({ top: 0, left: 0, height: 600, width: 800 });
  const [editing, setEditing] = useState<{ text: string } | null>(null);
  const sheetId = book.activeSheetId();
  const isEditing = editing !== null;
  // Move focus into the editor when editing starts (autofocus does not apply to inserted elements).
  useLayoutEffect(() => {
    const el = editor.current;
    if (isEditing && el) {
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    }
  }, [isEditing]);
  const sel = book.selection();
  const used = book.usedSize(sheetId);
  const rows = Math.max(used.rows + 50, 200);
  const cols = Math.max(used.cols + 5, 26);

  useLayoutEffect(() => {
    const el = scroller.current!;
    const measure = () => setView({ top: el.scrollTop, left: el.scrollLeft, height: el.clientHeight, width: el.clientWidth });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Keep the selected cell in view when it moves (Locate selects far-away ranges).
  useEffect(() => {
    const el = scroller.current;
    if (!el || sel.sheetId !== sheetId) return;
    const y = sel.row * ROW_H;
    const x = sel.col * COL_W;
    if (y < el.scrollTop || y > el.scrollTop + el.clientHeight - 2 * ROW_H) el.scrollTop = Math.max(0, y - ROW_H * 2);
    if (x < el.scrollLeft || x > el.scrollLeft + el.clientWidth - HEAD_W - COL_W) el.scrollLeft = Math.max(0, x - COL_W);
  }, [sel.sheetId, sel.row, sel.col, sheetId]);

  const firstRow = Math.max(0, Math.floor(view.top / ROW_H) - 2);
  const lastRow = Math.min(rows - 1, Math.ceil((view.top + view.height) / ROW_H) + 2);
  const firstCol = Math.max(0, Math.floor(view.left / COL_W) - 1);
  const lastCol = Math.min(cols - 1, Math.ceil((view.left + view.width) / COL_W) + 1);

  const inSel = (r: number, c: number) =>
    sel.sheetId === sheetId && r >= sel.row && r < sel.row + sel.rows && c >= sel.col && c < sel.col + sel.cols;
  const move = (dr: number, dc: number) =>
    book.select({ sheetId, row: Math.max(0, sel.row + dr), col: Math.max(0, sel.col + dc), rows: 1, cols: 1 });

  const commit = (text: string) => {
    book.typeInto(sheetId, sel.row, sel.col, text);
    setEditing(null);
    move(1, 0);
    scroller.current?.focus();
  };

  const onKey = (e: KeyboardEvent) => {
    if (editing) return;
    const arrows: Record<string, [number, number]> = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const a = arrows[e.key];
    if (a) {
      e.preventDefault();
      move(a[0], a[1]);
    } else if (e.key === "Enter" || e.key === "F2") {
      e.preventDefault();
      const v = book.value(sheetId, sel.row, sel.col);
      setEditing({ text: typeof v === "boolean" ? (v ? "TRUE" : "FALSE") : String(v) });
    } else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      book.typeInto(sheetId, sel.row, sel.col, "");
    } else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      setEditing({ text: e.key });
    }
  };

  const frozen = book.frozenRows(sheetId);
  const tables = book.tables?.(sheetId) ?? [];
  const cells = [];
  for (let r = firstRow; r <= lastRow; r++) {
    cells.push(
      <div key={`h${r}`} class="hx-rowhead" style={{ top: `${(r + 1) * ROW_H}px`, left: `${view.left}px` }} aria-hidden="true">
        {r + 1}
      </div>,
    );
    for (let c = firstCol; c <= lastCol; c++) {
      const v = book.value(sheetId, r, c);
      const addr = `${columnName(c)}${r + 1}`;
      const selected = inSel(r, c);
      const look = book.cellStyle(sheetId, r, c);
      const frozenEdge = frozen > 0 && r === frozen - 1;
      // A table's style shows where the cell has no fill of its own (a cell's own format wins, as in Excel).
      const table = look.fill ? null : tableLook(tables, r, c);
      cells.push(
        <div
          key={addr}
          role="gridcell"
          data-cell={addr}
          aria-selected={selected}
          data-table={table?.table}
          class={`hx-cell${selected ? " hx-sel" : ""}${typeof v === "number" ? " hx-num" : ""}${look.bold ? " hx-bold" : ""}${frozenEdge ? " hx-frozen" : ""}${table ? ` ${table.classes}` : ""}`}
          style={{
            top: `${(r + 1) * ROW_H}px`,
            left: `${HEAD_W + c * COL_W}px`,
            ...(look.fill && !selected ? { background: look.fill, color: "#242424" } : {}),
            ...(table ? { "--hx-accent": table.accent } : {}),
          }}
          onMouseDown={(e) => {
            e.preventDefault(); // no text selection; focus goes to the grid itself
            scroller.current?.focus({ preventScroll: true });
            setEditing(null);
            if (e.shiftKey) {
              const r0 = Math.min(sel.row, r);
              const c0 = Math.min(sel.col, c);
              book.select({ sheetId, row: r0, col: c0, rows: Math.abs(r - sel.row) + 1, cols: Math.abs(c - sel.col) + 1 });
            } else book.select({ sheetId, row: r, col: c, rows: 1, cols: 1 });
          }}
          onDblClick={() => setEditing({ text: String(v) })}
        >
          {display(v, v === "" ? "General" : book.numberFormat(sheetId, r, c))}
          {table?.filter && <span class="hx-filter" title="Filter button" aria-hidden="true" />}
        </div>,
      );
    }
  }
  const heads = [];
  for (let c = firstCol; c <= lastCol; c++) {
    heads.push(
      <div key={`c${c}`} class="hx-colhead" style={{ left: `${HEAD_W + c * COL_W}px`, top: `${view.top}px` }} aria-hidden="true">
        {columnName(c)}
      </div>,
    );
  }
  const address = `${columnName(sel.col)}${sel.row + 1}${sel.rows * sel.cols > 1 ? `:${columnName(sel.col + sel.cols - 1)}${sel.row + sel.rows}` : ""}`;
  return (
    <div class="hx-gridwrap" data-version={version}>
      <div class="hx-formula">
        <NameBox address={address} onGo={(a) => book.select({ sheetId, ...a })} />
        {editing ? (
          <input
            ref={editor}
            class="hx-editor"
            aria-label={`Edit ${address}`}
            value={editing.text}
            onInput={(e) => setEditing({ text: e.currentTarget.value })}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                commit(e.currentTarget.value);
              } else if (e.key === "Escape") {
                setEditing(null);
                scroller.current?.focus();
              }
            }}
          />
        ) : (
          <span class="hx-formula-value">{display(book.value(sheetId, sel.row, sel.col), "General")}</span>
        )}
      </div>
      <div
        ref={scroller}
        class="hx-scroller"
        tabIndex={0}
        role="grid"
        aria-label="Worksheet"
        aria-rowcount={rows}
        aria-colcount={cols}
        onKeyDown={onKey}
        onScroll={(e) => {
          const el = e.currentTarget;
          setView({ top: el.scrollTop, left: el.scrollLeft, height: el.clientHeight, width: el.clientWidth });
        }}
      >
        <div class="hx-canvas" style={{ height: `${(rows + 1) * ROW_H}px`, width: `${HEAD_W + cols * COL_W}px` }}>
          <div class="hx-corner" style={{ top: `${view.top}px`, left: `${view.left}px` }} />
          {heads}
          {cells}
          {(book.pictures?.(sheetId) ?? []).map((p) => (
            // Points → the harness grid: a default column is 48 pt (COL_W px here), a row 15 pt (ROW_H px).
            <img
              key={p.name}
              class="hx-picture"
              alt={p.name}
              src={p.src}
              style={{
                position: "absolute",
                zIndex: 3,
                left: `${HEAD_W + (p.left * COL_W) / 48}px`,
                top: `${ROW_H + (p.top * ROW_H) / 15}px`,
                width: `${(p.width * COL_W) / 48}px`,
                height: `${(p.height * ROW_H) / 15}px`,
              }}
            />
          ))}
          <SheetCharts charts={book.charts?.(sheetId) ?? []} px={toPx} />
        </div>
      </div>
    </div>
  );
}
