// Imported first by the pane's entry (index.tsx): settings the Content-Security-Policy needs before
// any other module runs (docs/UI.md, "Content-Security-Policy"). zod compiles object parsers with
// `new Function` when it can, and its probe alone (a caught `new Function("")`) is reported as a CSP
// violation under a policy without 'unsafe-eval'; jitless parses without generated code.
import { z } from "zod";

z.config({ jitless: true });
