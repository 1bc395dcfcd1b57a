// Flat ESLint config: typescript-eslint's recommended rules over src, dev, test, bench and scripts.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["node_modules", "dist", "bench/results", "test-results", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // No URL is built outside src/api (see docs/ARCHITECTURE.md).
      "no-restricted-syntax": "off",
    },
  },
  // The Cube peer of test/cube (plain CommonJS run by node) and its data model (Cube's globals).
  { files: ["dev/cube/server/*.cjs"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  { files: ["dev/cube/server/model/*.js"], languageOptions: { globals: { cube: "readonly", CUBE: "readonly" } } },
);
