// Package cluster runs voxlab pipelines on a SLURM cluster. A pipeline
// that splits into independent tasks (Task, Task.Range) is submitted as a
// job array, one array task per range, each running `voxlab PIPELINE …
// --task i/N`, plus a merge job that depends on the array and runs
// `voxlab merge PIPELINE …`. Each task hands its share to the merge in a
// part file (CreatePart, OpenPart) in the submission's shared folder
// (PartsDir), whose header names the run it belongs to, so a merge never
// joins parts of different runs, and whose CRC-32C checksum the merge
// checks before it writes anything, so it never joins a damaged one. The sbatch scripts quote every argument
// so a file name can never run anything (ShellQuote). Jobs are followed
// with squeue and with the progress files the tasks write (ProgressFile:
// JSON lines, one per event), because clusters without accounting storage
// have no sacct; Follow turns that into a local job's progress (the GUI's
// "Run on: SLURM cluster"); a failed task can be resubmitted alone.
package cluster
