// Package job runs pipelines in the background: each job is a goroutine
// under a context.Context that reports progress events (stage, done/total,
// bytes moved to and from the device, throughput, ETA, partial results and
// warnings) to sinks, stops within one block when cancelled and returns its
// error once. The same events drive the GUI's progress bars (through
// Throttle, at most 20 updates a second) and the headless commands'
// TerminalSink; a Queue runs the GUI's jobs one at a time per device.
package job
