// Package outfile writes outputs so that a failed or cancelled job leaves
// nothing behind: data go to a temporary file (or folder) beside the target,
// which is renamed into place only when the job commits.
//
// A result made of several files is committed with CommitAll: all of the
// targets are replaced, or none. An output folder is either filled into
// the target (CreateDir: files of other names stay) or replaced as a whole
// (ReplaceDir: nothing of an earlier run stays, and a folder holding files
// of anyone else's is refused rather than deleted).
package outfile
