// Runs each SQL query given as an argument in one DuckDB (its Node
// package, @duckdb/node-api), and prints for each one line of JSON: the
// column names, their types and the rows (values as DuckDB's JSON
// rendering), or DuckDB's error. Used by ducktest.Query.
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
for (const q of process.argv.slice(2)) {
  try {
    const r = await c.runAndReadAll(q);
    console.log(JSON.stringify({ names: r.columnNames(), types: r.columnTypes().map((t) => t.toString()), rows: r.getRowsJson() }));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e.message ?? e) }));
  }
}
