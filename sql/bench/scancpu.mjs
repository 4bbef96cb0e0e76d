// scancpu.mjs EXT WORK [RUNS]: the CPU time (user + system, of the whole
// process: DuckDB's threads and the extension's) and the wall time of
// queries over read_trevni('WORK/large.trv') with one thread, in DuckDB's
// Node package with the extension EXT loaded; the least of RUNS (5) runs
// of each. scanpath.sh runs it over two builds of the extension,
// alternating, to set the scan's paths side by side.
import { DuckDBInstance } from '@duckdb/node-api';
const [ext, work, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
await con.run('SET threads = 1');
const t = `read_trevni('${work}/large.trv')`;
const queries = {
  'group by (flat)': `SELECT small % 100 AS k, count(*), sum(score), max(id) FROM ${t} GROUP BY k`,
  'filtered agg (flat)': `SELECT count(*), sum(score), max(id) FROM ${t} WHERE small < 1000`,
  'strings': `SELECT max(length(name)), count(DISTINCT name) FROM ${t}`,
  'nullable int': `SELECT count(opt), sum(opt) FROM ${t}`,
  'list of strings': `SELECT sum(len(tags)), max(tags[1]) FROM ${t}`,
  'list of structs': `SELECT sum(len(pts)), sum(list_sum(list_transform(pts, p -> p.x))) FROM ${t}`,
  'every column': `SELECT count(*) FROM (SELECT * FROM ${t}) WHERE id IS NOT NULL AND flag IS NOT NULL AND score IS NOT NULL AND small IS NOT NULL AND name IS NOT NULL AND tags IS NOT NULL AND pts IS NOT NULL`,
  'filter := (flat)': `SELECT count(*), sum(score) FROM read_trevni('${work}/large.trv', filter := 'small < 1000')`,
};
for (const [name, q] of Object.entries(queries)) {
  let cpu, wall, rows;
  for (let run = 0; run < runs; run++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    const r = await con.runAndReadAll(q);
    const w = performance.now() - w0;
    const c = process.cpuUsage(c0);
    const s = (c.user + c.system) / 1e6;
    rows = JSON.stringify(r.getRowsJson());
    if (cpu === undefined || s < cpu) cpu = s;
    if (wall === undefined || w < wall) wall = w;
  }
  console.log(`${name}\t${cpu.toFixed(3)}\t${(wall / 1000).toFixed(3)}\t${rows.slice(0, 80)}`);
}
