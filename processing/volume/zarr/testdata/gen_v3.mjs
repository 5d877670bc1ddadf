// Golden Zarr v3 and OME-Zarr 0.5 stores for the Go reader's tests,
// written with zarrita (npm) and its numcodecs codecs:
//
//   npm install --prefix /tmp/zarrjs zarrita numcodecs
//   ZARRITA=/tmp/zarrjs node gen_v3.mjs      (in this folder)
//
// zarrita cannot write sharded arrays, so a sharded store is made from
// an unsharded one whose chunks zarrita encoded: they are packed into
// shards with the index the sharding_indexed specification lays out
// (offset, nbytes little-endian pairs in C order, then crc32c), and the
// result is read back with zarrita, whose sharding reader decides what
// the expected NPY holds. Each NAME.zarr sits beside NAME.npy, what
// zarrita reads back.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const base = process.env.ZARRITA ?? "/tmp/zarrjs";
const zarr = await import(pathToFileURL(path.join(base, "node_modules/zarrita/dist/src/index.js")));
const FileSystemStore = (await import(pathToFileURL(path.join(base, "node_modules/@zarrita/storage/dist/src/fs.js")))).default;

// zarrita's own gzip codec only decodes: encode with numcodecs.js's.
const ncGzip = (await import(pathToFileURL(path.join(base, "node_modules/numcodecs/dist/gzip.js")))).default;
zarr.registry.set("gzip", () => ncGzip);

// crc32c (Castagnoli), for shard indices and the crc32c codec, which
// zarrita decodes (dropping the checksum unchecked) but cannot encode.
const crcTable = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
	let c = i;
	for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
	crcTable[i] = c >>> 0;
}
function crc32c(buf) {
	let c = 0xffffffff;
	for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

if (crc32c(Buffer.from("123456789")) !== 0xe3069283) throw new Error("crc32c check value");
const ZarritaCrc = await zarr.registry.get("crc32c")();
class Crc32c extends ZarritaCrc {
	static fromConfig() { return new Crc32c(); }
	encode = (arr) => {
		const out = new Uint8Array(arr.byteLength + 4);
		out.set(arr);
		new DataView(out.buffer).setUint32(arr.byteLength, crc32c(arr), true);
		return out;
	};
}
zarr.registry.set("crc32c", () => Crc32c);

const OUT = "v3";
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT);
const SHAPE = [5, 6, 7], CHUNKS = [2, 4, 3];
const N = SHAPE.reduce((a, b) => a * b);

const ctor = {
	int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
	int32: Int32Array, uint32: Uint32Array, float32: Float32Array, float64: Float64Array,
};
const descr = {
	int8: "|i1", uint8: "|u1", int16: "<i2", uint16: "<u2",
	int32: "<i4", uint32: "<u4", float32: "<f4", float64: "<f8",
};

function data(dtype, n = N) {
	const a = new ctor[dtype](n);
	for (let i = 0; i < n; i++) {
		if (dtype.startsWith("float")) a[i] = i * 0.37 - 11.5;
		else a[i] = i * 7919; // typed arrays wrap as NumPy's astype does
	}
	if (dtype.startsWith("float")) a[3] = dtype === "float32" ? NaN : -Infinity;
	return a;
}

function cStrides(shape) {
	const s = new Array(shape.length);
	let acc = 1;
	for (let d = shape.length - 1; d >= 0; d--) { s[d] = acc; acc *= shape[d]; }
	return s;
}

// toC copies a zarrita result (which keeps a transposed array's strides)
// into C order.
function toC(got) {
	const want = cStrides(got.shape);
	if (JSON.stringify(got.stride) === JSON.stringify(want)) return got.data;
	const out = new got.data.constructor(got.data.length);
	const n = got.shape.length, idx = new Array(n).fill(0);
	for (let i = 0; i < out.length; i++) {
		let src = 0;
		for (let d = 0; d < n; d++) src += idx[d] * got.stride[d];
		out[i] = got.data[src];
		for (let d = n - 1; d >= 0; d--) { if (++idx[d] < got.shape[d]) break; idx[d] = 0; }
	}
	return out;
}

function writeNPY(file, dtype, shape, arr) {
	let h = `{'descr': '${descr[dtype]}', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
	const pad = 64 - ((10 + h.length + 1) % 64);
	h += " ".repeat(pad % 64) + "\n";
	const head = Buffer.alloc(10);
	head.write("\x93NUMPY", 0, "latin1");
	head[6] = 1; head[7] = 0; head.writeUInt16LE(h.length, 8);
	// Typed arrays are little-endian on the machines this runs on.
	fs.writeFileSync(file, Buffer.concat([head, Buffer.from(h, "latin1"), Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength)]));
}

async function readBack(name, dtype) {
	const store = new FileSystemStore(path.join(OUT, name + ".zarr"));
	const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
	const got = await zarr.get(arr);
	writeNPY(path.join(OUT, name + ".npy"), dtype, got.shape, toC(got));
	return got;
}

async function save(name, dtype, codecs, opts = {}) {
	const store = new FileSystemStore(path.join(OUT, name + ".zarr"));
	const shape = opts.shape ?? SHAPE;
	const arr = await zarr.create(zarr.root(store), {
		shape, chunkShape: opts.chunks ?? CHUNKS, dtype, codecs,
		fillValue: opts.fill ?? 0, chunkSeparator: opts.separator,
	});
	if (!opts.skipData) {
		const d = opts.data ?? data(dtype, shape.reduce((a, b) => a * b));
		await zarr.set(arr, opts.region ?? null, { data: d, shape: opts.regionShape ?? shape, stride: cStrides(opts.regionShape ?? shape) });
	}
	return readBack(name, dtype);
}

const bytesLE = { name: "bytes", configuration: { endian: "little" } };
const bytesBE = { name: "bytes", configuration: { endian: "big" } };
const zstd = { name: "zstd", configuration: { level: 3, checksum: false } };
const blosc = (cname, shuffle, typesize) => ({ name: "blosc", configuration: { cname, clevel: 5, shuffle, typesize, blocksize: 0 } });

for (const dt of Object.keys(ctor)) await save("gzip_" + dt, dt, [bytesLE, { name: "gzip", configuration: { level: 5 } }]);
await save("zstd", "uint16", [bytesLE, zstd]);
await save("zstd_crc32c", "uint16", [bytesLE, zstd, { name: "crc32c" }]);
await save("raw", "uint16", [bytesLE]);
await save("big_u2", "uint16", [bytesBE, zstd]);
await save("big_f8", "float64", [bytesBE]);
await save("big_i4", "int32", [bytesBE, blosc("lz4", "shuffle", 4)]);
await save("transpose_f", "uint16", [{ name: "transpose", configuration: { order: [2, 1, 0] } }, bytesLE, zstd]);
await save("transpose_102", "float32", [{ name: "transpose", configuration: { order: [1, 0, 2] } }, bytesLE]);
for (const cname of ["lz4", "lz4hc", "zstd", "zlib", "blosclz"])
	for (const sh of ["noshuffle", "shuffle", "bitshuffle"])
		await save(`blosc_${cname}_${sh}`, "uint16", [bytesLE, blosc(cname, sh, 2)]);
await save("planes_zstd_crc32c", "uint16", [bytesLE, zstd, { name: "crc32c" }], { chunks: [1, 6, 7] });
await save("planes_big_gzip", "int32", [bytesBE, { name: "gzip", configuration: { level: 5 } }], { chunks: [1, 6, 7] });
await save("planes_blosc", "float32", [bytesLE, blosc("blosclz", "shuffle", 4)], { chunks: [1, 6, 7] });
await save("dot_keys", "uint16", [bytesLE, zstd], { separator: "." });
// Fill values: chunks never written are missing.
await save("fill", "int16", [bytesLE, zstd], { fill: -7, region: [zarr.slice(0, 2), zarr.slice(0, 4), zarr.slice(0, 3)], regionShape: [2, 4, 3], data: new Int16Array(24).fill(5) });
await save("fill_nan", "float32", [bytesLE], { fill: "NaN", region: [zarr.slice(2, 4), null, zarr.slice(3, 6)], regionShape: [2, 6, 3], data: new Float32Array(36).fill(1.5) });

// cIndices lists every index of a grid of shape n, in C order.
function cIndices(n) {
	let out = [[]];
	for (const m of n) out = out.flatMap((p) => Array.from({ length: m }, (_, i) => [...p, i]));
	return out;
}

// shard rewrites the unsharded store dir (chunks `inner`, codecs inner
// codecs) as shards of shape `shard`, dropping the inner chunks listed
// in `drop` (they read as the fill value).
function shard(dir, shard, inner, innerCodecs, { drop = [] } = {}) {
	const meta = JSON.parse(fs.readFileSync(path.join(dir, "zarr.json")));
	const per = shard.map((s, d) => s / inner[d]);
	const grid = meta.shape.map((n, d) => Math.ceil(n / shard[d]));
	const count = per.reduce((a, b) => a * b);
	const files = [];
	for (const sk of cIndices(grid)) {
		const chunks = [];
		const index = Buffer.alloc(16 * count + 4);
		let k = 0;
		for (const ik of cIndices(per)) {
			const key = sk.map((s, d) => s * per[d] + ik[d]);
			const f = path.join(dir, "c", ...key.map(String));
			index.writeBigUInt64LE(0xffffffffffffffffn, 16 * k);
			index.writeBigUInt64LE(0xffffffffffffffffn, 16 * k + 8);
			if (fs.existsSync(f) && !drop.includes(key.join(","))) chunks.push({ k, buf: fs.readFileSync(f) });
			k++;
		}
		let off = 0;
		for (const c of chunks) {
			index.writeBigUInt64LE(BigInt(off), 16 * c.k);
			index.writeBigUInt64LE(BigInt(c.buf.length), 16 * c.k + 8);
			off += c.buf.length;
		}
		index.writeUInt32LE(crc32c(index.subarray(0, 16 * count)), 16 * count);
		files.push({ key: sk, buf: Buffer.concat([...chunks.map((c) => c.buf), index]) });
	}
	fs.rmSync(path.join(dir, "c"), { recursive: true });
	for (const f of files) {
		const p = path.join(dir, "c", ...f.key.map(String));
		fs.mkdirSync(path.dirname(p), { recursive: true });
		fs.writeFileSync(p, f.buf);
	}
	meta.chunk_grid.configuration.chunk_shape = shard;
	meta.codecs = [{
		name: "sharding_indexed",
		configuration: {
			chunk_shape: inner, codecs: innerCodecs,
			index_codecs: [bytesLE, { name: "crc32c" }], index_location: "end",
		},
	}];
	fs.writeFileSync(path.join(dir, "zarr.json"), JSON.stringify(meta, null, 2));
}

// moveIndexToStart rewrites a store's shards with the index first, as
// index_location "start" has it. zarrita reads only indices at the end,
// so the expected NPY comes from the store before this rewrite.
function moveIndexToStart(dir) {
	const meta = JSON.parse(fs.readFileSync(path.join(dir, "zarr.json")));
	const conf = meta.codecs[0].configuration;
	const count = meta.chunk_grid.configuration.chunk_shape.map((s, d) => s / conf.chunk_shape[d]).reduce((a, b) => a * b);
	const n = 16 * count + 4;
	const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
	for (const f of walk(path.join(dir, "c"))) {
		const buf = fs.readFileSync(f);
		const index = Buffer.from(buf.subarray(buf.length - n));
		for (let k = 0; k < count; k++) {
			const off = index.readBigUInt64LE(16 * k);
			if (off !== 0xffffffffffffffffn) index.writeBigUInt64LE(off + BigInt(n), 16 * k);
		}
		index.writeUInt32LE(crc32c(index.subarray(0, 16 * count)), 16 * count);
		fs.writeFileSync(f, Buffer.concat([index, buf.subarray(0, buf.length - n)]));
	}
	conf.index_location = "start";
	fs.writeFileSync(path.join(dir, "zarr.json"), JSON.stringify(meta, null, 2));
}

async function saveSharded(name, dtype, shardShape, inner, innerCodecs, opts = {}) {
	await save(name, dtype, innerCodecs, { chunks: inner, ...opts });
	shard(path.join(OUT, name + ".zarr"), shardShape, inner, innerCodecs, { drop: opts.drop });
	const got = await readBack(name, dtype);
	if (opts.atStart) moveIndexToStart(path.join(OUT, name + ".zarr"));
	return got;
}
await saveSharded("shard_zstd", "uint16", [4, 6, 8], [2, 3, 4], [bytesLE, zstd], { drop: ["0,1,0"] });
await saveSharded("shard_start_blosc", "float32", [2, 6, 4], [1, 3, 2], [bytesLE, blosc("lz4", "bitshuffle", 4)], { atStart: true });
await saveSharded("shard_crc", "int16", [5, 6, 7], [5, 2, 7], [bytesLE, zstd, { name: "crc32c" }]);

// OME-Zarr 0.5 (c, z, y, x), 3 levels halving y and x; level 0 sharded.
const C = 2, Z = 3, Y = 16, X = 12;
const ome = path.join(OUT, "ome.zarr");
fs.mkdirSync(ome);
let shape = [C, Z, Y, X];
let level = new Uint16Array(C * Z * Y * X);
for (let i = 0; i < level.length; i++) level[i] = (i * 2654435761) % 65521;
const datasets = [];
for (let l = 0; l < 3; l++) {
	const dir = path.join(ome, String(l));
	const store = new FileSystemStore(dir);
	const codecs = l === 0 ? [bytesLE, zstd] : l === 1 ? [bytesLE, blosc("zstd", "shuffle", 2)] : [bytesLE, { name: "gzip", configuration: { level: 1 } }];
	const chunks = l === 0 ? [1, 1, 4, 6] : [1, 2, 4, 4];
	const arr = await zarr.create(zarr.root(store), { shape, chunkShape: chunks, dtype: "uint16", codecs, fillValue: 0, dimensionNames: ["c", "z", "y", "x"] });
	await zarr.set(arr, null, { data: level, shape, stride: cStrides(shape) });
	if (l === 0) shard(dir, [1, 1, 8, 12], chunks, codecs);
	const back = await zarr.open.v3(zarr.root(new FileSystemStore(dir)), { kind: "array" });
	for (let c = 0; c < C; c++) {
		const got = await zarr.get(back, [c, null, null, null]);
		writeNPY(path.join(OUT, `ome_l${l}_t0_c${c}.npy`), "uint16", got.shape, toC(got));
	}
	const s = 0.25 * 2 ** l;
	datasets.push({ path: String(l), coordinateTransformations: [{ type: "scale", scale: [1, 1.5, s, s] }] });
	// Next level: every second row and column.
	const [c0, z0, y0, x0] = shape;
	const ny = Math.ceil(y0 / 2), nx = Math.ceil(x0 / 2);
	const next = new Uint16Array(c0 * z0 * ny * nx);
	let k = 0;
	for (let c = 0; c < c0; c++) for (let z = 0; z < z0; z++) for (let y = 0; y < y0; y += 2) for (let x = 0; x < x0; x += 2)
		next[k++] = level[((c * z0 + z) * y0 + y) * x0 + x];
	level = next;
	shape = [c0, z0, ny, nx];
}
fs.writeFileSync(path.join(ome, "zarr.json"), JSON.stringify({
	zarr_format: 3, node_type: "group",
	attributes: {
		ome: {
			version: "0.5",
			multiscales: [{
				name: "golden",
				axes: [{ name: "c", type: "channel" }, { name: "z", type: "space", unit: "micrometer" },
					{ name: "y", type: "space", unit: "micrometer" }, { name: "x", type: "space", unit: "micrometer" }],
				datasets,
			}],
		},
	},
}, null, 2));
console.log("wrote", fs.readdirSync(OUT).length, "entries in", OUT);
