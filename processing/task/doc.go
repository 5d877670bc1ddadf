// Package task holds Task, one of the independent parts a pipeline's run
// is split into (index of count), and how a task's share of the units is
// chosen. It is a leaf: the pipelines split and merge by it without
// knowing how the parts are run (processing/cluster submits them to
// SLURM).
package task
