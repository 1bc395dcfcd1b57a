// The one error a workbook file raises: it names the file and the cause, and the file is untouched.
import path from "node:path";

export type XlsxErrorKind =
  | "notFound"
  | "notZip"
  | "truncated"
  | "encrypted"
  | "zipBomb"
  | "corrupt"
  | "notWorkbook"
  | "unsupported"
  | "changed"
  /** Cellbound's names, data or workbook id are partly missing or unreadable (another program dropped them): issue 35 §2. */
  | "cellboundData";

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
