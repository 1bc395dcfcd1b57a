// Worksheet.shapes as dev/excel models it (ExcelApi 1.9; getItemOrNullObject 1.14), only what the
// dashboard picture needs, per Microsoft's docs (Excel.ShapeCollection, Excel.Shape):
//   - shapes.addImage(base64ImageString) takes a JPEG or PNG as base64 without a data: prefix and
//     returns the Shape; anything else fails at sync with InvalidArgument;
//   - the new image sits at the sheet's top-left (left = top = 0) at its natural size in points
//     (pixels × 72 / 96); callers move it by setting left/top (a Range's left/top give a cell's place);
//   - Shape: id (read-only), name, type ("Image"), left, top, width, height; delete();
//   - shapes.getItem(key) by id or name (ItemNotFound at sync if none); getItemOrNullObject(key).
// Cell geometry for Range.left/top: the default grid (columns 48 pt = 64 px, rows 15 pt = 20 px).
import { OfficeError } from "./errors.ts";
import type { DevWorkbook, ModelSheet } from "./model.ts";
import { DevClientObject, DevCollection, versionAtLeast, type DevRequestContext, type SyncState } from "./proxy.ts";

export const COLUMN_WIDTH_PT = 48;
export const ROW_HEIGHT_PT = 15;

export interface ModelShape {
  id: string;
  name: string;
  type: "Image";
  left: number;
  top: number;
  width: number;
  height: number;
  /** The image as given (base64, no data: prefix). */
  base64: string;
  format: "PNG" | "JPEG";
}

// Kept on the model objects under global symbols: the harness page and the pane's iframe each bundle
// their own copy of this module but share one workbook.
const SHAPES = Symbol.for("cellbound.dev-excel.shapes");
const LISTENERS = Symbol.for("cellbound.dev-excel.shape-listeners");
let nextId = 1;

function listenersOf(wb: DevWorkbook): Set<() => void> {
  const holder = wb as unknown as Record<symbol, Set<() => void> | undefined>;
  return (holder[LISTENERS] ??= new Set());
}
/** Hear about pictures added, moved or deleted in a workbook (the harness redraws); returns unsubscribe. */
export function onShapesChanged(wb: DevWorkbook, listener: () => void): () => void {
  listenersOf(wb).add(listener);
  return () => void listenersOf(wb).delete(listener);
}
const changed = (ctx: DevRequestContext, st: SyncState) =>
  st.commits.push(() =>
    queueMicrotask(() => {
      for (const l of listenersOf(ctx.env.wb)) l();
    }),
  );

/** The shapes on a sheet (the harness draws them; tests inspect them). */
export function sheetShapes(sheet: ModelSheet): ModelShape[] {
  const holder = sheet as unknown as Record<symbol, ModelShape[] | undefined>;
  return (holder[SHAPES] ??= []);
}

const bad = (what: string) =>
  new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${what})`);

/** PNG or JPEG bytes from base64, with the picture's size in pixels. */
function decodeImage(base64: string): { format: "PNG" | "JPEG"; widthPx: number; heightPx: number } {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw bad("addImage: not a base64 string (no data: prefix)");
  const bin = atob(base64);
  const b = (i: number) => bin.charCodeAt(i);
  if (bin.length > 24 && b(0) === 0x89 && bin.slice(1, 4) === "PNG") {
    const u32 = (i: number) => ((b(i) << 24) | (b(i + 1) << 16) | (b(i + 2) << 8) | b(i + 3)) >>> 0;
    return { format: "PNG", widthPx: u32(16), heightPx: u32(20) };
  }
  if (bin.length > 4 && b(0) === 0xff && b(1) === 0xd8) {
    // Walk the JPEG segments to the first SOFn for the size.
    for (let i = 2; i + 9 < bin.length;) {
      if (b(i) !== 0xff) break;
      const marker = b(i + 1);
      const len = (b(i + 2) << 8) | b(i + 3);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { format: "JPEG", heightPx: (b(i + 5) << 8) | b(i + 6), widthPx: (b(i + 7) << 8) | b(i + 8) };
      }
      i += 2 + len;
    }
    return { format: "JPEG", widthPx: 100, heightPx: 100 };
  }
  throw bad("addImage: the image is neither PNG nor JPEG");
}

const requireShapes = (ctx: DevRequestContext) => {
  if (!versionAtLeast(ctx.env.apiVersion, "1.9")) throw new OfficeError("InvalidArgument", "Worksheet.shapes requires ExcelApi 1.9");
};

export class DevShape extends DevClientObject<ModelShape> {
  protected readonly _scalarProps = ["id", "name", "type", "left", "top", "width", "height"] as const;
  constructor(
    ctx: DevRequestContext,
    resolve: () => ModelShape | null,
    private readonly sheet: () => ModelSheet,
    nullable = false,
  ) {
    super(ctx, resolve, nullable);
  }
  protected _read(s: ModelShape, prop: string): unknown {
    if ((this._scalarProps as readonly string[]).includes(prop)) return s[prop as keyof ModelShape];
    throw bad(`Shape.${prop} is not modelled`);
  }
  get id(): string {
    return this._get("id");
  }
  get name(): string {
    return this._get("name");
  }
  set name(v: string) {
    this._do({ name: v }, (s) => {
      s.name = v;
    });
  }
  get type(): string {
    return this._get("type");
  }
  get left(): number {
    return this._get("left");
  }
  set left(v: number) {
    this.setNumber("left", v);
  }
  get top(): number {
    return this._get("top");
  }
  set top(v: number) {
    this.setNumber("top", v);
  }
  get width(): number {
    return this._get("width");
  }
  set width(v: number) {
    this.setNumber("width", v);
  }
  get height(): number {
    return this._get("height");
  }
  set height(v: number) {
    this.setNumber("height", v);
  }
  private setNumber(prop: "left" | "top" | "width" | "height", v: number): void {
    this._do({ [prop]: v }, (s, st) => {
      if (!Number.isFinite(v) || v < 0) throw bad(`Shape.${prop} ${v}`);
      s[prop] = v;
      changed(this.context, st);
    });
  }
  delete(): void {
    this._do({ delete: 1 }, (s, st) => {
      const list = sheetShapes(this.sheet());
      const i = list.indexOf(s);
      if (i >= 0) list.splice(i, 1);
      changed(this.context, st);
    });
  }
}

export class DevShapeCollection extends DevCollection<ModelShape, DevShape> {
  protected readonly _itemScalarProps = ["id", "name", "type", "left", "top", "width", "height"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly sheet: () => ModelSheet,
  ) {
    super(ctx);
    requireShapes(ctx);
  }
  protected _list(): ModelShape[] {
    return sheetShapes(this.sheet());
  }
  protected _proxy(s: ModelShape): DevShape {
    return new DevShape(this.context, () => s, this.sheet);
  }
  protected _readItem(s: ModelShape, prop: string, _st: SyncState): unknown {
    return s[prop as keyof ModelShape];
  }

  addImage(base64ImageString: string): DevShape {
    let created: ModelShape | null = null;
    this.context.enqueue({ addImage: base64ImageString }, (st) => {
      const img = decodeImage(base64ImageString);
      const list = sheetShapes(this.sheet());
      const id = `{shape-${nextId++}}`;
      created = {
        id,
        name: `Picture ${list.length + 1}`,
        type: "Image",
        left: 0,
        top: 0,
        width: (img.widthPx * 72) / 96,
        height: (img.heightPx * 72) / 96,
        base64: base64ImageString,
        format: img.format,
      };
      list.push(created);
      changed(this.context, st);
    });
    return new DevShape(this.context, () => created, this.sheet);
  }

  private find(key: string): ModelShape | null {
    return sheetShapes(this.sheet()).find((s) => s.id === key || s.name === key) ?? null;
  }
  getItem(key: string): DevShape {
    return new DevShape(this.context, () => this.find(key), this.sheet);
  }
  getItemOrNullObject(key: string): DevShape {
    if (!versionAtLeast(this.context.env.apiVersion, "1.14"))
      throw new OfficeError("InvalidArgument", "getItemOrNullObject requires ExcelApi 1.14");
    return new DevShape(this.context, () => this.find(key), this.sheet, true);
  }
}

/** Range.left / top / width / height in points on the default grid. */
export function rectGeometry(rect: { row: number; col: number; rows: number; cols: number }, prop: string): number | undefined {
  switch (prop) {
    case "left":
      return rect.col * COLUMN_WIDTH_PT;
    case "top":
      return rect.row * ROW_HEIGHT_PT;
    case "width":
      return rect.cols * COLUMN_WIDTH_PT;
    case "height":
      return rect.rows * ROW_HEIGHT_PT;
    default:
      return undefined;
  }
}
