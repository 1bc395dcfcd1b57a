// Starts open-source Cube 0.33.65 on SQLite for the integration suite (test/cube).
//
//   node serve.cjs            (env: CUBEJS_API_SECRET required; CUBE_DATA_DIR, CUBE_ORDERS optional)
//
// Generates the SQLite dataset when missing (deterministic: CUBE_ORDERS orders, default
// 100,000), starts Cube with the in-memory cache and queue on a free 127.0.0.1 port, and
// prints exactly one JSON line on stdout when ready: {"url","dataUrl","dbPath","orders"}.
// Logs go to stderr. SIGTERM/SIGINT stop it.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");

const secret = process.env.CUBEJS_API_SECRET;
if (!secret) {
  console.error("serve.cjs: CUBEJS_API_SECRET is not set");
  process.exit(2);
}
const orders = Number(process.env.CUBE_ORDERS || 100000);
const dataDir = process.env.CUBE_DATA_DIR || fs.mkdtempSync(path.join(os.tmpdir(), "cellbound-cube-"));
const dbPath = path.join(dataDir, `orders-${orders}.sqlite`);

// Cube reads these at start; set before requiring it.
process.env.NODE_ENV = "production";
process.env.CUBEJS_CACHE_AND_QUEUE_DRIVER = "memory";
process.env.CUBEJS_DB_TYPE = "sqlite";
process.env.CUBEJS_DB_NAME = dbPath;
process.env.CUBEJS_LOG_LEVEL = process.env.CUBEJS_LOG_LEVEL || "error";
process.env.CUBEJS_TELEMETRY = "false";

const sqlite3 = require("sqlite3");

function run(db, sql) {
  return new Promise((resolve, reject) => db.exec(sql, (e) => (e ? reject(e) : resolve())));
}

/** orders(id, status, created_at TEXT, amount REAL|NULL, is_returned 0/1, coupon TEXT|NULL). */
async function generate() {
  if (fs.existsSync(dbPath)) return;
  const tmp = `${dbPath}.${process.pid}.tmp`;
  const db = new sqlite3.Database(tmp);
  // Values from a small multiplicative hash of the row number: deterministic, no randomness.
  await run(
    db,
    `
    CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT NOT NULL, created_at TEXT NOT NULL,
                         amount REAL, is_returned INTEGER NOT NULL, coupon TEXT);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${orders})
    INSERT INTO orders
    SELECT i,
           CASE (i * 7919) % 4 WHEN 0 THEN 'completed' WHEN 1 THEN 'processing' WHEN 2 THEN 'shipped' ELSE 'cancelled' END,
           strftime('%Y-%m-%dT%H:%M:%f', '2024-01-01', '+' || ((i * 104729) % (731 * 86400)) || ' seconds'),
           CASE WHEN i % 97 = 0 THEN NULL ELSE ((i * 31337) % 100000) / 100.0 END,
           CASE WHEN (i * 48271) % 10 = 0 THEN 1 ELSE 0 END,
           CASE WHEN i % 50 = 0 THEN 'SAVE' || (i % 7) ELSE NULL END
    FROM n;`,
  );
  await new Promise((resolve, reject) => db.close((e) => (e ? reject(e) : resolve())));
  fs.renameSync(tmp, dbPath);
}

async function main() {
  await generate();
  const express = require("express");
  const { CubejsServerCore } = require("@cubejs-backend/server-core");
  const app = express();
  app.use(express.json({ limit: "2mb" }));
  const core = new CubejsServerCore({
    apiSecret: secret,
    dbType: "sqlite",
    // FileRepository joins schemaPath to the working directory.
    schemaPath: path.relative(process.cwd(), path.join(__dirname, "model")) || ".",
    // A query still running after 1 s answers 200 {"error":"Continue wait"}.
    orchestratorOptions: { continueWaitTimeout: 1 },
    telemetry: false,
    logger: (msg, params) => {
      if (/error/i.test(msg)) console.error(msg, JSON.stringify(params).slice(0, 500));
    },
  });
  await core.initApp(app);
  const server = app.listen(0, "127.0.0.1", () => {
    const { port } = server.address();
    const url = `http://127.0.0.1:${port}`;
    process.stdout.write(`${JSON.stringify({ url, dataUrl: `${url}/cubejs-api`, dbPath, orders })}\n`);
  });
  const stop = () => {
    server.close();
    Promise.resolve(core.shutdown?.())
      .catch(() => undefined)
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((e) => {
  console.error("serve.cjs: could not start Cube:", e && e.stack ? e.stack : e);
  process.exit(1);
});
