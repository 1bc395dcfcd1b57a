// Browser entry of the checksum benchmark: bundled with esbuild by bench/checksum.bench.ts
// and run in headless Chromium; exposes measure() as globalThis.checksumBench.
import { measure } from "./checksum-grid.ts";

(globalThis as unknown as { checksumBench: typeof measure }).checksumBench = measure;
