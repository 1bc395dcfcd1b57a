// Two projects: "node" (unit + integration + e2e driven from Node) and "browser"
// (tests that must run inside Chromium: *.browser.test.ts[x]).
import { defineConfig } from "vitest/config";
import { playwright } from "@vitest/browser-playwright";
import { chromiumPath, CHROMIUM_ARGS } from "./dev/chromium.ts";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  test: {
    globals: true,
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.browser.test.{ts,tsx}", "node_modules/**"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "browser",
          include: ["test/**/*.browser.test.{ts,tsx}"],
          testTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: { executablePath: chromiumPath(), args: CHROMIUM_ARGS },
            }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
