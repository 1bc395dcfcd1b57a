// Prints one plain closing line, "vitest: N passed, N failed, N skipped",
// so CI logs carry a summary any reader (human or tool) can find.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A module that failed outside its tests (import error, failing beforeAll) counts once,
      // even when its tests were skipped because of it.
      const testsFailed = [...mod.children.allTests()].some((t) => t.result().state === "failed");
      if (mod.state() === "failed" && !testsFailed) failed++;
    }
    failed += errors.length;
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
