// Package job runs pipelines in the background: each job is a goroutine
// under a context.Context that reports progress events (stage, done/total,
// bytes moved to and from the device, throughput, ETA, partial results and
// warnings) to sinks, stops within a second when cancelled (the CPU
// kernels check between rows: gpu.Bind) and returns its error once; a
// block in progress is reported with Progress.Partway. The same events drive the GUI's progress bars (through
// Throttle, at most 20 updates a second) and the headless commands'
// TerminalSink; a Queue runs the GUI's jobs one at a time per device.
package job
