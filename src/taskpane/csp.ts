// Imported first by the live backend (app/backend.ts, the root of the chunk that brings zod and every
// schema of src/api): settings the Content-Security-Policy needs before any schema is made (docs/UI.md,
// "Content-Security-Policy"). zod compiles object parsers with `new Function` when it can, and its
// probe alone (a caught `new Function("")`) is reported as a CSP violation under a policy without
// 'unsafe-eval'; jitless parses without generated code. A zod object decides at its making.
import { z } from "zod";

z.config({ jitless: true });
