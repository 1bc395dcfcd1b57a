// describeError: every kind of src/api's errors has its own row (no regex guessing), the new kinds
// say what to do, and the errors the API layer really throws read as they should.
import { describe, expect, it } from "vitest";
import { DataChangedError } from "../../src/host/port.ts";
import {
  DataUrlError,
  ForbiddenError,
  NetworkError,
  PlatformUrlError,
  RateLimitedError,
  ResponseTooLargeError,
  RetryExhaustedError,
  ServerError,
  SqlNotSupportedError,
  TimeoutError,
  TokenRefusedError,
} from "../../src/api";
import { describeError } from "../../src/taskpane/errors";

describe("describeError", () => {
  it("each new kind has one row with a title and a next step of its own", () => {
    const errors = [
      new TimeoutError("POST /v1/load: no answer within 60 s", 60_000),
      new TokenRefusedError("POST /v1/load: 403 Invalid token", 403),
      new SqlNotSupportedError("POST /v1/svcsql: 404: this data API does not run SQL reports", 404),
      new ResponseTooLargeError("POST /v1/load: the answer is 300 MB, over the limit of 64 MB", 200, 64 << 20),
      new RateLimitedError("GET /v1/meta: 429 slow down", 429, undefined, 5_000),
      new DataUrlError("The data API URL https://x/y has no /v1/meta (404): …", "https://x/y", new Error("404")),
      new PlatformUrlError("No platform API answers at https://host/app …", "https://host/app", new Error("404")),
    ];
    const titles = new Set<string>();
    for (const e of errors) {
      const h = describeError(e);
      expect(h.title, e.kind).not.toBe("Something went wrong");
      expect(h.next.length, e.kind).toBeGreaterThan(10);
      titles.add(h.title);
    }
    expect(titles.size).toBe(errors.length);
    expect(describeError(errors[0]).detail).not.toContain("POST"); // words in the message…
    expect(describeError(errors[0]).technical).toContain("POST /v1/load: no answer within 60 s"); // …the request behind Details
    expect(describeError(errors[3]).detail).toContain("64 MB");
  });
  it("a token refused reads as a sign-in problem; a real 403 as a permission problem", () => {
    expect(describeError(new TokenRefusedError("x", 403)).next).toMatch(/Sign out and sign in again/);
    expect(describeError(new ForbiddenError("x", 403)).next).toMatch(/owner or an admin/);
  });
  it("the kind decides, not the status: a 404 that is a missing SQL endpoint is not 'no longer exists'", () => {
    const h = describeError(new SqlNotSupportedError("x", 404));
    expect(`${h.title} ${h.detail}`).not.toMatch(/no longer exists/);
  });
  it("retries that ran out name the last cause, with the server's own words", () => {
    const cause = new ServerError("POST /v1/load: 500 Unsupported granularity: quarter", 500);
    const h = describeError(new RetryExhaustedError("gave up", 500, undefined, { cause }));
    expect(h.title).toBe("The platform had a problem");
    expect(h.detail).toContain("Unsupported granularity: quarter");
    expect(h.detail).toContain("retried several times");
    expect(describeError(new RetryExhaustedError("gave up", 0, undefined, { cause: new NetworkError("reset", 0) })).title).toBe(
      "Cannot reach the platform",
    );
  });
  it("a co-author's changes that kept winning (DataChangedError) say so, and that nothing was written", () => {
    const h = describeError(new DataChangedError("cellbound.sync.placements.v1"));
    expect(h.title).toBe("Someone else is changing Cellbound's placements");
    expect(h.detail).toMatch(/changed by someone else.*Nothing of this step was written/);
  });
  it("a DOM TimeoutError (AbortSignal.timeout) reads like ours, an AbortError as Stopped", () => {
    expect(describeError(new DOMException("signal timed out", "TimeoutError")).title).toBe("The platform did not answer in time");
    expect(describeError(new DOMException("x", "AbortError")).title).toBe("Stopped");
  });
});

describe("issue 36 item 4: a report that would pass the sheet's end", () => {
  it("reads 'The report does not fit there' with the engine's reason and what to do, never a raw error", async () => {
    const { DoesNotFit } = await import("../../src/sync/index.ts");
    const why =
      "“Orders” does not fit there: it has 4,201 rows: from row 1,045,577 it would pass the sheet's last row (1,048,576). Nothing was written; place it higher up or further left.";
    const h = describeError(new DoesNotFit(why));
    expect(h.title).toBe("The report does not fit there");
    expect(h.detail).toBe(why);
    expect(h.next).toBe("Select a cell higher up or further left, then place it again.");
  });
});
