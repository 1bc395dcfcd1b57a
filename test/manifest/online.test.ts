// The online check never claims a pass it did not get: unreachable service,
// timeouts and HTTP errors are "not-run" with the reason.
import { validateOnline } from "../../scripts/manifest/online.ts";

describe("online validation outcome", () => {
  it("an unreachable service is not-run, with the reason", async () => {
    const outcome = await validateOnline("manifest.xml", 1000, () =>
      Promise.reject(new Error("Unable to contact the manifest validation service.\nFetchError: getaddrinfo ENOTFOUND")),
    );
    expect(outcome).toEqual({ status: "not-run", reason: expect.stringContaining("ENOTFOUND") });
  });

  it("a service that does not answer in time is not-run", async () => {
    const outcome = await validateOnline("manifest.xml", 50, () => new Promise(() => {}));
    expect(outcome).toEqual({ status: "not-run", reason: expect.stringContaining("did not answer within") });
  });

  it("an HTTP error from the service is not-run, not a pass", async () => {
    const outcome = await validateOnline("manifest.xml", 1000, async () => ({
      isValid: false,
      status: 503,
      statusText: "Service Unavailable",
    }));
    expect(outcome).toEqual({ status: "not-run", reason: "Microsoft's validation service answered HTTP 503 Service Unavailable" });
  });

  it("a rejection lists the service's errors", async () => {
    const outcome = await validateOnline("manifest.xml", 1000, async () => ({
      isValid: false,
      status: 200,
      report: { status: "Rejected", errors: [{ title: "Invalid icon", content: "bad size", line: 9 }] },
    }));
    expect(outcome).toEqual({ status: "failed", messages: ["line 9: Invalid icon: bad size"] });
  });

  it("only an accepted report passes", async () => {
    const outcome = await validateOnline("manifest.xml", 1000, async () => ({
      isValid: true,
      status: 200,
      report: { status: "Accepted" },
    }));
    expect(outcome.status).toBe("passed");
  });
});
