#!/usr/bin/env node
// The `cellbound` command: runs the TypeScript sources through tsx's loader (src/cli/main.ts).
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
