// Package outfile writes outputs so that a failed or cancelled job leaves
// nothing behind: data go to a temporary file (or folder) beside the target,
// which is renamed into place only when the job commits.
package outfile
