// Runs SQL in DuckDB's Node package for the extension's tests. argv[2]
// is a JSON file: {"steps": [{"db": NAME, "sqls": [SQL...], "parallel":
// BOOL}]}. Each step runs its statements on database NAME (an in-memory
// database made at its first use, unsigned extensions allowed), one new
// connection a statement, in order or all at once; with "interrupt_ms",
// each statement's connection is interrupted that long after it starts.
// It prints one JSON array: per statement, its columns, types and rows,
// or its error, and with interrupt_ms its milliseconds.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const dbs = new Map();
async function database(name) {
  if (!dbs.has(name)) {
    dbs.set(name, await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' }));
  }
  return dbs.get(name);
}
async function run(inst, sql, interruptMs) {
  const conn = await inst.connect();
  const start = performance.now();
  const timer = interruptMs ? setTimeout(() => conn.interrupt(), interruptMs) : undefined;
  const ms = () => (interruptMs ? { ms: Math.round(performance.now() - start) } : {});
  try {
    const r = await conn.runAndReadAll(sql);
    return { sql, columns: r.columnNames(), types: r.columnTypes().map(String), rows: r.getRowsJson(), ...ms() };
  } catch (e) {
    return { sql, error: String(e && e.message ? e.message : e), ...ms() };
  } finally {
    clearTimeout(timer);
    conn.closeSync();
  }
}
const out = [];
for (const step of spec.steps) {
  const inst = await database(step.db || 'main');
  if (step.parallel) {
    out.push(...(await Promise.all(step.sqls.map((s) => run(inst, s, step.interrupt_ms)))));
  } else {
    for (const s of step.sqls) {
      out.push(await run(inst, s, step.interrupt_ms));
    }
  }
}
process.stdout.write(JSON.stringify(out));
