// copyto.mjs EXT WORK [THREADS]: one COPY (FROM read_parquet('WORK/large.parquet'))
// TO 'WORK/copy.trv' (FORMAT trevni, CODEC 'snappy') in DuckDB's Node package
// with the extension loaded (THREADS DuckDB threads; default all), for
// duckext.sh to alternate with trevni fromparquet. Prints the COPY's wall
// seconds, the CPU seconds (user and system, every thread of the process)
// it took, and the most CPU seconds one thread took (from
// /proc/self/task, Linux only; 0 elsewhere): on idle cores the COPY
// cannot take less wall time than its busiest thread's CPU time, which a
// loaded machine leaves as it is where it stretches the wall time.
import { readdirSync, readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
// threadTicks returns each thread's user and system clock ticks.
function threadTicks() {
  const out = new Map();
  try {
    for (const t of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(t, Number(f[11]) + Number(f[12])); // utime, stime (fields 14 and 15)
      } catch { /* the thread ended */ }
    }
  } catch { /* no /proc */ }
  return out;
}
const [ext, work, threads] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
const con = await db.connect();
await con.run(`LOAD '${ext}'`);
if (threads) await con.run(`SET threads = ${threads}`);
const ticks0 = threadTicks();
const cpu0 = process.cpuUsage();
const start = performance.now();
await con.run(`COPY (FROM read_parquet('${work}/large.parquet')) TO '${work}/copy.trv' (FORMAT trevni, CODEC 'snappy')`);
const ms = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
let most = 0;
for (const [t, n] of threadTicks()) most = Math.max(most, n - (ticks0.get(t) ?? 0));
console.log(`${(ms / 1000).toFixed(3)} ${((cpu.user + cpu.system) / 1e6).toFixed(3)} ${(most / 100).toFixed(2)}`); // ticks of 1/100 s (USER_HZ)
