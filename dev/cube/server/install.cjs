// Installs Cube for the integration suite into dev/cube/server/node_modules, only when needed:
// skipped when the stamp written after the last good install matches the lock's hash and the
// sqlite3 binding is there. Called by .ci/run and by the suite itself (dev/cube/peer.ts), so a
// fresh clone's `npm ci && npm test` gets it without a manual step.
//
//   node dev/cube/server/install.cjs        exit 0 = ready; anything else says why on stderr
//
// `--ignore-scripts`: Cube's @cubejs-backend/native postinstall downloads a binary from GitHub,
// which these machines cannot reach (the REST API does not need it). sqlite3 is then built from
// source (g++, make, python3; about a minute).
"use strict";
const { spawnSync } = require("node:child_process");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");

const dir = __dirname;
const stamp = path.join(dir, "node_modules", ".cellbound-install");
const binding = path.join(dir, "node_modules", "sqlite3", "build", "Release", "node_sqlite3.node");
const lockDir = path.join(dir, ".install-lock");

function lockHash() {
  const h = crypto.createHash("sha256");
  h.update(fs.readFileSync(path.join(dir, "package-lock.json")));
  h.update(`node ${process.versions.modules} ${process.platform}-${process.arch}`);
  return h.digest("hex");
}

function ready(hash) {
  try {
    return fs.readFileSync(stamp, "utf8").trim() === hash && fs.existsSync(binding);
  } catch {
    return false;
  }
}

function sh(args, what) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, args, {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" },
  });
  if (r.error) throw new Error(`${what}: could not run npm (${r.error.message})`);
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status}); see the npm output above. sqlite3 needs g++, make and python3.`);
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** One installer at a time (the suite and .ci/run, or two test workers). */
function withLock(f) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      // A lock older than 15 minutes was left by a killed installer.
      try {
        if (Date.now() - fs.statSync(lockDir).mtimeMs > 15 * 60_000) fs.rmSync(lockDir, { recursive: true, force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > deadline) throw new Error(`another Cube install holds ${lockDir} for over 10 minutes`);
      sleep(1000);
    }
  }
  try {
    return f();
  } finally {
    fs.rmSync(lockDir, { recursive: true, force: true });
  }
}

function main() {
  const hash = lockHash();
  if (ready(hash)) {
    console.error("cube: already installed (lock unchanged)");
    return;
  }
  withLock(() => {
    if (ready(hash)) return;
    const t0 = Date.now();
    console.error("cube: installing Cube 0.33.65 into dev/cube/server (npm ci --ignore-scripts, then npm rebuild sqlite3)…");
    fs.rmSync(stamp, { force: true });
    sh(["ci", "--ignore-scripts", "--no-audit", "--no-fund"], "npm ci --ignore-scripts in dev/cube/server");
    sh(["rebuild", "sqlite3"], "npm rebuild sqlite3 in dev/cube/server");
    if (!fs.existsSync(binding)) throw new Error(`npm rebuild sqlite3 finished but ${binding} is missing`);
    fs.writeFileSync(stamp, `${hash}\n`);
    console.error(`cube: installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  });
}

try {
  main();
} catch (e) {
  console.error(`cube: install FAILED: ${e.message}`);
  process.exit(1);
}
