// The one error a workbook file raises: it names the file and the cause, and the file is untouched.
import path from "node:path";

export type XlsxErrorKind =
  "notFound" | "notZip" | "truncated" | "encrypted" | "zipBomb" | "corrupt" | "notWorkbook" | "unsupported" | "changed";

export class XlsxError extends Error {
  override name = "XlsxError";
  constructor(
    readonly file: string,
    readonly kind: XlsxErrorKind,
    readonly detail: string,
  ) {
    super(`${path.basename(file)}: ${detail}`);
  }
}
