// A cube that takes a few seconds on every query (a recursive count to 12 million in SQLite,
// 2-7 s here; more than the 1 s wait even on a fast idle machine): with
// orchestratorOptions.continueWaitTimeout = 1 s, Cube answers 200 {"error":"Continue wait"}
// until it is done.
cube(`slow`, {
  sql: `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 12000000)
        SELECT max(x) AS steps, 'done' AS label FROM n`,
  title: `Slow`,
  measures: {
    count: { type: `count` },
    steps: { sql: `steps`, type: `max` },
  },
  dimensions: {
    label: { sql: `label`, type: `string`, primaryKey: true, shown: true },
  },
});
