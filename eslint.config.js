// Flat ESLint config: typescript-eslint's recommended rules over src, dev, test, bench and scripts;
// formatting rules off (Prettier owns formatting: .prettierrc.json, npm run format / format:check).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  { ignores: ["node_modules", "dist", "bench/results", "test-results", "**/*.d.ts", ".cellbound-data", ".dbg"] },
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
  // Formatting is Prettier's (npm run format); eslint-config-prettier turns off the rules that would disagree.
  prettier,
);
