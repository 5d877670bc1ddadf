//go:build cuda && linux

package gpu

// gorgonia.org/cu calls cuInit in its package initialiser and exits the
// process when that fails, so a CUDA build would die before main on a
// machine without a usable GPU. A C constructor runs before any Go
// initialiser (glibc runs the executable's init_array before main, and
// the Go runtime starts from main in a cgo binary), so it checks the
// driver first and, when there is no usable device:
//
//   - in voxlab-cuda, prints one line and execs the CPU build beside it
//     (voxlab next to voxlab-cuda; VOXLAB_CPU_BINARY overrides), passing
//     the reason in VOXLAB_CUDA_FALLBACK; with no CPU build it exits 1
//     with a message naming `make build`;
//   - in a test binary (argv[0] ends in ".test"), prints that the CUDA
//     tests cannot run here and exits 77. Not 0: the tests did not pass,
//     and go test, gpu-check.sh and CI must not count it as a pass. 77 is
//     the automake/meson code for "skipped", so scripts can tell "no
//     device" from a test failure (exit 1) and still fail on it.
//
// The binary links libcuda.so.1 (gorgonia.org/cu needs -lcuda), so where
// the driver library is missing altogether the dynamic loader refuses to
// start it before this code can run; dlopen here only makes the probe
// independent of how that link resolved.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int (*voxlab_cu_init_t)(unsigned int);
typedef int (*voxlab_cu_count_t)(int *);
typedef int (*voxlab_cu_err_t)(int, const char **);

// voxlab_probe_cuda returns 1 when the driver initialises and sees at
// least one device; otherwise 0, with the reason in reason.
static int voxlab_probe_cuda(char *reason, size_t n) {
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		snprintf(reason, n, "cannot load the NVIDIA driver library: %s", dlerror());
		return 0;
	}
	voxlab_cu_init_t init = (voxlab_cu_init_t)dlsym(h, "cuInit");
	voxlab_cu_count_t count = (voxlab_cu_count_t)dlsym(h, "cuDeviceGetCount");
	voxlab_cu_err_t ename = (voxlab_cu_err_t)dlsym(h, "cuGetErrorName");
	voxlab_cu_err_t estr = (voxlab_cu_err_t)dlsym(h, "cuGetErrorString");
	if (init == NULL || count == NULL) {
		snprintf(reason, n, "libcuda.so.1 lacks cuInit or cuDeviceGetCount");
		return 0;
	}
	int r = init(0);
	const char *name = "", *desc = "";
	if (r != 0) {
		if (ename == NULL || ename(r, &name) != 0 || name == NULL) name = "CUDA error";
		if (estr == NULL || estr(r, &desc) != 0 || desc == NULL) desc = "";
		snprintf(reason, n, "cuInit: %s (%d): %s", name, r, desc);
		return 0;
	}
	int devices = 0;
	r = count(&devices);
	if (r != 0) {
		if (ename == NULL || ename(r, &name) != 0 || name == NULL) name = "CUDA error";
		snprintf(reason, n, "cuDeviceGetCount: %s (%d)", name, r);
		return 0;
	}
	if (devices < 1) {
		snprintf(reason, n, "the driver reports no CUDA device");
		return 0;
	}
	return 1;
}

static int voxlab_ends_with(const char *s, const char *suffix) {
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

// voxlab_cpu_binary writes the CPU build's path to out: VOXLAB_CPU_BINARY,
// or the executable's own name without "-cuda" (else "voxlab") in its
// directory.
static void voxlab_cpu_binary(char *out, size_t n) {
	const char *env = getenv("VOXLAB_CPU_BINARY");
	if (env != NULL && env[0] != '\0') {
		snprintf(out, n, "%s", env);
		return;
	}
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0) {
		snprintf(out, n, "voxlab");
		return;
	}
	self[len] = '\0';
	char *slash = strrchr(self, '/');
	char *base = slash ? slash + 1 : self;
	char name[PATH_MAX];
	if (voxlab_ends_with(base, "-cuda") && strlen(base) > 5) {
		snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 5), base);
	} else {
		snprintf(name, sizeof name, "voxlab");
	}
	if (slash) {
		*slash = '\0';
		snprintf(out, n, "%s/%s", self, name);
	} else {
		snprintf(out, n, "%s", name);
	}
}

// voxlab_same_file reports whether path is this executable itself.
static int voxlab_same_file(const char *path) {
	struct stat a, b;
	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

__attribute__((constructor)) static void voxlab_cuda_preflight(int argc, char **argv, char **envp) {
	(void)envp;
	char reason[512];
	if (voxlab_probe_cuda(reason, sizeof reason)) {
		return;
	}
	const char *arg0 = (argc > 0 && argv != NULL && argv[0] != NULL) ? argv[0] : "voxlab-cuda";
	const char *slash = strrchr(arg0, '/');
	const char *self = slash ? slash + 1 : arg0;
	fflush(stdout);
	if (voxlab_ends_with(arg0, ".test")) {
		fprintf(stderr, "%s: no usable CUDA device: CUDA tests cannot run here (%s)\n", self, reason);
		_exit(77);
	}
	char cpu[PATH_MAX];
	voxlab_cpu_binary(cpu, sizeof cpu);
	const char *prior = getenv("VOXLAB_CUDA_FALLBACK");
	if (prior != NULL && prior[0] != '\0') {
		fprintf(stderr, "%s: no usable CUDA device (%s), and %s was already handed over to from a CUDA build: not handing over again; set VOXLAB_CPU_BINARY to the CPU build (`make build` makes bin/voxlab)\n", self, reason, cpu);
		_exit(1);
	}
	if (access(cpu, X_OK) != 0 || voxlab_same_file(cpu)) {
		fprintf(stderr, "%s: no usable CUDA device (%s), and no CPU build of voxlab at %s to run instead: build it with `make build` (or set VOXLAB_CPU_BINARY), or run %s on a machine with an NVIDIA GPU\n", self, reason, cpu, self);
		_exit(1);
	}
	fprintf(stderr, "%s: no usable CUDA device (%s); running the CPU build %s instead\n", self, reason, cpu);
	setenv("VOXLAB_CUDA_FALLBACK", reason, 1);
	if (argc > 0 && argv != NULL) {
		argv[0] = cpu;
		execv(cpu, argv);
	} else {
		char *args[] = {cpu, NULL};
		execv(cpu, args);
	}
	fprintf(stderr, "%s: cannot run the CPU build %s: %s\n", self, cpu, strerror(errno));
	_exit(1);
}
*/
import "C"
