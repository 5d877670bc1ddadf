// voxlab's guard around libhdf5's filter pipeline.
//
// libhdf5 trusts its filters: a chunk whose pipeline returns fewer bytes
// than the chunk holds is used as it is, the rest of the chunk being
// whatever the heap held (libhdf5 1.10, H5D__chunk_lock), and a decoder
// may allocate whatever the stream asks for. So every filter id a
// dataset uses is registered here with a function of voxlab's that knows,
// for the read in progress (vox_begin), which filters each chunk runs and
// how many bytes the chunk holds: it decodes with voxlab's own decoder
// (codecs.c, bounded by the chunk's size) or calls the real filter (its
// class copied from libhdf5's table for the built-in ones, from the
// plugin's H5PLget_plugin_info for the others), and fails a chunk whose
// last filter does not produce exactly the chunk's bytes, with a reason
// pushed on libhdf5's error stack and kept for the Go error.
//
// The built-in filters (gzip, shuffle, fletcher32, szip, nbit,
// scaleoffset) cannot be replaced through H5Zregister ("unable to modify
// predefined filters"), so they are replaced through libhdf5's internal
// H5Z_register and found with H5Z_find, which the serial libhdf5 of
// Debian exports (looked up with dlsym: a libhdf5 without them leaves
// those filters unguarded, and datasets using them are refused).
//
// Everything here runs under the Go package's lock on libhdf5, one read
// at a time, so the read context is a plain static.

#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <H5PLpublic.h>
#include <hdf5.h>

#include "codecs.h"
#include "guard.h"

typedef herr_t (*register_fn)(const H5Z_class2_t *);
typedef H5Z_class2_t *(*find_fn)(H5Z_filter_t);

// slot is one guarded filter id: voxlab's decoder, or the real filter.
struct slot {
	int id;
	const char *name;
	vox_decoder dec;
	H5Z_class2_t orig; // the real filter, when has_orig
	int has_orig;
};

#define NSLOTS 32
static struct slot slots[NSLOTS];
static int nslots;
static register_fn h5z_register;
static find_fn h5z_find;

// ctx is the read in progress.
static struct {
	int active;
	int ids[VOX_MAXF];
	int n;
	unsigned long step;
	size_t chunk, bound, elem;
	int failed;
	char msg[VOX_MSG];
} ctx;

static size_t peak;

void vox_note_alloc(size_t n) {
	if (n > peak) peak = n;
}

size_t vox_peak(void) { return peak; }
void vox_peak_reset(void) { peak = 0; }

static void say(char *msg, size_t len, const char *format, ...) {
	va_list ap;
	va_start(ap, format);
	vsnprintf(msg, len, format, ap);
	va_end(ap);
}

// fail records the reason of the read's first failure (ctx.msg already
// holds a decoder's) and pushes it on libhdf5's error stack.
static size_t fail(const char *format, ...) {
	if (format != NULL && !ctx.failed) {
		va_list ap;
		va_start(ap, format);
		vsnprintf(ctx.msg, sizeof ctx.msg, format, ap);
		va_end(ap);
	}
	ctx.failed = 1;
	H5Epush2(H5E_DEFAULT, __FILE__, "voxlab filter guard", __LINE__, H5E_ERR_CLS, H5E_PLINE, H5E_CANTFILTER,
	         "%s", ctx.msg);
	return 0;
}

// zfp_bytes returns the decoded size of the field H5Z-ZFP's client
// values declare, 0 when they are not as expected. From the second value
// on they hold zfp's stream header (zfp_write_header: bits packed from
// the least significant, 64-bit little-endian words): "zfp" and the
// codec version (32 bits), then 52 bits of metadata, from the least
// significant: scalar type - 1 (2 bits: int32, int64, float, double),
// dimensions - 1 (2 bits), and each size - 1 from x up (48 bits shared:
// 48, 24, 16 or 12 each); zfp_field_metadata in zfp's zfp.c.
static unsigned long long zfp_bytes(const unsigned cd[], size_t ncd) {
	unsigned char b[16] = {0};
	if (ncd < 4) return 0;
	for (size_t i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) b[4 * i + j] = (unsigned char)(cd[1 + i] >> (8 * j));
	if (b[0] != 'z' || b[1] != 'f' || b[2] != 'p') return 0;
	unsigned long long meta = 0;
	for (int i = 0; i < 8; i++) meta |= (unsigned long long)b[4 + i] << (8 * i);
	meta &= (1ULL << 52) - 1;
	static const unsigned long long size[4] = {4, 8, 4, 8};
	unsigned long long bytes = size[meta & 3];
	int dims = (int)((meta >> 2) & 3) + 1, bits = 48 / dims;
	unsigned long long sizes = meta >> 4;
	for (int d = 0; d < dims; d++) {
		unsigned long long n = (sizes & ((1ULL << bits) - 1)) + 1;
		sizes >>= bits;
		if (n > (1ULL << 40) / bytes) return ~0ULL; // far past any chunk
		bytes *= n;
	}
	return bytes;
}

unsigned long long vox_zfp_bytes(const unsigned *cd, size_t ncd) { return zfp_bytes(cd, ncd); }

// precheck refuses, before the real filter allocates, a chunk whose
// filter values or header declare more than cap bytes.
static int precheck(const struct slot *s, const unsigned cd[], size_t ncd, const unsigned char *in,
                    size_t n, size_t cap) {
	unsigned long long need = 0;
	switch (s->id) {
	case H5Z_FILTER_SZIP: // 4-byte little-endian decoded size first
		if (n < 4) return 1;
		need = (unsigned long long)in[0] | (unsigned long long)in[1] << 8 | (unsigned long long)in[2] << 16 |
		       (unsigned long long)in[3] << 24;
		break;
	case H5Z_FILTER_NBIT:
	case H5Z_FILTER_SCALEOFFSET: // client value 2: elements of the chunk
		if (ncd < 3) return 1;
		need = (unsigned long long)cd[2] * ctx.elem;
		break;
	case 32013: // ZFP: the field the plugin allocates for is in its values
		need = zfp_bytes(cd, ncd);
		break;
	default:
		return 1;
	}
	if (need > cap) {
		say(ctx.msg, sizeof ctx.msg, "the %s filter's values declare %llu decoded bytes, more than the %zu the chunk holds",
		    s->name, need, cap);
		return 0;
	}
	return 1;
}

static size_t run(int i, unsigned flags, size_t ncd, const unsigned cd[], size_t nbytes, size_t *buf_size,
                  void **buf) {
	struct slot *s = &slots[i];
	if (!(flags & H5Z_FLAG_REVERSE)) {
		if (s->has_orig && s->orig.encoder_present && s->orig.filter != NULL)
			return s->orig.filter(flags, ncd, cd, nbytes, buf_size, buf);
		say(ctx.msg, sizeof ctx.msg, "voxlab decodes the %s filter but does not encode it", s->name);
		return fail(NULL);
	}
	if (!ctx.active) return fail("the %s filter ran outside a read voxlab checks", s->name);
	if (ctx.failed) return fail(NULL);
	if (ctx.n == 0) // a chunk not looked up: libhdf5 reading a virtual dataset's source itself
		return fail("the %s filter ran on a chunk voxlab did not look up (a virtual dataset's source chunk: voxlab reads "
		            "those of 2D and 3D virtual datasets itself), or on one whose filter mask skips every filter",
		            s->name);
	int pos = (int)(ctx.step % (unsigned long)ctx.n);
	ctx.step++;
	if (ctx.ids[pos] != s->id)
		return fail("the %s filter ran where filter %d was due (the chunks' filter masks differ)", s->name,
		            ctx.ids[pos]);
	int last = pos == ctx.n - 1;
	size_t cap = last ? ctx.chunk : ctx.bound;
	size_t got;
	if (s->dec != NULL) {
		unsigned char *out = NULL;
		got = s->dec(cd, ncd, *buf, nbytes, cap, &out, ctx.msg, sizeof ctx.msg);
		if (out == NULL) return fail(NULL);
		H5free_memory(*buf);
		*buf = out;
		*buf_size = got ? got : 1;
	} else {
		if (!precheck(s, cd, ncd, *buf, nbytes, cap)) return fail(NULL);
		got = s->orig.filter(flags, ncd, cd, nbytes, buf_size, buf);
		if (got == 0) return fail("the %s filter failed to decode the chunk", s->name);
		vox_note_alloc(*buf_size);
		if (got > cap)
			return fail("the %s filter decoded %zu bytes, more than the %zu the chunk holds", s->name, got, cap);
	}
	if (last && got != ctx.chunk) {
		if (got < ctx.chunk)
			return fail("the chunk decodes to %zu bytes, short of the %zu it holds", got, ctx.chunk);
		return fail("the chunk decodes to %zu bytes, more than the %zu it holds", got, ctx.chunk);
	}
	return got;
}

#define TRAMP(i)                                                                                                  \
	static size_t tramp##i(unsigned f, size_t n, const unsigned c[], size_t b, size_t *s, void **p) {              \
		return run(i, f, n, c, b, s, p);                                                                            \
	}
TRAMP(0) TRAMP(1) TRAMP(2) TRAMP(3) TRAMP(4) TRAMP(5) TRAMP(6) TRAMP(7)
TRAMP(8) TRAMP(9) TRAMP(10) TRAMP(11) TRAMP(12) TRAMP(13) TRAMP(14) TRAMP(15)
TRAMP(16) TRAMP(17) TRAMP(18) TRAMP(19) TRAMP(20) TRAMP(21) TRAMP(22) TRAMP(23)
TRAMP(24) TRAMP(25) TRAMP(26) TRAMP(27) TRAMP(28) TRAMP(29) TRAMP(30) TRAMP(31)
static const H5Z_func_t tramps[NSLOTS] = {
	tramp0,  tramp1,  tramp2,  tramp3,  tramp4,  tramp5,  tramp6,  tramp7,  tramp8,  tramp9,  tramp10,
	tramp11, tramp12, tramp13, tramp14, tramp15, tramp16, tramp17, tramp18, tramp19, tramp20, tramp21,
	tramp22, tramp23, tramp24, tramp25, tramp26, tramp27, tramp28, tramp29, tramp30, tramp31,
};

static struct slot *find_slot(int id) {
	for (int i = 0; i < nslots; i++)
		if (slots[i].id == id) return &slots[i];
	return NULL;
}

// install registers slot s with libhdf5.
static int install(struct slot *s, char *msg, size_t len) {
	int i = (int)(s - slots);
	H5Z_class2_t c = {H5Z_CLASS_T_VERS, (H5Z_filter_t)s->id, 1, 1, s->name, NULL, NULL, tramps[i]};
	if (s->has_orig) {
		c.can_apply = s->orig.can_apply;
		c.set_local = s->orig.set_local;
		c.encoder_present = s->orig.encoder_present;
	} else {
		// "Present" so that datasets declaring the filter can be created
		// (tests craft them chunk by chunk); encoding fails in run.
		c.encoder_present = 1;
	}
	herr_t r;
	if (s->id < H5Z_FILTER_RESERVED) {
		if (h5z_register == NULL) {
			say(msg, len, "this libhdf5 does not export H5Z_register, so voxlab cannot check what its %s filter decodes",
			    s->name);
			return -1;
		}
		r = h5z_register(&c);
	} else {
		r = H5Zregister(&c);
	}
	if (r < 0) {
		say(msg, len, "libhdf5 refused voxlab's guard of the %s filter (%d)", s->name, s->id);
		return -1;
	}
	return 0;
}

static struct slot *new_slot(int id, const char *name, char *msg, size_t len) {
	if (nslots == NSLOTS) {
		say(msg, len, "more than %d different filters in one process", NSLOTS);
		return NULL;
	}
	struct slot *s = &slots[nslots++];
	memset(s, 0, sizeof *s);
	s->id = id;
	s->name = name;
	return s;
}

static int own(int id, const char *name, vox_decoder dec, char *msg, size_t len) {
	struct slot *s = new_slot(id, name, msg, len);
	if (s == NULL) return -1;
	s->dec = dec;
	if (id < H5Z_FILTER_RESERVED && h5z_find != NULL) { // keep libhdf5's encoder
		H5Z_class2_t *c = h5z_find(id);
		if (c != NULL) s->orig = *c, s->has_orig = 1;
	}
	if (install(s, msg, len) < 0) {
		nslots--;
		return -1;
	}
	return 0;
}

// wrap_builtin guards a filter built into libhdf5.
static void wrap_builtin(int id, const char *name) {
	char msg[VOX_MSG];
	if (h5z_find == NULL || H5Zfilter_avail(id) <= 0) return;
	H5Z_class2_t *c = h5z_find(id);
	if (c == NULL) return;
	struct slot *s = new_slot(id, name, msg, sizeof msg);
	if (s == NULL) return;
	s->orig = *c;
	s->has_orig = 1;
	if (install(s, msg, sizeof msg) < 0) nslots--;
}

int vox_init(char *msg, size_t len) {
	h5z_register = (register_fn)dlsym(RTLD_DEFAULT, "H5Z_register");
	h5z_find = (find_fn)dlsym(RTLD_DEFAULT, "H5Z_find");
	H5open();
	if (own(H5Z_FILTER_DEFLATE, "gzip", vox_dec_gzip, msg, len) < 0) return -1;
	wrap_builtin(H5Z_FILTER_SHUFFLE, "shuffle");
	wrap_builtin(H5Z_FILTER_FLETCHER32, "fletcher32");
	wrap_builtin(H5Z_FILTER_SZIP, "szip");
	wrap_builtin(H5Z_FILTER_NBIT, "nbit");
	wrap_builtin(H5Z_FILTER_SCALEOFFSET, "scaleoffset");
	if (own(307, "bzip2", vox_dec_bzip2, msg, len) < 0) return -1;
	if (own(32000, "lzf", vox_dec_lzf, msg, len) < 0) return -1;
	if (own(32001, "blosc", vox_dec_blosc, msg, len) < 0) return -1;
	if (own(32004, "lz4", vox_dec_lz4, msg, len) < 0) return -1;
	if (own(32008, "bitshuffle", vox_dec_bitshuffle, msg, len) < 0) return -1;
	if (own(32015, "zstd", vox_dec_zstd, msg, len) < 0) return -1;
	return 0;
}

typedef H5PL_type_t (*plugin_type_fn)(void);
typedef const void *(*plugin_info_fn)(void);

// find_plugin looks for the plugin of filter id in the folders of
// libhdf5's plugin path, as libhdf5 does, and copies its class.
static int find_plugin(int id, H5Z_class2_t *dst) {
	unsigned int n = 0;
	if (H5PLsize(&n) < 0) return 0;
	for (unsigned int i = 0; i < n; i++) {
		char dir[4096];
		if (H5PLget(i, dir, sizeof dir) <= 0) continue;
		DIR *d = opendir(dir);
		if (d == NULL) continue;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			size_t l = strlen(e->d_name);
			if (l < 4 || strcmp(e->d_name + l - 3, ".so") != 0) continue;
			char p[8192];
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
			if (h == NULL) continue;
			plugin_type_fn type = (plugin_type_fn)dlsym(h, "H5PLget_plugin_type");
			plugin_info_fn info = (plugin_info_fn)dlsym(h, "H5PLget_plugin_info");
			const H5Z_class2_t *c = type && info && type() == H5PL_TYPE_FILTER ? info() : NULL;
			if (c != NULL && c->version == H5Z_CLASS_T_VERS && c->id == id && c->filter != NULL) {
				*dst = *c; // the plugin stays loaded
				closedir(d);
				return 1;
			}
			dlclose(h);
		}
		closedir(d);
	}
	return 0;
}

int vox_guard(int id, char *msg, size_t len) {
	if (find_slot(id) != NULL) return 0;
	if (id < H5Z_FILTER_RESERVED) {
		if (h5z_find == NULL)
			say(msg, len, "this libhdf5 does not export H5Z_find, so voxlab cannot check what its filter %d decodes", id);
		else
			say(msg, len, "filter %d is not one libhdf5 has", id);
		return -1;
	}
	H5Z_class2_t c;
	if (!find_plugin(id, &c)) {
		say(msg, len, "no plugin for filter %d in libhdf5's plugin path", id);
		return -2;
	}
	struct slot *s = new_slot(id, id == 32013 ? "zfp" : "plugin", msg, len);
	if (s == NULL) return -1;
	s->orig = c;
	s->has_orig = 1;
	if (install(s, msg, len) < 0) {
		nslots--;
		return -1;
	}
	return 0;
}

void vox_begin(const int *ids, int n, size_t chunk, size_t bound, size_t elem) {
	memset(&ctx, 0, sizeof ctx);
	ctx.active = 1;
	if (n > VOX_MAXF) n = VOX_MAXF;
	memcpy(ctx.ids, ids, sizeof(int) * (size_t)n);
	ctx.n = n;
	ctx.chunk = chunk;
	ctx.bound = bound;
	ctx.elem = elem;
}

int vox_end(char *msg, size_t len) {
	ctx.active = 0;
	if (ctx.failed) snprintf(msg, len, "%s", ctx.msg);
	return ctx.failed;
}

int vox_scan(hid_t ds, int rank, const hsize_t *start, const hsize_t *count, const hsize_t *cdim, int nfilters,
             size_t chunk, size_t maxstored, unsigned *mask, hsize_t *bad, char *msg, size_t len) {
	hsize_t lo[32], hi[32], at[32];
	if (rank <= 0 || rank > 32) return 0;
	for (int i = 0; i < rank; i++) {
		if (count[i] == 0) return 0;
		lo[i] = start[i] / cdim[i];
		hi[i] = (start[i] + count[i] - 1) / cdim[i];
		at[i] = lo[i];
	}
	unsigned all = nfilters >= 32 ? ~0u : (1u << nfilters) - 1;
	int seen = 0, mixed = 0;
	for (;;) {
		hsize_t off[32];
		for (int i = 0; i < rank; i++) off[i] = at[i] * cdim[i];
		unsigned m = 0;
		haddr_t addr = HADDR_UNDEF;
		hsize_t size = 0;
		if (H5Dget_chunk_info_by_coord(ds, off, &m, &addr, &size) < 0) {
			memcpy(bad, off, sizeof(hsize_t) * (size_t)rank);
			say(msg, len, "libhdf5 cannot find the chunk in the file's chunk index");
			return -1;
		}
		if (addr != HADDR_UNDEF) {
			if (size > maxstored) {
				memcpy(bad, off, sizeof(hsize_t) * (size_t)rank);
				say(msg, len, "stored in %llu bytes, more than the %zu a chunk of %zu bytes can take",
				    (unsigned long long)size, maxstored, chunk);
				return -1;
			}
			if ((m & all) == all && size != chunk) {
				memcpy(bad, off, sizeof(hsize_t) * (size_t)rank);
				say(msg, len, "stored unfiltered in %llu bytes, but the chunk holds %zu", (unsigned long long)size,
				    chunk);
				return -1;
			}
			if (!seen) *mask = m, seen = 1;
			else if (m != *mask) mixed = 1;
		}
		int i = rank - 1;
		while (i >= 0 && at[i] == hi[i]) at[i] = lo[i], i--;
		if (i < 0) break;
		at[i]++;
	}
	if (!seen) *mask = 0;
	return mixed;
}

struct stack {
	char *msg;
	size_t len, used;
	int n;
};

static herr_t walk(unsigned n, const H5E_error2_t *e, void *data) {
	(void)n;
	struct stack *s = data;
	if (e->desc == NULL || e->desc[0] == '\0' || s->n >= 6) return 0;
	if (strstr(s->msg, e->desc) != NULL) return 0; // said already
	int w = snprintf(s->msg + s->used, s->len - s->used, "%s%s", s->n ? "; " : "", e->desc);
	if (w > 0 && (size_t)w < s->len - s->used) s->used += (size_t)w, s->n++;
	return 0;
}

void vox_stack(char *msg, size_t len) {
	if (len == 0) return;
	msg[0] = '\0';
	struct stack s = {msg, len, 0, 0};
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &s);
}

int vox_read(hid_t ds, hid_t ms, hid_t fs, void *buf, char *msg, size_t len) {
	hid_t t = H5Dget_type(ds);
	if (t < 0) {
		vox_stack(msg, len);
		return -1;
	}
	herr_t r = H5Dread(ds, t, ms, fs, H5P_DEFAULT, buf);
	if (r < 0) vox_stack(msg, len);
	H5Tclose(t);
	return r < 0 ? -1 : 0;
}

int vox_read_box(hid_t ds, int rank, const hsize_t *off, const hsize_t *count, const hsize_t *mdims,
                 const hsize_t *moff, void *buf, char *msg, size_t len) {
	hid_t fs = H5Dget_space(ds), ms = -1;
	int r = -1;
	if (fs < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, count, NULL) < 0) {
		vox_stack(msg, len);
		goto done;
	}
	ms = H5Screate_simple(rank, mdims, NULL);
	if (ms < 0 || H5Sselect_hyperslab(ms, H5S_SELECT_SET, moff, NULL, count, NULL) < 0) {
		vox_stack(msg, len);
		goto done;
	}
	r = vox_read(ds, ms, fs, buf, msg, len);
done:
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	return r;
}

int vox_encoder(int id, char *msg, size_t len) {
	struct slot *s = find_slot(id);
	if (s == NULL) return vox_guard(id, msg, len);
	if (s->has_orig) return 0;
	// voxlab decodes this filter itself; writing it needs the plugin's
	// encoder and its set_local (Blosc's type size and chunk bytes).
	H5Z_class2_t c;
	if (!find_plugin(id, &c)) {
		say(msg, len, "no plugin for filter %d in libhdf5's plugin path", id);
		return -2;
	}
	s->orig = c;
	s->has_orig = 1;
	return install(s, msg, len);
}
