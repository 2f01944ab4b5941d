#!/usr/bin/env node
// Moves an ONNX model's weights into an external data file, the layout the
// Hugging Face exports of large models use (onnx/model.onnx beside
// onnx/model.onnx_data): every initializer stored as raw_data gets
// data_location EXTERNAL and external_data { location, offset, length }.
// The tests use it to serve the project's tiny models in that layout.
//
// Usage: tools/models/onnx-external-data.mjs in.onnx out.onnx
//        (writes out.onnx and out.onnx_data)
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

// ONNX's protobuf field numbers (onnx.proto3).
const MODEL_GRAPH = 7;
const GRAPH_INITIALIZER = 5;
const TENSOR_RAW_DATA = 9;
const TENSOR_EXTERNAL_DATA = 13;
const TENSOR_DATA_LOCATION = 14;
const LOCATION_EXTERNAL = 1;
const ENTRY_KEY = 1;
const ENTRY_VALUE = 2;
const LENGTH_DELIMITED = 2;
// Each tensor starts on such a boundary in the data file, so a runtime may map it.
const ALIGN = 4096;

function readVarint(buf, pos) {
  let value = 0;
  for (let scale = 1; ; scale *= 128) {
    const b = buf[pos++];
    if (b === undefined) throw new Error('truncated protobuf varint');
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, pos];
  }
}

function varint(n) {
  const out = [];
  do {
    out.push((n % 128) + (n >= 128 ? 128 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Uint8Array.from(out);
}

// The fields of a message: { field, wire, start, value: [from, to) }.
function* fieldsOf(buf) {
  for (let pos = 0; pos < buf.length;) {
    const start = pos;
    const [tag, p] = readVarint(buf, pos);
    const wire = tag % 8;
    let from = p, to;
    if (wire === 0) to = readVarint(buf, p)[1];
    else if (wire === 1) to = p + 8;
    else if (wire === 5) to = p + 4;
    else if (wire === LENGTH_DELIMITED) {
      const [len, q] = readVarint(buf, p);
      from = q;
      to = q + len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (to > buf.length) throw new Error('truncated protobuf field');
    yield { field: Math.floor(tag / 8), wire, start, end: to, value: buf.subarray(from, to) };
    pos = to;
  }
}

const bytesField = (field, bytes) => [varint(field * 8 + LENGTH_DELIMITED), varint(bytes.length), bytes];
const stringField = (field, text) => bytesField(field, new TextEncoder().encode(text));
const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));

// Rewrites a message, replacing the fields `edit` returns parts for (null keeps a field as it is).
function rewrite(buf, edit) {
  const parts = [];
  for (const f of fieldsOf(buf)) parts.push(...(edit(f) ?? [buf.subarray(f.start, f.end)]));
  return concat(parts);
}

export function externalize(modelBytes, location) {
  const data = [];
  let offset = 0;
  const tensor = (buf) => {
    const raw = [...fieldsOf(buf)].find((f) => f.field === TENSOR_RAW_DATA);
    if (!raw) return buf;
    const pad = (ALIGN - (offset % ALIGN)) % ALIGN;
    data.push(new Uint8Array(pad), raw.value);
    offset += pad;
    const entry = (key, value) => bytesField(TENSOR_EXTERNAL_DATA, concat([...stringField(ENTRY_KEY, key), ...stringField(ENTRY_VALUE, value)]));
    const out = rewrite(buf, (f) => ([TENSOR_RAW_DATA, TENSOR_EXTERNAL_DATA, TENSOR_DATA_LOCATION].includes(f.field) ? [] : null));
    const extra = [...entry('location', location), ...entry('offset', String(offset)), ...entry('length', String(raw.value.length)),
      varint(TENSOR_DATA_LOCATION * 8), varint(LOCATION_EXTERNAL)];
    offset += raw.value.length;
    return concat([out, ...extra]);
  };
  const graph = (buf) => rewrite(buf, (f) => (f.field === GRAPH_INITIALIZER ? bytesField(GRAPH_INITIALIZER, tensor(f.value)) : null));
  const model = rewrite(modelBytes, (f) => (f.field === MODEL_GRAPH ? bytesField(MODEL_GRAPH, graph(f.value)) : null));
  return { model, data: concat(data) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    process.stderr.write('usage: onnx-external-data.mjs in.onnx out.onnx\n');
    process.exit(2);
  }
  const { model, data } = externalize(readFileSync(input), `${basename(output)}_data`);
  writeFileSync(output, model);
  writeFileSync(`${output}_data`, data);
  process.stderr.write(`${output}: ${model.length} bytes, ${output}_data: ${data.length} bytes\n`);
}
