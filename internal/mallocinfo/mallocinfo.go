package mallocinfo

// #include <malloc.h>
// #include <stdio.h>
// #include <stdlib.h>
// #include <string.h>
//
// // arenas counts the arenas malloc_info reports.
// static int arenas(void) {
// 	char *buf = NULL; size_t len = 0;
// 	FILE *f = open_memstream(&buf, &len);
// 	if (f == NULL) return -1;
// 	malloc_info(0, f);
// 	fclose(f);
// 	int n = 0;
// 	for (char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++) n++;
// 	free(buf);
// 	return n;
// }
//
// static void churn(void) {
// 	for (int i = 0; i < 64; i++) free(malloc(1 << 16));
// }
import "C"

// Arenas is the number of glibc malloc arenas in use (−1 when
// malloc_info cannot be read).
func Arenas() int { return int(C.arenas()) }

// Churn allocates and frees 64 blocks of 64 KiB of C memory on the
// calling thread.
func Churn() { C.churn() }
