// duckext.mjs EXT WORK [RUNS]: the queries of duckext.sh, in DuckDB's Node
// package with the extension loaded: each query over read_trevni and over
// read_parquet, alternating, RUNS (15) runs each, with 1, 2 and all
// threads; the least wall time and the least CPU time (user and system,
// every thread of the process, process.cpuUsage) of each are kept
// (duckext.sh times the COPY with copyto.mjs). Prints one line a query
// and setting.
import { DuckDBInstance } from '@duckdb/node-api';
const [ext, work, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 15);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
const all = (await con.runAndReadAll('SELECT current_setting(\'threads\')')).getRows()[0][0];
// Each query, and the columns of its rows both scans must agree on (the
// float sums may differ in their last digits: added in another order).
const queries = {
  'group by': [(t) => `SELECT small % 100 AS k, count(*) AS n, sum(score) AS s, max(id) AS m FROM ${t} GROUP BY k ORDER BY k`, [0, 1, 3]],
  'filtered aggregate': [(t) => `SELECT count(*), sum(score), max(id) FROM ${t} WHERE small < 1000`, [0, 2]],
};
const tables = { trevni: `read_trevni('${work}/large.trv')`, parquet: `read_parquet('${work}/large.parquet')` };
console.log(`DuckDB threads: all = ${all}; least of ${runs} runs, wall (CPU) seconds`);
for (const threads of [...new Set([1, 2, Number(all)])]) {
  await con.run(`SET threads = ${threads}`);
  for (const [name, [q, exact]] of Object.entries(queries)) {
    const wall = {};
    const cpu = {};
    const out = {};
    for (let run = 0; run < runs; run++) {
      for (const [side, t] of Object.entries(tables)) {
        const c0 = process.cpuUsage();
        const start = performance.now();
        const r = await con.runAndReadAll(q(t));
        const ms = performance.now() - start;
        const c = process.cpuUsage(c0);
        const s = (c.user + c.system) / 1e6;
        out[side] = JSON.stringify(r.getRowsJson().map((row) => exact.map((i) => row[i])));
        if (!(side in wall) || ms < wall[side]) wall[side] = ms;
        if (!(side in cpu) || s < cpu[side]) cpu[side] = s;
      }
    }
    if (out.trevni !== out.parquet) throw new Error(`${name}: the two scans' results differ: ${out.trevni} ${out.parquet}`);
    const f = (side) => `${(wall[side] / 1000).toFixed(3)}s (${cpu[side].toFixed(3)}s)`;
    console.log(`${name.padEnd(18)} threads ${String(threads).padStart(2)}  trevni ${f('trevni')}  parquet ${f('parquet')}  ratio ${(wall.trevni / wall.parquet).toFixed(2)} (CPU ${(cpu.trevni / cpu.parquet).toFixed(2)})`);
  }
}
