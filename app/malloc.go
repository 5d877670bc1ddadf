package main

// glibc gives each thread that meets a locked arena one of its own (up
// to 8 per core), and an arena keeps what its thread freed. Go runs C
// calls (HDF5's reads and writes, FFTW's threads, the codecs) on
// whichever OS thread is free, so a run's few megabytes of C buffers
// were spread over several arenas, each holding its share after the
// free: a reconstruct run over a 512-row scan peaked at 172.7 MB
// resident with the default, 145.4 MB with one arena, at the same speed
// (29.2 s, 28.5 s). voxlab's C code allocates per chunk, not per voxel,
// so the one arena's lock is not contended. A MALLOC_ARENA_MAX the user
// set wins (glibc reads it before this runs).

// #include <malloc.h>
// #include <stdlib.h>
//
// __attribute__((constructor(102))) static void voxlabOneArena(void) {
// 	if (getenv("MALLOC_ARENA_MAX") == NULL) mallopt(M_ARENA_MAX, 1);
// }
import "C"
