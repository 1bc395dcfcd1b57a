// The harness page: a simulated workbook (tabs, grid, toolbar) on the left, the real task-pane bundle
// in an iframe on the right (harness-taskpane.html, loaded with the dev/excel Office shim). Both see the
// same dev/excel workbook: the shim inside the iframe takes it from this window (same origin).
import { useEffect, useState } from "preact/hooks";
import type { HarnessBook } from "./book";
import { Grid } from "./Grid";
import { LATENCY, type LatencyProfile } from "../excel/latency.ts";
import type { HarnessConfig } from "./config";

function SheetTabs({ book }: { book: HarnessBook }) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const active = book.activeSheetId();
  return (
    <div class="hx-tabs" role="tablist" aria-label="Sheets">
      {book.sheets().map((s) =>
        renaming === s.id ? (
          <form
            key={s.id}
            onSubmit={(e) => {
              e.preventDefault();
              if (draft.trim()) book.renameSheet(s.id, draft.trim());
              setRenaming(null);
            }}
          >
            <input
              aria-label="New sheet name"
              autoFocus
              value={draft}
              onInput={(e) => setDraft(e.currentTarget.value)}
              onKeyDown={(e) => e.key === "Escape" && setRenaming(null)}
            />
          </form>
        ) : (
          <button
            key={s.id}
            role="tab"
            aria-selected={s.id === active}
            class="hx-tab"
            onClick={() => book.activate(s.id)}
            onDblClick={() => {
              setDraft(s.name);
              setRenaming(s.id);
            }}
          >
            {s.name}
          </button>
        ),
      )}
      <button
        class="hx-tab"
        aria-label="Rename sheet"
        title="Rename the active sheet (or double-click its tab)"
        onClick={() => {
          setDraft(book.sheets().find((s) => s.id === active)?.name ?? "");
          setRenaming(active);
        }}
      >
        ✎
      </button>
      <button
        class="hx-tab"
        aria-label="Add sheet"
        onClick={() => {
          const names = new Set(book.sheets().map((s) => s.name));
          let i = book.sheets().length + 1;
          while (names.has(`Sheet${i}`)) i++;
          book.activate(book.addSheet(`Sheet${i}`).id);
        }}
      >
        +
      </button>
    </div>
  );
}

/** Excel's Number Format list (Home tab), the common entries. */
const NUMBER_FORMATS: [string, string][] = [
  ["General", "General"],
  ["Number", "#,##0.00"],
  ["Whole number", "#,##0"],
  ["Currency", "$#,##0.00"],
  ["Percentage", "0.00%"],
  ["Short date", "m/d/yyyy"],
  ["Text", "@"],
];

function Toolbar({ book, onReset }: { book: HarnessBook; onReset: () => void }) {
  const sel = book.selection();
  const [copied, setCopied] = useState<string | null>(null);
  const [fileNote, setFileNote] = useState<string | null>(null);
  return (
    <div class="hx-toolbar" role="toolbar" aria-label="Workbook">
      <button onClick={() => book.insertRows(sel.sheetId, sel.row, sel.rows)}>Insert rows above</button>
      <button onClick={() => book.deleteRows(sel.sheetId, sel.row, sel.rows)}>Delete rows</button>
      <button onClick={() => book.insertColumns(sel.sheetId, sel.col, sel.cols)}>Insert columns left</button>
      <button onClick={() => book.deleteColumns(sel.sheetId, sel.col, sel.cols)}>Delete columns</button>
      {book.insertChart && (
        <button title="Insert › Chart: a clustered column chart of the selected cells" onClick={() => void book.insertChart!(sel)}>
          Insert chart
        </button>
      )}
      <label>
        Number format
        <select
          aria-label="Number format"
          value=""
          onChange={(e) => {
            if (e.currentTarget.value) book.setNumberFormat(sel, e.currentTarget.value);
            e.currentTarget.value = "";
          }}
        >
          <option value="">Choose…</option>
          {NUMBER_FORMATS.map(([label, format]) => (
            <option key={format} value={format}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <button onClick={() => setCopied(book.saveAsCopy())}>Save as copy</button>
      <XlsxButtons book={book} onDone={setFileNote} />
      <span role="status" data-testid="xlsx-status" class="hx-note">
        {fileNote ?? ""}
      </span>
      <button onClick={onReset} title="Forget this simulated workbook and start with an empty one">
        New workbook
      </button>
      <span class="hx-docurl" data-testid="document-url">
        {copied ? `Saved a copy: ${copied}` : (book.documentUrl() ?? "unsaved")}
      </span>
    </div>
  );
}

export type HarnessTheme = "light" | "dark";

/**
 * "Open .xlsx…" and "Save as .xlsx": the harness server converts between this workbook and an .xlsx
 * file through the file port's mapping (dev/harness/xlsx-bridge.ts), so a file saved here is what the
 * command line refreshes, and a file it refreshed opens here.
 */
function XlsxButtons({ book, onDone }: { book: HarnessBook; onDone: (message: string) => void }) {
  if (!book.snapshot || !book.replaceWith) return null;
  const save = async () => {
    const res = await fetch("/__harness/xlsx/save", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(book.snapshot!()),
    });
    if (!res.ok) return onDone(`Not saved: ${((await res.json()) as { error: string }).error}`);
    const name = (book.fileName?.() ?? "Book.xlsx").replace(/(\.xlsx)?$/i, ".xlsx");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(await res.blob());
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    onDone(`Saved as ${name}`);
  };
  const open = async (file: File) => {
    const res = await fetch(`/__harness/xlsx/open?name=${encodeURIComponent(file.name)}`, {
      method: "POST",
      body: await file.arrayBuffer(),
    });
    const json = (await res.json()) as unknown;
    if (!res.ok) return onDone(`Not opened: ${(json as { error: string }).error}`);
    book.replaceWith!(json); // the harness redraws on the opened workbook; its URL shows in the toolbar
  };
  return (
    <>
      <label class="hx-file">
        <span>Open .xlsx…</span>
        <input
          type="file"
          accept=".xlsx,.xlsm"
          aria-label="Open .xlsx…"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            e.currentTarget.value = "";
            if (f) void open(f);
          }}
        />
      </label>
      <button onClick={() => void save()}>Save as .xlsx</button>
    </>
  );
}

export function Harness({
  book,
  paneSrc,
  onReset,
  theme,
  onTheme,
  latency,
  onLatency,
  config,
}: {
  book: HarnessBook;
  paneSrc: string;
  onReset: () => void;
  theme: HarnessTheme;
  onTheme: (t: HarnessTheme) => void;
  /** What a round trip to the simulated Excel costs (dev/excel/latency.ts). */
  latency?: LatencyProfile;
  onLatency?: (l: LatencyProfile) => void;
  config?: Promise<HarnessConfig>;
}) {
  const [version, setVersion] = useState(0);
  const [paneWidth, setPaneWidth] = useState(350);
  useEffect(() => book.subscribe(() => setVersion((v) => v + 1)), [book]);
  return (
    <div class="hx-root">
      <section class="hx-book" aria-label="Simulated workbook">
        <Toolbar book={book} onReset={onReset} />
        <Grid book={book} version={version} />
        <SheetTabs book={book} />
      </section>
      <aside class="hx-pane" style={{ width: `${paneWidth}px` }} aria-label="Task pane">
        <div class="hx-panebar">
          <span>Cellbound</span>
          <label>
            theme{" "}
            <select aria-label="Office theme" value={theme} onChange={(e) => onTheme(e.currentTarget.value as HarnessTheme)}>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          {latency && onLatency && (
            <label title="What each round trip to Excel costs: Excel on the web, Excel desktop, or nothing">
              Excel{" "}
              <select aria-label="Excel round trip" value={latency} onChange={(e) => onLatency(e.currentTarget.value as LatencyProfile)}>
                <option value="web">on the web ({LATENCY.web.roundTripMs} ms)</option>
                <option value="desktop">desktop ({LATENCY.desktop.roundTripMs} ms)</option>
                <option value="none">instant</option>
              </select>
            </label>
          )}
          {config && <CommentsAs config={config} />}
          <label>
            width{" "}
            <select value={String(paneWidth)} onChange={(e) => setPaneWidth(Number(e.currentTarget.value))}>
              {[320, 350, 450].map((w) => (
                <option key={w} value={w}>
                  {w} px
                </option>
              ))}
            </select>
          </label>
        </div>
        <iframe id="taskpane" title="Cellbound task pane" src={paneSrc} />
      </aside>
    </div>
  );
}

/**
 * "Comments as": switch the comments pane between the demo's comments users (?embedUser= on the
 * harness URL; the page reloads, the simulated workbook is kept), so a conversation can be tried.
 */
function CommentsAs({ config }: { config: Promise<HarnessConfig> }) {
  const [c, setC] = useState<HarnessConfig | null>(null);
  useEffect(() => {
    void config.then(setC, () => undefined);
  }, [config]);
  const viewers = c?.embedViewers ?? [];
  if (viewers.length < 2) return null;
  const current = c?.embedViewer?.externalId ?? viewers[0]!.externalId;
  return (
    <label>
      comments as{" "}
      <select
        aria-label="Comments as"
        value={current}
        onChange={(e) => {
          const u = new URL(location.href);
          u.searchParams.set("embedUser", e.currentTarget.value);
          location.assign(u.href);
        }}
      >
        {viewers.map((v) => (
          <option key={v.externalId} value={v.externalId}>
            {v.name}
          </option>
        ))}
      </select>
    </label>
  );
}
