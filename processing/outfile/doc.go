// Package outfile writes outputs so that a failed or cancelled job leaves
// nothing behind: data go to a temporary file (or folder) beside the target,
// which is renamed into place only when the job commits.
//
// A result made of several files is committed with CommitAll: all of the
// targets are replaced, or none. An output folder is either filled into
// the target (CreateDir: files of other names stay) or replaced as a whole
// (ReplaceDir: nothing of an earlier run stays, and a folder holding files
// of anyone else's is refused rather than deleted); the replacement is an
// atomic exchange where the file system has one, so the target's name
// holds the old folder or the new one at every instant.
//
// A process killed outright (kill -9, a power cut) cannot clean up: its
// temporaries are named after it (pid, start time, host) so that the next
// writer of the same target (Recover, which Create, CreateDir, ReplaceDir
// and NewTemp call) removes those whose process has ended, and puts back
// a previous output that a crash between two renames left aside, while
// leaving alone those of a process that still runs.
package outfile
