// The SheetPort contract suite over an .xlsx file (src/host/xlsx). Every call that changes the
// workbook is followed by a save, and a fresh port opened on the file must see exactly the model of
// the port that saved it; the driver inspects cells as the fresh port reads them from the file.
import { CONTRACT_CHECKS, runCheck, type ContractDriver } from "../../../src/host/contract/index.ts";
import { memoryDriver } from "../../../src/host/memory/driver.ts";
import type { SheetPort } from "../../../src/host/port.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { HOSTILE_STRINGS } from "../fixtures/hostile-strings.ts";
import { differences, expectedText, libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { copyFileSync } from "node:fs";
import { modelOf, saveAndReopen, tempDir } from "./support.ts";

let lo: LibreOffice;
beforeAll(() => {
  lo = libreOffice();
});
afterAll(() => lo.close());

/** LibreOffice opens the file and shows what the port says every cell of every sheet shows. */
async function libreOfficeAgrees(file: string): Promise<void> {
  const fresh = XlsxPort.open(file, { checkData: false });
  const shown = await lo.sheets(file);
  for (const s of fresh.wb.sheets) {
    const diffs = differences(shown.get(s.name) ?? [], expectedText(fresh.wb, s.name));
    if (diffs.length) throw new Error(`LibreOffice shows ${s.name} otherwise: ${diffs.slice(0, 5).join("; ")}`);
  }
}

/** issue 35 §2: LibreOffice saves the file over itself; the port then reads the same model from it. */
async function libreOfficeResaveKeeps(port: XlsxPort): Promise<void> {
  const copy = port.file.replace(/\.xlsx$/, " (LibreOffice).xlsx");
  copyFileSync(port.file, copy);
  await lo.resave(copy);
  const want = JSON.stringify(modelOf(port.wb));
  const got = JSON.stringify(modelOf(XlsxPort.open(copy, { checkData: false }).wb));
  expect(got).toBe(want);
}

const MUTATING = new Set(["write", "clear", "style", "freezeRows", "track", "untrack", "setData", "identity", "forkIdentity"]);

/** The port, saving to the file and checking the round trip after every call that changes something. */
function throughTheFile(port: XlsxPort): SheetPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      if (!MUTATING.has(String(prop))) return (v as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const out = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        saveAndReopen(target);
        return out;
      };
    },
  });
}

function fileDriver(port: XlsxPort): ContractDriver {
  const mem = memoryDriver(port.wb);
  const after =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const r = await f(...a);
      saveAndReopen(port);
      return r;
    };
  return {
    label: "xlsx file",
    addSheet: after(mem.addSheet),
    deleteSheet: after(mem.deleteSheet),
    renameSheet: after(mem.renameSheet),
    insertRows: after(mem.insertRows),
    deleteRows: after(mem.deleteRows),
    insertColumns: after(mem.insertColumns),
    deleteColumns: after(mem.deleteColumns),
    userEdit: after(mem.userEdit!),
    // What the file holds, as a fresh port reads it.
    inspect: async (a) => {
      const fresh = saveAndReopen(port);
      await libreOfficeAgrees(port.file);
      const id = port.wb.sheets.find((s) => s.id === a.sheetId)!.name;
      const sheetId = fresh.wb.sheets.find((s) => s.name === id)!.id;
      return memoryDriver(fresh.wb).inspect({ ...a, sheetId });
    },
    // No saveAsCopy: a file port cannot tell a copy from the original (docs/XLSX.md).
  };
}

describe("SheetPort contract: xlsx file port", () => {
  for (const c of CONTRACT_CHECKS) {
    // LibreOffice reads the file after each inspection: a few conversions of ~10 s each on a busy machine.
    it(c.name, { timeout: 120_000 }, async () => {
      const tmp = tempDir();
      try {
        const port = XlsxPort.open(tmp.file("Book.xlsx"), { create: "Sheet1" });
        port.save();
        const r = await runCheck(c, { port: throughTheFile(port), driver: fileDriver(port), hostileStrings: HOSTILE_STRINGS });
        // A file port cannot be copied, and nobody defines names in a file nobody has open (names.test.ts reads them).
        if (c.name.startsWith("a copy saved under another URL") || c.name.startsWith("namedArea:")) {
          expect(r.status).toBe("skip");
          return;
        }
        expect(r.detail ?? "").toBe("");
        expect(r.status).toBe("pass");
        await libreOfficeAgrees(port.file);
        await libreOfficeResaveKeeps(port);
      } finally {
        tmp.remove();
      }
    });
  }
});
