// The orders cube of the integration suite (test/cube). SQLite sends what a real warehouse
// sends and our stand-in did not: booleans as 1/0, numbers as text where the SQL makes them
// text (printf, as Postgres numerics arrive), nulls. `quarter` granularity fails on every call
// (Cube 0.33's SQLite dialect has no quarter).
cube(`orders`, {
  sql: `SELECT * FROM orders`,
  title: `Orders`,

  measures: {
    count: { type: `count` },
    total_amount: { sql: `amount`, type: `sum`, title: `Total Amount` },
    // A number measure that arrives as a string ("113829.60"), as Postgres numerics do.
    total_amount_text: { sql: `printf('%.2f', SUM(${CUBE}.amount))`, type: `number`, title: `Total Amount (text)` },
  },

  dimensions: {
    id: { sql: `id`, type: `number`, primaryKey: true, shown: true },
    status: { sql: `status`, type: `string` },
    created_at: { sql: `created_at`, type: `time`, title: `Created At` },
    amount: { sql: `amount`, type: `number` },
    // 1/0 from SQLite.
    is_returned: { sql: `is_returned`, type: `boolean`, title: `Is Returned` },
    // Null on most rows.
    coupon: { sql: `coupon`, type: `string` },
  },
});
