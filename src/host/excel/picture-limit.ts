// Pictures over Excel on the web's request limit (issue 22, item 6). Excel on the web refuses a request
// over 5 MB (RequestPayloadSizeLimitExceeded; "Resource limits and performance optimization for Office
// Add-ins"), and a picture goes to shapes.addImage as base64 in ONE request: it cannot be split. Checked
// before anything is sent, so the person reads that the picture is too large for Excel on the web, not
// "place a smaller report". Excel desktop has no such request limit; it is not checked there.

import type { HostKind } from "../port.ts";
import { HostError } from "./errors.ts";

/** Base64 characters one addImage request may carry on the web: 5 MB less room for the request's own JSON. */
export const WEB_PICTURE_MAX_BASE64 = 4_900_000;

const mb = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;

export function checkPictureFits(host: HostKind, base64: string): void {
  if (host !== "SHEETS_CLOUD" || base64.length <= WEB_PICTURE_MAX_BASE64) return;
  throw new HostError(
    "PictureTooLarge",
    `The picture is ${mb(base64.length)} as sent to Excel; Excel on the web accepts at most 5 MB in one request, and a picture cannot be split. Nothing was changed: make the dashboard smaller on the platform (fewer or smaller tiles), or insert it from Excel desktop.`,
  );
}
