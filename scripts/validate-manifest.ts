// npm run validate — checks manifest.xml offline, then (where the network allows)
// with Microsoft's online validation service.
//
//   tsx scripts/validate-manifest.ts [--offline] [manifest.xml ...]
//
// Checks each file given (default manifest.xml); `npm run validate -- dist/manifest.xml`
// therefore checks the source manifest and the built one.
// Prints each offline problem as "FILE:LINE: message" and exits 1 if there is any.
// The online check runs only after a clean offline pass; when the service cannot
// be reached it says "online validation not run: <reason>" and the exit code
// reflects the offline result alone. An online rejection exits 1.
// --offline (or CELLBOUND_VALIDATE_OFFLINE=1) skips the online check.
import { validateOnline } from "./manifest/online.ts";
import { formatProblem, validateManifestFile } from "./manifest/validate.ts";

async function main(argv: string[]): Promise<number> {
  const offline = argv.includes("--offline") || process.env.CELLBOUND_VALIDATE_OFFLINE === "1";
  const unknown = argv.filter((a) => a.startsWith("--") && a !== "--offline");
  if (unknown.length) {
    console.error("usage: tsx scripts/validate-manifest.ts [--offline] [manifest.xml ...]");
    return 2;
  }
  const files = argv.filter((a) => !a.startsWith("--"));
  let code = 0;
  for (const file of files.length ? files : ["manifest.xml"]) code = Math.max(code, await validateOne(file, offline));
  return code;
}

async function validateOne(file: string, offline: boolean): Promise<number> {
  const problems = validateManifestFile(file);
  for (const problem of problems) console.error(formatProblem(file, problem));
  if (problems.length) {
    console.error(`${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"} found by the offline check.`);
    return 1;
  }
  console.log(`${file}: offline check passed (schema order and types, resids, https URLs, Id, Version, icon files).`);

  if (offline) {
    console.log(`${file}: online validation not run: --offline was given.`);
    return 0;
  }
  const online = await validateOnline(file, Number(process.env.CELLBOUND_VALIDATE_TIMEOUT_MS ?? 20_000));
  switch (online.status) {
    case "passed":
      console.log(`${file}: Microsoft's online validation passed.`);
      return 0;
    case "failed":
      for (const message of online.messages) console.error(`${file}: online: ${message}`);
      console.error(`${file}: Microsoft's online validation rejected the manifest.`);
      return 1;
    case "not-run":
      console.log(`${file}: online validation not run: ${online.reason}`);
      console.log(
        "(Only the offline check above has passed; run `npm run validate` where Microsoft's service is reachable for the full check.)",
      );
      return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(2);
  },
);
