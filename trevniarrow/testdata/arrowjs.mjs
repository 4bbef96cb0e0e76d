// Reads Arrow IPC files or streams with Apache Arrow's JavaScript library
// and prints, for each, its row count and every row as JSON.
import { createRequire } from 'module';
import fs from 'fs';
const require = createRequire(process.argv[2] + '/node_modules/');
const arrow = require('apache-arrow');
const T = arrow.Type;
const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
function num(x) {
  if (typeof x === 'bigint') return x.toString();
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return x;
}
function render(data, i) {
  const t = data.type;
  if (t.typeId !== T.Union && t.typeId !== T.DenseUnion && t.typeId !== T.SparseUnion && t.typeId !== T.Null && !data.getValid(i)) return null;
  const j = data.offset + i;
  switch (t.typeId) {
    case T.Null: return null;
    case T.Struct: {
      const o = {};
      t.children.forEach((f, k) => { o[f.name] = render(data.children[k], j); });
      return o;
    }
    case T.List: case T.Map: {
      const out = [];
      for (let k = data.valueOffsets[j]; k < data.valueOffsets[j + 1]; k++) out.push(render(data.children[0], k));
      return out;
    }
    case T.Union: case T.DenseUnion: case T.SparseUnion: {
      const id = data.typeIds[j];
      const c = t.typeIds.indexOf(id);
      const k = t.mode === arrow.UnionMode.Dense ? data.valueOffsets[j] : j;
      return { [String(c)]: render(data.children[c], k) };
    }
    case T.Dictionary: return data.dictionary.get(Number(data.values[j]));
    case T.Decimal: {
      const w = t.bitWidth / 8;
      return hex(data.values.subarray ? new Uint8Array(data.values.buffer, data.values.byteOffset + j * w, w) : data.values);
    }
    case T.FixedSizeBinary: {
      const w = t.byteWidth;
      return hex(new Uint8Array(data.values.buffer, data.values.byteOffset + j * w, w));
    }
    case T.Binary: case T.LargeBinary:
      return hex(data.values.subarray(Number(data.valueOffsets[j]), Number(data.valueOffsets[j + 1])));
    case T.Date: case T.Time: case T.Timestamp: {
      // The stored number (days, or units since midnight or 1970),
      // where get makes milliseconds of it.
      const v = data.values;
      if (v instanceof BigInt64Array || v instanceof Int32Array && v.length === 2 * (data.offset + data.length) && t.bitWidth === 64) {
        return v instanceof BigInt64Array ? num(v[j]) : num((BigInt(v[2 * j + 1]) << 32n) | BigInt(v[2 * j] >>> 0));
      }
      return num(v[j]);
    }
    case T.Int: case T.Float: case T.Bool: case T.Utf8: case T.LargeUtf8:
      return num(arrow.makeVector(data).get(i));
  }
  throw new Error('no rendering for ' + t);
}
const out = [];
for (const file of process.argv.slice(3)) {
  const t = arrow.tableFromIPC(fs.readFileSync(file));
  const rows = [];
  for (const b of t.batches) {
    for (let i = 0; i < b.numRows; i++) {
      const o = {};
      b.schema.fields.forEach((f, k) => { o[f.name] = render(b.data.children[k], i); });
      rows.push(o);
    }
  }
  out.push({ file, count: t.numRows, types: t.schema.fields.map(f => f.name + ': ' + f.type), rows });
}
process.stdout.write(JSON.stringify(out));
