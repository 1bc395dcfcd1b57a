// Office errors as Excel's JavaScript API raises them at sync(): an Error named "RichApi.Error"
// with a code from Excel.ErrorCodes (plus RequestPayloadSizeLimitExceeded from the resource limits page).

export type OfficeErrorCode =
  | "InvalidArgument"
  | "ItemNotFound"
  | "ItemAlreadyExists"
  | "InvalidOperation"
  | "InvalidReference"
  | "GeneralException"
  | "NotImplemented"
  | "PropertyNotLoaded"
  | "ValueNotLoaded"
  | "RangeExceedsLimit"
  | "RequestPayloadSizeLimitExceeded"
  | "ResponsePayloadSizeLimitExceeded"
  | "InvalidRequestContext"
  | "InvalidOperationInCellEditMode"
  | "AccessDenied"
  | "InvalidSelection"
  | "MergedRangeConflict"
  | "InsertDeleteConflict"
  | "ApiNotFound";

export class OfficeError extends Error {
  override name = "RichApi.Error";
  readonly debugInfo: { code: string; message: string; errorLocation?: string };
  constructor(
    readonly code: OfficeErrorCode,
    message: string,
    errorLocation?: string,
  ) {
    super(message);
    this.debugInfo = errorLocation === undefined ? { code, message } : { code, message, errorLocation };
  }
}
