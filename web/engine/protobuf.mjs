// The few protobuf wire-format writers a SentencePiece ModelProto needs.
export class ProtoWriter {
  constructor() {
    this.chunks = [];
    this.size = 0;
  }
  #push(bytes) {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }
  #varint(n) {
    const out = [];
    let v = BigInt.asUintN(64, BigInt(n));
    do {
      let b = Number(v & 0x7fn);
      v >>= 7n;
      if (v) b |= 0x80;
      out.push(b);
    } while (v);
    this.#push(Uint8Array.from(out));
  }
  #key(field, wire) {
    this.#varint((field << 3) | wire);
  }
  int(field, n) {
    this.#key(field, 0);
    this.#varint(n);
  }
  bool(field, b) {
    this.int(field, b ? 1 : 0);
  }
  float(field, x) {
    this.#key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, x, true);
    this.#push(b);
  }
  bytes(field, data) {
    this.#key(field, 2);
    this.#varint(data.length);
    this.#push(data);
  }
  string(field, s) {
    this.bytes(field, new TextEncoder().encode(s));
  }
  message(field, writer) {
    this.bytes(field, writer.finish());
  }
  finish() {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
