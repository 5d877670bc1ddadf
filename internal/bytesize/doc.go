// Package bytesize writes byte counts for people, in binary units with
// three significant digits ("1.5 GiB"). It is the one formatter of both
// the memory planner (plan.FormatBytes) and the job's terminal progress,
// which may not import the planner.
package bytesize
