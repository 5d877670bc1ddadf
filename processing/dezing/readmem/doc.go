// Package readmem holds the tests of dezinging over compressed, chunked
// inputs read through the real HDF5 and Zarr readers: the plan counts the
// readers' decode buffers and caches, and a tracking allocator holds the
// run's peak against it. They live apart from package dezing, whose tests
// write through in-memory containers that the real formats' registration
// would shadow.
package readmem
